package gyges

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zerogames/zero/env"
)

// movementPositions are the positions of the movement (all 12 pieces placed, game on) of
// seeded random games of g, every second one.
func movementPositions(g *Game, seed uint64, games int) []State {
	rng := rand.New(rand.NewPCG(seed, 7))
	var out []State
	for range games {
		s := g.New()
		for i := 0; s.ToMove() != env.Terminal; i++ {
			if !s.SettingUp() && i%2 == 0 {
				out = append(out, s)
			}
			s = s.Play(s.randomLegal(rng))
		}
	}
	return out
}

// otherToMove is s's board with the other player to move (the frame turned), through the
// position notation.
func otherToMove(t *testing.T, g *Game, s State) State {
	t.Helper()
	pos := s.Position()
	side := map[byte]string{'s': "n", 'n': "s"}[pos[len(pos)-1]]
	o, err := g.ParsePosition(pos[:len(pos)-1] + side)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestHeuristic: the evaluation is in (-1, 1); the mirror gives the same value; where neither
// player reaches the goal, the board is worth exactly minus as much to the other player with him
// to move; a player to move who reaches the goal gets goalValue, above everything else; a
// player whose opponent reaches the goal (and he does not) stands worse than the same board
// without the threat's term; the set-up is worth 0. Positions of seeded random games, both rules.
func TestHeuristic(t *testing.T) {
	for _, g := range []*Game{Basic, Advanced} {
		var goals, threats int
		for _, s := range movementPositions(g, 3, 12) {
			h := g.Heuristic(s)
			if !(h > -1 && h < 1) {
				t.Fatalf("%s: %v at %s", g.info.Name, h, s.Position())
			}
			if m := g.Heuristic(s.Symmetry(1)); m != h {
				t.Errorf("%s: %v, mirrored %v, at %s", g.info.Name, h, m, s.Position())
			}
			o := otherToMove(t, g, s)
			mine, theirs := s.canWin(), o.canWin()
			switch {
			case mine:
				goals++
				if h != goalValue {
					t.Errorf("%s: the player to move reaches the goal, valued %v at %s", g.info.Name, h, s.Position())
				}
			case theirs:
				threats++
				w := evalWeights
				w.threat = 0
				if without := s.evaluate(&w); !(h < without) || h >= 0.9 {
					t.Errorf("%s: the opponent reaches the goal: %v, %v without the threat, at %s", g.info.Name, h, without, s.Position())
				}
			default:
				if v := g.Heuristic(o); v != -h {
					t.Errorf("%s: %v for the player to move, %v for the other with him to move, at %s", g.info.Name, h, v, s.Position())
				}
				if math.Abs(h) >= 0.9 {
					t.Errorf("%s: %v without a goal in reach, at %s", g.info.Name, h, s.Position())
				}
			}
		}
		if goals == 0 || threats == 0 {
			t.Errorf("%s: %d positions with a goal in reach of the player to move, %d of his opponent: the test shows nothing", g.info.Name, goals, threats)
		}
		if v := g.Heuristic(g.New().Play(0)); v != 0 {
			t.Errorf("%s: the set-up valued %v", g.info.Name, v)
		}
	}
}

// TestReachOf: what the evaluation counts for the player to move is what Legal lists: the ends
// of the moves (the goal apart) and the squares they end on, the goal in reach, and (advanced
// rule) every piece some replacement lands on among the pieces reached.
func TestReachOf(t *testing.T) {
	for _, g := range []*Game{Basic, Advanced} {
		for _, s := range movementPositions(g, 5, 6) {
			var r sideReach
			s.reachOf(&r, false, nil, false)
			var ends int
			var squares, landed uint64
			toGoal := false
			for _, a := range s.Legal(nil) {
				i := int(a)
				switch {
				case i >= replaceBase:
					landed |= 1 << ((i - replaceBase) / numSquares % numSquares)
				case (i-moveBase)%(numSquares+1) == goal:
					toGoal = true
				default:
					ends++
					squares |= 1 << ((i - moveBase) % (numSquares + 1))
				}
			}
			if r.ends != ends || r.squares != squares || r.goal != toGoal || landed&^r.pieces != 0 {
				t.Fatalf("%s at %s: reach %d ends on %x, goal %v, pieces %x; Legal %d ends on %x, goal %v, replacements landing on %x",
					g.info.Name, s.Position(), r.ends, r.squares, r.goal, r.pieces, ends, squares, toGoal, landed)
			}
		}
	}
}

// TestHash: equal states hash alike; the states of random games all hash apart, and apart from
// the same boards with another count of moves made (a position nearer the move cap) or the
// other player to move.
func TestHash(t *testing.T) {
	for _, g := range []*Game{Basic, Advanced} {
		seen := map[uint64]State{}
		for _, s := range movementPositions(g, 9, 20) {
			c := s
			if g.Hash(c) != g.Hash(s) {
				t.Fatal("a copy hashes apart")
			}
			later := s
			later.moves++
			o := s
			o.side = o.side.Other()
			for _, x := range []State{s, later, o} {
				h := g.Hash(x)
				if y, ok := seen[h]; ok && y != x {
					t.Fatalf("%s: %v and %v hash alike", g.info.Name, strings.TrimSpace(x.String()), strings.TrimSpace(y.String()))
				}
				seen[h] = x
			}
		}
		if len(seen) < 1000 {
			t.Errorf("%s: %d states only", g.info.Name, len(seen))
		}
	}
}

// TestHeuristicAllocs: the evaluation allocates nothing.
func TestHeuristicAllocs(t *testing.T) {
	for _, g := range []*Game{Basic, Advanced} {
		states := movementPositions(g, 1, 2)
		if n := testing.AllocsPerRun(5, func() {
			for _, s := range states {
				g.Heuristic(s)
				g.Hash(s)
			}
		}); n != 0 {
			t.Errorf("%s: %v allocations", g.info.Name, n)
		}
	}
}

// TestReachPlanes: encoding 2's planes are the heuristic's reach of each player (the mover's
// ends counted per piece, the pieces landed on, the row that may move, the goal), the
// opponent's in the mover's frame; encoding 1's 13 planes come first (EncodingPlanes); Observe
// allocates nothing.
func TestReachPlanes(t *testing.T) {
	if n, ok := Advanced.EncodingPlanes(1); !ok || n != planesV1 {
		t.Fatalf("EncodingPlanes(1) = %d, %v", n, ok)
	}
	if n, ok := Advanced.EncodingPlanes(Advanced.Info().Encoding); !ok || n != numPlanes || Advanced.Info().Observation.Planes != numPlanes {
		t.Fatalf("today's encoding: %d planes, %v", n, ok)
	}
	if _, ok := Advanced.EncodingPlanes(3); ok {
		t.Fatal("EncodingPlanes(3) served")
	}
	obs := make([]float32, numPlanes*numSquares)
	plane := func(k int) []float32 { return obs[k*numSquares : (k+1)*numSquares] }
	mask := func(k int) (m uint64) {
		for q, v := range plane(k) {
			if v != 0 && v != 1 {
				t.Fatalf("plane %d holds %v", k, v)
			}
			if v == 1 {
				m |= 1 << q
			}
		}
		return m
	}
	sum := func(k int) (x float32) {
		for _, v := range plane(k) {
			x += v
		}
		return x
	}
	goals := [2]int{}
	for _, g := range []*Game{Basic, Advanced} {
		for _, s := range movementPositions(g, 7, 200) {
			s.Observe(obs)
			var me, them sideReach
			s.reachOf(&me, false, nil, false)
			tu := s.turned()
			tu.reachOf(&them, false, nil, false)
			switch {
			case sum(planeOwnEnds)*4 != float32(me.ends) || sum(planeTheirEnds)*4 != float32(them.ends):
				t.Fatalf("%s %s: ends %v and %v, want %d and %d", g.info.Name, s.Position(), sum(planeOwnEnds)*4, sum(planeTheirEnds)*4, me.ends, them.ends)
			case mask(planeOwnLands) != me.landed || mask(planeTheirLands) != turn(them.landed):
				t.Fatalf("%s %s: the pieces landed on differ", g.info.Name, s.Position())
			case mask(planeOwnRow) != me.row || mask(planeTheirRow) != turn(them.row):
				t.Fatalf("%s %s: the rows that may move differ", g.info.Name, s.Position())
			case (sum(planeOwnGoal) == numSquares) != me.goal || (sum(planeTheirGoal) == numSquares) != them.goal:
				t.Fatalf("%s %s: the goal planes differ", g.info.Name, s.Position())
			}
			for q, v := range plane(planeOwnEnds) {
				if v != 0 && me.squares&(1<<q) == 0 {
					t.Fatalf("%s %s: an end at %d, not one of the mover's squares", g.info.Name, s.Position(), q)
				}
			}
			if me.goal {
				goals[0]++
			}
			if them.goal {
				goals[1]++
			}
		}
	}
	if goals[0] == 0 || goals[1] == 0 {
		t.Errorf("goal reached by the mover in %d positions, by the opponent in %d: the test sees neither case", goals[0], goals[1])
	}
	// During the set-up the reach planes are 0.
	s := Advanced.New().Play(0)
	s.Observe(obs)
	for _, v := range obs[planeOwnEnds*numSquares:] {
		if v != 0 {
			t.Fatal("reach planes set during the set-up")
		}
	}
	states := movementPositions(Advanced, 1, 2)
	if n := testing.AllocsPerRun(5, func() {
		for _, s := range states {
			s.Observe(obs)
		}
	}); n != 0 {
		t.Errorf("Observe: %v allocations", n)
	}
}
