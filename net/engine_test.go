package net

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zerogames/zero/env"
)

// TestEvaluateLegal checks the sparse API against Evaluate: the policy is the softmax of the
// legal actions' logits (the illegal ones take no probability), the value the same, for
// batches of one position, less than a chunk, and several chunks.
func TestEvaluateLegal(t *testing.T) {
	for _, arch := range architectures(t) {
		t.Run(arch.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(9, 9))
			w, err := NewWeights(arch.spec, arch.cfg, rng)
			if err != nil {
				t.Fatal(err)
			}
			w.Randomize(rng)
			e := NewEngine(NewModel(w))
			s := arch.spec
			for _, n := range []int{1, 5, 30} {
				b := randomBatch(rng, n, s)
				logits := make([]float32, n*s.NumActions)
				value := make([]float32, n)
				if err := e.Evaluate(b.Obs, logits, value); err != nil {
					t.Fatal(err)
				}
				if err := e.EvaluateLegal(b); err != nil {
					t.Fatal(err)
				}
				start := int32(0)
				for i := range n {
					end := b.LegalEnd[i]
					var z float64
					for _, a := range b.Legal[start:end] {
						z += math.Exp(float64(logits[i*s.NumActions+int(a)]))
					}
					var sum float64
					for j := start; j < end; j++ {
						want := math.Exp(float64(logits[i*s.NumActions+int(b.Legal[j])])) / z
						if math.Abs(float64(b.Policy[j])-want) > 1e-5 {
							t.Fatalf("batch %d, position %d, action %d: probability %g, want %g", n, i, b.Legal[j], b.Policy[j], want)
						}
						sum += float64(b.Policy[j])
					}
					if math.Abs(sum-1) > 1e-5 {
						t.Errorf("position %d: probabilities sum to %g", i, sum)
					}
					if b.Value[i] != value[i] || b.Value[i] < -1 || b.Value[i] > 1 {
						t.Errorf("position %d: value %g, Evaluate says %g", i, b.Value[i], value[i])
					}
					start = end
				}
			}
		})
	}
}

// TestEvaluateAllocatesNothing holds both hot paths to zero allocations.
func TestEvaluateAllocatesNothing(t *testing.T) {
	for _, arch := range architectures(t) {
		rng := rand.New(rand.NewPCG(9, 9))
		w, err := NewWeights(arch.spec, arch.cfg, rng)
		if err != nil {
			t.Fatal(err)
		}
		e := NewEngine(NewModel(w))
		b := randomBatch(rng, 40, arch.spec)
		if allocs := testing.AllocsPerRun(5, func() { e.EvaluateLegal(b) }); allocs != 0 {
			t.Errorf("%s: EvaluateLegal allocates %v times a call", arch.name, allocs)
		}
		logits := make([]float32, 40*arch.spec.NumActions)
		if allocs := testing.AllocsPerRun(5, func() { e.Evaluate(b.Obs, logits, b.Value) }); allocs != 0 {
			t.Errorf("%s: Evaluate allocates %v times a call", arch.name, allocs)
		}
	}
}

// TestEvaluateRefusesBadBatches: a batch that does not fit the game is an error naming the
// problem, and writes nothing.
func TestEvaluateRefusesBadBatches(t *testing.T) {
	spec := synthetic(t, "six", 7, 6, 6, 300)
	w, err := NewWeights(spec, smallConfig(), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	e := NewEngine(NewModel(w))
	good := func() *Batch { return randomBatch(rand.New(rand.NewPCG(2, 2)), 4, spec) }
	cases := []struct {
		name   string
		mutate func(b *Batch)
		want   string
	}{
		{"negative count", func(b *Batch) { b.N = -1 }, "batch of -1 positions"},
		{"more positions than given", func(b *Batch) { b.N = 5 }, "observation values for 5 positions"},
		{"short observations", func(b *Batch) { b.Obs = b.Obs[:10] }, "observation values"},
		{"short values", func(b *Batch) { b.Value = b.Value[:3] }, "3 values for 4 positions"},
		{"short legal ends", func(b *Batch) { b.LegalEnd = b.LegalEnd[:2] }, "legal-action ends"},
		{"ends past the list", func(b *Batch) { b.LegalEnd[3] += 5 }, "position 3: legal actions"},
		{"short policy", func(b *Batch) { b.Policy = b.Policy[:1] }, "policy 1"},
		{"action out of range", func(b *Batch) { b.Legal[0] = 300 }, "action 300 outside [0, 300)"},
		{"negative action", func(b *Batch) { b.Legal[0] = -1 }, "action -1 outside"},
	}
	for _, c := range cases {
		b := good()
		c.mutate(b)
		before := append([]float32(nil), b.Value...)
		err := e.EvaluateLegal(b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
		for i := range before {
			if b.Value[i] != before[i] {
				t.Errorf("%s: the value of position %d was written", c.name, i)
			}
		}
	}
	empty := &Batch{}
	if err := e.EvaluateLegal(empty); err != nil {
		t.Errorf("an empty batch: %v", err)
	}
	b := good()
	if err := e.Evaluate(b.Obs, make([]float32, 4*spec.NumActions-1), b.Value); err == nil || !strings.Contains(err.Error(), "logits") {
		t.Errorf("Evaluate with a short logits buffer: %v", err)
	}
	if err := e.Evaluate(b.Obs[:5], make([]float32, 4*spec.NumActions), b.Value); err == nil || !strings.Contains(err.Error(), "observation") {
		t.Errorf("Evaluate with short observations: %v", err)
	}
	_ = env.Action(0)
}

// TestSwap: an engine swapped to another model computes what a fresh engine of that model does;
// a model of another architecture is refused.
func TestSwap(t *testing.T) {
	spec := synthetic(t, "six", 7, 6, 6, 300)
	rng := rand.New(rand.NewPCG(4, 4))
	w1, err := NewWeights(spec, smallConfig(), rng)
	if err != nil {
		t.Fatal(err)
	}
	w2 := w1.Clone()
	w2.Randomize(rng)
	b := randomBatch(rng, 6, spec)
	e := NewEngine(NewModel(w1))
	if err := e.Swap(NewModel(w2)); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, 6*spec.NumActions)
	want := make([]float32, 6*spec.NumActions)
	v := make([]float32, 6)
	if err := e.Evaluate(b.Obs, got, v); err != nil {
		t.Fatal(err)
	}
	if err := NewEngine(NewModel(w2)).Evaluate(b.Obs, want, v); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("logit %d: %g after a swap, %g from a fresh engine", i, got[i], want[i])
		}
	}
	bigger := smallConfig()
	bigger.Channels++
	w3, err := NewWeights(spec, bigger, rng)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Swap(NewModel(w3)); err == nil {
		t.Error("swapped to a model of more channels")
	}
}
