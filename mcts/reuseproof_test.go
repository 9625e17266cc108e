package mcts

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/imbriqua"
)

// TestRootProofAfterReuse: player 0 decides twice in a row (0 then 1). At node 1, move 0
// loses by force in 3 turns (player 1 has one move, player 0 one move, then player 1 wins at
// once): a proof of 4 turns from node 1 finds it. A search started at node 1 proves it before
// any simulation; one that reached node 1 from node 0 (tree reuse) must too.
func TestRootProofAfterReuse(t *testing.T) {
	g := newTree([]tnode{
		0: dec(0, 1),
		1: dec(0, 2, 3), // the second decision of player 0's turn
		2: dec(1, 4),    // after move 0: player 1's one move
		3: dec(1, 7, 8), // after move 1: player 1 draws or loses
		4: dec(0, 5),    // player 0's one move
		5: dec(1, 6),    // player 1 wins at once
		6: end(env.Win1),
		7: end(env.Draw),
		8: end(env.Win0),
	})
	p := DefaultParams() // ScanDepth 2, RootProof 4
	lost := func(s *Search[tpos]) bool {
		for _, c := range s.Children(nil) {
			if c.Action == 0 {
				return c.Proven && c.Q == -1
			}
		}
		return false
	}
	fresh := mustSearch(t, g, Uniform[tpos]{}, p, 1)
	fresh.Reset(tpos{1})
	if err := fresh.Run(context.Background(), Budget{Simulations: 1}); err != nil {
		t.Fatal(err)
	}
	if !lost(fresh) {
		t.Fatalf("a search from node 1 did not prove move 0 lost")
	}
	reused := mustSearch(t, g, Uniform[tpos]{}, p, 1)
	if err := reused.Run(context.Background(), Budget{Simulations: 1}); err != nil {
		t.Fatal(err)
	}
	if err := reused.Advance(0); err != nil {
		t.Fatal(err)
	}
	if err := reused.Run(context.Background(), Budget{Simulations: 1}); err != nil {
		t.Fatal(err)
	}
	if !lost(reused) {
		a, _ := reused.Choose(0)
		t.Errorf("after Advance to node 1 (scanned as the old root's child), move 0 is not proven lost: the root proofs did not run (chosen: %d; children %+v)", a, reused.Children(nil))
	}
}

// TestRootProofsAfterACut: root proofs cut short by a search's time are resumed by the next
// search of the same root (a genmove after a stopped or timed search of the position); they
// were skipped for good, the root counted as scanned. A search whose time is up before the
// first proof proves nothing.
func TestRootProofsAfterACut(t *testing.T) {
	g := newTree([]tnode{
		0: dec(0, 1),
		1: dec(0, 2, 3),
		2: dec(1, 4),
		3: dec(1, 7, 8),
		4: dec(0, 5),
		5: dec(1, 6),
		6: end(env.Win1),
		7: end(env.Draw),
		8: end(env.Win0),
	})
	lost := func(s *Search[tpos]) bool {
		for _, c := range s.Children(nil) {
			if c.Action == 0 {
				return c.Proven && c.Q == -1
			}
		}
		return false
	}
	s := mustSearch(t, g, Uniform[tpos]{}, DefaultParams(), 1)
	s.Reset(tpos{1})
	for i, tc := range []struct {
		budget Budget
		lost   bool
	}{
		{Budget{Time: time.Nanosecond}, false}, // its time is up before the proofs
		{Budget{Time: time.Nanosecond}, false}, // and again
		{Budget{Simulations: 1}, true},         // no time to keep to: resumed
	} {
		s.SetRoot(tpos{1})
		if err := s.Run(context.Background(), tc.budget); err != nil {
			t.Fatal(err)
		}
		if lost(s) != tc.lost {
			t.Errorf("search %d (%+v): move 0 proven lost %v, want %v", i, tc.budget, lost(s), tc.lost)
		}
	}
}

