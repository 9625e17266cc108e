package mcts

import (
	"context"
	"testing"

	"github.com/zerogames/zero/env"
)

// valueOracle answers equal priors and, as the value of a leaf for its player to decide,
// value[id] (0 where the map has none).
type valueOracle map[int32]float32

func (o valueOracle) Evaluate(leaves []tpos, policy, value []float32) error {
	clear(policy)
	for i, l := range leaves {
		value[i] = o[l.id]
	}
	return nil
}

// TestInstantDescentsWhileALeafWaits: with several leaves in flight, descents that end at once
// (the end of the game, a proven node, the cache) while a leaf waits for the oracle see that
// leaf's path through its virtual loss. They used not to count against the leaves in flight,
// so one Collect could pour up to 1,024 of them, every one a counted simulation, into an
// instant sibling: here move 0 draws at once and move 1 is worth 0.8 to the root's player, and
// a search of 200 simulations with 8 in flight spent all but one on the draw and chose it.
// Now at most InFlight−1 of them go by while a leaf waits.
func TestInstantDescentsWhileALeafWaits(t *testing.T) {
	g := newTree([]tnode{
		0: dec(0, 1, 2),
		1: end(env.Draw),
		2: dec(1, 3, 4),
		3: dec(0, 5),
		4: dec(0, 5),
		5: dec(1, 6),
		6: end(env.Win0),
	})
	oracle := valueOracle{2: -0.8, 3: 0.8, 4: 0.8, 5: -0.8}
	for _, inFlight := range []int{1, 2, 8} {
		p := DefaultParams()
		p.Solver, p.RootProof, p.InFlight, p.VirtualLoss = false, 0, inFlight, 3
		s := mustSearch[tpos](t, g, oracle, p, 1)
		if err := s.Run(context.Background(), Budget{Simulations: 200}); err != nil {
			t.Fatal(err)
		}
		var draw int
		for _, c := range s.Children(nil) {
			if c.Action == 0 {
				draw = c.Visits
			}
		}
		if a, _ := s.Choose(0); a != 1 || draw > 50 {
			t.Errorf("in flight %d: chose move %d, the draw took %d of 200 simulations (children %+v)", inFlight, a, draw, s.Children(nil))
		}
	}
}
