package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/internal/doctest"
	"github.com/zerogames/zero/internal/games/all"
	"github.com/zerogames/zero/internal/testgames"
	"github.com/zerogames/zero/internal/ui"
	"github.com/zerogames/zero/selfplay"
)

// The proof of docs/NEW_GAME.md: tic-tac-toe (internal/testgames), added to the registries
// with the line the page adds to internal/games/all, is listed, counted by perft, trains from
// its preset, and plays in zero engine and zero play, all through zero's own commands. The
// game is not in the binary's list, so zero runs with it in a child process of its own (the
// test binary again, told so by newGameEnv): no other test sees it.

// newGameEnv, set in a child's environment, makes the test binary zero with tic-tac-toe.
const newGameEnv = "ZERO_TEST_NEW_GAME"

func TestMain(m *testing.M) {
	if os.Getenv(newGameEnv) != "" {
		os.Exit(zeroWithTicTacToe(os.Args[1:]))
	}
	// The games, as zero's main registers them: a test that looks one up before any command
	// ran (TestModelsAnywhere, run alone) finds it.
	all.Register()
	os.Exit(m.Run())
}

// zeroWithTicTacToe is zero with tic-tac-toe added after the binary's games, by the list's
// own registration line, all.Add.
func zeroWithTicTacToe(args []string) int {
	all.Register()
	all.Add[testgames.Board](testgames.TicTacToe)
	// An interrupt stops the work cleanly, as zero's main has it (TestDistributed stops its
	// workers and trainer so).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, args, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "zero:", err)
		return 1
	}
	return 0
}

// zeroTicTacToe runs zero with tic-tac-toe, in dir, on stdin; it returns the standard output
// and fails the test if zero fails.
func zeroTicTacToe(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(os.Environ(), newGameEnv+"=1")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("zero %s: %v\nstderr:\n%s\nstdout:\n%s", strings.Join(args, " "), err, stderr.String(), stdout.String())
	}
	return stdout.String()
}

// TestNewGame: a game registered with one line trains a few steps and plays.
func TestNewGame(t *testing.T) {
	dir := t.TempDir()
	runDir := filepath.Join(dir, "run")
	checkpoint := filepath.Join(runDir, "checkpoints", "step-00000020.zck")
	agent := "mcts:32:" + checkpoint

	t.Run("listed", func(t *testing.T) {
		out := zeroTicTacToe(t, dir, "", "games")
		if !strings.HasSuffix(out, "imbriqua\tlight vs dark\tmodel models/imbriqua.zck\ntictactoe\tx vs o\tno shipped model\n") {
			t.Fatalf("zero games does not end with tic-tac-toe, after the binary's games:\n%s", out)
		}
	})

	t.Run("perft", func(t *testing.T) {
		out := zeroTicTacToe(t, dir, "", "perft", "--game", "tictactoe", "--depth", "9")
		// Games after each number of moves (those won earlier end there): 9·8·7·6·5 after
		// five, less the 1440 won with the fifth move, times 4 after six, and so on.
		for depth, leaves := range []uint64{9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872} {
			if !regexp.MustCompile(fmt.Sprintf(`(?m)^ +%d +%d `, depth+1, leaves)).MatchString(out) {
				t.Errorf("perft at depth %d is not %d:\n%s", depth+1, leaves, out)
			}
		}
	})

	// From configs/tictactoe.yaml, as zero train --game finds it, for this session's 20 steps.
	if !t.Run("train", func(t *testing.T) {
		out := zeroTicTacToe(t, dir, "", "train", "--game", "tictactoe", "--run", runDir, "--steps", "20", "--log", "1h")
		for _, want := range []string{"session 1 of tictactoe, step 0", "stopped at step 20"} {
			if !strings.Contains(out, want) {
				t.Errorf("zero train's output lacks %q:\n%s", want, out)
			}
		}
		out = zeroTicTacToe(t, dir, "", "net", "info", checkpoint)
		for _, want := range []string{"game         tictactoe (rules revision 1, encoding 1)",
			"policy spatial, 1 plane + 0 off the grid", "net          2 blocks × 32 channels", "step         20"} {
			if !strings.Contains(out, want) {
				t.Errorf("zero net info's output lacks %q:\n%s", want, out)
			}
		}
	}) {
		return // no checkpoint to play
	}

	t.Run("engine", func(t *testing.T) {
		// Each command and the pattern of its reply (without its closing empty line).
		exchanges := []struct{ command, reply string }{
			{"game", "= tictactoe"},
			{"player " + agent, "="},
			{"player", "= " + regexp.QuoteMeta(agent)},
			{"legal", "=\na1\na2\na3\nb1\nb2\nb3\nc1\nc2\nc3"},
			{"play b2", "="},
			{"play b2", "\\? b2: illegal in this position"},
			{"tomove", "= o"},
			{"genmove", "= (a1|a2|a3|b1|b3|c1|c2|c3)"},
			{"go visits 32", "=(\n[abc][123] share=[0-9.]+ win=([0-9.]+|-))+"},
			{"position a1;b1;a2;b2;a3", "="},
			{"show", "=\nX\\.\\.\nXO\\.\nXO\\.\nx wins"},
			{"result", "= x"},
			{"tomove", "= none"},
			{"genmove", "\\? .*"},
			{"undo", "="},
			{"tomove", "= x"},
			{"quit", "="},
		}
		var in strings.Builder
		for _, e := range exchanges {
			in.WriteString(e.command + "\n")
		}
		out := zeroTicTacToe(t, dir, in.String(), "engine", "--game", "tictactoe")
		replies := strings.Split(strings.TrimSuffix(out, "\n\n"), "\n\n")
		if len(replies) != len(exchanges) {
			t.Fatalf("%d replies to %d commands:\n%s", len(replies), len(exchanges), out)
		}
		for i, e := range exchanges {
			if !regexp.MustCompile("^(?:" + e.reply + ")$").MatchString(replies[i]) {
				t.Errorf("%s: replied %q, want %q", e.command, replies[i], e.reply)
			}
		}
	})

	t.Run("play", func(t *testing.T) {
		// The person tries every cell in order, so plays the first empty one each turn (the
		// taken ones are refused), and the game ends within the nine.
		record := filepath.Join(dir, "game.json")
		out := zeroTicTacToe(t, dir, "a1\nb1\nc1\na2\nb2\nc2\na3\nb3\nc3\n",
			"play", "--game", "tictactoe", "--opponent", agent, "--as", "x", "--seed", "3", "--record", record)
		data, err := os.ReadFile(record)
		if err != nil {
			t.Fatalf("the finished game was not saved: %v\n%s", err, out)
		}
		var r struct { // the game-file layout (selfplay.Record.MarshalFile)
			Format, Game, Result string
			Players              map[string]string
			Moves                []string
		}
		if err := json.Unmarshal(data, &r); err != nil || r.Format != selfplay.RecordFormat {
			t.Fatal(err)
		}
		end, _, err := env.Replay(testgames.TicTacToe, strings.Join(r.Moves, ";"))
		if err != nil || end.ToMove() != env.Terminal {
			t.Fatalf("the record's moves %v are not a finished game (%v)", r.Moves, err)
		}
		result := testgames.TicTacToe.Info().ResultName(end.Result())
		said := map[string]string{"x": "You win (x).", "o": "o wins.", "draw": "The game is a draw."}[result]
		if r.Game != "tictactoe" || r.Players["x"] != ui.Human || r.Players["o"] != agent || r.Result != result {
			t.Errorf("record %+v, want tic-tac-toe, the person x against %s, result %s", r, agent, result)
		}
		for _, want := range []string{"tictactoe: you play x against " + agent, "...\n...\n...\nx to play\nx> ",
			"o (" + agent + ") plays ", end.String(), said, "The game is saved in " + record} {
			if !strings.Contains(out, want) {
				t.Errorf("zero play's output lacks %q:\n%s", want, out)
			}
		}
	})
}

