package net

import (
	"math/rand/v2"
	"sync"
	"time"

	"gonum.org/v1/gonum/blas"

	"github.com/zerogames/zero/net/linalg"
)

// Speed is the measured speed of the inference engine.
type Speed struct {
	Batch, Workers int
	// Positions is positions evaluated per second, all workers together.
	Positions float64
	// GFLOPS is the engine's arithmetic rate, all workers together.
	GFLOPS float64
	// GEMM is the rate of 1024×1024 GEMMs run interleaved with the engine's batches, in the
	// same workers, all together: the yardstick, under the same load as the engine.
	GEMM float64
}

// MeasureEngine runs workers engines of model (Engine.Evaluate, every action's logit) on batches
// of batch random positions, each in its own goroutine, for about d of engine time, and reports
// their speed. Each worker interleaves its batches with 1024×1024 GEMMs (half as much time), so
// that the engine and its yardstick see the same load on a shared machine.
func MeasureEngine(m *Model, batch, workers int, d time.Duration) Speed {
	s := m.spec
	rng := rand.New(rand.NewPCG(uint64(batch), uint64(workers)))
	obs := make([]float32, batch*s.Observation.Size())
	for i := range obs {
		obs[i] = float32(rng.IntN(2))
	}
	const n = 1024
	type tally struct {
		batches, gemms   int
		engine, gemmTime time.Duration
	}
	tallies := make([]tally, workers)
	var wg sync.WaitGroup
	for k := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := NewEngine(m)
			logits, value := make([]float32, batch*s.NumActions), make([]float32, batch)
			x, y, z := make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
			for i := range x {
				x[i], y[i] = float32(i%7)/7, float32(i%5)/5
			}
			gemm := func() { linalg.Float32.Sgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, x, n, y, n, 0, z, n) }
			e.Evaluate(obs, logits, value) // warm up
			gemm()
			t := &tallies[k]
			for t.batches == 0 || t.engine < d {
				t0 := time.Now()
				e.Evaluate(obs, logits, value)
				t.engine += time.Since(t0)
				t.batches++
				for t.gemmTime < t.engine/2 {
					t0 := time.Now()
					gemm()
					t.gemmTime += time.Since(t0)
					t.gemms++
				}
			}
		}()
	}
	wg.Wait()
	sp := Speed{Batch: batch, Workers: workers}
	for _, t := range tallies {
		sp.Positions += float64(t.batches*batch) / t.engine.Seconds()
		sp.GEMM += 2 * n * n * n * float64(t.gemms) / t.gemmTime.Seconds() / 1e9
	}
	sp.GFLOPS = sp.Positions * m.flops / 1e9
	return sp
}
