package main

import (
	"context"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		stdin   string
		wantOut []string // parts of stdout
		wantErr string   // part of the error, "" for success
	}{
		{"no arguments: the usage, and an error", nil, "", nil, "usage"},
		{"help", []string{"help"}, "", []string{"usage: zero COMMAND", "perft", "engine", "bench selfplay"}, ""},
		{"help for a command", []string{"help", "perft"}, "", []string{"usage: zero perft [flags]\n\ncount the positions", "\nflags:\n", "-depth"}, ""},
		{"help for an action", []string{"help", "bench", "selfplay"}, "", []string{"usage: zero bench selfplay [flags]", "-checkpoint"}, ""},
		{"help for replay dump", []string{"help", "replay", "dump"}, "", []string{"usage: zero replay dump --run DIR [flags]", "-last N", "-out FILE"}, ""},
		{"help help: the usage, not a stack overflow", []string{"help", "help"}, "", []string{"usage: zero COMMAND"}, ""},
		{"-h -h", []string{"-h", "-h"}, "", []string{"usage: zero COMMAND"}, ""},
		{"help of a command with a word it does not take", []string{"help", "games", "extra"}, "", nil, `unexpected argument "extra": the command takes none`},
		{"--help help perft", []string{"--help", "help", "perft"}, "", []string{"usage: zero perft [flags]"}, ""},
		{"replay without an action", []string{"replay"}, "", nil, "replay: say what to do: dump"},
		{"net info -h", []string{"net", "info", "-h"}, "", []string{"usage: zero net info CHECKPOINT\n\ncheck a checkpoint"}, ""},
		{"net without an action", []string{"net"}, "", nil, "net: give an action"},
		{"train's optional flags show no sentinel", []string{"help", "train"}, "", []string{"-steps N\n", "-time duration\n"}, ""},
		{"a bad optional flag", []string{"train", "--time", "soon"}, "", nil, "usage"},
		{"a negative session", []string{"train", "--for", "-1h"}, "", nil, "--for -1h0m0s: want a duration ≥ 0 (0: until the run stops)"},
		{"a zero log period", []string{"train", "--log", "0s"}, "", nil, "--log 0s: want a duration > 0"},
		{"a worker's zero log period", []string{"worker", "--log", "0s", "--connect", "nats://127.0.0.1:1"}, "", nil, "--log 0s: want a duration > 0"},
		{"a negative bench time", []string{"bench", "net", "--time", "-1s"}, "", nil, "--time -1s: want a duration > 0"},
		{"unknown command", []string{"frobnicate"}, "", nil, `unknown command "frobnicate"`},
		{"games", []string{"games"}, "", []string{"yinsh\twhite vs black\tmodel models/yinsh.zck\n", "yinsh-blitz\twhite vs black\tmodel models/yinsh-blitz.zck\n", "gyges-advanced\tsouth vs north\tmodel models/gyges-advanced.zck\n"}, ""},
		{"perft from the start", []string{"perft", "--depth", "3"}, "",
			[]string{"perft yinsh after 0 moves, white to move; every node made", "    1              85", "    2            7140", "    3          592620"}, ""},
		{"perft bulk, after moves, divide", []string{"perft", "--game", "yinsh-blitz", "--moves", "place f6;place e5", "--depth", "2", "--bulk", "--divide"}, "",
			[]string{"after 2 moves", "last ply bulk-counted", "    2            6806", "place a2: 82"}, ""},
		{"perft of gyges from a position", []string{"perft", "--game", "gyges", "--position", "202110/000330/000000/000200/000100/030123 s", "--depth", "2"}, "",
			[]string{"perft gyges from 202110/000330/000000/000200/000100/030123 s after 0 moves, south to move; every node made", "    1              56", "    2            3287"}, ""},
		{"perft of gyges-advanced from a position, bulk", []string{"perft", "--game", "gyges-advanced", "--position", "321123/000000/000000/000000/000000/321123 s", "--moves", "c1-c2", "--depth", "2", "--bulk"}, "",
			[]string{"after 1 moves, north to move; last ply bulk-counted"}, ""},
		{"perft with a bad position", []string{"perft", "--game", "gyges", "--position", "321123 s"}, "", nil, `--position: position "321123 s": 1 rows`},
		{"perft of yinsh from a position", []string{"perft", "--position", "x"}, "", nil, "--position: yinsh has no position notation"},
		{"perft with an illegal move", []string{"perft", "--moves", "place f6;place f6"}, "", nil, `--moves: move 2: place f6: the point is taken`},
		{"perft with a bad depth", []string{"perft", "--depth", "0"}, "", nil, "--depth 0: want 1 to 64"},
		{"perft of an unknown game", []string{"perft", "--game", "go"}, "", nil, `--game: unknown game "go"`},
		{"a stray argument", []string{"perft", "extra"}, "", nil, `unexpected argument "extra"`},
		{"a bad flag", []string{"perft", "--nope"}, "", nil, "usage"},
		{"report without a run", []string{"report"}, "", nil, "--run: give the run folder"},
		{"report of a folder that is not a run", []string{"report", "--run", "/nonexistent/run"}, "", nil, "/nonexistent/run: not a run folder"},
		{"play: a move, a mistake, quit", []string{"play", "--game", "yinsh-blitz", "--opponent", "random", "--seed", "1", "--record", "-"},
			"place f6\nplace f6\n?\nquit\n", []string{"yinsh-blitz: you play white against random", "black (random) plays place ",
				"? place f6: the point is taken", "83 legal moves:"}, ""},
		{"play as a side the game does not have", []string{"play", "--as", "red"}, "", nil, `unknown side "red"`},
		{"play against an unknown agent", []string{"play", "--opponent", "alphabeta"}, "", nil, `player "alphabeta": unknown kind "alphabeta"`},
		{"play a missing record", []string{"play", "--load", "/nonexistent/game.json"}, "", nil, "/nonexistent/game.json"},
		{"analysis", []string{"analysis", "--game", "gyges", "--player", "uct:20"}, `{"id":"x","moves":["1@a1"]}` + "\n" + `{"id":"y","game":"yinsh","player":"random"}` + "\n",
			[]string{`{"id":"x","turnNumber":1,"game":"gyges","toMove":"north","rootInfo":{"visits":20,`, `{"id":"y","turnNumber":0,"game":"yinsh","toMove":"white","rootInfo":{"visits":0,"value":null`}, ""},
		{"analysis with the shipped model by default", []string{"analysis", "--game", "imbriqua"}, `{"id":"z","maxVisits":3}` + "\n",
			[]string{`{"id":"z","turnNumber":0,"game":"imbriqua"`, `"visits":3,`}, ""},
		{"analysis, a bad player", []string{"analysis", "--player", "uct:x"}, "", nil, `--player: player "uct:x"`},
		{"analysis, bad workers", []string{"analysis", "--workers", "0"}, "", nil, "--workers 0: want 1 to 256"},
		{"engine", []string{"engine", "--game", "yinsh-blitz"}, "game\nplay place f6\ntomove\nquit\n",
			[]string{"= yinsh-blitz\n\n=\n\n= black\n\n=\n\n"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			err := run(context.Background(), tt.args, strings.NewReader(tt.stdin), &stdout, &stderr)
			if strings.Contains(stdout.String()+stderr.String(), "(default -1") {
				t.Errorf("a sentinel default shows:\n%s%s", stdout.String(), stderr.String())
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("error %v\nstderr: %s", err, stderr.String())
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
			for _, part := range tt.wantOut {
				if !strings.Contains(stdout.String(), part) {
					t.Errorf("stdout lacks %q:\n%s", part, stdout.String())
				}
			}
		})
	}
}

