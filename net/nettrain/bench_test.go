package nettrain

import (
	"math/rand/v2"
	"testing"

	"github.com/zerogames/zero/net"
)

// BenchmarkTrainStep measures a training step of YINSH's benchmark net (net.BenchConfig) on
// batches of 64, as the Trainer runs it (our convolution and batchnorm ops, the graph and
// machine of the batch size reused) and, for comparison, with gorgonia's Conv2d and BatchNorm,
// reused or rebuilt every step (a naive use of gorgonia).
func BenchmarkTrainStep(b *testing.B) {
	spec := yinshSpec(b)
	const n = 64
	for _, mode := range []struct {
		name            string
		ownOps, rebuild bool
	}{
		{"trainer", true, false},
		{"gorgonia-ops", false, false},
		{"gorgonia-ops-rebuilt", false, true},
	} {
		b.Run("yinsh/"+mode.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			w, err := net.NewWeights(spec, net.BenchConfig(), rng)
			if err != nil {
				b.Fatal(err)
			}
			batch := randomBatch(rng, n, spec)
			tr, err := NewTrainer(w, net.DefaultOptimizer(), nil)
			if err != nil {
				b.Fatal(err)
			}
			tr.ownOps = mode.ownOps
			if _, err := tr.Step(batch); err != nil { // builds the graph
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if mode.rebuild {
					tr.Close()
				}
				if _, err := tr.Step(batch); err != nil {
					b.Fatal(err)
				}
			}
			tr.Close()
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}
