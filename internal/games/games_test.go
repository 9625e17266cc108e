package games

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/zerogames/zero/selfplay"
)

func TestLookup(t *testing.T) {
	for _, name := range Names() {
		g, err := Lookup(name)
		if err != nil || g.Info().Name != name {
			t.Fatalf("Lookup(%q) = %v, %v", name, g, err)
		}
	}
	if _, err := Lookup("chess"); err == nil || !strings.Contains(err.Error(), "yinsh-blitz") {
		t.Fatalf("Lookup(chess): %v; want an error listing the games", err)
	}
}

func TestPlayMovesIsAllOrNothing(t *testing.T) {
	g, _ := Lookup("yinsh")
	p := g.NewPosition()
	if err := p.PlayMoves("place f6"); err != nil {
		t.Fatal(err)
	}
	err := p.PlayMoves("place e5; place a2 ;place e5;place b1")
	if err == nil || !strings.Contains(err.Error(), `move 3: place e5: the point is taken`) {
		t.Fatalf("error %v; want it to name move 3", err)
	}
	if got := p.Moves(); !slices.Equal(got, []string{"place f6"}) {
		t.Fatalf("a refused list left moves %q", got)
	}
}

func TestPerftAndDivideAgree(t *testing.T) {
	g, _ := Lookup("yinsh")
	p := g.NewPosition()
	if err := p.PlayMoves("place f6;place e5;place a2;place k10;place g11;place e1;place b1;place a5;place k7;place j11"); err != nil {
		t.Fatal(err)
	}
	var counts []uint64
	if err := g.Perft(context.Background(), p, 3, false, func(_ int, n uint64) { counts = append(counts, n) }); err != nil {
		t.Fatal(err)
	}
	for _, bulk := range []bool{false, true} {
		lines, err := g.Divide(context.Background(), p, 3, bulk)
		if err != nil {
			t.Fatal(err)
		}
		var sum uint64
		for _, l := range lines {
			sum += l.Leaves
		}
		if sum != counts[2] || uint64(len(lines)) != counts[0] {
			t.Fatalf("divide (bulk %v) sums to %d over %d moves; perft says %v", bulk, sum, len(lines), counts)
		}
	}
	other, _ := Lookup("yinsh-blitz")
	if err := other.Perft(context.Background(), p, 1, false, func(int, uint64) {}); err == nil {
		t.Fatalf("a yinsh position was accepted by yinsh-blitz")
	}
}

func TestRandomAgent(t *testing.T) {
	g, _ := Lookup("yinsh-blitz")
	a, err := g.NewAgent("random", 7)
	if err != nil {
		t.Fatal(err)
	}
	p := g.NewPosition()
	for !p.Over() {
		an, err := a.Analyze(context.Background(), p, selfplay.Limits{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Play(an.Best()); err != nil {
			t.Fatalf("the random agent chose an illegal move: %v", err)
		}
	}
	if _, err := a.Analyze(context.Background(), p, selfplay.Limits{}, nil); err == nil {
		t.Fatal("an agent analyzed a finished game")
	}
	for _, bad := range []string{"random:3", "alphabeta:4", ""} {
		if _, err := g.NewAgent(bad, 1); err == nil {
			t.Errorf("agent %q accepted", bad)
		}
	}
}

func TestFromPosition(t *testing.T) {
	g, _ := Lookup("gyges-advanced")
	p, err := FromPosition(g, "202110/000330/000000/000200/000100/030123 s")
	if err != nil {
		t.Fatal(err)
	}
	var counts []uint64
	if err := g.Perft(context.Background(), p, 2, true, func(_ int, n uint64) { counts = append(counts, n) }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(counts, []uint64{602, 377020}) {
		t.Fatalf("perft of the benchmark position: %v", counts)
	}
	if err := p.Play("a1-a3"); err != nil {
		t.Fatal(err)
	}
	p.Reset()
	if len(p.Moves()) != 0 || p.ToMove() != "south" {
		t.Fatalf("reset does not go back to the given position: %q, %s to move", p.Moves(), p.ToMove())
	}
	if _, err := FromPosition(g, "202110/000330 s"); err == nil || !strings.Contains(err.Error(), "2 rows") {
		t.Fatalf("a bad position: %v", err)
	}
	y, _ := Lookup("yinsh")
	if _, err := FromPosition(y, "anything"); err == nil || !strings.Contains(err.Error(), "no position notation") {
		t.Fatalf("yinsh has no position notation, but: %v", err)
	}
}

func TestPerftStopsWithItsContext(t *testing.T) {
	g, _ := Lookup("yinsh")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := g.Perft(ctx, g.NewPosition(), 6, false, func(int, uint64) { t.Fatal("a depth was reported") })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Perft with an ended context: %v", err)
	}
}

// TestImbriqua: the game with chance through the registry — who decides, the draw listed
// byte-wise, and a whole game by the random agent (chance sampled by probability).
func TestImbriqua(t *testing.T) {
	g, err := Lookup("imbriqua")
	if err != nil {
		t.Fatal(err)
	}
	p := g.NewPosition()
	if err := p.PlayMoves("a1;b1;h8;g8;a8;b8;h1;g1;d4"); err != nil {
		t.Fatal(err)
	}
	if p.ToMove() != "chance" {
		t.Fatalf("after the first placement %s decides, want chance", p.ToMove())
	}
	want := []string{"card 1", "card 10", "card 2", "card 3", "card 4", "card 5", "card 6", "card 7", "card 8", "card 9"}
	if got := p.Legal(); !slices.Equal(got, want) {
		t.Fatalf("legal at the first draw: %q, want %q", got, want)
	}
	a, err := g.NewAgent("random", 3)
	if err != nil {
		t.Fatal(err)
	}
	for !p.Over() {
		an, err := a.Analyze(context.Background(), p, selfplay.Limits{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Play(an.Best()); err != nil {
			t.Fatalf("the random agent chose an illegal move: %v", err)
		}
	}
	if r := p.Result(); r != "light" && r != "dark" && r != "draw" {
		t.Fatalf("result %q", r)
	}
}

// TestRegisterTwice: a name registered twice is a mistake in the program, refused at once.
func TestRegisterTwice(t *testing.T) {
	var r Registry[Game]
	g, err := Lookup("yinsh")
	if err != nil {
		t.Fatal(err)
	}
	r.Register(g)
	defer func() {
		if recover() == nil {
			t.Error("yinsh registered twice")
		}
	}()
	r.Register(g)
}
