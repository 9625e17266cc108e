package net

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestDeepen: a net deepened by residual blocks gives the same logits and values as the net it
// grew from, to the bit, on every architecture; its new blocks have weights to learn with (not
// zeros); and a net cannot be deepened into fewer blocks or another shape.
func TestDeepen(t *testing.T) {
	for _, arch := range architectures(t) {
		t.Run(arch.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 4))
			w, err := NewWeights(arch.spec, arch.cfg, rng)
			if err != nil {
				t.Fatal(err)
			}
			w.Randomize(rng)
			cfg := arch.cfg
			cfg.Blocks += 2
			d, err := w.Deepen(cfg, rng)
			if err != nil {
				t.Fatal(err)
			}
			if d.Config != cfg {
				t.Fatalf("deepened config %+v, want %+v", d.Config, cfg)
			}
			b := randomBatch(rng, 7, arch.spec)
			n, s := 7, arch.spec
			logits, value := make([]float32, n*s.NumActions), make([]float32, n)
			want, wantValue := make([]float32, n*s.NumActions), make([]float32, n)
			if err := NewEngine(NewModel(w)).Evaluate(b.Obs, want, wantValue); err != nil {
				t.Fatal(err)
			}
			if err := NewEngine(NewModel(d)).Evaluate(b.Obs, logits, value); err != nil {
				t.Fatal(err)
			}
			for i := range value {
				if value[i] != wantValue[i] {
					t.Errorf("position %d: value %g, the net it grew from says %g", i, value[i], wantValue[i])
				}
			}
			for i := range logits {
				if logits[i] != want[i] {
					t.Fatalf("logit %d: %g, the net it grew from says %g", i, logits[i], want[i])
				}
			}
			for i := arch.cfg.Blocks; i < cfg.Blocks; i++ {
				for _, name := range []string{BlockName(i, "conv1.w"), BlockName(i, "conv2.w")} {
					if zeros(d.get(name)) {
						t.Errorf("%s is all zeros: the block could not learn", name)
					}
				}
			}
		})
	}
	spec := synthetic(t, "six", 7, 6, 6, 300)
	w, err := NewWeights(spec, smallConfig(), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	fewer, wider := w.Config, w.Config
	fewer.Blocks--
	wider.Blocks++
	wider.Channels++
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{w.Config, "want more"},
		{fewer, "want more"},
		{wider, "more than its blocks"},
	} {
		if _, err := w.Deepen(c.cfg, rand.New(rand.NewPCG(1, 1))); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Deepen(%+v): %v, want an error saying %q", c.cfg, err, c.want)
		}
	}
}

func zeros(x []float32) bool {
	for _, v := range x {
		if v != 0 {
			return false
		}
	}
	return true
}
