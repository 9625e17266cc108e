package mcts

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/imbriqua"
	"github.com/zerogames/zero/internal/testgames"
)

// lopsided is a network-like oracle that is not equivariant: its logits and values are fixed
// random linear maps of the observation, blind to the board's symmetries.
type lopsided[S env.State[S]] struct {
	size, numActions int
	w, u             []float32
	obs              []float32
	batches          []int // the sizes of the batches asked, while record is set
	record           bool
}

func newLopsided[S env.State[S]](g env.Game[S]) *lopsided[S] {
	info := g.Info()
	o := &lopsided[S]{size: info.Observation.Size(), numActions: info.NumActions}
	rng := rand.New(rand.NewPCG(5, 6))
	o.w = make([]float32, 101)
	o.u = make([]float32, o.size)
	for i := range o.w {
		o.w[i] = float32(rng.NormFloat64())
	}
	for i := range o.u {
		o.u[i] = float32(rng.NormFloat64())
	}
	o.obs = make([]float32, o.size)
	return o
}

func (o *lopsided[S]) Evaluate(leaves []S, policy, value []float32) error {
	if o.record {
		o.batches = append(o.batches, len(leaves))
	}
	for i, s := range leaves {
		s.Observe(o.obs)
		v := float32(0)
		for k, x := range o.obs {
			v += x * o.u[k]
		}
		value[i] = float32(math.Tanh(float64(v) / 8))
		for a := range o.numActions {
			l := float32(0)
			for k, w := range o.w[:8] { // a few of the observation's values, by the action
				l += o.obs[(a*13+k*37)%o.size] * w
			}
			policy[i*o.numActions+a] = l
		}
	}
	return nil
}

