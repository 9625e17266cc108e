package mcts

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/imbriqua"
	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/internal/testgames"
)

// variants are the ways of searching that every general test runs through.
func variants() []struct {
	name string
	p    Params
} {
	puct := DefaultParams()
	uct := UCTParams()
	batch := DefaultParams()
	batch.InFlight = 8
	noise := DefaultParams()
	noise.DirichletAlpha, noise.Temperature = 0.3, Constant(1)
	gumbel := DefaultParams()
	gumbel.Gumbel = true
	gumbelBatch := gumbel
	gumbelBatch.InFlight = 4
	gumbelBatch.GumbelActions = 4
	sampled := batch
	sampled.SampleChance = true
	interior := gumbel
	interior.GumbelInterior, interior.InFlight = true, 4
	plain := DefaultParams()
	plain.Solver = false
	gumbelPlain := gumbel
	gumbelPlain.Solver = false
	scan2 := batch
	scan2.ScanDepth = 2
	proof := DefaultParams()
	proof.RootProof, proof.RootProofNodes = 3, 200_000
	return []struct {
		name string
		p    Params
	}{
		{"puct", puct}, {"ucb1", uct}, {"puct-inflight8", batch}, {"puct-noise-temperature", noise},
		{"gumbel", gumbel}, {"gumbel-m4-inflight4", gumbelBatch}, {"gumbel-interior-inflight4", interior},
		{"sampled-chance-inflight8", sampled}, {"puct-no-solver", plain}, {"gumbel-no-solver", gumbelPlain},
		{"puct-inflight8-scan2", scan2}, {"puct-root-proof3", proof},
	}
}

func mustSearch[S env.State[S]](t testing.TB, g env.Game[S], o Oracle[S], p Params, seed uint64) *Search[S] {
	t.Helper()
	s, err := New(g, o, p, seed)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func replay[S env.State[S]](t testing.TB, g env.Game[S], moves string) S {
	t.Helper()
	s, _, err := env.Replay(g, moves)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// playGames plays whole games with the search choosing every player's decision and chance
// drawn by a seeded generator, checking the tree after every search and reusing it. exact, if
// set, gives a position's exact value for player 0, which every proven node must have.
func playGames[S env.State[S]](t *testing.T, g env.Game[S], o Oracle[S], p Params, games, sims int, exact func(S) float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 3))
	s := mustSearch(t, g, o, p, 11)
	for game := range games {
		st := g.New()
		s.Reset(st)
		for move := 0; st.ToMove() != env.Terminal; move++ {
			var a env.Action
			if st.ToMove() == env.Chance {
				a = env.SampleOutcome(st.Chances(nil), rng.Float64())
			} else {
				if err := s.Run(context.Background(), Budget{Simulations: sims}); err != nil {
					t.Fatal(err)
				}
				if err := s.checkTree(); err != nil {
					t.Fatalf("game %d move %d: %v", game, move, err)
				}
				_, proven := s.Proven()
				if got := s.Simulations(); got != sims && !(proven && got < sims) {
					t.Fatalf("game %d move %d: %d simulations, want %d (root proven: %v)", game, move, got, sims, proven)
				}
				if proven && !p.Solver {
					t.Fatalf("game %d move %d: the root proven without the solver", game, move)
				}
				if exact != nil {
					if err := s.checkProven(exact); err != nil {
						t.Fatalf("game %d move %d: %v", game, move, err)
					}
				}
				var err error
				if a, err = s.Choose(move); err != nil {
					t.Fatal(err)
				}
				if !env.IsLegal(st, a) {
					t.Fatalf("game %d move %d: chose the illegal %d", game, move, a)
				}
			}
			before := s.Visits()
			child := s.nodeAt(a)
			kept := int32(0)
			if child >= 0 {
				kept = s.t.at(child).n
			}
			if err := s.Advance(a); err != nil {
				t.Fatal(err)
			}
			st = st.Play(a)
			if s.Root() != st {
				t.Fatalf("game %d move %d: the root is not the position played", game, move)
			}
			if s.Visits() != int(kept) || s.Visits() > before {
				t.Fatalf("game %d move %d: the kept subtree has %d visits, its node had %d", game, move, s.Visits(), kept)
			}
			if err := s.checkTree(); err != nil {
				t.Fatalf("game %d move %d after Advance: %v", game, move, err)
			}
		}
	}
}

