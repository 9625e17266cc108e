package mcts

import (
	"context"
	"errors"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/gyges"
	"github.com/zerogames/zero/env/imbriqua"
	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/internal/testgames"
)

// hvgame is the hand-built tree with a heuristic read from a table (node → value for the
// node's decider; 0 where the table says nothing).
type hvgame struct {
	*tgame
	h map[int32]float64
}

func (g hvgame) Heuristic(s tpos) float64 { return g.h[s.id] }

// TestMinimaxBackupsExact: with implicit minimax backups every node holds the minimax of the
// heuristic values below it, and with the whole weight on them the root's choice follows them
// where the oracle (uniform, every value 0) cannot tell the moves apart.
//
//	root (a) ─ 0 → n1 (b) ─ 0 → L3 (a): +0.9 for a
//	         │            └ 1 → L4 (a): −0.8
//	         └ 1 → n2 (b) ─ 0 → L5 (a): +0.1
//	                      └ 1 → L6 (a): +0.2
//
// Below each L is a node of the same value that leads to itself (the game never ends), so
// that deeper values are the L's. b answers move 0 with L4, move 1 with L5: move 1 is worth
// +0.1 to a, move 0 −0.8.
func TestMinimaxBackupsExact(t *testing.T) {
	tab := []tnode{
		0: dec(0, 1, 2),
		1: dec(1, 3, 4),
		2: dec(1, 5, 6),
		3: dec(0, 7), 4: dec(0, 8), 5: dec(0, 9), 6: dec(0, 10),
		7: dec(0, 7), 8: dec(0, 8), 9: dec(0, 9), 10: dec(0, 10),
	}
	g := hvgame{newTree(tab), map[int32]float64{3: 0.9, 4: -0.8, 5: 0.1, 6: 0.2, 7: 0.9, 8: -0.8, 9: 0.1, 10: 0.2}}
	for _, tc := range []struct {
		name string
		p    func(*Params)
	}{
		{"puct", func(p *Params) {}},
		{"gumbel", func(p *Params) { p.Gumbel, p.GumbelScale = true, 0 }},
		{"inflight4", func(p *Params) { p.InFlight = 4 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultParams()
			p.Solver, p.RootProof, p.MinimaxWeight = false, 0, 1
			tc.p(&p)
			s := mustSearch[tpos](t, g, Uniform[tpos]{}, p, 1)
			if err := s.Run(context.Background(), Budget{Simulations: 60}); err != nil {
				t.Fatal(err)
			}
			if err := s.checkTree(); err != nil {
				t.Fatal(err)
			}
			root := s.t.at(0)
			for k, want := range []float32{-0.8, 0.1} {
				if c := s.t.at(root.first + int32(k)); !c.hasMM || c.mm != want {
					t.Errorf("move %d: minimax value %v (known %v), want %v", k, c.mm, c.hasMM, want)
				}
			}
			if !root.hasMM || root.mm != 0.1 {
				t.Errorf("root: minimax value %v, want 0.1", root.mm)
			}
			a, err := s.Choose(0)
			if err != nil || a != 1 {
				t.Errorf("chose %v (%v), want move 1", a, err)
			}
			// Without the minimax values the uniform oracle's search cannot prefer move 1:
			// the weights are what choose it.
			p.MinimaxWeight = 0
			s = mustSearch[tpos](t, g, Uniform[tpos]{}, p, 1)
			if err := s.Run(context.Background(), Budget{Simulations: 60}); err != nil {
				t.Fatal(err)
			}
			if a, _ := s.Choose(0); a != 0 {
				t.Errorf("without minimax values chose %v: the test cannot tell them apart", a)
			}
		})
	}
}

// TestHeuristicLeafValues: with the whole weight on the heuristic, a leaf's value is the
// heuristic's, whatever the oracle says.
func TestHeuristicLeafValues(t *testing.T) {
	tab := []tnode{0: dec(0, 1, 2), 1: dec(1, 3), 2: dec(1, 3), 3: end(env.Draw)}
	g := hvgame{newTree(tab), map[int32]float64{1: 0.5, 2: -0.25}} // for b, who decides there
	p := DefaultParams()
	p.Solver, p.RootProof, p.HeuristicWeight = false, 0, 1
	s := mustSearch[tpos](t, g, Uniform[tpos]{}, p, 1)
	if err := s.Run(context.Background(), Budget{Simulations: 2}); err != nil {
		t.Fatal(err)
	}
	root := s.t.at(0)
	for k, want := range []float64{-0.5, 0.25} { // player a's view
		if c := s.t.at(root.first + int32(k)); c.n != 1 || c.w != want {
			t.Errorf("move %d: %d visits of value %v, want 1 of %v", k, c.n, c.w, want)
		}
	}
}

// TestMinimaxInvariants: the tree invariants (checkTree: every node's minimax value that of
// its children) hold through whole games with tree reuse, chance nodes, batches in flight and
// the solver, in every game with a heuristic.
func TestMinimaxInvariants(t *testing.T) {
	batch := DefaultParams()
	batch.InFlight, batch.MinimaxWeight, batch.HeuristicWeight = 8, 0.5, 0.25
	gumbel := DefaultParams()
	gumbel.Gumbel, gumbel.InFlight, gumbel.MinimaxWeight = true, 4, 0.5
	for _, v := range []struct {
		name string
		p    Params
	}{{"puct-inflight8", batch}, {"gumbel-inflight4", gumbel}} {
		t.Run(v.name, func(t *testing.T) {
			t.Run("gyges-advanced", func(t *testing.T) {
				playGames(t, gyges.Advanced, Uniform[gyges.State]{}, v.p, 1, 48, nil)
			})
			t.Run("yinsh-blitz", func(t *testing.T) {
				playGames(t, yinsh.Blitz, NewRollout(yinsh.Blitz, 5, 1), v.p, 1, 48, nil)
			})
			t.Run("imbriqua", func(t *testing.T) {
				playGames(t, imbriqua.Game, Uniform[imbriqua.State]{}, v.p, 1, 32, nil)
			})
		})
	}
}

// TestMinimaxNeedsAHeuristic: a game without a static evaluation refuses the weights, in New
// and in SetParams (which then changes nothing).
func TestMinimaxNeedsAHeuristic(t *testing.T) {
	for _, key := range []string{"minimax_weight", "heuristic_weight"} {
		p := DefaultParams()
		if key == "minimax_weight" {
			p.MinimaxWeight = 0.5
		} else {
			p.HeuristicWeight = 0.5
		}
		var pe *ParamError
		if _, err := New(testgames.TicTacToe, Uniform[testgames.Board]{}, p, 1); !errors.As(err, &pe) || pe.Key != key {
			t.Errorf("New with %s: %v, want a ParamError naming it", key, err)
		}
		s := mustSearch(t, testgames.TicTacToe, Uniform[testgames.Board]{}, DefaultParams(), 1)
		if err := s.SetParams(p); !errors.As(err, &pe) || pe.Key != key {
			t.Errorf("SetParams with %s: %v, want a ParamError naming it", key, err)
		}
		if s.Params().MinimaxWeight != 0 || s.Params().HeuristicWeight != 0 {
			t.Errorf("SetParams refused %s but changed the parameters", key)
		}
	}
}
