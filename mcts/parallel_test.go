package mcts

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/gyges"
	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/internal/testgames"
)

// overlap wraps an oracle, counting the calls in progress at once (the most in max) and
// sleeping in each, so that lanes that can overlap do.
type overlap[S env.State[S]] struct {
	inner    Oracle[S]
	cur, max *atomic.Int32
	gaveUp   *atomic.Bool  // a wait for a second evaluation timed out: no more waits
	total    *atomic.Int32 // the calls of all the lanes' oracles
	calls    atomic.Int32
	sleep    time.Duration
	fail     int32 // the call that fails (0: none)
	cancel   func()
}

var errOracle = errors.New("the oracle failed")

// raise makes max at least n.
func raise(max *atomic.Int32, n int32) {
	for m := max.Load(); n > m && !max.CompareAndSwap(m, n); m = max.Load() {
	}
}

func (o *overlap[S]) Evaluate(leaves []S, policy, value []float32) error {
	raise(o.max, o.cur.Add(1))
	defer o.cur.Add(-1)
	// Until two evaluations have overlapped, each but the root's (evaluated before the
	// helpers start) waits, up to a second, for another to start: lanes that run in parallel
	// then overlap whatever the machine's load (the race detector, a busy CI machine), and a
	// search that runs them one after another cannot.
	first := o.total.Add(1) == 1
	for deadline := time.Now().Add(time.Second); !first && o.max.Load() < 2 && !o.gaveUp.Load(); {
		if time.Now().After(deadline) {
			o.gaveUp.Store(true)
			break
		}
		time.Sleep(100 * time.Microsecond)
		raise(o.max, o.cur.Load())
	}
	k := o.calls.Add(1)
	if o.cancel != nil && k == 20 {
		o.cancel()
	}
	if o.fail > 0 && k == o.fail {
		return errOracle
	}
	time.Sleep(o.sleep)
	return o.inner.Evaluate(leaves, policy, value)
}

// parallelCase runs a search with helpers from root and checks the tree it leaves; the
// oracles are random games from the leaves (rollout) or equal priors and values (Uniform).
func parallelCase[S env.State[S]](t *testing.T, g env.Game[S], root S, rollout bool, p Params, helpers int, b Budget, fail bool, cancelAt bool) {
	t.Helper()
	var cur, most atomic.Int32
	var gaveUp atomic.Bool
	var total atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mk := func(seed uint64) *overlap[S] {
		var inner Oracle[S] = Uniform[S]{}
		if rollout {
			inner = NewRollout(g, seed, 1)
		}
		return &overlap[S]{inner: inner, cur: &cur, max: &most, gaveUp: &gaveUp, total: &total, sleep: 200 * time.Microsecond}
	}
	main := mk(1)
	s := mustSearch(t, g, main, p, 1)
	var hs []Oracle[S]
	var helperOracles []*overlap[S]
	for k := range helpers {
		h := mk(uint64(k + 2))
		if fail && k == helpers-1 {
			h.fail = 5
		}
		if cancelAt && k == 0 {
			h.cancel = cancel
		}
		hs = append(hs, h)
		helperOracles = append(helperOracles, h)
	}
	if err := s.SetHelpers(hs); err != nil {
		t.Fatal(err)
	}
	s.Reset(root)
	err := s.Run(ctx, b)
	switch {
	case fail:
		if !errors.Is(err, errOracle) {
			t.Fatalf("a helper's oracle failed: Run's error = %v", err)
		}
	case cancelAt:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled: Run's error = %v", err)
		}
	case err != nil:
		t.Fatal(err)
	}
	if err := s.checkTree(); err != nil {
		t.Fatalf("the tree after the search: %v", err)
	}
	if fail || cancelAt {
		return
	}
	if root := s.t.at(0); b.Simulations > 0 && s.Simulations() < b.Simulations && !root.solved && !s.full() {
		t.Errorf("%d simulations of %d", s.Simulations(), b.Simulations)
	}
	if b.Simulations > 0 && b.Time == 0 && s.Simulations() != b.Simulations && !s.t.at(0).solved {
		t.Errorf("%d simulations, asked %d", s.Simulations(), b.Simulations)
	}
	for k, h := range helperOracles {
		if h.calls.Load() == 0 {
			t.Errorf("helper %d never evaluated a leaf", k)
		}
	}
	if most.Load() < 2 {
		t.Errorf("at most %d evaluations at once with %d helpers", most.Load(), helpers)
	}
	// The same tree searched on: Advance and a second search keep it sound.
	if _, err := s.Choose(0); err != nil {
		t.Fatal(err)
	}
}