func TestTreeInvariants(t *testing.T) {
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			t.Run("tictactoe", func(t *testing.T) {
				playGames(t, testgames.TicTacToe, Uniform[testgames.Board]{}, v.p, 4, 60, testgames.Expectimax[testgames.Board])
			})
			t.Run("gamble", func(t *testing.T) {
				playGames(t, testgames.Gamble, Uniform[testgames.Bet]{}, v.p, 6, 40, testgames.Expectimax[testgames.Bet])
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

// TestChanceExact: once both outcomes of a coin that ends the game have been visited, the
// coin's node is worth exactly their probability-weighted mean (to the float32 the
// probabilities are kept in), whatever the visits; the die's node is the weighted mean of what
// its outcomes are worth so far, and everything converges to the values worked out by hand in
// the doc of testgames.Gamble.
func TestChanceExact(t *testing.T) {
	g := testgames.Gamble
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			s := mustSearch(t, g, Uniform[testgames.Bet]{}, v.p, 1)
			s.Reset(g.New())
			if err := s.Run(context.Background(), Budget{Simulations: 3000}); err != nil {
				t.Fatal(err)
			}
			if err := s.checkTree(); err != nil {
				t.Fatal(err)
			}
			exact := []struct {
				path []env.Action
				want float64
			}{
				{[]env.Action{testgames.Safe, testgames.Left}, -0.5},
				{[]env.Action{testgames.Safe, testgames.Right}, -0.4},
			}
			for _, e := range exact {
				i := s.nodeAt(e.path...)
				if i < 0 || s.t.at(i).count != 2 || s.t.at(s.t.at(i).first).n == 0 || s.t.at(s.t.at(i).first+1).n == 0 {
					continue // both outcomes not visited: nothing to check (Gumbel may prune safe)
				}
				if q, n := s.q(i, 0); math.Abs(q-e.want) > 1e-7 {
					t.Errorf("%v: Q = %v after %d visits, want exactly %v", e.path, q, n, e.want)
				}
			}
			if v.p.Gumbel {
				return // sequential halving does not aim at converging every node
			}
			converge := []struct {
				path []env.Action
				want float64
			}{
				{[]env.Action{testgames.Risky}, 0.2},
				{[]env.Action{testgames.Risky, testgames.Roll1}, 1},
				{[]env.Action{testgames.Risky, testgames.Roll2}, -1},
				{[]env.Action{testgames.Risky, testgames.Roll3}, 0},
			}
			for _, c := range converge {
				if q, n := s.q(s.nodeAt(c.path...), 0); math.Abs(q-c.want) > 0.1 {
					t.Errorf("%v: Q = %v after %d visits, want about %v", c.path, q, n, c.want)
				}
			}
			if a, _ := s.Choose(0); a != testgames.Risky {
				t.Errorf("chose %s, want risky", env.ActionString(g.New(), a))
			}
		})
	}
}

// TestOptimalPlay: at every decision of every line of Gamble and in tic-tac-toe positions
// from seeded random games, the search's choice keeps the exact value of the position.
func TestOptimalPlay(t *testing.T) {
	type position struct {
		name string
		run  func(p Params) (string, bool)
	}
	check := func(t *testing.T, name string, p Params, ok func(p Params) (string, bool)) {
		t.Helper()
		if msg, good := ok(p); !good {
			t.Errorf("%s: %s", name, msg)
		}
	}
	var positions []position
	gamble := func(moves string) {
		positions = append(positions, position{"gamble " + moves, func(p Params) (string, bool) {
			return optimal(t, testgames.Gamble, Uniform[testgames.Bet]{}, p, replay(t, testgames.Gamble, moves), 2000)
		}})
	}
	for _, m := range []string{"", "safe", "risky;roll1", "risky;roll2", "risky;roll3",
		"risky;roll1;fine-a", "risky;roll1;fine-b", "risky;roll2;fine-b", "risky;roll3;fine-a"} {
		gamble(m)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for len(positions) < 40 {
		st := testgames.TicTacToe.New()
		var moves []string
		for n := 2 + rng.IntN(5); n > 0 && st.ToMove() != env.Terminal; n-- {
			legal := st.Legal(nil)
			a := legal[rng.IntN(len(legal))]
			moves = append(moves, env.ActionString(st, a))
			st = st.Play(a)
		}
		if st.ToMove() == env.Terminal || len(testgames.Optimal(st)) == len(st.Legal(nil)) {
			continue // nothing to get wrong
		}
		positions = append(positions, position{"tictactoe " + joinMoves(moves), func(p Params) (string, bool) {
			return optimal(t, testgames.TicTacToe, NewRollout(testgames.TicTacToe, 1, 1), p, st, 10000)
		}})
	}
	for _, v := range variants() {
		if v.p.GumbelInterior {
			// Below the root, Gumbel MuZero's deterministic rule follows the improved policy,
			// whose Q rescaled to [0, 1] between the node's worst and best child turns a
			// rollout's noise (-1 against -0.998) into certainty: with equal priors and
			// random playouts it can lock onto a losing line. It is meant for a network's
			// values and priors.
			continue
		}
		if v.p.Gumbel {
			// Deterministic, and every action considered: with equal priors and no noise,
			// Gumbel-top-k would keep the first m actions only.
			v.p.GumbelScale, v.p.GumbelActions = 0, 16
		}
		v.p.Temperature = nil
		t.Run(v.name, func(t *testing.T) {
			for _, pos := range positions {
				check(t, pos.name, v.p, pos.run)
			}
		})
	}
}

func joinMoves(m []string) string {
	out := ""
	for i, s := range m {
		if i > 0 {
			out += ";"
		}
		out += s
	}
	return out
}

// optimal searches st and tells whether the choice is among the perfect ones.
func optimal[S env.State[S]](t *testing.T, g env.Game[S], o Oracle[S], p Params, st S, sims int) (string, bool) {
	s := mustSearch(t, g, o, p, 5)
	s.Reset(st)
	if err := s.Run(context.Background(), Budget{Simulations: sims}); err != nil {
		t.Fatal(err)
	}
	a, err := s.Choose(0)
	if err != nil {
		t.Fatal(err)
	}
	best := testgames.Optimal(st)
	if slices.Contains(best, a) {
		return "", true
	}
	var names []string
	for _, b := range best {
		names = append(names, env.ActionString(st, b))
	}
	return "chose " + env.ActionString(st, a) + ", perfect play is one of " + joinMoves(names), false
}

// TestPV: the principal variation starts with the action given, follows legal decisions, and
// stops before chance: tic-tac-toe (no chance) and Gamble (chance between the players), for
// every variant; an action that is not the root's gives nothing.
func TestPV(t *testing.T) {
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			checkPV(t, testgames.TicTacToe, NewRollout(testgames.TicTacToe, 1, 1), v.p, 2)
			checkPV(t, testgames.Gamble, Uniform[testgames.Bet]{}, v.p, 1) // chance comes next
		})
	}
}

