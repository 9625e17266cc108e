package mcts

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/internal/testgames"
)

// The halving sequences, worked out by hand from the rule: log2(m) phases; a phase with c
// actions gives each max(1, ⌊n / (⌈log2 m⌉·c)⌋) visits; then c halves, but not below 2.
func TestGumbelSequence(t *testing.T) {
	tests := []struct {
		m, n  int
		seq   []int32
		phase []int32
	}{
		{1, 4, []int32{0, 1, 2, 3}, []int32{1, 1, 1, 1}},
		{2, 5, []int32{0, 0, 1, 1, 2}, []int32{2, 2, 2, 2, 2}},
		{4, 8, []int32{0, 0, 0, 0, 1, 1, 2, 2}, []int32{4, 4, 4, 4, 2, 2, 2, 2}},
		{4, 16, []int32{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}, []int32{4, 4, 4, 4, 4, 4, 4, 4, 2, 2, 2, 2, 2, 2, 2, 2}},
		// m = 3: ⌈log2 3⌉ = 2; 3 actions get ⌊12/6⌋ = 2 visits, then 2 actions ⌊12/4⌋ = 3.
		{3, 12, []int32{0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 4, 4}, []int32{3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2}},
		{8, 6, []int32{0, 0, 0, 0, 0, 0}, []int32{8, 8, 8, 8, 8, 8}},
	}
	for _, tc := range tests {
		var gr gumbelRoot
		gr.sequence(tc.m, tc.n)
		if !slices.Equal(gr.seq, tc.seq) || !slices.Equal(gr.phase, tc.phase) {
			t.Errorf("m=%d n=%d: seq %v phase %v, want %v %v", tc.m, tc.n, gr.seq, gr.phase, tc.seq, tc.phase)
		}
	}
}

// TestGumbelHalving: the visits given at the root follow the sequence, whatever leaves are in
// flight, terminal or not, and the improved policy is a distribution over the legal actions
// that favours the action with the best Q.
func TestGumbelHalving(t *testing.T) {
	for _, inflight := range []int{1, 3, 8} {
		p := DefaultParams()
		p.Gumbel, p.GumbelActions, p.InFlight = true, 8, inflight
		const sims = 50
		root := midgame(yinsh.Blitz, 40)
		s := mustSearch(t, yinsh.Blitz, NewRollout(yinsh.Blitz, 1, 1), p, 3)
		s.Reset(root)
		if err := s.Run(context.Background(), Budget{Simulations: sims}); err != nil {
			t.Fatal(err)
		}
		if err := s.checkTree(); err != nil {
			t.Fatal(err)
		}
		// The counts the sequence gives: each phase's survivors reach the next value.
		var gr gumbelRoot
		gr.sequence(8, sims)
		want := make([]int32, 0, 8)
		counts := map[int32]int32{}
		for _, v := range gr.seq {
			counts[v]++
		}
		// counts[v] actions reached at least v+1 visits.
		for k := int32(0); counts[k] > 0; k++ {
			reached := counts[k] - counts[k+1]
			for range reached {
				want = append(want, k+1)
			}
		}
		got := slices.Clone(s.gumbel.local)
		slices.Sort(got)
		slices.Reverse(got)
		got = slices.DeleteFunc(got, func(n int32) bool { return n == 0 })
		slices.Sort(want)
		slices.Reverse(want)
		if !slices.Equal(got, want) {
			t.Errorf("in flight %d: root visits %v, want %v", inflight, got, want)
		}
		children := s.Children(nil)
		for k, c := range children {
			if int32(c.Visits) != s.gumbel.local[k] {
				t.Errorf("in flight %d: action %d has %d visits, %d counted", inflight, c.Action, c.Visits, s.gumbel.local[k])
			}
		}
		pol := make([]float32, yinsh.NumActions)
		s.Policy(pol)
		sum := 0.0
		for a, x := range pol {
			if x < 0 || x > 0 && !slices.ContainsFunc(children, func(c Child) bool { return c.Action == env.Action(a) }) {
				t.Fatalf("policy %v on action %d", x, a)
			}
			sum += float64(x)
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Errorf("policy sums to %v", sum)
		}
	}
}

// TestGumbelFewSimulations: with only as many simulations as there are legal actions, the
// Gumbel root still finds tic-tac-toe's win in one (a search visiting each action once), and
// its improved policy puts the most weight on it.
func TestGumbelFewSimulations(t *testing.T) {
	// x: a1 b1, o: a3 b3; x to play c1 wins at once.
	st := replay(t, testgames.TicTacToe, "a1;a3;b1;b3")
	for _, sims := range []int{5, 8, 16} {
		p := DefaultParams()
		p.Gumbel = true
		s := mustSearch(t, testgames.TicTacToe, Uniform[testgames.Board]{}, p, uint64(sims))
		s.Reset(st)
		if err := s.Run(context.Background(), Budget{Simulations: sims}); err != nil {
			t.Fatal(err)
		}
		a, _ := s.Choose(0)
		if env.ActionString(st, a) != "c1" {
			t.Errorf("%d simulations: chose %s, want c1", sims, env.ActionString(st, a))
		}
		pol := make([]float32, 9)
		s.Policy(pol)
		if best := slices.Index(pol, slices.Max(pol)); best != int(a) {
			t.Errorf("%d simulations: the improved policy %v peaks at %d", sims, pol, best)
		}
	}
}