// symmetricCase checks mcts.Symmetric on positions of random games of g: with one symmetry it
// answers as its oracle; with all of them its answers are equivariant, which its oracle's are
// not (a position turned by any symmetry gets the same value, and each legal action's image the
// same logit); it asks its oracle once a batch, with K leaves a leaf; it allocates nothing.
func symmetricCase[S env.State[S]](t *testing.T, g env.Game[S]) {
	info := g.Info()
	na, k := info.NumActions, info.Symmetries
	var states []S
	w := env.NewGameWalker(g, rand.New(rand.NewPCG(3, 4)))
	for ply := 0; len(states) < 12; {
		for s := g.New(); s.ToMove() != env.Terminal; ply++ {
			if s.ToMove() != env.Chance && ply%5 == 2 {
				states = append(states, s)
			}
			s = s.Play(w.Step(s))
		}
	}
	inner := newLopsided(g)
	if _, err := NewSymmetric(g, inner, 0); err == nil {
		t.Error("NewSymmetric with 0 symmetries: no error")
	}
	if _, err := NewSymmetric(g, inner, k+1); err == nil {
		t.Errorf("NewSymmetric with %d symmetries of %d: no error", k+1, k)
	}
	one, err := NewSymmetric(g, inner, 1)
	if err != nil {
		t.Fatal(err)
	}
	all, err := NewSymmetric(g, inner, k)
	if err != nil {
		t.Fatal(err)
	}
	n := len(states)
	pol, val := make([]float32, n*na), make([]float32, n)
	wantPol, wantVal := make([]float32, n*na), make([]float32, n)
	if err := one.Evaluate(states, pol, val); err != nil {
		t.Fatal(err)
	}
	if err := inner.Evaluate(states, wantPol, wantVal); err != nil {
		t.Fatal(err)
	}
	var legal []env.Action
	for i, s := range states {
		legal = s.Legal(legal[:0])
		if val[i] != wantVal[i] {
			t.Errorf("one symmetry: value %v, its oracle's %v at\n%v", val[i], wantVal[i], s)
		}
		for _, a := range legal {
			if pol[i*na+int(a)] != wantPol[i*na+int(a)] {
				t.Errorf("one symmetry: logit %v of %s, its oracle's %v", pol[i*na+int(a)], env.ActionString(s, a), wantPol[i*na+int(a)])
			}
		}
	}
	inner.record = true
	if err := all.Evaluate(states, pol, val); err != nil {
		t.Fatal(err)
	}
	inner.record = false
	if len(inner.batches) != 1 || inner.batches[0] != n*k {
		t.Errorf("the oracle was asked batches of %v leaves, want one of %d", inner.batches, n*k)
	}
	turned := make([]S, n)
	tp, tv := make([]float32, n*na), make([]float32, n)
	const tol = 1e-4
	unequal := 0 // the inner oracle's answers that differ between symmetric positions
	for j := 1; j < k; j++ {
		for i, s := range states {
			turned[i] = s.Symmetry(j)
		}
		if err := all.Evaluate(turned, tp, tv); err != nil {
			t.Fatal(err)
		}
		if err := inner.Evaluate(turned, wantPol, wantVal); err != nil {
			t.Fatal(err)
		}
		for i, s := range states {
			if math.Abs(float64(tv[i]-val[i])) > tol {
				t.Errorf("symmetry %d: value %v, of the position unturned %v, at\n%v", j, tv[i], val[i], s)
			}
			if wantVal[i] != inner.value(s) {
				unequal++
			}
			legal = s.Legal(legal[:0])
			for _, a := range legal {
				b := g.MapAction(j, a)
				if got, want := tp[i*na+int(b)], pol[i*na+int(a)]; math.Abs(float64(got-want)) > tol*max(1, math.Abs(float64(want))) {
					t.Errorf("symmetry %d: logit %v of %s, %v of %s unturned", j, got, env.ActionString(turned[i], b), want, env.ActionString(s, a))
				}
			}
		}
	}
	if unequal == 0 {
		t.Error("the test's oracle is equivariant already: the test proves nothing")
	}
	if allocs := testing.AllocsPerRun(5, func() {
		if err := all.Evaluate(states, pol, val); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("Evaluate allocates %v times a batch", allocs)
	}
}

// value is the oracle's value of s alone.
func (o *lopsided[S]) value(s S) float32 {
	p, v := make([]float32, o.numActions), make([]float32, 1)
	_ = o.Evaluate([]S{s}, p, v)
	return v[0]
}

func TestSymmetric(t *testing.T) {
	t.Run("tictactoe", func(t *testing.T) { symmetricCase(t, testgames.TicTacToe) })
	t.Run("imbriqua", func(t *testing.T) { symmetricCase(t, imbriqua.Game) })
}

// fullEvaluator answers every action's logit: action a of position i gets i + a/100, value i/10.
type fullEvaluator struct{ numActions, calls int }

func (f *fullEvaluator) Evaluate(obs, policy, value []float32) error {
	f.calls++
	for i := range value {
		for a := range f.numActions {
			policy[i*f.numActions+a] = float32(i) + float32(a)/100
		}
		value[i] = float32(i) / 10
	}
	return nil
}

// actionEvaluator answers the same, for the actions asked only.
type actionEvaluator struct {
	fullEvaluator
	actionCalls int
}

func (f *actionEvaluator) EvaluateActions(obs []float32, legal []env.Action, ends []int32, logits, value []float32) error {
	f.actionCalls++
	start := int32(0)
	for i, end := range ends {
		for j := start; j < end; j++ {
			logits[j] = float32(i) + float32(legal[j])/100
		}
		value[i] = float32(i) / 10
		start = end
	}
	return nil
}

// TestObserverAsksForLegalActions: an Observer over an ActionEvaluator asks it for the legal
// actions' logits only, and puts them where Evaluate would have: the search sees the same
// legal logits and values either way.
func TestObserverAsksForLegalActions(t *testing.T) {
	g := testgames.TicTacToe
	n := g.Info().NumActions
	leaves := []testgames.Board{g.New(), g.New().Play(4), g.New().Play(4).Play(0)}
	tests := []struct {
		name string
		e    Evaluator
	}{
		{"evaluator", &fullEvaluator{numActions: n}},
		{"action evaluator", &actionEvaluator{fullEvaluator: fullEvaluator{numActions: n}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Observe(g, tt.e)
			for round := range 2 { // the second with the scratch grown
				policy, value := make([]float32, len(leaves)*n), make([]float32, len(leaves))
				if err := o.Evaluate(leaves, policy, value); err != nil {
					t.Fatal(err)
				}
				for i, s := range leaves {
					for _, a := range s.Legal(nil) {
						if want := float32(i) + float32(a)/100; policy[i*n+int(a)] != want {
							t.Fatalf("round %d, leaf %d, action %d: logit %g, want %g", round, i, a, policy[i*n+int(a)], want)
						}
					}
					if value[i] != float32(i)/10 {
						t.Fatalf("round %d, leaf %d: value %g", round, i, value[i])
					}
				}
			}
			if ae, ok := tt.e.(*actionEvaluator); ok && (ae.actionCalls != 2 || ae.calls != 0) {
				t.Fatalf("EvaluateActions called %d times and Evaluate %d, want 2 and 0", ae.actionCalls, ae.calls)
			}
		})
	}
}