// TestNewGameDoc keeps docs/NEW_GAME.md true: each code block marked with a file (```go PATH)
// is in that file as written, and each session (a block starting with `$ zero engine` or
// `$ zero play`) is what zero with tic-tac-toe answers to its input.
func TestNewGameDoc(t *testing.T) {
	blocks, err := doctest.Blocks("../../docs/NEW_GAME.md", "docs/NEW_GAME.md")
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, b := range blocks {
		block, where := b.Lines, b.Where
		switch kind := b.Kind(); {
		case kind == "go" || kind == "yaml":
			if err := b.Quoted("../.."); err != nil {
				t.Error(err)
			}
			counts["file"]++
		case kind == "sh": // commands TestNewGame runs
		case b.Info == "" && len(block) > 0 && strings.HasPrefix(block[0], "$ zero engine "):
			stdin, want := engineTranscript(block[1:])
			got := zeroTicTacToe(t, t.TempDir(), stdin, strings.Fields(block[0])[2:]...)
			if got != want {
				t.Errorf("%s: zero engine answers\n%s\nwant (the doc)\n%s", where, got, want)
			}
			counts["engine"]++
		case b.Info == "" && len(block) > 0 && strings.HasPrefix(block[0], "$ zero play "):
			stdin, want := playTranscript(block[1:])
			got := zeroTicTacToe(t, t.TempDir(), stdin, strings.Fields(block[0])[2:]...)
			if got != want {
				t.Errorf("%s: zero play shows\n%s\nwant (the doc)\n%s", where, got, want)
			}
			counts["play"]++
		default:
			t.Errorf("%s: a block of unknown kind %q: mark it with the file it copies, or make it a session", where, b.Info)
		}
	}
	if counts["file"] < 10 || counts["engine"] != 1 || counts["play"] != 1 {
		t.Errorf("checked %v: the page lost blocks, or this test lost track of them", counts)
	}
}

// engineTranscript splits an engine session as ENGINE.md writes it into the input and the
// replies: a reply starts with = or ? and ends with an empty line.
func engineTranscript(lines []string) (stdin, replies string) {
	var in, out strings.Builder
	reply := false
	for _, line := range lines {
		if !reply && (strings.HasPrefix(line, "=") || strings.HasPrefix(line, "?")) {
			reply = true
		}
		if reply {
			out.WriteString(line + "\n")
			reply = line != ""
		} else {
			in.WriteString(line + "\n")
		}
	}
	return in.String(), out.String()
}

// playTranscript splits a terminal session into what the person types, shown after a prompt
// as a terminal echoes it, and what zero play writes, where the typed line is not.
func playTranscript(lines []string) (stdin, screen string) {
	prompt := regexp.MustCompile(`^((?:x|o|\(game over\))> )(.+)$`)
	var in, out strings.Builder
	for _, line := range lines {
		if m := prompt.FindStringSubmatch(line); m != nil {
			in.WriteString(m[2] + "\n")
			out.WriteString(m[1])
			continue
		}
		out.WriteString(line + "\n")
	}
	return in.String(), out.String()
}