// A command's -h prints its usage once, on stdout; a bad flag prints it once, on stderr.
func TestUsageOnce(t *testing.T) {
	for _, tc := range []struct {
		args           []string
		onOut, onErr   int
		wantErrWritten string
	}{
		{[]string{"play", "--help"}, 1, 0, ""},
		{[]string{"play", "--bogus"}, 0, 1, "flag provided but not defined: -bogus"},
		{[]string{"bench", "selfplay", "--help"}, 0, 0, ""},
		{[]string{"net", "init", "--bogus"}, 0, 0, "flag provided but not defined: -bogus"},
	} {
		var stdout, stderr strings.Builder
		run(context.Background(), tc.args, strings.NewReader(""), &stdout, &stderr)
		// Nested actions (bench selfplay, net init) print their usage, in the same format, once.
		if tc.args[0] != "play" {
			usage := "usage: zero " + tc.args[0] + " " + tc.args[1] + " [flags]"
			where, other := &stdout, &stderr
			if tc.wantErrWritten != "" {
				where, other = &stderr, &stdout
			}
			if strings.Count(where.String(), usage) != 1 || other.Len() != 0 || !strings.Contains(where.String(), tc.wantErrWritten) {
				t.Errorf("%v: stdout %q, stderr %q", tc.args, stdout.String(), stderr.String())
			}
			continue
		}
		if n := strings.Count(stdout.String(), "usage: zero play"); n != tc.onOut {
			t.Errorf("%v: usage %d times on stdout, want %d", tc.args, n, tc.onOut)
		}
		if n := strings.Count(stderr.String(), "usage: zero play"); n != tc.onErr || !strings.Contains(stderr.String(), tc.wantErrWritten) {
			t.Errorf("%v: usage %d times on stderr, want %d:\n%s", tc.args, n, tc.onErr, stderr.String())
		}
	}
}

// TestHelpFormat: every command's usage has the one format, a "flags:" section only when it has
// flags, and the same default game wherever it has one.
func TestHelpFormat(t *testing.T) {
	for _, c := range append(subcommands(), subcommand{name: "bench net"}, subcommand{name: "bench selfplay"}, subcommand{name: "net init"}, subcommand{name: "replay dump"}, subcommand{name: "replay check"}, subcommand{name: "replay repair"}) {
		var stdout, stderr strings.Builder
		if err := run(context.Background(), append(strings.Fields(c.name), "-h"), strings.NewReader(""), &stdout, &stderr); err != nil {
			t.Errorf("%s -h: %v", c.name, err)
		}
		help := stdout.String()
		if !strings.HasPrefix(help, "usage: zero "+c.name) || stderr.Len() != 0 {
			t.Errorf("%s -h: stdout %q, stderr %q", c.name, help, stderr.String())
		}
		if strings.HasSuffix(help, "flags:\n") {
			t.Errorf("%s -h: an empty flags section:\n%s", c.name, help)
		}
		if i := strings.Index(help, "  -game string\n"); i >= 0 && c.name != "train" {
			if line, _, _ := strings.Cut(help[i:], ")\n"); !strings.HasSuffix(line, `(default "`+defaultGame+`"`) {
				t.Errorf("%s: --game's default is not %s: %s", c.name, defaultGame, line)
			}
		}
	}
}