// TestProveLimit: Prove's work is bounded by its limit of positions (RootProofNodes
// shared among the root's moves); its limit is looked at only when the count of positions
// happens to be a multiple of 1024 on entering value, which the positions valued at the
// horizon (static, no call of value) skip over.
func TestProveLimit(t *testing.T) {
	g := gygesTactics[2].g // Gygès advanced, "goal": south to move
	st, err := g.ParsePosition(gygesTactics[2].pos)
	if err != nil {
		t.Fatal(err)
	}
	a, err := st.ParseAction("a1-a2")
	if err != nil {
		t.Fatal(err)
	}
	const limit = 2000
	ab := mustAB(t, g, 1, 1)
	v, ok := ab.Prove(st.Play(a), st.ToMove(), 3, limit)
	if ab.nodes > 2*limit {
		t.Errorf("Prove with a limit of %d positions made %d (result %v, %v)", limit, ab.nodes, v, ok)
	}
}

// TestRootProofsShareTheBudget: the root's moves share RootProofNodes. Moves 0 and 1 are
// draws whose proofs fail in a few positions; move 2 loses by force in three turns (player 1's
// one move, then each of player 0's twenty moves lets player 1 win at once), a proof of more
// than a third of the budget. Split equally it could not be made; shared, the budget the first
// two proofs left goes to it.
func TestRootProofsShareTheBudget(t *testing.T) {
	const m = 20
	tab := []tnode{
		0: dec(0, 1, 2, 3),
		1: dec(1, 4), // move 0: a draw
		2: dec(1, 4), // move 1: a draw
		3: dec(1, 5), // move 2: player 1's one move
		4: end(env.Draw),
		5: {who: 0}, // player 0's m moves, each to player 1's win in one
	}
	for range m {
		tab[5].kids = append(tab[5].kids, int32(len(tab)))
		tab = append(tab, dec(1, int32(len(tab)+1)), end(env.Win1))
	}
	g := newTree(tab)
	ab := mustAB(t, g, 1, 1)
	if v, ok := ab.Prove(tpos{3}, 0, 3, 0); !ok || v != -1 {
		t.Fatalf("move 2 is not a forced loss in 3 turns: %v, %v", v, ok)
	}
	need := ab.nodes
	p := DefaultParams()
	p.RootProofNodes = int(need) + 20
	if _, ok := ab.Prove(tpos{3}, 0, 3, int64(p.RootProofNodes/3)); ok {
		t.Fatalf("an equal share of the budget (%d of %d positions) proves move 2: the test shows nothing", p.RootProofNodes/3, need)
	}
	s := mustSearch(t, g, Uniform[tpos]{}, p, 1)
	if err := s.Run(context.Background(), Budget{Simulations: 1}); err != nil {
		t.Fatal(err)
	}
	for _, c := range s.Children(nil) {
		if c.Action == 2 && !(c.Proven && c.Q == -1) {
			t.Errorf("move 2 is not proven lost with a budget of %d positions (its proof needs %d): %+v", p.RootProofNodes, need, c)
		}
	}
}

