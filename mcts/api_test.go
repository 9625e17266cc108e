package mcts

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/imbriqua"
	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/internal/testgames"
)

// TestZeroAllocations: once the arenas have grown, searches allocate nothing, whatever the
// variant (root noise included), with the uniform and the rollout oracles, with and without
// tree reuse.
func TestZeroAllocations(t *testing.T) {
	ctx := context.Background()
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			cases := []struct {
				name string
				run  func() error
			}{}
			add := func(name string, run func() error) {
				cases = append(cases, struct {
					name string
					run  func() error
				}{name, run})
			}
			{
				s := mustSearch(t, yinsh.Blitz, Uniform[yinsh.State]{}, v.p, 1)
				root := midgame(yinsh.Blitz, 40)
				add("yinsh-blitz uniform", func() error {
					s.Reset(root)
					return s.Run(ctx, Budget{Simulations: 300})
				})
			}
			{
				s := mustSearch(t, yinsh.Normal, NewRollout(yinsh.Normal, 1, 2), v.p, 1)
				root := midgame(yinsh.Normal, 30)
				add("yinsh rollout", func() error {
					s.Reset(root)
					return s.Run(ctx, Budget{Simulations: 200})
				})
			}
			{
				// Early in Imbriqua, where the deck's draws put chance nodes in the tree.
				s := mustSearch(t, imbriqua.Game, Uniform[imbriqua.State]{}, v.p, 1)
				root := midgame(imbriqua.Game, 12)
				add("imbriqua", func() error {
					s.Reset(root)
					return s.Run(ctx, Budget{Simulations: 300})
				})
			}
			{
				s := mustSearch(t, testgames.Gamble, Uniform[testgames.Bet]{}, v.p, 1)
				add("gamble", func() error {
					s.Reset(testgames.Gamble.New())
					return s.Run(ctx, Budget{Simulations: 200})
				})
			}
			{
				// A search that keeps its subtree: play the chosen action, search again.
				s := mustSearch(t, testgames.TicTacToe, Uniform[testgames.Board]{}, v.p, 1)
				add("tictactoe reuse", func() error {
					s.Reset(testgames.TicTacToe.New())
					for s.Root().ToMove() != env.Terminal {
						if err := s.Run(ctx, Budget{Simulations: 100}); err != nil {
							return err
						}
						a, err := s.Choose(0)
						if err != nil {
							return err
						}
						if err := s.Advance(a); err != nil {
							return err
						}
					}
					return nil
				})
			}
			for _, c := range cases {
				if err := c.run(); err != nil { // warm up
					t.Fatal(err)
				}
				var err error
				if n := testing.AllocsPerRun(5, func() { err = c.run() }); n != 0 {
					t.Errorf("%s: %v allocations per search", c.name, n)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// snapshot is everything a search exposes after a game: the choices and the statistics.
type snapshot struct {
	moves    []env.Action
	children [][]Child
	policies [][]float32
	values   []float64
}

func playSnapshot(t *testing.T, p Params, seed uint64) snapshot {
	t.Helper()
	g := yinsh.Blitz
	s := mustSearch(t, g, NewRollout(g, seed, 1), p, seed)
	st := midgame(g, 30)
	s.Reset(st)
	var snap snapshot
	for move := 0; move < 6 && st.ToMove() != env.Terminal; move++ {
		if err := s.Run(context.Background(), Budget{Simulations: 64}); err != nil {
			t.Fatal(err)
		}
		a, err := s.Choose(move)
		if err != nil {
			t.Fatal(err)
		}
		pol := make([]float32, g.Info().NumActions)
		s.Policy(pol)
		snap.moves = append(snap.moves, a)
		snap.children = append(snap.children, s.Children(nil))
		snap.policies = append(snap.policies, pol)
		snap.values = append(snap.values, s.Value())
		if err := s.Advance(a); err != nil {
			t.Fatal(err)
		}
		st = st.Play(a)
	}
	return snap
}

// TestDeterminism: a seeded search gives the same choices and statistics every time, noise,
// Gumbel draws, temperature and sampled chance included; another seed changes them.
func TestDeterminism(t *testing.T) {
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			a, b := playSnapshot(t, v.p, 1), playSnapshot(t, v.p, 1)
			if !reflect.DeepEqual(a, b) {
				t.Fatal("two searches with the same seed differ")
			}
			if c := playSnapshot(t, v.p, 2); reflect.DeepEqual(a, c) {
				t.Error("searches with seeds 1 and 2 agree in everything")
			}
		})
	}
}