func checkPV[S env.State[S]](t *testing.T, g env.Game[S], o Oracle[S], p Params, minLen int) {
	t.Helper()
	s := mustSearch(t, g, o, p, 1)
	if got := s.PV(0, 8, nil); len(got) != 0 {
		t.Fatalf("%s: a PV before any search: %v", g.Info().Name, got)
	}
	s.Reset(g.New())
	if err := s.Run(context.Background(), Budget{Simulations: 400}); err != nil {
		t.Fatal(err)
	}
	best, err := s.Choose(0)
	if err != nil {
		t.Fatal(err)
	}
	pv := s.PV(best, 8, nil)
	if len(pv) < minLen || pv[0] != best {
		t.Fatalf("%s: PV %v after 400 simulations, choice %d", g.Info().Name, pv, best)
	}
	st := g.New()
	for i, a := range pv {
		if st.ToMove() == env.Chance {
			t.Fatalf("%s: PV %v goes through chance at %d", g.Info().Name, pv, i)
		}
		if st, err = env.Apply(st, a); err != nil {
			t.Fatalf("%s: PV %v: %d: %v", g.Info().Name, pv, i, err)
		}
	}
	if len(s.PV(best, 1, nil)) != 1 || len(s.PV(env.Action(g.Info().NumActions), 8, nil)) != 0 {
		t.Errorf("%s: PV's bounds", g.Info().Name)
	}
}

// TestTimedSearchEnds: a search for a time ends about then even when every descent ends the
// game (tic-tac-toe's whole tree explored, no solver to prove the root), as it does with the
// solver and a proven root.
func TestTimedSearchEnds(t *testing.T) {
	g := testgames.TicTacToe
	for _, solver := range []bool{false, true} {
		p := DefaultParams()
		p.Solver = solver
		s := mustSearch(t, g, NewRollout(g, 1, 1), p, 1)
		// Three squares left: the tree is explored within a few simulations.
		pos := g.New()
		for _, a := range []env.Action{0, 4, 8, 1, 7, 6} {
			pos = pos.Play(a)
		}
		if pos.ToMove() == env.Terminal {
			t.Fatal("the test's position ended the game")
		}
		s.Reset(pos)
		done := make(chan error, 1)
		start := time.Now()
		go func() { done <- s.Run(context.Background(), Budget{Time: 50 * time.Millisecond}) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("solver %v: a search of 50ms still runs after 10s", solver)
		}
		if took := time.Since(start); !solver && took < 50*time.Millisecond {
			t.Errorf("solver %v: a search of 50ms took %v", solver, took)
		}
		if s.Simulations() < 1 {
			t.Errorf("solver %v: %d simulations", solver, s.Simulations())
		}
	}
}