// TestParallelSearch: a search with helpers grows one sound tree (checkTree: no virtual loss
// left, visits and values summed right, proofs propagated) from several goroutines whose
// evaluations overlap, runs exactly the simulations asked, and ends on an oracle's error or a
// cancelled context with every leaf in flight backed up or dropped. Under -race (.ci/run) it
// also shows the lanes share nothing outside the lock.
func TestParallelSearch(t *testing.T) {
	puct := DefaultParams()
	batch := DefaultParams()
	batch.InFlight = 4
	gumbel := DefaultParams()
	gumbel.Gumbel, gumbel.GumbelActions = true, 8
	noSolver := DefaultParams()
	noSolver.Solver = false
	sims := Budget{Simulations: 300}
	timed := Budget{Time: 40 * time.Millisecond}
	for _, tc := range []struct {
		name    string
		run     func(t *testing.T, p Params, helpers int, b Budget, fail, cancel bool)
		p       Params
		helpers int
		b       Budget
		fail    bool
		cancel  bool
	}{
		{"gyges/puct", gygesCase, puct, 1, sims, false, false},
		{"gyges/puct/3 helpers", gygesCase, puct, 3, sims, false, false},
		{"gyges/in flight 4", gygesCase, batch, 1, sims, false, false},
		{"gyges/gumbel", gygesCase, gumbel, 1, sims, false, false},
		{"gyges/gumbel timed", gygesCase, gumbel, 1, timed, false, false},
		{"gyges/timed", gygesCase, puct, 1, timed, false, false},
		{"gyges/helper fails", gygesCase, batch, 2, sims, true, false},
		{"gyges/cancelled", gygesCase, puct, 1, Budget{Simulations: 100_000}, false, true},
		{"yinsh/puct", yinshCase, puct, 1, sims, false, false},
		{"yinsh/gumbel timed", yinshCase, gumbel, 1, timed, false, false},
		{"tictactoe/no solver", tttCase, noSolver, 1, Budget{Simulations: 2000}, false, false},
		{"tictactoe/solver", tttCase, puct, 1, Budget{Simulations: 2000}, false, false},
		{"gamble (chance)", gambleCase, puct, 1, sims, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, tc.p, tc.helpers, tc.b, tc.fail, tc.cancel) })
	}
}

func gygesCase(t *testing.T, p Params, helpers int, b Budget, fail, cancel bool) {
	// A middle game with nothing won in two (the solver proves nothing at the root). The root
	// proofs, which run at Start before the lanes, would take a timed search's 40 ms.
	p.RootProof = 0
	g := gyges.Advanced
	root, err := g.ParsePosition("023100/100300/000020/002010/300000/010320 s")
	if err != nil {
		t.Fatal(err)
	}
	parallelCase(t, g, root, false, p, helpers, b, fail, cancel)
}

func yinshCase(t *testing.T, p Params, helpers int, b Budget, fail, cancel bool) {
	parallelCase(t, yinsh.Blitz, yinsh.Blitz.New(), false, p, helpers, b, fail, cancel)
}

func tttCase(t *testing.T, p Params, helpers int, b Budget, fail, cancel bool) {
	parallelCase(t, testgames.TicTacToe, testgames.TicTacToe.New(), true, p, helpers, b, fail, cancel)
}

func gambleCase(t *testing.T, p Params, helpers int, b Budget, fail, cancel bool) {
	parallelCase(t, testgames.Gamble, testgames.Gamble.New(), true, p, helpers, b, fail, cancel)
}

// TestParallelSetHelpers: helpers set and taken away between searches; a search without them
// is the one-goroutine search it was (the same tree as a search never given any).
func TestParallelSetHelpers(t *testing.T) {
	g := testgames.TicTacToe
	p := DefaultParams()
	plain := mustSearch(t, g, NewRollout(g, 1, 1), p, 7)
	s := mustSearch(t, g, NewRollout(g, 1, 1), p, 7)
	if err := s.SetHelpers([]Oracle[testgames.Board]{NewRollout(g, 2, 1)}); err != nil {
		t.Fatal(err)
	}
	if s.Helpers() != 1 {
		t.Fatalf("Helpers() = %d", s.Helpers())
	}
	if err := s.SetHelpers(nil); err != nil {
		t.Fatal(err)
	}
	for _, x := range []*Search[testgames.Board]{plain, s} {
		x.Reset(g.New())
		if err := x.Run(context.Background(), Budget{Simulations: 200}); err != nil {
			t.Fatal(err)
		}
	}
	a, b := plain.Children(nil), s.Children(nil)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("child %d: %+v without helpers ever, %+v after they were taken away", i, a[i], b[i])
		}
	}
}

// TestParallelCache: lanes sharing the cache of the network's answers (as every mcts player
// has) look their leaves up themselves and send only the others to their oracles; the tree
// stays sound and the cache answers some of them (Gygès' transpositions).
func TestParallelCache(t *testing.T) {
	g := gyges.Advanced
	root, err := g.ParsePosition("023100/100300/000020/002010/300000/010320 s")
	if err != nil {
		t.Fatal(err)
	}
	for _, inFlight := range []int{1, 4} {
		p := DefaultParams()
		p.RootProof, p.InFlight = 0, inFlight
		s := mustSearch(t, g, Uniform[gyges.State]{}, p, 1)
		c := NewCache(g, 8<<20)
		s.SetCache(c)
		if err := s.SetHelpers([]Oracle[gyges.State]{Uniform[gyges.State]{}}); err != nil {
			t.Fatal(err)
		}
		s.Reset(root)
		for range 3 {
			if err := s.Run(context.Background(), Budget{Simulations: 400}); err != nil {
				t.Fatal(err)
			}
			if err := s.checkTree(); err != nil {
				t.Fatalf("in flight %d: %v", inFlight, err)
			}
			s.Reset(root) // a new tree: its leaves are in the cache now
		}
		if c.Hits == 0 {
			t.Errorf("in flight %d: the cache answered nothing in %d lookups", inFlight, c.Lookups)
		}
	}
}
