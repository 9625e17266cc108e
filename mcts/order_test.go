package mcts

import (
	"context"
	"fmt"
	"hash/maphash"
	"slices"
	"testing"
	"unsafe"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/gyges"
	"github.com/zerogames/zero/env/imbriqua"
	"github.com/zerogames/zero/env/yinsh"
)

// TestExtendOrder: one extension puts the orderChunk children of the highest priors first, in
// descending order (ties in their order), and the others after them in their order; a node
// expanded in order (orderedChildren) has its children so from the start.
func TestExtendOrder(t *testing.T) {
	for _, tc := range []struct {
		name   string
		priors []float32
		sorted int32 // the order before
	}{
		{"fewer than a chunk", []float32{0.1, 0.5, 0.2, 0.2}, 0},
		{"ties", []float32{0.25, 0.25, 0.25, 0.25}, 0},
		{"many", func() []float32 {
			p := make([]float32, 200)
			for k := range p {
				p[k] = float32((k*37)%101) + 1
			}
			return p
		}(), 0},
		{"a second chunk", func() []float32 {
			p := make([]float32, 60)
			for k := range p {
				p[k] = float32(60-k) * float32(1+k%3)
			}
			return p
		}(), orderChunk},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Search[yinsh.State]{}
			children := make([]node, len(tc.priors))
			for k, p := range tc.priors {
				children[k] = newChild(env.Action(k), p)
			}
			nd := &node{ordered: true}
			if tc.sorted > 0 {
				s.extendOrder(nd, children)
				if nd.sorted != tc.sorted {
					t.Fatalf("first extension: %d in order", nd.sorted)
				}
			}
			before := slices.Clone(children)
			s.extendOrder(nd, children)
			want := slices.Clone(before[tc.sorted:])
			slices.SortStableFunc(want, func(x, y node) int {
				switch {
				case x.prior > y.prior:
					return -1
				case x.prior < y.prior:
					return 1
				}
				return 0
			})
			n := min(orderChunk, len(want))
			if nd.sorted != tc.sorted+int32(n) {
				t.Fatalf("%d in order, want %d", nd.sorted, tc.sorted+int32(n))
			}
			var rest []node
			for _, c := range before[tc.sorted:] {
				if !slices.ContainsFunc(want[:n], func(w node) bool { return w.action == c.action }) {
					rest = append(rest, c)
				}
			}
			got := children[tc.sorted:]
			if !slices.Equal(got[:n], want[:n]) || !slices.Equal(got[n:], rest) || !slices.Equal(children[:tc.sorted], before[:tc.sorted]) {
				t.Fatalf("children after the extension:\n%v\nwant the first %d of\n%v\nthen\n%v", got, n, want, rest)
			}
			if tc.sorted > 0 {
				return
			}
			// A node expanded in order has its children as a first extension leaves them.
			acts := make([]env.Action, len(tc.priors))
			for k := range acts {
				acts[k] = env.Action(k)
			}
			made, expanded := make([]node, len(acts)), &node{}
			s.orderedChildren(expanded, made, acts, tc.priors)
			if !slices.Equal(made, children) || !expanded.ordered || expanded.sorted != nd.sorted {
				t.Fatalf("children made in order:\n%v\nwant\n%v (ordered %v, %d in order)", made, children, expanded.ordered, expanded.sorted)
			}
		})
	}
}

// TestOrderChangesNoChoice: in every node a search put in order (order.go), PUCT chooses the
// same child stopping at the first unvisited one as scanning them all, at every stage of
// searches of each game, with and without the solver, and after the root advances; the
// trees keep their invariants (checkTree) throughout.
func TestOrderChangesNoChoice(t *testing.T) {
	seed := maphash.MakeSeed()
	solverless := DefaultParams()
	solverless.Solver = false
	gumbel := DefaultParams()
	gumbel.Gumbel = true
	t.Run("gyges-advanced", func(t *testing.T) { orderCase(t, gyges.Advanced, seed, DefaultParams(), solverless, gumbel) })
	t.Run("gyges", func(t *testing.T) { orderCase(t, gyges.Basic, seed, DefaultParams()) })
	t.Run("yinsh", func(t *testing.T) { orderCase(t, yinsh.Blitz, seed, DefaultParams(), gumbel) })
	t.Run("imbriqua", func(t *testing.T) { orderCase(t, imbriqua.Game, seed, DefaultParams()) })
}

