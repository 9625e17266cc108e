package mcts

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/gyges"
)

// htgame is the hand-built tree with a heuristic (any value of the node for its decider, below
// ±1) and a hash (the node), so that alpha-beta searches it as a classical engine (pvs): the
// table meets the nodes that several paths reach (mateTrees' shared ends, a chance's equal
// outcomes) at other depths.
type htgame struct{ *tgame }

func (htgame) Heuristic(s tpos) float64 {
	return float64(uint32(s.id)*2654435761%1000)/1000 - 0.5
}
func (htgame) Hash(s tpos) uint64 { return uint64(s.id)*0x9e3779b97f4a7c15 + 1 }

// noHeuristic is a game seen without its heuristic or hash: alpha-beta searches it as before
// either existed.
type noHeuristic[S env.State[S]] struct{ g env.Game[S] }

func (n noHeuristic[S]) Info() *env.Info                          { return n.g.Info() }
func (n noHeuristic[S]) New() S                                   { return n.g.New() }
func (n noHeuristic[S]) MapAction(k int, a env.Action) env.Action { return n.g.MapAction(k, a) }
func (n noHeuristic[S]) CanWin(s S, buf []env.Action) (bool, []env.Action) {
	if f, ok := n.g.(env.WinFinder[S]); ok {
		return f.CanWin(s, buf)
	}
	return env.CanWin(s, buf)
}

// abVariants are the searches of g to depth compared: the classical one (its table kept from
// search to search), the same without the table, and plain alpha-beta with the heuristic.
func abVariants[S env.State[S]](t *testing.T, g env.Game[S], depth int, seed uint64) (classic, noTT, plain *AlphaBeta[S]) {
	classic, noTT, plain = mustAB(t, g, depth, seed), mustAB(t, g, depth, seed), mustAB(t, g, depth, seed)
	noTT.noTT, plain.plain = true, true
	return classic, noTT, plain
}

// TestAlphaBetaClassicOnRandomTrees: on random trees (turns of several decisions, chance,
// mid-turn deciders) with a heuristic, the classical search (the table, the win check at every
// decision, the history heuristic, principal-variation search) answers what plain alpha-beta
// answers at every depth (the value, the move, and a line starting with it), with and without
// the table (kept from search to search, the depths rising and then falling, the root's moves
// shuffled anew), and the exact
// value once it sees the end.
func TestAlphaBetaClassicOnRandomTrees(t *testing.T) {
	bad := 0
	for seed := uint64(0); seed < 600; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3))
		g := htgame{newTree(randomTree(rng, 5+int(seed%5)))}
		if treeTab[0].who == env.Chance {
			continue
		}
		need := min(turnsTree(0, treeTab[0].who)+1, MaxABDepth)
		classic, noTT, plain := abVariants[tpos](t, g, 1, seed)
		// Deeper, then shallower again: the table holds what deeper searches found.
		for k := 1; k < 2*need; k++ {
			depth := min(k, 2*need-k)
			var res [3]ABResult
			for i, ab := range []*AlphaBeta[tpos]{classic, noTT, plain} {
				// Another shuffle of the root's moves each time: other windows meet the
				// table's bounds.
				ab.Limit(depth, 0)
				ab.Seed(seed + uint64(k))
				r, err := ab.Search(context.Background(), tpos{0})
				if err != nil {
					t.Fatal(err)
				}
				res[i] = r
				if len(r.PV) == 0 || r.PV[0] != r.Best {
					t.Errorf("seed %d, ab:%d variant %d: the line %v, the move %d", seed, depth, i, r.PV, r.Best)
				}
			}
			if res[0].Value != res[2].Value || res[1].Value != res[2].Value || res[0].Best != res[2].Best || res[1].Best != res[2].Best {
				if bad++; bad < 10 {
					t.Errorf("seed %d, ab:%d: classical %d %v, without the table %d %v, plain %d %v", seed, depth,
						res[0].Best, res[0].Value, res[1].Best, res[1].Value, res[2].Best, res[2].Value)
				}
			}
			if depth == need && math.Abs(res[0].Value-sign(treeTab[0].who)*exactTree(0)) > 1e-9 {
				if bad++; bad < 10 {
					t.Errorf("seed %d, ab:%d: %v, exact %v", seed, depth, res[0].Value, sign(treeTab[0].who)*exactTree(0))
				}
			}
		}
	}
}

