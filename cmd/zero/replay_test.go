package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
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
	dumpSGF := filepath.Join(dir, "dump.sgf")
	tests := []struct {
		name    string
		args    []string
		first   int    // the first shard game dumped
		stdout  bool   // the lines go to stdout
		wantErr string // or this error
	}{
		{"every game", []string{"--run", runDir, "--out", dump}, 0, false, ""},
		{"as SGF, by the name", []string{"--run", runDir, "--out", dumpSGF}, 0, false, ""},
		{"as SGF, to stdout", []string{"--run", runDir, "--format", "sgf", "--last", "2"}, len(shards) - 2, true, ""},
		{"a format it has not", []string{"--run", runDir, "--format", "pgn"}, 0, false, "--format pgn: want jsonl or sgf"},
		{"the last 2, to stdout", []string{"--run", runDir, "--last", "2"}, len(shards) - 2, true, ""},
		{"more than there are", []string{"--run", runDir, "--last", "1000", "--out", dump}, 0, false, ""},
		{"no run", nil, 0, false, "give the run folder, --run DIR"},
		{"a folder without shards", []string{"--run", dir}, 0, false, "--run " + dir + ": not a run folder (no replay/ in it)"},
		{"a negative count", []string{"--run", runDir, "--last", "-1"}, 0, false, "--last -1: want a number of games ≥ 0"},
		{"an argument", []string{"--run", runDir, "more"}, 0, false, `unexpected argument "more"`},
	}
	for _, tt := range tests {
		stdout.Reset()
		stderr.Reset()
		os.Remove(dump)
		os.Remove(dumpSGF)
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
			file := tt.args[len(tt.args)-1]
			if text, err = os.ReadFile(file); err != nil {
				t.Fatal(err)
			}
			if games.IsSGF(text) != games.IsSGFName(file) {
				t.Errorf("%s: %s is SGF: %v", tt.name, file, games.IsSGF(text))
			}
		}
		if wantSGF := slices.Contains(tt.args, "sgf"); tt.stdout && games.IsSGF(text) != wantSGF {
			t.Errorf("%s: the output is SGF: %v, want %v", tt.name, !wantSGF, wantSGF)
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

// replayRun writes a run folder by hand: two sessions' shards of three YINSH blitz games each
// (random, each with a target at every decision) and a state.json counting their samples.
func replayRun(t *testing.T) (dir string, recorded []*replay.Game) {
	t.Helper()
	dir = t.TempDir()
	rng := rand.New(rand.NewPCG(7, 8))
	var total int64
	for range 2 {
		b, err := replay.Open(filepath.Join(dir, "replay"), "yinsh-blitz", replay.Window{Min: 1000, Max: 1000, Exponent: 1}, total)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			w := env.NewWalker[yinsh.State](rng, yinsh.NumActions)
			s := yinsh.Blitz.New()
			g := &replay.Game{}
			for s.ToMove() != env.Terminal {
				if legal := s.Legal(nil); s.ToMove() == 0 || s.ToMove() == 1 {
					g.Targets = append(g.Targets, replay.Target{Ply: len(g.Actions), Policy: []replay.PolicyEntry{{Action: legal[0], Prob: 1}}})
				}
				a := w.Step(s)
				g.Actions = append(g.Actions, a)
				s = s.Play(a)
			}
			g.Result = s.Result()
			if err := b.Add(g); err != nil {
				t.Fatal(err)
			}
			recorded = append(recorded, g)
		}
		total = b.Total()
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
	state := fmt.Sprintf(`{"game": "yinsh-blitz", "sessions": 2, "games": 6, "samples": %d}`, total)
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte(state), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, recorded
}

// TestReplayCheckRepair (issue 48): `zero replay check` lists each damaged part of a run's
// replay buffer, with its bytes and the games lost, and fails when there is any; `zero replay
// dump` leaves damaged records out with a warning, writing the others; `zero replay repair`
// rewrites the damaged shards with their records that read, the damaged file kept aside, after
// which check finds nothing.
func TestReplayCheckRepair(t *testing.T) {
	ctx := context.Background()
	header := 4 + 2 + 1 + len("yinsh-blitz") + 8
	tests := []struct {
		name    string
		damage  func(t *testing.T, shards string) // in the replay folder
		lost    []int                             // the games lost, as recorded
		damaged []string                          // parts of check's damage lines
		did     []string                          // parts of repair's lines
		summary string                            // what check's error says was lost
	}{
		{"a byte in a payload", func(t *testing.T, shards string) {
			path := filepath.Join(shards, "000001.zrp")
			data, _ := os.ReadFile(path)
			data[header+4+30] ^= 0x01
			os.WriteFile(path, data, 0o644)
		}, []int{0}, []string{"000001.zrp: bytes " + fmt.Sprint(header) + " to ", "1 game ("},
			[]string{"000001.zrp: written again with its 2 records that read", "kept as 000001.zrp.damaged"}, "1 game ("},
		{"the newest shard removed", func(t *testing.T, shards string) {
			os.Rename(filepath.Join(shards, "000002.zrp"), filepath.Join(t.TempDir(), "aside.zrp"))
		}, []int{3, 4, 5}, []string{"the run's state counts", "samples more than the shards hold"},
			[]string{"000002.zrp: written empty, to keep the count of samples ever added"}, "an unknown number of games ("},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, recorded := replayRun(t)
			shards := filepath.Join(dir, "replay")
			var stdout, stderr bytes.Buffer
			replay := func(args ...string) error {
				stdout.Reset()
				stderr.Reset()
				return run(ctx, append([]string{"replay"}, args...), strings.NewReader(""), &stdout, &stderr)
			}
			if err := replay("check", "--run", dir); err != nil || !strings.Contains(stdout.String(), "6 games in 2 shards of yinsh-blitz") || !strings.Contains(stdout.String(), "no damage") {
				t.Fatalf("check, before the damage: %v\n%s", err, stdout.String())
			}
			tt.damage(t, shards)
			err := replay("check", "--run", dir)
			if err == nil || !strings.Contains(err.Error(), "replay check: "+shards+": 1 part damaged, "+tt.summary) {
				t.Errorf("check: err = %v, want the damage counted", err)
			}
			for _, want := range tt.damaged {
				if !strings.Contains(stdout.String(), "damaged: ") || !strings.Contains(stdout.String(), want) {
					t.Errorf("check's output lacks %q:\n%s", want, stdout.String())
				}
			}
			if err := replay("dump", "--run", dir); err != nil {
				t.Fatalf("dump: %v", err)
			}
			recs, err := games.ReadRecords(bytes.NewReader(stdout.Bytes()))
			if err != nil || len(recs) != len(recorded)-len(tt.lost) {
				t.Errorf("dump: %d games, %v; want %d", len(recs), err, len(recorded)-len(tt.lost))
			}
			if tt.name != "the newest shard removed" && !strings.Contains(stderr.String(), "zero replay dump: warning: "+shards) {
				t.Errorf("dump's warning: %s", stderr.String())
			}
			if err := replay("repair", "--run", dir); err != nil {
				t.Fatalf("repair: %v\n%s", err, stdout.String())
			}
			for _, want := range append(tt.did, shards+" repaired: 1 part damaged") {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("repair's output lacks %q:\n%s", want, stdout.String())
				}
			}
			if err := replay("check", "--run", dir); err != nil || !strings.Contains(stdout.String(), "no damage") {
				t.Errorf("check after the repair: %v\n%s", err, stdout.String())
			}
			if err := replay("repair", "--run", dir); err != nil || !strings.Contains(stdout.String(), "no damage, nothing to do") {
				t.Errorf("a second repair: %v\n%s", err, stdout.String())
			}
		})
	}
	for _, c := range []struct{ args []string }{{[]string{"check"}}, {[]string{"repair"}}} {
		err := run(ctx, append([]string{"replay"}, c.args...), strings.NewReader(""), io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "give the run folder, --run DIR") {
			t.Errorf("replay %s without --run: %v", c.args[0], err)
		}
	}
	empty := t.TempDir()
	if err := run(ctx, []string{"replay", "repair", "--run", empty}, strings.NewReader(""), io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("repair of a folder without a replay: %v", err)
	}
	if _, err := os.Stat(filepath.Join(empty, "lock")); err == nil {
		t.Errorf("repair of a folder without a replay made a lock file in it")
	}
}
