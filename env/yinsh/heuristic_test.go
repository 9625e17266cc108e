package yinsh

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zerogames/zero/env"
)

// heuristicPositions are the players' decisions of seeded random games of g.
func heuristicPositions(g *Game, games int, seed uint64) []State {
	var out []State
	for i := range games {
		w := env.NewWalker[State](rand.New(rand.NewPCG(seed, uint64(i))), NumActions)
		for s := g.New(); s.ToMove() != env.Terminal; s = s.Play(w.Step(s)) {
			out = append(out, s)
		}
	}
	return out
}

// TestHeuristicFeatures: the features the heuristic counts on the bitboards agree with counting
// them point by point: the windows of 5 points (rowMask) by what lies on them, and the ring
// moves by Legal's list, at every decision of random games.
func TestHeuristicFeatures(t *testing.T) {
	var seen lineCounts
	for _, s := range heuristicPositions(Normal, 30, 1) {
		for i := range 2 {
			m, r, them := s.markers[i], s.rings[i], s.markers[i^1].or(s.rings[i^1])
			var want lineCounts
			for p := range numPoints {
				for d := range 3 {
					w := rowMask[p][d]
					if !rowOK[p][d] || !w.and(them).empty() {
						continue
					}
					switch own, ring := w.and(m).count(), w.and(r).count(); {
					case own == 4 && ring == 1:
						want.fourNow++
					case own == 4:
						want.four++
					case own == 3:
						want.three++
					}
				}
			}
			if got := countLines(m, r, them); got != want {
				t.Fatalf("player %d's windows: counted %+v, point by point %+v, at\n%v", i, got, want, s)
			}
			seen.fourNow += want.fourNow
			seen.four += want.four
			seen.three += want.three
		}
		if s.phase == phaseMove {
			occupied := s.markers[0].or(s.markers[1]).or(s.rings[0]).or(s.rings[1])
			n := len(s.Legal(nil))
			if n == 1 && s.Legal(nil)[0] == passAction {
				n = 0
			}
			if got := mobility(s.rings[s.toMove], occupied, s.markers[0].or(s.markers[1])); got != n {
				t.Fatalf("mobility %d, Legal lists %d moves, at\n%v", got, n, s)
			}
		}
	}
	if seen.fourNow == 0 || seen.four == 0 || seen.three == 0 {
		t.Errorf("the random games met windows %+v: some kind was never checked", seen)
	}
}

// TestHeuristicRangeAndSymmetry: at every decision of random games of both variants the
// heuristic is strictly inside (-1, 1), the same for the position turned by each of the 12
// symmetries, and allocates nothing.
func TestHeuristicRangeAndSymmetry(t *testing.T) {
	for _, g := range []*Game{Normal, Blitz} {
		positions := heuristicPositions(g, 20, 2)
		nonzero := 0
		for _, s := range positions {
			h := g.Heuristic(s)
			if !(h > -1 && h < 1) {
				t.Fatalf("%s: heuristic %v, want (-1, 1), at\n%v", g.Info().Name, h, s)
			}
			if h != 0 {
				nonzero++
			}
			for k := 1; k < numSymmetries; k++ {
				if hk := g.Heuristic(s.Symmetry(k)); hk != h {
					t.Fatalf("%s: heuristic %v, %v after symmetry %d, at\n%v", g.Info().Name, h, hk, k, s)
				}
			}
		}
		if nonzero < len(positions)/2 {
			t.Errorf("%s: the heuristic was 0 at %d of %d positions", g.Info().Name, len(positions)-nonzero, len(positions))
		}
		for _, s := range positions[:100] {
			if n := testing.AllocsPerRun(10, func() { _ = g.Heuristic(s) }); n != 0 {
				t.Fatalf("%s: the heuristic allocates %v times a call", g.Info().Name, n)
			}
		}
	}
}