// TestAlphaBetaTable: what the table holds after a classical search of a random tree is true of
// the nodes at the depth it says (an exact value is the plain search's, a bound bounds it); and
// a search that finds instead valid bounds as loose as can be (or exact values) answers as plain
// alpha-beta does: the table's bounds settle a null window only where they should.
func TestAlphaBetaTable(t *testing.T) {
	entries := 0
	for seed := uint64(0); seed < 400; seed++ {
		rng := rand.New(rand.NewPCG(seed, 4))
		g := htgame{newTree(randomTree(rng, 5+int(seed%5)))}
		if treeTab[0].who == env.Chance {
			continue
		}
		depth := 1 + rng.IntN(min(turnsTree(0, treeTab[0].who)+1, MaxABDepth))
		classic, _, plain := abVariants[tpos](t, g, depth, seed)
		first, err := classic.Search(context.Background(), tpos{0})
		if err != nil {
			t.Fatal(err)
		}
		plain.ctx = context.Background()
		for id := range treeTab {
			who := treeTab[id].who
			key := g.Hash(tpos{int32(id)})
			slot := &classic.tt[key&(abTableSize-1)]
			if who < 0 || slot.key != key || slot.bound == abEmpty {
				continue
			}
			entries++
			x, err := plain.value(tpos{int32(id)}, who, int(slot.left), -1, 1, 0)
			if err != nil {
				t.Fatal(err)
			}
			if slot.bound == abExact && slot.value != x || slot.bound == abLower && x < slot.value || slot.bound == abUpper && x > slot.value {
				t.Fatalf("seed %d node %d, %d turns: the table holds %v (bound %d), the value is %v", seed, id, slot.left, slot.value, slot.bound, x)
			}
			// Valid, and loose: a lower bound as low as -1, an upper one as high as 1.
			switch rng.IntN(3) {
			case 0:
				slot.value, slot.bound = x, abExact
			case 1:
				slot.value, slot.bound = x-rng.Float64()*(x+1), abLower
			default:
				slot.value, slot.bound = x+rng.Float64()*(1-x), abUpper
			}
		}
		again, err := classic.Search(context.Background(), tpos{0})
		if err != nil {
			t.Fatal(err)
		}
		want, err := plain.Search(context.Background(), tpos{0})
		if err != nil {
			t.Fatal(err)
		}
		if first.Value != want.Value || first.Best != want.Best || again.Value != want.Value || again.Best != want.Best {
			t.Errorf("seed %d, ab:%d: classical %d %v, with the table loosened %d %v; plain %d %v", seed, depth,
				first.Best, first.Value, again.Best, again.Value, want.Best, want.Value)
		}
	}
	if entries < 1000 {
		t.Errorf("%d entries: the test shows little", entries)
	}
}

// TestAlphaBetaClassicMateDistance: the classical search with its table still takes the
// fastest win and the slowest loss (mateTrees, whose ends several paths share).
func TestAlphaBetaClassicMateDistance(t *testing.T) {
	win, loss := mateTrees()
	for _, c := range []struct {
		name  string
		tab   []tnode
		depth int
		best  env.Action
		value float64
	}{{"win", win, 1, 1, 1}, {"win", win, 4, 1, 1}, {"loss", loss, 4, 1, -1}, {"loss", loss, 8, 1, -1}} {
		g := htgame{newTree(c.tab)}
		ab := mustAB[tpos](t, g, c.depth, 0)
		for seed := uint64(0); seed < 24; seed++ {
			ab.Seed(seed) // the table kept from seed to seed
			res, err := ab.Search(context.Background(), tpos{0})
			if err != nil {
				t.Fatal(err)
			}
			if res.Best != c.best || res.Value != c.value {
				t.Errorf("%s, ab:%d seed %d: move %d value %v, want move %d value %v", c.name, c.depth, seed, res.Best, res.Value, c.best, c.value)
			}
		}
		if ab.tt == nil {
			t.Fatal("no table: the classical search was not searched")
		}
	}
}

// gygesPositions are the movement positions of seeded random Gygès games, every third decision.
func gygesPositions(g *gyges.Game, seed uint64, games int) []gyges.State {
	var out []gyges.State
	for i := range games {
		w := env.NewWalker[gyges.State](rand.New(rand.NewPCG(seed+uint64(i), 13)), g.Info().NumActions)
		s := g.New()
		for n := 0; s.ToMove() != env.Terminal; n++ {
			if !s.SettingUp() && n%3 == 0 {
				out = append(out, s)
			}
			s = s.Play(w.Step(s))
		}
	}
	return out
}

