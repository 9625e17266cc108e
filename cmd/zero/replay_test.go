package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/train/replay"
)

// TestReplayDump holds `zero replay dump` to its round trip: a tiny run's shards, dumped as
// game lines, read back by the records' reader (every move replayed through the rules) and
// by `zero play --load FILE#N`, give the games the shards hold, move for move.
func TestReplayDump(t *testing.T) {
	dir := t.TempDir()
	runDir := filepath.Join(dir, "run")
	var stdout, stderr bytes.Buffer
	ctx := context.Background()
	if err := run(ctx, []string{"train", "--config", "../../configs/tiny.yaml", "--run", runDir, "--steps", "2", "--log", "1h"},
		strings.NewReader(""), &stdout, &stderr); err != nil {
		t.Fatalf("a tiny run: %v\n%s", err, stderr.String())
	}
	game, shards, err := replay.ReadGames(filepath.Join(runDir, "replay"))
	if err != nil || game != "yinsh-blitz" || len(shards) < 3 {
		t.Fatalf("the run's shards: %s, %d games, %v", game, len(shards), err)
	}
	dump := filepath.Join(dir, "dump.jsonl")
	tests := []struct {
		name    string
		args    []string
		first   int    // the first shard game dumped
		stdout  bool   // the lines go to stdout
		wantErr string // or this error
	}{
		{"every game", []string{"--run", runDir, "--out", dump}, 0, false, ""},
		{"the last 2, to stdout", []string{"--run", runDir, "--last", "2"}, len(shards) - 2, true, ""},
		{"more than there are", []string{"--run", runDir, "--last", "1000", "--out", dump}, 0, false, ""},
		{"no run", nil, 0, false, "give the run folder, --run DIR"},
		{"a folder without shards", []string{"--run", dir}, 0, false, "--run " + dir + ": open " + filepath.Join(dir, "replay") + ": no such file"},
		{"a negative count", []string{"--run", runDir, "--last", "-1"}, 0, false, "--last -1: want a number of games ≥ 0"},
		{"an argument", []string{"--run", runDir, "more"}, 0, false, `unexpected argument "more"`},
	}
	for _, tt := range tests {
		stdout.Reset()
		stderr.Reset()
		os.Remove(dump)
		err := run(ctx, append([]string{"replay", "dump"}, tt.args...), strings.NewReader(""), &stdout, &stderr)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err = %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		text := stdout.Bytes()
		if !tt.stdout {
			if text, err = os.ReadFile(dump); err != nil {
				t.Fatal(err)
			}
		}
		recs, err := games.ReadRecords(bytes.NewReader(text))
		if err != nil {
			t.Errorf("%s: reading the dump back: %v", tt.name, err)
			continue
		}
		want := shards[tt.first:]
		if len(recs) != len(want) {
			t.Errorf("%s: %d games dumped, want %d", tt.name, len(recs), len(want))
			continue
		}
		if summary := fmt.Sprintf("%d games of yinsh-blitz", len(want)); !strings.Contains(stderr.String(), summary) {
			t.Errorf("%s: stderr lacks %q: %s", tt.name, summary, stderr.String())
		}
		for i, r := range recs {
			_, actions, err := env.Replay(yinsh.Blitz, r.MoveList())
			if err != nil || !slices.Equal(actions, want[i].Actions) || r.Winner() != want[i].Result.Winner() ||
				r.Players != [2]string{"self-play", "self-play"} {
				t.Errorf("%s: game %d is not the shards' (%v): %+v", tt.name, i+1, err, r)
			}
		}
	}
	// zero play goes on from a dumped game, as from an arena's.
	if err := run(ctx, []string{"replay", "dump", "--run", runDir, "--out", dump}, strings.NewReader(""), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	second, err := games.LoadRecord(dump + "#2")
	if err != nil {
		t.Fatal(err)
	}
	err = run(ctx, []string{"play", "--load", dump + "#2", "--record", "-"}, strings.NewReader("quit\n"), &stdout, &stderr)
	loaded := fmt.Sprintf("loaded %s#2: yinsh-blitz, %d moves, result %s", dump, len(second.Moves), second.Result)
	if err != nil || !strings.Contains(stdout.String(), loaded) || strings.Contains(stdout.String(), "cannot play") {
		t.Errorf("zero play --load %s#2: %v; want %q, and the default opponent without a word:\n%s", dump, err, loaded, stdout.String())
	}
}
