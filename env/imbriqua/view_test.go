package imbriqua

import (
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zerogames/zero/env"
)

func TestAtAndFramed(t *testing.T) {
	for _, tt := range []struct {
		light, dark string
		framed      map[string][2]uint8 // square → lines framing it for light, dark
	}{
		{"c3,d3,e3,c4,e4,c5,d5,e5", "", map[string][2]uint8{"d4": {15, 0}, "c4": {0, 0}, "b4": {0, 0}}},
		{"c4,e4", "d3,d5", map[string][2]uint8{"d4": {LineRow, LineColumn}}},
		{"c4,e4", "d4", map[string][2]uint8{"d4": {0, 0}}},
		{"a1,c1,e1", "", map[string][2]uint8{"b1": {LineRow, 0}, "d1": {LineRow, 0}, "f1": {0, 0}}},
		{"h3,b4", "", map[string][2]uint8{"a3": {0, 0}, "a4": {0, 0}}},
		{"b2,d4", "b4,d2", map[string][2]uint8{"c3": {LineDiagonal, LineAnti}}},
	} {
		s := newState()
		s.pawns[0] = squares(strings.Split(tt.light, ",")...)
		if tt.dark != "" {
			s.pawns[1] = squares(strings.Split(tt.dark, ",")...)
		}
		for name, want := range tt.framed {
			sq, _ := ParseSquare(name)
			if got := [2]uint8{s.Framed(0, sq), s.Framed(1, sq)}; got != want {
				t.Errorf("light %s, dark %s: %s framed %v, want %v", tt.light, tt.dark, name, got, want)
			}
		}
		for sq := range NumSquares {
			want := Empty
			switch {
			case has(s.pawns[0], sq):
				want = LightPawn
			case has(s.pawns[1], sq):
				want = DarkPawn
			}
			if s.At(sq) != want {
				t.Errorf("At(%s) = %d, want %d", SquareName(sq), s.At(sq), want)
			}
		}
	}
	// Summed over the squares, Framed is Score, through random games.
	rng := rand.New(rand.NewPCG(5, 6))
	for range 5 {
		s := Game.New()
		for s.ToMove() != env.Terminal {
			var sum [2]int
			for sq := range NumSquares {
				sum[0] += bits.OnesCount8(s.Framed(0, sq))
				sum[1] += bits.OnesCount8(s.Framed(1, sq))
			}
			if sum != s.Score() {
				t.Fatalf("framed squares sum to %v, score %v:\n%s", sum, s.Score(), s)
			}
			legal := s.Legal(nil)
			s = s.Play(legal[rng.IntN(len(legal))])
		}
	}
}

// The phase, the mover and the pawns of the turn, through the kinds of turns.
func TestViewPhases(t *testing.T) {
	sq := func(name string) int {
		n, err := ParseSquare(name)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	type want struct {
		phase         Phase
		mover, toMove env.Player
		placed, chain string // "" for -1
		bonus         int
	}
	tests := []struct {
		name  string
		spec  string // a position (position_test.go), or "new"
		moves []string
		want  []want // after each move, the first before any
	}{
		{"the opening, then light's first turn and its draw", "new", []string{"a1", "h8", "a8", "h1", "b1", "g8", "b8", "g1", "d4"},
			[]want{{PhaseOpening, 0, 0, "", "", 0}, {PhaseOpening, 1, 1, "", "", 0}, {PhaseOpening, 0, 0, "", "", 0},
				{PhaseOpening, 1, 1, "", "", 0}, {PhaseOpening, 0, 0, "", "", 0}, {PhaseOpening, 1, 1, "", "", 0},
				{PhaseOpening, 0, 0, "", "", 0}, {PhaseOpening, 1, 1, "", "", 0}, {PhasePlace, 0, 0, "", "", 0},
				{PhaseDraw, 0, env.Chance, "d4", "", 0}}},
		{"a chain of jumps, stopped; the placed pawn followed", "L=d4 D=d5,e6,a8 turn=12 card=5", []string{"c3", "d4xd6", "stop"},
			[]want{{PhasePlace, 0, 0, "", "", 0}, {PhaseAct, 0, 0, "c3", "", 0}, {PhaseChain, 0, 0, "c3", "d6", 0},
				{PhasePlace, 1, 1, "", "", 0}}},
		{"an impossible card: dark decides light's penalty", "L=d4 D=h8 turn=12 card=9", []string{"c3", "remove c3"},
			[]want{{PhasePlace, 0, 0, "", "", 0}, {PhasePenalty, 0, 1, "c3", "", 0}, {PhasePlace, 1, 1, "", "", 0}}},
		{"card 11: two more placements", "L=d4 D=h8 turn=11", []string{"c3", "e5", "a1"},
			[]want{{PhasePlace, 1, 1, "", "", 0}, {PhaseBonus, 1, 1, "c3", "", 2}, {PhaseBonus, 1, 1, "c3", "", 1},
				{PhasePlace, 0, 0, "", "", 0}}},
	}
	for _, tt := range tests {
		s := Game.New()
		if tt.spec != "new" {
			s = position(t, tt.spec)
		}
		for i, w := range tt.want {
			if i > 0 {
				a, err := s.ParseAction(tt.moves[i-1])
				if err == nil {
					s, err = env.Apply(s, a)
				}
				if err != nil {
					t.Fatalf("%s: %v", tt.name, err)
				}
			}
			placed, chain := -1, -1
			if w.placed != "" {
				placed = sq(w.placed)
			}
			if w.chain != "" {
				chain = sq(w.chain)
			}
			if s.Phase() != w.phase || s.Mover() != w.mover || s.ToMove() != w.toMove || s.Placed() != placed ||
				s.Chain() != chain || s.Bonus() != w.bonus {
				t.Errorf("%s, after %d moves: phase %d, mover %d, to move %d, placed %d, chain %d, bonus %d; want %+v",
					tt.name, i, s.Phase(), s.Mover(), s.ToMove(), s.Placed(), s.Chain(), s.Bonus(), w)
			}
		}
	}
}
