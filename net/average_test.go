package net

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestAverage: the mean of nets is each parameter's mean, batchnorm statistics included; the
// mean of one net, or of a net with itself, is that net to the bit; the order of the nets does
// not change a bit of the mean; nets of another game or architecture are refused.
func TestAverage(t *testing.T) {
	for _, arch := range architectures(t) {
		t.Run(arch.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, 6))
			var nets []*Weights
			for range 3 {
				w, err := NewWeights(arch.spec, arch.cfg, rng)
				if err != nil {
					t.Fatal(err)
				}
				w.Randomize(rng)
				nets = append(nets, w)
			}
			a, b, c := nets[0], nets[1], nets[2]
			mean := func(ws ...*Weights) *Weights {
				t.Helper()
				m, err := Average(ws...)
				if err != nil {
					t.Fatal(err)
				}
				return m
			}
			same := func(what string, got, want *Weights) {
				t.Helper()
				for k, p := range got.Params {
					for i, x := range p.Data {
						if y := want.Params[k].Data[i]; x != y {
							t.Fatalf("%s: %s[%d] = %g, want %g", what, p.Name, i, x, y)
						}
					}
				}
			}
			same("the mean of one net", mean(a), a)
			same("the mean of a net with itself", mean(a, a, a), a)
			abc := mean(a, b, c)
			same("the mean in another order", mean(c, a, b), abc)
			stats := 0
			for k, p := range abc.Params {
				if !p.Trained() {
					stats++
				}
				for i, x := range p.Data {
					want := float32((float64(a.Params[k].Data[i]) + float64(b.Params[k].Data[i]) + float64(c.Params[k].Data[i])) / 3)
					if x != want {
						t.Fatalf("%s[%d] = %g, want the mean %g", p.Name, i, x, want)
					}
				}
			}
			if stats == 0 && arch.cfg.Blocks > 0 {
				t.Error("no batchnorm statistics among the parameters: the test checks nothing of them")
			}
			if a.Params[0].Data[0] == abc.Params[0].Data[0] {
				t.Error("the mean's first weight is net 1's: the nets were not different enough to tell")
			}
		})
	}

	rng := rand.New(rand.NewPCG(7, 8))
	small := smallConfig()
	deeper := small
	deeper.Blocks++
	six, eight := synthetic(t, "six", 7, 6, 6, 300), synthetic(t, "eight", 12, 8, 8, 200)
	sixWider := synthetic(t, "six", 7, 6, 6, 301)
	build := func(s *Spec, cfg Config) *Weights {
		w, err := NewWeights(s, cfg, rng)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	for _, tc := range []struct {
		name string
		nets []*Weights
		want string
	}{
		{"none", nil, "no nets"},
		{"another architecture", []*Weights{build(six, small), build(six, deeper)}, "net 2 is"},
		{"another game", []*Weights{build(six, small), build(six, small), build(eight, small)}, `net 3 is for "eight"`},
		{"another shape", []*Weights{build(six, small), build(sixWider, small)}, "net 2 has 301 actions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Average(tc.nets...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Average: %v, want an error with %q", err, tc.want)
			}
		})
	}
}
