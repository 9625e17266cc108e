package mcts

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/zerogames/zero/env"
)

// randomTree builds a random game tree: multi-decision turns, chance, mid-turn deciders.
func randomTree(rng *rand.Rand, maxDepth int) []tnode {
	var tab []tnode
	var build func(p env.Player, depth int) int32
	build = func(p env.Player, depth int) int32 {
		id := int32(len(tab))
		tab = append(tab, tnode{})
		if depth >= maxDepth || (depth > 1 && rng.IntN(5) == 0) {
			tab[id] = end([]env.Result{env.Win0, env.Win1, env.Draw}[rng.IntN(3)])
			return id
		}
		if depth > 0 && rng.IntN(5) == 0 {
			k := 2 + rng.IntN(2)
			probs := [][]float64{{0.25, 0.75}, {0.5, 0.5}, {0.6, 0.4}, {0.5, 0.3, 0.2}, {0.1, 0.1, 0.8}}
			var pr []float64
			for pr == nil || len(pr) != k {
				pr = probs[rng.IntN(len(probs))]
			}
			next := p
			if rng.IntN(2) == 0 {
				next = 1 - p
			}
			kids := make([]int32, k)
			for i := range kids {
				kids[i] = build(next, depth+1)
			}
			tab[id] = chance(pr, kids...)
			return id
		}
		k := 1 + rng.IntN(3)
		kids := make([]int32, k)
		for i := range kids {
			next := 1 - p
			if rng.IntN(3) == 0 {
				next = p // the same player again
			}
			kids[i] = build(next, depth+1)
		}
		tab[id] = dec(p, kids...)
		return id
	}
	build(0, 0)
	return tab
}

func exactTree(id int32) float64 {
	nd := treeTab[id]
	switch nd.who {
	case env.Terminal:
		return float64(nd.res.Value(0))
	case env.Chance:
		s := 0.0
		for k, c := range nd.kids {
			s += nd.probs[k] * exactTree(c)
		}
		return s
	}
	best := math.Inf(-1)
	sg := sign(nd.who)
	for _, c := range nd.kids {
		best = max(best, sg*exactTree(c))
	}
	return sg * best
}

func (s *Search[S]) reviewCheck(t *testing.T, exact func(S) float64) string {
	for i := range int32(s.t.len()) {
		nd := s.t.at(i)
		if !nd.solved || nd.state < 0 {
			continue
		}
		if want := exact(s.t.states[nd.state]); math.Abs(float64(nd.proven)-want) > 1e-4 {
			return "proven wrong"
		}
	}
	root := s.t.at(0)
	if !root.expanded() {
		return ""
	}
	sg := sign(root.toMove)
	rv := sg * exact(s.Root())
	for c := root.first; c < root.first+root.count; c++ {
		ch := s.t.at(c)
		if s.excluded(ch) {
			st := s.t.states[root.state].Play(ch.action)
			if sg*exact(st) > -1+1e-6 {
				return "excluded a move not lost"
			}
		}
	}
	if !root.solved {
		a, _ := s.Choose(0)
		for c := root.first; c < root.first+root.count; c++ {
			if s.t.at(c).action == a && s.t.at(c).lostFor(sg) {
				return "chose a proven loss"
			}
		}
		pol := make([]float32, s.numActions)
		s.Policy(pol)
		for c := root.first; c < root.first+root.count; c++ {
			if s.t.at(c).lostFor(sg) && pol[s.t.at(c).action] != 0 {
				return "policy on a proven loss"
			}
		}
	}
	if root.solved {
		a, _ := s.Choose(0)
		if v := sg * exact(s.Root().Play(a)); math.Abs(v-rv) > 1e-6 {
			return "proven root chose a suboptimal move"
		}
	}
	return ""
}