// TestAlphaBetaClassicGyges: on Gygès positions (both rules, depths 1 to 3, a table of seeds)
// the classical search with its table answers what it answers without it and what plain
// alpha-beta with the heuristic answers: the value and the move. Each search is reused from
// position to position, its table kept.
func TestAlphaBetaClassicGyges(t *testing.T) {
	for _, tc := range []struct {
		g         *gyges.Game
		seed      uint64
		games     int
		depths    []int
		positions int // at most
	}{
		{gyges.Basic, 1, 3, []int{1, 2, 3}, 100},
		{gyges.Advanced, 2, 2, []int{1, 2}, 60},
		{gyges.Advanced, 3, 1, []int{3}, 8},
	} {
		positions := gygesPositions(tc.g, tc.seed, tc.games)
		positions = positions[:min(len(positions), tc.positions)]
		for _, depth := range tc.depths {
			classic, noTT, plain := abVariants[gyges.State](t, tc.g, depth, tc.seed)
			var nodes [3]int64
			for _, s := range positions {
				var res [3]ABResult
				for i, ab := range []*AlphaBeta[gyges.State]{classic, noTT, plain} {
					r, err := ab.Search(context.Background(), s)
					if err != nil {
						t.Fatal(err)
					}
					res[i] = r
					nodes[i] += r.Nodes
				}
				if res[0].Value != res[2].Value || res[1].Value != res[2].Value || res[0].Best != res[2].Best || res[1].Best != res[2].Best {
					t.Errorf("%s ab:%d at %s: classical %s %v, without the table %s %v, plain %s %v", tc.g.Info().Name, depth, s.Position(),
						env.ActionString(s, res[0].Best), res[0].Value, env.ActionString(s, res[1].Best), res[1].Value,
						env.ActionString(s, res[2].Best), res[2].Value)
				}
			}
			t.Logf("%s ab:%d, %d positions: %d positions searched, %d without the table, %d by plain alpha-beta", tc.g.Info().Name, depth, len(positions), nodes[0], nodes[1], nodes[2])
		}
	}
}

// TestAlphaBetaEndsOnly: EndsOnly (ab:D:eval=none) is the search of the game without its
// heuristic, as it was before the game had one: the same moves, values and positions searched.
func TestAlphaBetaEndsOnly(t *testing.T) {
	for _, g := range []*gyges.Game{gyges.Basic, gyges.Advanced} {
		ends, before := mustAB[gyges.State](t, g, 3, 5), mustAB[gyges.State](t, noHeuristic[gyges.State]{g}, 3, 5)
		ends.EndsOnly()
		for _, s := range gygesPositions(g, 4, 2) {
			re, rb := searchBoth(t, ends, before, s)
			if re.Best != rb.Best || re.Value != rb.Value || re.Nodes != rb.Nodes || fmt.Sprint(re.PV) != fmt.Sprint(rb.PV) {
				t.Errorf("%s at %s: ends only %+v, without the heuristic %+v", g.Info().Name, s.Position(), re, rb)
			}
		}
		if ends.tt != nil {
			t.Errorf("%s: the search of the ends only made a table", g.Info().Name)
		}
	}
}

// TestAlphaBetaHeuristicPlays: with Gygès' heuristic, ab:3 beats ab:3 valuing the ends only
// (ab:3:eval=none), which plays at random past its horizon: 20 games of the basic rule from 10
// random set-ups, each played with both sides; it wins all 20 (and 20 of 20 under the advanced
// rule, docs/BENCHMARKS.md, where the games take half a minute).
func TestAlphaBetaHeuristicPlays(t *testing.T) {
	g := gyges.Basic
	classic, ends := mustAB[gyges.State](t, g, 3, 1), mustAB[gyges.State](t, g, 3, 2)
	ends.EndsOnly()
	rng := rand.New(rand.NewPCG(12, 1))
	wins := 0
	for pair := range 10 {
		open := g.New()
		for open.SettingUp() {
			legal := open.Legal(nil)
			open = open.Play(legal[rng.IntN(len(legal))])
		}
		for side := range env.Player(2) {
			classic.Seed(uint64(2 * pair))
			ends.Seed(uint64(2*pair + 1))
			s := open
			for s.ToMove() != env.Terminal {
				ab := classic
				if s.ToMove() != side {
					ab = ends
				}
				res, err := ab.Search(context.Background(), s)
				if err != nil {
					t.Fatal(err)
				}
				s = s.Play(res.Best)
			}
			if s.Result() == env.WinFor(side) {
				wins++
			}
		}
	}
	if wins < 16 {
		t.Errorf("ab:3 won %d of 20 against ab:3:eval=none", wins)
	}
	t.Logf("ab:3 won %d of 20 against ab:3:eval=none", wins)
}