// TestSteps: driving a search by Start, Collect and Apply (as a batcher will) is the same as
// Run; batches never exceed InFlight and hold distinct leaves.
func TestSteps(t *testing.T) {
	g := yinsh.Normal
	root := midgame(g, 40)
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			ran := mustSearch(t, g, Uniform[yinsh.State]{}, v.p, 4)
			ran.Reset(root)
			if err := ran.Run(context.Background(), Budget{Simulations: 200}); err != nil {
				t.Fatal(err)
			}
			stepped := mustSearch(t, g, nil, v.p, 4)
			stepped.Reset(root)
			if err := stepped.Start(200); err != nil {
				t.Fatal(err)
			}
			n := g.Info().NumActions
			policy := make([]float32, 64*n)
			value := make([]float32, 64)
			for !stepped.Finished() {
				leaves := stepped.Collect()
				if len(leaves) > v.p.InFlight {
					t.Fatalf("%d leaves collected, InFlight is %d", len(leaves), v.p.InFlight)
				}
				for i := range leaves {
					for j := range i {
						if leaves[i] == leaves[j] {
							t.Fatalf("leaf %d collected twice in one batch", i)
						}
					}
				}
				for i := range policy[:len(leaves)*n] {
					policy[i] = 0
				}
				clear(value)
				if err := stepped.Apply(policy[:len(leaves)*n], value[:len(leaves)]); err != nil {
					t.Fatal(err)
				}
			}
			if !reflect.DeepEqual(ran.Children(nil), stepped.Children(nil)) {
				t.Error("Run and the steps disagree")
			}
		})
	}
}

// failing is an oracle that answers NaN or a wrong logit from its k-th leaf on.
type failing[S env.State[S]] struct {
	k     int
	seen  int
	logit bool
}

func (f *failing[S]) Evaluate(leaves []S, policy, value []float32) error {
	clear(policy)
	for i := range leaves {
		value[i] = 0
		if f.seen++; f.seen >= f.k {
			if f.logit {
				for j := range policy {
					policy[j] = float32(math.NaN())
				}
			} else {
				value[i] = float32(math.NaN())
			}
		}
	}
	return nil
}

// TestErrors: bad oracle answers, searches that cannot start and illegal advances are refused
// with an error that says what, and leave the tree sound.
func TestErrors(t *testing.T) {
	g := testgames.TicTacToe
	ctx := context.Background()
	for _, logit := range []bool{false, true} {
		p := DefaultParams()
		p.InFlight = 4
		s := mustSearch(t, g, &failing[testgames.Board]{k: 30, logit: logit}, p, 1)
		s.Reset(g.New())
		err := s.Run(ctx, Budget{Simulations: 100})
		if err == nil || !strings.Contains(err.Error(), "NaN") {
			t.Errorf("logit %v: err = %v, want a NaN named", logit, err)
		}
		if err := s.checkTree(); err != nil {
			t.Errorf("logit %v: after the error: %v", logit, err)
		}
	}
	s := mustSearch(t, g, Uniform[testgames.Board]{}, DefaultParams(), 1)
	over := replay(t, g, "a1;a2;b1;b2;c1")
	s.Reset(over)
	if err := s.Run(ctx, Budget{Simulations: 10}); err == nil || !strings.Contains(err.Error(), "over") {
		t.Errorf("search of a finished game: err = %v", err)
	}
	coin := replay(t, testgames.Gamble, "safe;left")
	c := mustSearch(t, testgames.Gamble, Uniform[testgames.Bet]{}, DefaultParams(), 1)
	c.Reset(coin)
	if err := c.Run(ctx, Budget{Simulations: 10}); err == nil || !strings.Contains(err.Error(), "chance") {
		t.Errorf("search at a chance node: err = %v", err)
	}
	s.Reset(replay(t, g, "b2"))
	if err := s.Run(ctx, Budget{Simulations: 10}); err != nil {
		t.Fatal(err)
	}
	before := s.Children(nil)
	if err := s.Advance(4); err == nil || !strings.Contains(err.Error(), "b2") {
		t.Errorf("Advance(b2) on b2: err = %v", err)
	}
	if !reflect.DeepEqual(before, s.Children(nil)) {
		t.Error("a refused Advance changed the tree")
	}
	gumbel := DefaultParams()
	gumbel.Gumbel = true
	s = mustSearch(t, g, Uniform[testgames.Board]{}, gumbel, 1)
	// Bounded by time only, Run plans the halving for the time (TestGumbelTimed); Start,
	// which is given the simulations, still needs a number of them.
	if err := s.Start(math.MaxInt); err == nil {
		t.Error("a Gumbel search started without a number of simulations was accepted")
	}
	bad := DefaultParams()
	bad.NoiseFraction = 2
	if _, err := New(g, Uniform[testgames.Board]{}, bad, 1); err == nil || !strings.Contains(err.Error(), "noise_fraction") {
		t.Errorf("NoiseFraction 2: err = %v", err)
	}
	bad = DefaultParams()
	bad.Temperature = Schedule{{10, 1}, {5, 0}}
	if _, err := New(g, Uniform[testgames.Board]{}, bad, 1); err == nil {
		t.Error("a temperature schedule out of order was accepted")
	}
}