// compareChoices has every node of s in order (but the proven, whose descents stop there)
// choose a child as it is and scanning all its children, and returns how many it compared or
// the first that differ.
func compareChoices[S env.State[S]](s *Search[S]) (int, error) {
	n := 0
	for i := int32(1); i < int32(s.t.len()); i++ {
		nd := s.t.at(i)
		if !nd.ordered || !nd.expanded() || nd.toMove == env.Chance || nd.solved {
			continue
		}
		ordered := s.selectChild(i)
		nd.ordered = false
		scanned := s.selectChild(i)
		nd.ordered = true
		if ordered != scanned {
			return n, fmt.Errorf("node %d: the order chose child %d, the full scan %d", i, ordered, scanned)
		}
		n++
	}
	return n, nil
}

func orderCase[S env.State[S]](t *testing.T, g env.Game[S], seed maphash.Seed, params ...Params) {
	for _, p := range params {
		s := mustSearch(t, g, &hashOracle[S]{seed: seed}, p, 5)
		past := func(st S) S { // past the chance decisions, to the next player's
			for st.ToMove() == env.Chance {
				st = st.Play(st.Chances(nil)[0].Action)
			}
			return st
		}
		st := past(g.New())
		s.SetRoot(st)
		checked := 0
		for move := 0; move < 6 && st.ToMove() != env.Terminal; move++ {
			for round := 0; round < 4; round++ {
				if err := s.Run(context.Background(), Budget{Simulations: 100 * (round + 1)}); err != nil {
					t.Fatal(err)
				}
				if err := s.checkTree(); err != nil {
					t.Fatalf("move %d, round %d: %v", move, round, err)
				}
				n, err := compareChoices(s)
				if err != nil {
					t.Fatalf("move %d: %v", move, err)
				}
				checked += n
			}
			a, err := s.Choose(move)
			if err != nil {
				t.Fatal(err)
			}
			st = past(st.Play(a))
			s.SetRoot(st)
		}
		if checked < 100 {
			t.Fatalf("only %d nodes in order checked", checked)
		}
		t.Logf("%d choices checked", checked)
	}
}

// TestNodeSize: the order's fields fit in what was the node's padding; a node is 64 bytes, a
// cache line, and a Gygès search's tree of millions of nodes is that many times as large.
func TestNodeSize(t *testing.T) {
	if n := unsafe.Sizeof(node{}); n != 64 {
		t.Errorf("a node is %d bytes, want 64", n)
	}
}

// TestOrderChangesNoChoiceInFlight: the same with self-play's search (a Gumbel root, leaves
// in flight, the solver's scans two deep, a cache across games), each node's choices compared
// while leaves are in flight, between every Collect and Apply.
func TestOrderChangesNoChoiceInFlight(t *testing.T) {
	g := gyges.Advanced
	p := DefaultParams()
	p.Gumbel, p.GumbelActions, p.InFlight, p.Solver, p.ScanDepth = true, 16, 4, true, 2
	o := &hashOracle[gyges.State]{seed: maphash.MakeSeed()}
	s := mustSearch(t, g, o, p, 9)
	s.SetCache(NewCache(g, 64<<20))
	n := g.Info().NumActions
	checked := 0
	for game := 0; game < 2; game++ {
		st := g.New()
		s.Reset(st)
		for move := 0; move < 12 && st.ToMove() != env.Terminal; move++ {
			if err := s.Start(64); err != nil {
				t.Fatal(err)
			}
			for !s.Finished() {
				leaves := s.Collect()
				c, err := compareChoices(s)
				if err != nil {
					t.Fatalf("game %d, move %d: %v", game, move, err)
				}
				checked += c
				if len(leaves) == 0 {
					continue
				}
				policy, value := make([]float32, len(leaves)*n), make([]float32, len(leaves))
				if err := o.Evaluate(leaves, policy, value); err != nil {
					t.Fatal(err)
				}
				if err := s.Apply(policy, value); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.checkTree(); err != nil {
				t.Fatalf("game %d, move %d: %v", game, move, err)
			}
			a, err := s.Choose(move)
			if err != nil {
				t.Fatal(err)
			}
			st = st.Play(a)
			s.SetRoot(st)
		}
	}
	if checked < 100 {
		t.Fatalf("only %d choices checked", checked)
	}
	t.Logf("%d choices checked", checked)
}