// TestRootProofsKeepTheClock: a search for a time gives its root proofs up when the time is
// up, and any search when its context ends (the engine's stop). Imbriqua at its 36th turn,
// proofs of 8 turns (to the end) with a budget of 10^10 positions, which would take minutes:
// searched for 100 ms, or stopped after 100 ms, it answers within seconds.
func TestRootProofsKeepTheClock(t *testing.T) {
	g := imbriqua.Game
	st := imbriquaLate(4, 1, 36)[0]
	if st.Turn() != 36 || st.Phase() != imbriqua.PhasePlace {
		t.Fatalf("not the placement of the 36th turn:\n%v", st)
	}
	p := DefaultParams()
	p.RootProof, p.RootProofNodes = MaxABDepth, 10_000_000_000
	s := mustSearch(t, g, Uniform[imbriqua.State]{}, p, 1)
	s.SetRoot(st)
	start := time.Now()
	if err := s.Run(context.Background(), Budget{Time: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("a search of 100 ms took %v: its root proofs did not keep the clock", el)
	}
	if s.deadline != (time.Time{}) || s.ctx != nil {
		t.Error("the search keeps its deadline or context after Run: a later search would keep them too")
	}
	stopped := mustSearch(t, g, Uniform[imbriqua.State]{}, p, 1)
	stopped.SetRoot(st)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start = time.Now()
	if err := stopped.Run(ctx, Budget{Simulations: 10}); err == nil {
		t.Error("a search stopped during its root proofs reports no error")
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("a search stopped after 100 ms took %v: its root proofs did not keep to its context", el)
	}
}

// TestRootProofsAcrossSlices: root proofs longer than a search's time go on from one search of
// the root to the next (the slices of the engine's go infinite), each resuming where the last
// was cut; they were run in the first slice only, so a move late in the root's order was never
// proven. The root has 12 moves: 11 draws (each proof fails after a few positions) and, last, a
// loss in 3 turns (player 1's one move, then each of player 0's 20 moves lets player 1 win at
// once), which one simulation a search cannot prove in 22 searches. The clock is the test's:
// each look at it moves it 1 ms on, and each search has 4 ms, so a search makes a proof or two.
func TestRootProofsAcrossSlices(t *testing.T) {
	const draws, replies = 11, 20
	tab := []tnode{0: {who: 0}}
	for range draws {
		tab[0].kids = append(tab[0].kids, int32(len(tab)))
		tab = append(tab, dec(1, int32(len(tab)+1)), end(env.Draw))
	}
	tab[0].kids = append(tab[0].kids, int32(len(tab)))
	tab = append(tab, dec(1, int32(len(tab)+1)), tnode{who: 0}) // player 1's one move, then player 0's
	b := len(tab) - 1
	for range replies {
		tab[b].kids = append(tab[b].kids, int32(len(tab)))
		tab = append(tab, dec(1, int32(len(tab)+1)), end(env.Win1))
	}
	g := newTree(tab)
	clock := time.Unix(0, 0)
	now = func() time.Time { clock = clock.Add(time.Millisecond); return clock }
	t.Cleanup(func() { now = time.Now })
	lost := func(s *Search[tpos]) bool {
		for _, c := range s.Children(nil) {
			if c.Action == draws {
				return c.Proven && c.Q == -1
			}
		}
		return false
	}
	p := DefaultParams()
	p.ScanDepth = 1
	s := mustSearch(t, g, Uniform[tpos]{}, p, 1)
	searches := 0
	for ; searches < 2*draws && !lost(s); searches++ {
		b := Budget{Time: 4 * time.Millisecond, Simulations: 1}
		if searches == 0 {
			// The first, with no bound on its simulations, expands the root and runs the proofs
			// until its time is up: it must still make a simulation, or go infinite, which ends
			// its slices on one that did nothing, would never resume the proofs.
			b.Simulations = 0
		}
		if err := s.Run(context.Background(), b); err != nil {
			t.Fatal(err)
		}
		if searches == 0 && lost(s) {
			t.Fatalf("the first search proved the last move: the test shows nothing")
		}
		if s.Simulations() == 0 && !lost(s) {
			t.Fatalf("search %d made no simulation, its proofs cut short", searches)
		}
	}
	if !lost(s) {
		t.Errorf("after %d searches of 4 ms, the last move is not proven lost: %+v", searches, s.Children(nil))
	}
}

// TestScanDepthAfterReuse: with ScanDepth 2 the children of the root's moves are looked at, so a
// move after which every reply lets the mover win at once (a win in two) is proven before any
// simulation of it. Node 1 (player 0) has move 0 to node 2, where both of player 1's replies
// let player 0 win at once. A search started at node 1 proves it with one simulation; one that
// reached node 1 from node 0 by tree reuse, having expanded node 2 at depth 2 (below
// ScanDepth, unscanned), must too: node 2 is now at depth 1 and must be scanned as such.
func TestScanDepthAfterReuse(t *testing.T) {
	g := newTree([]tnode{
		0: dec(1, 1, 10),
		1: dec(0, 2, 3),
		2: dec(1, 4, 5), // every reply lets player 0 win at once
		3: dec(1, 9),
		4: dec(0, 6, 7),
		5: dec(0, 8, 11),
		6: end(env.Win0), 7: end(env.Draw), 8: end(env.Win0),
		9: end(env.Draw), 10: end(env.Draw), 11: end(env.Draw),
	})
	p := DefaultParams()
	p.RootProof = 0 // the tree's own scans only (self-play's Gygès advanced preset)
	fresh := mustSearch(t, g, Uniform[tpos]{}, p, 1)
	fresh.Reset(tpos{1})
	if err := fresh.Run(context.Background(), Budget{Simulations: 1}); err != nil {
		t.Fatal(err)
	}
	if v, ok := fresh.Proven(); !ok || v != 1 {
		t.Fatalf("a search from node 1 did not prove the win in two: %v %v", v, ok)
	}
	reused := mustSearch(t, g, Uniform[tpos]{}, p, 1)
	if err := reused.Run(context.Background(), Budget{Simulations: 3}); err != nil {
		t.Fatal(err)
	}
	expanded := false // the setup: node 2 expanded below the old root's children, unscanned
	for i := range int32(reused.t.len()) {
		if nd := reused.t.at(i); nd.state >= 0 && reused.t.states[nd.state].id == 2 {
			expanded = nd.expanded() && !nd.scanned && !nd.solved
		}
	}
	if !expanded {
		t.Fatal("setup: node 2 was not expanded unscanned by the search from node 0")
	}
	if err := reused.Advance(0); err != nil {
		t.Fatal(err)
	}
	if err := reused.Run(context.Background(), Budget{Simulations: 1}); err != nil {
		t.Fatal(err)
	}
	if v, ok := reused.Proven(); !ok || v != 1 {
		t.Errorf("after tree reuse the win in two is not proven (%v %v): the reused move was not scanned; children %+v", v, ok, reused.Children(nil))
	}
}

// TestReuseScansRandomTrees: games played on random trees (multi-decision turns, chance,
// mid-turn deciders) with tree reuse, ScanDepth 2 and 3, batches and a cache: after every
// search the tree keeps its invariants (a chance node's value reads the proofs that the scans
// of reused nodes below it made) and no proof or exclusion is wrong.
func TestReuseScansRandomTrees(t *testing.T) {
	var variants []Params
	p := DefaultParams()
	p.InFlight, p.ScanDepth, p.RootProof = 4, 3, 2
	variants = append(variants, p)
	p.Gumbel, p.GumbelActions = true, 2
	variants = append(variants, p)
	p = DefaultParams()
	p.InFlight, p.RootProof = 8, 0
	variants = append(variants, p)
	bad := 0
	for seed := uint64(0); seed < 600 && bad < 5; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		g := newTree(randomTree(rng, 6+int(seed%5)))
		exact := func(s tpos) float64 { return exactTree(s.id) }
		for vi, vp := range variants {
			s := mustSearch(t, g, NewRollout[tpos](g, seed, 1), vp, seed)
			s.SetCache(NewCache[tpos](g, 1<<16))
			playTree(t, s, g.New(), rng, 40, func(st tpos) {
				msg := s.reviewCheck(t, exact)
				if err := s.checkTree(); err != nil {
					msg = err.Error()
				}
				if msg != "" {
					bad++
					t.Errorf("seed %d variant %d at %v: %s", seed, vi, st, msg)
				}
			})
		}
	}
}