// TestBudgets: a time budget stops a search (after at least the root's evaluation), a
// cancelled context stops it with its error, and a budget of 0 simulations only evaluates the
// root, whose priors are then the policy.
func TestBudgets(t *testing.T) {
	g := yinsh.Normal
	s := mustSearch(t, g, NewRollout(g, 1, 1), UCTParams(), 1)
	s.Reset(g.New())
	if err := s.Run(context.Background(), Budget{Time: 20 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if s.Visits() < 1 {
		t.Errorf("a 20ms search made %d visits", s.Visits())
	}
	small := UCTParams()
	small.MaxNodes = 1000
	s2 := mustSearch(t, g, Uniform[yinsh.State]{}, small, 1)
	s2.Reset(g.New())
	if err := s2.Run(context.Background(), Budget{Simulations: 100000}); err != nil {
		t.Fatal(err)
	}
	if n := s2.t.len(); n < 1000 || n > 1000+85 || s2.Simulations() >= 100000 {
		t.Errorf("MaxNodes 1000: %d nodes after %d simulations", n, s2.Simulations())
	}
	if err := s2.checkTree(); err != nil {
		t.Error(err)
	}
	var reports []int
	s.Reset(g.New())
	if err := s.Run(context.Background(), Budget{Simulations: 300, Progress: func(n int) { reports = append(reports, n) }}); err != nil {
		t.Fatal(err)
	}
	if len(reports) < 4 || reports[len(reports)-1] != 300 || reports[0] < progressEvery {
		t.Errorf("progress reports %v for 300 simulations", reports)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.Reset(g.New())
	if err := s.Run(ctx, Budget{Simulations: 1000}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
	s.Reset(g.New())
	if err := s.Run(context.Background(), Budget{}); err != nil {
		t.Fatal(err)
	}
	if s.Visits() != 1 || len(s.Children(nil)) != 85 {
		t.Errorf("budget 0: %d visits, %d children; want the root evaluated only", s.Visits(), len(s.Children(nil)))
	}
	pol := make([]float32, g.Info().NumActions)
	s.Policy(pol)
	if pol[0] != float32(1.0/85) {
		t.Errorf("budget 0: policy %v, want the uniform prior", pol[0])
	}
}

// scripted is an Evaluator that favours one action and checks the observations it gets.
type scripted struct {
	t       *testing.T
	size    int
	favour  env.Action
	actions int
	calls   int
}

func (e *scripted) Evaluate(obs, policy, value []float32) error {
	e.calls++
	if len(obs) != len(value)*e.size || len(policy) != len(value)*e.actions {
		e.t.Fatalf("Evaluate(%d obs, %d logits, %d values)", len(obs), len(policy), len(value))
	}
	for i := range value {
		for a := range e.actions {
			policy[i*e.actions+a] = 0
		}
		policy[i*e.actions+int(e.favour)] = 5
		value[i] = 0.25
	}
	return nil
}

// TestObserver: an Evaluator sees observations of the game's size in batches, and its logits
// become the priors (a softmax over the legal actions).
func TestObserver(t *testing.T) {
	g := testgames.TicTacToe
	e := &scripted{t: t, size: g.Info().Observation.Size(), favour: 4, actions: 9}
	p := DefaultParams()
	p.InFlight = 4
	s := mustSearch(t, g, Observe(g, e), p, 1)
	s.Reset(g.New())
	if err := s.Run(context.Background(), Budget{Simulations: 40}); err != nil {
		t.Fatal(err)
	}
	want := math.Exp(5) / (math.Exp(5) + 8)
	for _, c := range s.Children(nil) {
		w := (1 - want) / 8
		if c.Action == 4 {
			w = want
		}
		if math.Abs(c.Prior-w) > 1e-6 {
			t.Errorf("prior of %d = %v, want %v", c.Action, c.Prior, w)
		}
	}
	if e.calls >= 40 {
		t.Errorf("%d calls for 40 simulations in batches of 4", e.calls)
	}
	if a, _ := s.Choose(0); a != 4 {
		t.Errorf("chose %d, want the favoured 4", a)
	}
}

// TestSetRoot: a position a few decisions below the root keeps its subtree; any other
// position starts a new tree.
func TestSetRoot(t *testing.T) {
	g := testgames.TicTacToe
	s := mustSearch(t, g, Uniform[testgames.Board]{}, DefaultParams(), 1)
	start := g.New()
	s.Reset(start)
	if err := s.Run(context.Background(), Budget{Simulations: 2000}); err != nil {
		t.Fatal(err)
	}
	// b2 then a1 is well explored: x's best and one of o's answers.
	st := replay(t, g, "b2;a1")
	i := s.nodeAt(4, 0)
	if i < 0 || s.t.at(i).n < 10 {
		t.Fatalf("b2;a1 not explored")
	}
	want := int(s.t.at(i).n)
	s.SetRoot(st)
	if s.Root() != st || s.Visits() != want {
		t.Errorf("SetRoot(b2;a1): %d visits kept, want %d", s.Visits(), want)
	}
	if err := s.checkTree(); err != nil {
		t.Fatal(err)
	}
	s.SetRoot(st)
	if s.Visits() != want {
		t.Error("SetRoot of the root itself changed the tree")
	}
	other := replay(t, g, "a1")
	s.SetRoot(other)
	if s.Root() != other || s.Visits() != 0 {
		t.Errorf("SetRoot of a position not below the root: %d visits", s.Visits())
	}
}

// TestSetParams: parameters change between searches on the same tree, and a bad change is
// refused without effect.
func TestSetParams(t *testing.T) {
	g := yinsh.Blitz
	s := mustSearch(t, g, Uniform[yinsh.State]{}, DefaultParams(), 1)
	s.Reset(midgame(g, 40))
	if err := s.Run(context.Background(), Budget{Simulations: 50}); err != nil {
		t.Fatal(err)
	}
	p := DefaultParams()
	p.InFlight, p.DirichletAlpha = 16, 0.3
	if err := s.SetParams(p); err != nil {
		t.Fatal(err)
	}
	if err := s.Run(context.Background(), Budget{Simulations: 100}); err != nil {
		t.Fatal(err)
	}
	if err := s.checkTree(); err != nil {
		t.Fatal(err)
	}
	if s.Visits() != 151 {
		t.Errorf("%d visits after 1 + 50 + 100 simulations", s.Visits())
	}
	bad := p
	bad.InFlight = 0
	if err := s.SetParams(bad); err == nil || s.Params().InFlight != 16 {
		t.Errorf("SetParams(InFlight 0): %v, InFlight now %d", err, s.Params().InFlight)
	}
}

// TestRelease: Release keeps the root and gives back the tree's memory; the next search is the
// one a fresh tree at that root makes (the same seed gives the same visits).
func TestRelease(t *testing.T) {
	g := testgames.TicTacToe
	st := replay(t, g, "b2;a1")
	fresh := mustSearch(t, g, Uniform[testgames.Board]{}, DefaultParams(), 1)
	fresh.Reset(st)
	released := mustSearch(t, g, Uniform[testgames.Board]{}, DefaultParams(), 1)
	if err := released.Run(context.Background(), Budget{Simulations: 3000}); err != nil {
		t.Fatal(err)
	}
	released.SetRoot(st)
	if released.Visits() == 0 {
		t.Fatal("the tree kept nothing of b2;a1: the test shows nothing")
	}
	released.Release()
	if released.Root() != st || released.t.len() != 1 || len(released.t.pages) != 1 || cap(released.t.pages[0]) > firstPage || len(released.t.spare) > 0 || cap(released.t.states) > 8 {
		t.Fatalf("after Release: root %v, %d nodes (%d pages, the first of %d, %d spare pages, states cap %d); want the root alone, the arenas given back",
			released.Root(), released.t.len(), len(released.t.pages), cap(released.t.pages[0]), len(released.t.spare), cap(released.t.states))
	}
	released.Seed(1)
	for _, s := range []*Search[testgames.Board]{fresh, released} {
		if err := s.Run(context.Background(), Budget{Simulations: 300}); err != nil {
			t.Fatal(err)
		}
		if err := s.checkTree(); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := fresh.Children(nil), released.Children(nil); !reflect.DeepEqual(a, b) {
		t.Errorf("after Release the search differs from a fresh one at the same root:\n%+v\n%+v", b, a)
	}
}
