package imbriqua

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/zerogames/zero/env"
)

// heuristicPositions are the players' decisions of seeded random games.
func heuristicPositions(games int, seed uint64) []State {
	var out []State
	for i := range games {
		w := env.NewWalker[State](rand.New(rand.NewPCG(seed, uint64(i))), NumActions)
		for s := Game.New(); s.ToMove() != env.Terminal; s = s.Play(w.Step(s)) {
			if s.ToMove() != env.Chance {
				out = append(out, s)
			}
		}
	}
	return out
}

// TestHeuristicRangeAndSymmetry: at every decision of random games the heuristic is strictly
// inside (-1, 1), the same for the position turned by each of the 8 symmetries, and allocates
// nothing; and its margins, counted on the bitboards, agree with Score and with counting the
// potential square by square.
func TestHeuristicRangeAndSymmetry(t *testing.T) {
	positions := heuristicPositions(20, 2)
	nonzero, potentials := 0, 0
	for _, s := range positions {
		h := Game.Heuristic(s)
		if !(h > -1 && h < 1) {
			t.Fatalf("heuristic %v, want (-1, 1), at\n%v", h, s)
		}
		if h != 0 {
			nonzero++
		}
		for k := 1; k < numSymmetries; k++ {
			if hk := Game.Heuristic(s.Symmetry(k)); hk != h {
				t.Fatalf("heuristic %v, %v after symmetry %d, at\n%v", h, hk, k, s)
			}
		}
		var pots [2]int
		for p := range 2 {
			empty := ^(s.pawns[0] | s.pawns[1])
			want := 0
			for sq := range numSquares {
				for d := north; d <= southEast; d++ {
					a, b := rays[sq][d], rays[sq][d+4]
					if !has(empty, sq) || rayLen[sq][d] == 0 || rayLen[sq][d+4] == 0 {
						continue
					}
					if has(s.pawns[p], int(a[0])) && has(empty, int(b[0])) || has(empty, int(a[0])) && has(s.pawns[p], int(b[0])) {
						want++
					}
				}
			}
			pots[p] = want
			potentials += want
		}
		score, pot := margins(s.pawns[0], s.pawns[1])
		if sc := s.Score(); score != sc[0]-sc[1] || pot != pots[0]-pots[1] {
			t.Fatalf("margins %d, %d on the bitboards; score %v and potentials %v square by square, at\n%v", score, pot, sc, pots, s)
		}
	}
	if nonzero < len(positions)/2 || potentials == 0 {
		t.Errorf("the heuristic was 0 at %d of %d positions, the potentials summed to %d", len(positions)-nonzero, len(positions), potentials)
	}
	for _, s := range positions[:100] {
		if n := testing.AllocsPerRun(10, func() { _ = Game.Heuristic(s) }); n != 0 {
			t.Fatalf("the heuristic allocates %v times a call", n)
		}
	}
}

// TestHeuristicSigns: in positions where one side is clearly ahead the heuristic favours it,
// whichever side's turn it is: positive for the side ahead, negative for the other; and the
// same margin weighs more late in the game than early.
func TestHeuristicSigns(t *testing.T) {
	tests := []struct {
		name string
		spec string // light ahead; the turn is added
	}{
		// c3 and e3 frame d3; dark's pawns frame nothing.
		{"a framed square more", "L=c3,e3,c6 D=f6,g2,b8"},
		// c3, e3 and d2, d4 frame d3 twice (row and column), dark's g6, g8 frame g7 once.
		{"two lines against one", "L=c3,e3,d2,d4 D=g6,g8,b7,h1"},
		// No frames; light has a pawn more.
		{"a pawn more", "L=c3,f3,c7 D=f6,b2"},
	}
	for _, tc := range tests {
		var early float64
		for _, turn := range []string{"12", "13", "42", "43"} {
			s := position(t, tc.spec+" turn="+turn)
			h := Game.Heuristic(s)
			if light := s.ToMove() == 0; light && h <= 0 || !light && h >= 0 {
				t.Errorf("%s, turn %s (%s to move): heuristic %v, want light ahead, at\n%v", tc.name, turn, Names[s.ToMove()], h, s)
			}
			switch turn {
			case "12":
				early = h
			case "42":
				if h <= early {
					t.Errorf("%s: heuristic %v at turn 42, %v at turn 12: want the margin to weigh more late", tc.name, h, early)
				}
			}
		}
	}
}

// TestHeuristicPenaltyDue: the opponent deciding a penalty is about to take one of the mover's
// pawns: the position is worth more to him than the same board on his next turn would be.
func TestHeuristicPenaltyDue(t *testing.T) {
	// Light places on d4 and turns over card 9 (a double capture), which he cannot perform.
	s := position(t, "L=c3,e3 D=f6,b7 turn=12 card=9")
	s, _, err := env.PlayText(s, "d4")
	if err != nil {
		t.Fatal(err)
	}
	if s.Phase() != PhasePenalty || s.ToMove() != 1 {
		t.Fatalf("want dark to decide a penalty, at\n%v", s)
	}
	next := s
	next.phase, next.toMove = phasePlace, 1
	if h, later := Game.Heuristic(s), Game.Heuristic(next); !(h > later) || math.IsNaN(h) {
		t.Errorf("dark's heuristic with the penalty due %v, without %v: want more", h, later)
	}
}