// TestHeuristicSigns: in positions where one side is clearly ahead the heuristic favours it,
// whichever side is to decide: positive for the side ahead, negative for the other. Black's
// pieces are white's turned by half a turn about f6 (symmetry 3), less what puts white ahead.
func TestHeuristicSigns(t *testing.T) {
	rings := "c3,e5,h4,b5,h9"
	tests := []struct {
		name  string
		spec  string // white ahead; who is to move is added
		blitz bool
	}{
		{"one more ring removed", "W=c3,e5,h4,b5 B=" + halfTurn(rings) + " removed=1,0", false},
		{"two more rings removed", "W=c3,e5,h4 B=" + halfTurn(rings) + " w=b2,b3 b=" + halfTurn("b2,b3") + " removed=2,0", false},
		{"more markers", "W=" + rings + " B=" + halfTurn(rings) + " w=b2,b3,k8,k9 b=" + halfTurn("b2"), false},
		{"a four with a ring in it", "W=" + rings + " B=" + halfTurn(rings) + " w=e1,e2,e3,e4", false},
		{"a four with a ring in it, blitz", "W=" + rings + " B=" + halfTurn(rings) + " w=e1,e2,e3,e4", true},
		{"a four", "W=" + rings + " B=" + halfTurn(rings) + " w=f2,f3,f4,f5", false},
	}
	for _, tc := range tests {
		for _, who := range []string{"white", "black"} {
			s := position(t, tc.spec+" "+who)
			s.blitz = tc.blitz
			g := Normal
			if tc.blitz {
				g = Blitz
			}
			h := g.Heuristic(s)
			if who == "white" && h <= 0 || who == "black" && h >= 0 {
				t.Errorf("%s, %s to move: heuristic %v, want white ahead, at\n%v", tc.name, who, h, s)
			}
		}
	}
}

// halfTurn names the points of a list turned by half a turn about f6.
func halfTurn(list string) string {
	var out []string
	for _, name := range strings.Split(list, ",") {
		out = append(out, PointName(int(symPoint[3][mustPoint(name)])))
	}
	return strings.Join(out, ",")
}

// TestHeuristicSureWins: a position whose decider reaches the winning count by the rows waiting
// for him, who removes them before the opponent moves again, is worth almost a win, for him;
// the opponent's waiting rows are counted as rings removed, and are a sure loss for the decider
// when they reach the count and his own cannot first.
func TestHeuristicSureWins(t *testing.T) {
	// White's move e1-e6 makes his row e1-e5: white removes it, then a ring.
	base := "W=e1,k7,a2 B=a5,k9,h3 b=e2,e3,e4,e5 white"
	both := "W=e1,k7,a2 B=a5,k9,h3 b=e2,e3,e4,e5,b6,c6,d6,f6 w=e6 white"
	tests := []struct {
		name    string
		spec    string
		blitz   bool
		play    []string
		want    float64 // the heuristic for the decider after play
		atLeast bool    // want is a bound: from below if positive, from above if negative
	}{
		{"normal, the winning row", base + " removed=2,0", false, []string{"move e1-e6"}, sureWin, false},
		{"normal, the winning ring", base + " removed=2,0", false, []string{"move e1-e6", "row e1-e5"}, sureWin, false},
		{"blitz, the row", base, true, []string{"move e1-e6"}, sureWin, false},
		{"normal, the first row", base, false, []string{"move e1-e6"}, 0.5, true},
		// White's move e1-e7 makes his row e1-e5 and black's b6-f6 (e6 turned): white removes
		// his first, then black his.
		{"normal, both rows, the mover's first", both + " removed=2,2", false, []string{"move e1-e7"}, sureWin, false},
		{"normal, both rows, the opponent's wins", both + " removed=1,2", false, []string{"move e1-e7"}, -sureWin, false},
		{"normal, both rows, the opponent's wins after the ring", both + " removed=1,2", false, []string{"move e1-e7", "row e1-e5"}, -sureWin, false},
		{"normal, both rows, the opponent's counted", both + " removed=0,1", false, []string{"move e1-e7"}, -0.5, true},
	}
	for _, tc := range tests {
		s := position(t, tc.spec)
		s.blitz = tc.blitz
		for _, m := range tc.play {
			var err error
			if s, _, err = env.PlayText(s, m); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
		}
		h := Normal.Heuristic(s)
		if tc.blitz {
			h = Blitz.Heuristic(s)
		}
		if tc.atLeast && (tc.want > 0 && h < tc.want || tc.want < 0 && h > tc.want) || !tc.atLeast && h != tc.want {
			t.Errorf("%s: heuristic %v for %s, want %v (at least: %v), at\n%v", tc.name, h, Names[s.toMove], tc.want, tc.atLeast, s)
		}
	}
}
