package net

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/zerogames/zero/env"
)

// The backend docs/BACKENDS.md adds, step by step: the Go engine run one position at a time. It
// is no faster than Go, only as small as a backend can be while being one; TestAddingABackend
// adds it to the list as the page says and holds it to what every backend must do.

// GoSingle names the example backend (step 1).
const GoSingle Backend = "go-single"

// goSingle is the example backend (step 2): the Go engine's buffers, run on one position at a
// time.
type goSingle struct{ g *goBackend }

func (b *goSingle) evaluate(n int, obs, logits, value []float32) error {
	s := b.g.m.spec
	for i := range n {
		err := b.g.evaluate(1, obs[i*s.Observation.Size():], logits[i*s.NumActions:], value[i:i+1])
		if err != nil {
			return err
		}
	}
	return nil
}

// evaluateLegal runs the batch chunk by chunk (evaluateLegal, engine.go) with flush-to-zero
// set for the call, as every backend runs.
func (b *goSingle) evaluateLegal(bt *Batch) error {
	defer restoreFPU(flushDenormals())
	return evaluateLegal(b, b.g.m.spec, bt)
}

// chunk, runChunk and legalLogits make it a chunker, for evaluateLegal.
func (b *goSingle) chunk() int { return 1 }

func (b *goSingle) runChunk(n int, obs, value []float32) error { return b.g.runChunk(n, obs, value) }

func (b *goSingle) legalLogits(n, i int, legal []env.Action, p []float32) {
	b.g.legalLogits(n, i, legal, p)
}

func (b *goSingle) swap(m *Model) error { return b.g.swap(m) }

func (b *goSingle) describe() string { return GoSingle.Describe() }

func (b *goSingle) close() {}

// goSingleFactory is its factory (step 3): always available, never Auto's choice.
var goSingleFactory = factory{
	name:      GoSingle,
	available: func() error { return nil },
	auto:      func() bool { return false },
	fallback:  Go,
	describe: func(b Backend) string {
		return fmt.Sprintf("%s (the Go engine, one position at a time)", b)
	},
	build: func(m *Model) (backend, error) { return &goSingle{newGoBackend(m)}, nil },
}

// TestAddingABackend adds goSingleFactory to the list before Go (step 4, as one line of
// factories would) and holds the backend to what every backend must do: chosen by name, listed
// by Backends but not chosen by Auto (its factory says so), the Go engine's outputs within
// fp32Tolerance on every architecture of the engine tests at batch sizes 1 to 45 (Evaluate and
// EvaluateLegal), a swap's weights answering from the next call, no allocation a call.
func TestAddingABackend(t *testing.T) {
	auto := Auto()
	defer func(saved []factory) { factories = saved }(factories)
	factories = slices.Insert(slices.Clone(factories), len(factories)-1, goSingleFactory)

	if bs := Backends(); bs[0] != auto || !slices.Contains(bs, GoSingle) || Auto() != auto {
		t.Errorf("Backends() = %v, Auto() = %s: want %s first, and %s among them", bs, Auto(), auto, GoSingle)
	}
	if b, err := ParseBackend("go-single"); err != nil || b != GoSingle {
		t.Errorf("ParseBackend(go-single) = %q, %v", b, err)
	}
	for _, arch := range architectures(t) {
		t.Run(arch.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(6, 6))
			w, err := NewWeights(arch.spec, arch.cfg, rng)
			if err != nil {
				t.Fatal(err)
			}
			w.Randomize(rng)
			w2 := w.Clone()
			w2.Randomize(rng)
			m, m2 := NewModel(w), NewModel(w2)
			e, err := NewEngineOn(m, GoSingle)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if got, want := e.Describe(), "go-single (the Go engine, one position at a time)"; got != want {
				t.Errorf("Describe() = %q, want %q", got, want)
			}
			for _, n := range []int{1, 3, 45} {
				obs := randomObs(rng, n, arch.spec)
				wantL, wantV := outputs(t, newGoEngine(m), obs, n)
				gotL, gotV := outputs(t, e, obs, n)
				if i, ok := closeTo(gotL, wantL, fp32Tolerance); !ok {
					t.Errorf("%d positions: logit %d is %g, the Go engine's %g", n, i, gotL[i], wantL[i])
				}
				if i, ok := closeTo(gotV, wantV, fp32Tolerance); !ok {
					t.Errorf("%d positions: value %d is %g, the Go engine's %g", n, i, gotV[i], wantV[i])
				}
			}
			b := randomBatch(rng, 45, arch.spec)
			want := *b
			want.Policy, want.Value = make([]float32, len(b.Policy)), make([]float32, b.N)
			if err := newGoEngine(m).EvaluateLegal(&want); err != nil {
				t.Fatal(err)
			}
			if err := e.EvaluateLegal(b); err != nil {
				t.Fatal(err)
			}
			if i, ok := closeTo(b.Policy, want.Policy, fp32Tolerance); !ok {
				t.Errorf("probability %d: %g, the Go engine's %g", i, b.Policy[i], want.Policy[i])
			}
			if allocs := testing.AllocsPerRun(5, func() { e.EvaluateLegal(b) }); allocs != 0 {
				t.Errorf("EvaluateLegal allocates %v times a call", allocs)
			}
			if err := e.Swap(m2); err != nil {
				t.Fatal(err)
			}
			obs := randomObs(rng, 3, arch.spec)
			_, wantV := outputs(t, newGoEngine(m2), obs, 3)
			_, gotV := outputs(t, e, obs, 3)
			if i, ok := closeTo(gotV, wantV, fp32Tolerance); !ok {
				t.Errorf("after the swap, value %d is %g, the new model's %g", i, gotV[i], wantV[i])
			}
		})
	}
}
