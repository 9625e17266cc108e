package net

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"

	"github.com/zerogames/zero/net/linalg"
)

// BenchmarkEngine measures the inference engine on YINSH's benchmark net (BenchConfig) at
// several batch sizes, and the same net with KataGo's global pooling in the value head (32
// planes pooled instead of 2 flattened), to weigh its cost; GFLOP/s compares with
// BenchmarkGEMM's.
func BenchmarkEngine(b *testing.B) {
	spec := yinshSpec(b)
	pooled := BenchConfig()
	pooled.GlobalPool, pooled.ValueChannels = true, 32
	for _, net := range []struct {
		name string
		cfg  Config
	}{{"yinsh", BenchConfig()}, {"yinsh-pool", pooled}} {
		w, err := NewWeights(spec, net.cfg, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			b.Fatal(err)
		}
		m := NewModel(w)
		for _, n := range []int{1, 32, 256} {
			b.Run(fmt.Sprintf("%s/batch=%d", net.name, n), func(b *testing.B) {
				obs := randomObs(rand.New(rand.NewPCG(2, 2)), n, spec)
				logits, value := make([]float32, n*spec.NumActions), make([]float32, n)
				e := NewEngine(m)
				b.ReportAllocs()
				for b.Loop() {
					if err := e.Evaluate(obs, logits, value); err != nil {
						b.Fatal(err)
					}
				}
				pos := float64(b.N*n) / b.Elapsed().Seconds()
				b.ReportMetric(pos, "positions/s")
				b.ReportMetric(pos*m.FLOPs()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkGEMM is the yardstick: single-thread float32 GEMM of 1024×1024 matrices.
func BenchmarkGEMM(b *testing.B) {
	const n = 1024
	x, y, z := make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
	for i := range x {
		x[i], y[i] = float32(i%7), float32(i%5)
	}
	b.ReportAllocs()
	for b.Loop() {
		linalg.Float32.Sgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, x, n, y, n, 0, z, n)
	}
	b.ReportMetric(2*n*n*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
