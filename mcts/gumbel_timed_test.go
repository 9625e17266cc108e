package mcts

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/yinsh"
)

// tickingOracle is an oracle whose every leaf takes cost on the test clock.
type tickingOracle[S env.State[S]] struct {
	Oracle[S]
	clock *time.Time
	cost  time.Duration
}

func (o tickingOracle[S]) Evaluate(leaves []S, policy, value []float32) error {
	*o.clock = o.clock.Add(time.Duration(len(leaves)) * o.cost)
	return o.Oracle.Evaluate(leaves, policy, value)
}

// A Gumbel root searches for a time: its halving is planned for the simulations the time
// allows and planned again at each phase (its last phase going on while time is left), so
// that a search of 0.4 s (a test clock that only the oracle moves, 1 ms a leaf) takes its 0.4 s,
// and its visits end as the halving's do: the survivors of each phase visited more than those it dropped, and the
// last two the most. Before it was refused ("a Gumbel root needs a budget in simulations").
// The first search, with no rate yet measured, plans the least halving and learns the rate
// from its first phase; the second plans from the first's rate.
func TestGumbelTimed(t *testing.T) {
	clock := time.Unix(0, 0)
	now = func() time.Time { return clock }
	t.Cleanup(func() { now = time.Now })
	for _, inflight := range []int{1, 4} {
		p := DefaultParams()
		p.Gumbel, p.GumbelActions, p.InFlight = true, 16, inflight
		root := midgame(yinsh.Blitz, 40)
		o := tickingOracle[yinsh.State]{NewRollout(yinsh.Blitz, 1, 1), &clock, time.Millisecond}
		s := mustSearch(t, yinsh.Blitz, o, p, 3)
		for search := range 2 {
			s.Reset(root)
			start := clock
			if err := s.Run(context.Background(), Budget{Time: 400 * time.Millisecond}); err != nil {
				t.Fatalf("in flight %d, search %d: %v", inflight, search, err)
			}
			if err := s.checkTree(); err != nil {
				t.Fatal(err)
			}
			took := clock.Sub(start)
			if n := s.Simulations(); took < 400*time.Millisecond || took > 404*time.Millisecond || n < 400 {
				t.Errorf("in flight %d, search %d: %d simulations in %v, want 400ms (and a leaf a ms at most)", inflight, search, n, took)
			}
			visits := slices.Clone(s.gumbel.local)
			slices.Sort(visits)
			slices.Reverse(visits)
			// 16 actions halved to 8, 4, 2: each phase's survivors above the dropped.
			for _, cut := range []int{2, 4, 8} {
				if visits[cut-1] <= visits[cut] {
					t.Errorf("in flight %d, search %d: root visits %v: the best %d not above the rest", inflight, search, visits, cut)
				}
			}
			// The phases share the time: the plan of the first search's least halving (2
			// visits each in its first phase, then 4, 8, 16 for the survivors) is made again
			// from the rate of its first phase, so the actions dropped after the second have
			// far more than 6.
			if visits[7] < 10 {
				t.Errorf("in flight %d, search %d: root visits %v: the halving was not planned for the time", inflight, search, visits)
			}
			a, err := s.Choose(0)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range s.Children(nil) {
				if c.Action == a && int32(c.Visits) != visits[0] && int32(c.Visits) != visits[1] {
					t.Errorf("in flight %d, search %d: chose a move of %d visits, root visits %v", inflight, search, c.Visits, visits)
				}
			}
		}
	}
}