func TestSolverExactOnRandomTrees(t *testing.T) {
	var variants []Params
	p := DefaultParams()
	variants = append(variants, p)
	p.RootProof = 2
	variants = append(variants, p)
	p = DefaultParams()
	p.ScanDepth, p.InFlight = 3, 4
	variants = append(variants, p)
	p = DefaultParams()
	p.Gumbel, p.GumbelActions = true, 2
	variants = append(variants, p)
	p = DefaultParams()
	p.Gumbel, p.GumbelActions, p.InFlight = true, 1, 4
	variants = append(variants, p)
	p.GumbelActions, p.GumbelInterior = 4, true
	variants = append(variants, p)
	p = DefaultParams()
	p.Temperature = Constant(1)
	variants = append(variants, p)
	p = DefaultParams()
	p.SampleChance, p.RootProof, p.ScanDepth = true, 0, 1
	variants = append(variants, p)
	fails := map[string]int{}
	seen := map[string]int{} // how often the proofs were exercised, for the log
	for seed := uint64(0); seed < 4000; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1))
		tab := randomTree(rng, 6+int(seed%5))
		g := newTree(tab)
		exact := func(s tpos) float64 { return exactTree(s.id) }
		for vi, vp := range variants {
			s := mustSearch(t, g, Uniform[tpos]{}, vp, seed)
			playTree(t, s, g.New(), rng, 30, func(st tpos) {
				if s.t.at(0).solved {
					seen["root solved"]++
				}
				for i := range int32(s.t.len()) {
					if s.t.at(i).byProof {
						seen["proven by a root proof"]++
					}
				}
				if msg := s.reviewCheck(t, exact); msg != "" {
					if fails[msg] < 3 {
						t.Errorf("seed %d variant %d at %v: %s", seed, vi, st, msg)
					}
					fails[msg]++
				}
			})
		}
	}
	t.Log(seen)
	if seen["root solved"] == 0 || seen["proven by a root proof"] == 0 {
		t.Errorf("the random trees never exercised the solver's proofs: %v", seen)
	}
}

// TestProvenShortestWinLongestLoss: a proven root plays the shortest win and the longest loss
// (mateTrees), in every variant with the solver. The root proofs are left out of the loss:
// a move proven by them is given the depth 2·RootProof, not its own (move 2 there, lost in
// player 1's first turn, is taken for longer than move 1's loss in his second).
func TestProvenShortestWinLongestLoss(t *testing.T) {
	win, loss := mateTrees()
	for _, v := range variants() {
		if !v.p.Solver {
			continue
		}
		for _, c := range []struct {
			name string
			tab  []tnode
		}{{"win", win}, {"loss", loss}} {
			if c.name == "loss" && v.p.RootProof > 0 {
				continue
			}
			g := newTree(c.tab)
			for seed := uint64(0); seed < 6; seed++ {
				s := mustSearch(t, g, Uniform[tpos]{}, v.p, seed)
				if err := s.Run(context.Background(), Budget{Simulations: 200}); err != nil {
					t.Fatal(err)
				}
				a, _ := s.Choose(0)
				if _, ok := s.Proven(); !ok || a != 1 {
					t.Errorf("%s, %s seed %d: proven %v, chose %d, want 1; children %+v", c.name, v.name, seed, ok, a, s.Children(nil))
				}
			}
		}
	}
}

// playTree plays a game of a random tree from st with the search s, reused from move to move:
// each chance outcome drawn by rng and given to s (Advance); at each decision a search of
// 1 + rng.IntN(maxSims) simulations from SetRoot(st), check(st), then the move s chooses.
func playTree(t *testing.T, s *Search[tpos], st tpos, rng *rand.Rand, maxSims int, check func(st tpos)) {
	t.Helper()
	for st.ToMove() != env.Terminal {
		if st.ToMove() == env.Chance {
			a := env.Action(rng.IntN(len(treeTab[st.id].kids)))
			if err := s.Advance(a); err != nil {
				t.Fatal(err)
			}
			st = st.Play(a)
			continue
		}
		s.SetRoot(st)
		if err := s.Run(context.Background(), Budget{Simulations: 1 + rng.IntN(maxSims)}); err != nil {
			t.Fatal(err)
		}
		check(st)
		a, _ := s.Choose(0)
		if err := s.Advance(a); err != nil {
			t.Fatal(err)
		}
		st = st.Play(a)
	}
}
