package selfplay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/internal/testgames"
)

// TestArena: a round robin on tic-tac-toe gives the same games with 1 and 3 workers, counts
// every game once, ranks uct above random, and writes files that read back.
func TestArena(t *testing.T) {
	g := testgames.TicTacToe
	cfg := ArenaConfig{Players: []string{"random", "uct:30", "uct:300"}, Games: 10, Seed: 7, Workers: 1}
	calls := 0
	cfg.Progress = func(done, total int, r *Record) {
		calls++
		if done != calls || total != 30 || len(r.Moves) == 0 {
			t.Errorf("Progress(%d, %d, %q) at call %d", done, total, r.Moves, calls)
		}
	}
	one, err := Arena(context.Background(), g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workers, cfg.Progress = 3, nil
	three, err := Arena(context.Background(), g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []Thinking{{Moves: 0}, {Simulations: 30}, {Simulations: 300}} {
		th := one.Thinking[i]
		if th.Moves < 40 || th.Time <= 0 || th.Simulations != want.Simulations*int64(th.Moves) {
			t.Errorf("%s: thinking %+v; want 40 moves or more and %d simulations a move", one.Players[i], th, want.Simulations)
		}
	}
	if !reflect.DeepEqual(withoutTimes(one), withoutTimes(three)) {
		t.Error("1 and 3 workers played different arenas")
	}
	if calls != 30 {
		t.Errorf("%d progress calls for 30 games", calls)
	}
	sides := map[string]int{}
	for i, r := range one.Records {
		if _, _, err := env.Replay(g, r.MoveList()); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		sides[r.Players[0]]++
	}
	if sides["random"] != 10 || sides["uct:30"] != 10 || sides["uct:300"] != 10 {
		t.Errorf("games with side 0: %v, want 10 each (sides alternate)", sides)
	}
	for _, p := range one.Pairs {
		if p.WinsA+p.Draws+p.WinsB != 10 {
			t.Errorf("%+v: not 10 games", p)
		}
	}
	rt := one.Ratings.Players
	if !(rt[1].Elo > rt[0].Elo+100 && rt[2].Elo > rt[0].Elo+100) {
		t.Errorf("ratings %+v: uct should be far above random", rt)
	}

	dir := t.TempDir()
	if err := one.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	var back ArenaResult
	data, err := os.ReadFile(filepath.Join(dir, "ratings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	back.Records = one.Records
	if !reflect.DeepEqual(&back, one) {
		t.Errorf("ratings.json reads back as %+v", back)
	}
	f, err := os.Open(filepath.Join(dir, "games.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := ReadRecords(f, func(string) (*env.Info, error) { return g.Info(), nil })
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(recs, withoutThinking(one.Records)) {
		t.Errorf("games.jsonl reads back as %+v", recs)
	}
	var table strings.Builder
	if err := one.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"tictactoe: 30 games, 10 per pair", "random = 0", "uct:300", "random vs uct:30",
		"player   moves chosen  time a move  simulations a move", "\nuct:300  ", "wins as x (a, b)"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, table.String())
		}
	}
}

// withoutTimes is r with its measured times zeroed: what two arenas played alike share.
func withoutTimes(r *ArenaResult) *ArenaResult {
	c := *r
	c.Thinking = slices.Clone(r.Thinking)
	for i := range c.Thinking {
		c.Thinking[i].Time = 0
	}
	c.Records = slices.Clone(r.Records)
	for i := range c.Records {
		for j := range c.Records[i].Thinking {
			c.Records[i].Thinking[j].Time = 0
		}
	}
	return &c
}

// withoutThinking is recs as a file keeps them, without what PlayGame measured.
func withoutThinking(recs []Record) []Record {
	c := slices.Clone(recs)
	for i := range c {
		c[i].Thinking = [2]Thinking{}
	}
	return c
}

// TestArenaTimed: players given a time a move search about that long, and the arena says how
// long and how many simulations.
func TestArenaTimed(t *testing.T) {
	res, err := Arena(context.Background(), testgames.TicTacToe, ArenaConfig{Players: []string{"uct:5ms", "random"}, Games: 2, Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	th := res.Thinking[0]
	if th.Moves < 4 || th.Time < time.Duration(th.Moves)*5*time.Millisecond || th.Simulations < int64(th.Moves) {
		t.Errorf("uct:5ms: %+v; want at least 4 moves of 5 ms or more, each with simulations", th)
	}
}

// TestArenaMirrorsChance: the two games of a pair that swap sides draw the same chance
// outcome where the same chance node comes up.
func TestArenaMirrorsChance(t *testing.T) {
	g := testgames.Gamble
	res, err := Arena(context.Background(), g, ArenaConfig{Players: []string{"random", "uct:20"}, Games: 40, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	compared, differ := 0, 0
	for i := 0; i+1 < len(res.Records); i += 2 {
		a, b := res.Records[i].Moves, res.Records[i+1].Moves
		if a[0] == b[0] && len(a) > 1 && len(b) > 1 && (a[0] == "risky" || a[1] == b[1]) {
			compared++
			if a[0] == "risky" && a[1] != b[1] || a[0] == "safe" && a[2] != b[2] {
				differ++
			}
		}
	}
	if compared < 5 || differ > 0 {
		t.Errorf("%d mirrored pairs compared, %d drew differently", compared, differ)
	}
}

func TestArenaErrors(t *testing.T) {
	g := testgames.TicTacToe
	bad := []struct {
		cfg  ArenaConfig
		says string
	}{
		{ArenaConfig{Players: []string{"random"}, Games: 2}, "at least two players"},
		{ArenaConfig{Players: []string{"random", "uct:5"}, Games: 0}, "games per pair"},
		{ArenaConfig{Players: []string{"random", "uct:x"}, Games: 2}, `"uct:x"`},
		{ArenaConfig{Players: []string{"random", "random"}, Games: 2}, "twice"},
		{ArenaConfig{Players: []string{"random", "uct:5"}, Games: 2, Anchor: "uct:6"}, "anchor"},
		{ArenaConfig{Players: []string{"random", "mcts:5:a.zero"}, Games: 2}, `player "mcts:5:a.zero": checkpoint a.zero`},
	}
	for _, tc := range bad {
		if _, err := Arena(context.Background(), g, tc.cfg); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%+v: err = %v, want %q", tc.cfg, err, tc.says)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Arena(ctx, g, ArenaConfig{Players: []string{"random", "uct:5"}, Games: 4}); err == nil {
		t.Error("a cancelled arena returned no error")
	}
	// The bounds (a record for every game is allocated, players for every worker), refused
	// before anything is made: with a cancelled context, the bound's error, not the context's.
	for _, tc := range []struct {
		cfg  ArenaConfig
		says string
	}{
		{ArenaConfig{Players: []string{"random", "uct:5"}, Games: 100_001}, "games per pair = 100001: want 1 to 100000"},
		{ArenaConfig{Players: manyPlayers(45), Games: 1011}, "45 players, 1011 games per pair: 1000890 games, more than the 1000000 an arena plays"},
		{ArenaConfig{Players: []string{"random", "uct:5"}, Games: 2, Workers: 257}, "workers = 257: want 0 (one per core) to 256"},
		{ArenaConfig{Players: []string{"random", "uct:5"}, Games: 2, Workers: -1}, "workers = -1: want 0 (one per core) to 256"},
		{ArenaConfig{Players: []string{"random", "uct:5"}, Games: 2, Opening: 1001}, "opening = 1001: want a number of decisions from 0 to 1000"},
	} {
		if _, err := Arena(ctx, g, tc.cfg); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%d players, games %d, workers %d, opening %d: err = %v, want %q", len(tc.cfg.Players), tc.cfg.Games, tc.cfg.Workers, tc.cfg.Opening, err, tc.says)
		}
	}
	// The largest arena of two players is taken.
	if _, err := Arena(ctx, g, ArenaConfig{Players: []string{"random", "uct:5"}, Games: 100_000, Workers: 256, Opening: 1000}); !errors.Is(err, context.Canceled) {
		t.Errorf("the largest arena: %v, want the context's error", err)
	}
}

// manyPlayers are n different players.
func manyPlayers(n int) []string {
	ps := make([]string, n)
	for i := range ps {
		ps[i] = fmt.Sprintf("uct:%d", i+1)
	}
	return ps
}

// TestArenaInterrupted: an arena stopped from outside rates and returns the games it finished
// (Interrupted, with the context's error), or, before they link every player to the anchor
// (the long games, uct:30 against uct:300, come first), returns them unrated and says why.
func TestArenaInterrupted(t *testing.T) {
	g := testgames.TicTacToe
	for _, stopAfter := range []int{1, 25} {
		ctx, cancel := context.WithCancel(context.Background())
		cfg := ArenaConfig{Players: []string{"random", "uct:30", "uct:300"}, Games: 10, Seed: 7, Workers: 2}
		cfg.Progress = func(done, total int, r *Record) {
			if done == stopAfter {
				cancel()
			}
		}
		res, err := Arena(ctx, g, cfg)
		cancel()
		if err != context.Canceled || res == nil || !res.Interrupted {
			t.Fatalf("stopped after %d games: %v, %+v", stopAfter, err, res)
		}
		n := len(res.Records)
		rated := n
		if stopAfter == 1 {
			rated = 0
			if !strings.Contains(res.Unrated, "played no game linked to the anchor random") {
				t.Errorf("stopped after 1 game: unrated %q", res.Unrated)
			}
		}
		got := 0
		if res.Ratings != nil {
			got = res.Ratings.Games
		}
		if n < stopAfter || n >= 30 || got != rated || (res.Ratings == nil) != (rated == 0) {
			t.Errorf("stopped after %d games: %d records, %d rated (ratings %v), want %d", stopAfter, n, got, res.Ratings != nil, rated)
		}
		// ratings.json of an unrated arena has no ratings at all, not a table of no one.
		dir := t.TempDir()
		if err := res.WriteFiles(dir); err != nil {
			t.Fatal(err)
		}
		var file map[string]any
		if data, err := os.ReadFile(filepath.Join(dir, "ratings.json")); err != nil {
			t.Fatal(err)
		} else if err := json.Unmarshal(data, &file); err != nil {
			t.Fatal(err)
		}
		if _, has := file["ratings"]; has != (rated > 0) {
			t.Errorf("stopped after %d games: ratings.json has ratings %v, want %v: %v", stopAfter, has, rated > 0, file["ratings"])
		}
		played := 0
		for _, p := range res.Pairs {
			played += p.WinsA + p.Draws + p.WinsB
			if p.A == "" || p.B == "" {
				t.Errorf("a pair unnamed: %+v", p)
			}
		}
		if played != n {
			t.Errorf("the pairs count %d games, the records %d", played, n)
		}
		var table strings.Builder
		res.WriteTable(&table)
		if !strings.Contains(table.String(), "interrupted: ") || !strings.Contains(table.String(), "uct:30 vs uct:300") || strings.Contains(table.String(), "no ratings") != (rated == 0) {
			t.Errorf("the table does not say it was interrupted:\n%s", table.String())
		}
	}
}
