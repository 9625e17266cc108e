package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zerogames/zero/internal/games"
)

// TestSearchCommands: zero arena, and the engine's player flags.
func TestSearchCommands(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "kept"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		wantOut []string
		wantErr string
	}{
		{"a small round robin", []string{"arena", "--game", "yinsh-blitz", "--players", "random, uct:20", "--games", "2", "--out", filepath.Join(dir, "a")},
			[]string{"game 2/2", "yinsh-blitz: 2 games, 2 per pair", "random = 0", "uct:20", "random vs uct:20", "written to " + filepath.Join(dir, "a")}, ""},
		{"a random opening", []string{"arena", "--players", "random,uct:5", "--games", "2", "--opening", "4", "--out", filepath.Join(dir, "b")},
			[]string{"yinsh: 2 games"}, ""}, // the default game
		{"a negative opening", []string{"arena", "--players", "random,uct:5", "--opening", "-1", "--out", filepath.Join(dir, "c")}, nil, "--opening -1: want 0 to 1000 random decisions"},
		{"too long an opening", []string{"arena", "--players", "random,uct:5", "--opening", "1001", "--out", filepath.Join(dir, "c")}, nil, "--opening 1001: want 0 to 1000 random decisions"},
		{"one player", []string{"arena", "--players", "random"}, nil, "at least two players"},
		{"negative workers", []string{"arena", "--players", "random,uct:5", "--workers", "-3"}, nil, "--workers -3: want 0 (one per core) to 256"},
		{"too many workers", []string{"arena", "--players", "random,uct:5", "--workers", "1000000"}, nil, "--workers 1000000: want 0 (one per core) to 256"},
		{"a bad player", []string{"arena", "--players", "random,uct:lots"}, nil, `player "uct:lots"`},
		{"no games", []string{"arena", "--players", "random,uct:5", "--games", "0"}, nil, "--games 0: want 1 to 100000"},
		{"too many games", []string{"arena", "--players", "random,uct:5", "--games", "1000000000"}, nil, "--games 1000000000: want 1 to 100000"},
		{"too many games in all", []string{"arena", "--players", "random,uct:1,uct:2,uct:3,uct:4,uct:5,uct:6,uct:7,uct:8,uct:9,uct:10,uct:11,uct:12,uct:13,uct:14,uct:15", "--games", "10000"}, nil, "16 players, 10000 games per pair: 1200000 games, more than the 1000000 an arena plays"},
		{"a player searching too much", []string{"arena", "--players", "random,uct:2000000000"}, nil, `player "uct:2000000000": the number of simulations "2000000000" is not a whole number from 1 to 1000000000`},
		{"an unknown game", []string{"arena", "--game", "go", "--players", "random,uct:5"}, nil, `--game: unknown game "go"`},
		{"a network player without its checkpoint", []string{"arena", "--players", "random,mcts:5:a.zero"}, nil, "checkpoint a.zero"},
		{"a refused player in a new --out", []string{"arena", "--players", "random,mcts:5:a.zero", "--out", filepath.Join(dir, "refused", "new")}, nil, "checkpoint a.zero"},
		{"a refused player in an existing --out", []string{"arena", "--players", "random,mcts:5:a.zero", "--out", filepath.Join(dir, "kept")}, nil, "checkpoint a.zero"},
		{"engine with a bad player", []string{"engine", "--player", "uct:x"}, nil, `--player: player "uct:x"`},
		{"engine with a player", []string{"engine", "--game", "yinsh-blitz", "--player", "random", "--seed", "3"}, nil, ""},
		{"an anchor that does not play", []string{"arena", "--players", "random,uct:5", "--anchor", "uct:6"}, nil, "anchor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			err := run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr)
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
	for _, f := range []string{"ratings.json", "games.jsonl", "games.sgf"} {
		if _, err := os.Stat(filepath.Join(dir, "a", f)); err != nil {
			t.Error(err)
		}
	}
	// games.sgf holds the games of games.jsonl.
	lines, err := os.ReadFile(filepath.Join(dir, "a", "games.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sgfText, err := os.ReadFile(filepath.Join(dir, "a", "games.sgf"))
	if err != nil {
		t.Fatal(err)
	}
	fromLines, err := games.ReadRecords(bytes.NewReader(lines))
	if err != nil {
		t.Fatal(err)
	}
	fromSGF, err := games.ReadRecords(bytes.NewReader(sgfText))
	if err != nil || len(fromSGF) != len(fromLines) || len(fromLines) == 0 {
		t.Fatalf("games.sgf: %d games, %v; games.jsonl %d", len(fromSGF), err, len(fromLines))
	}
	for i := range fromLines {
		a, b := fromLines[i], fromSGF[i]
		if a.MoveList() != b.MoveList() || a.Players != b.Players || a.Result != b.Result || a.Resigned != b.Resigned {
			t.Errorf("game %d: games.sgf %+v, games.jsonl %+v", i+1, b, a)
		}
	}
	// An arena that plays nothing leaves no empty --out folder of its own making, and keeps
	// one that was there.
	if _, err := os.Stat(filepath.Join(dir, "refused", "new")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused arena's new --out folder: %v, want it removed", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "kept")); err != nil {
		t.Errorf("a refused arena's existing --out folder: %v", err)
	}
}

// TestFreshDir: arenas started in the same second (the default folder is named to the second)
// each get a folder of their own, never one another's.
func TestFreshDir(t *testing.T) {
	base := filepath.Join(t.TempDir(), "arena", "yinsh-blitz-20261122-033634")
	want := []string{base, base + "-2", base + "-3"}
	for _, w := range want {
		got, err := freshDir(base)
		if err != nil || got != w {
			t.Fatalf("freshDir = %q, %v; want %q", got, err, w)
		}
		if fi, err := os.Stat(got); err != nil || !fi.IsDir() {
			t.Fatalf("%s not made: %v", got, err)
		}
	}
	if _, err := freshDir(filepath.Join(base, "x", "\x00")); err == nil {
		t.Error("a folder that cannot be made gave no error")
	}
}

// flagGiven tells a flag set on the command line from one left at its default, whatever the
// value (the arena's default players take --opening 4 only when it is not given).
func TestFlagGiven(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"--opening", "0"}, true},
		{[]string{"--opening", "1"}, true},
		{[]string{"--games", "1"}, false},
	} {
		fs := flag.NewFlagSet("zero arena", flag.ContinueOnError)
		fs.Int("opening", 0, "")
		fs.Int("games", 40, "")
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		if got := flagGiven(fs, "opening"); got != tt.want {
			t.Errorf("%q: flagGiven(opening) = %v, want %v", tt.args, got, tt.want)
		}
	}
}
