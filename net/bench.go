package net

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"gonum.org/v1/gonum/blas"

	"github.com/zerogames/zero/env"
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

// MeasureTraining runs steps training steps of a fresh net of cfg for spec on random batches of
// batch positions (after one step that builds the graph) and reports samples per second and
// the bytes and allocations per step.
func MeasureTraining(spec *Spec, cfg Config, opt OptimizerConfig, batch, steps int) (samplesPerSec, bytesPerStep, allocsPerStep float64, err error) {
	rng := rand.New(rand.NewPCG(1, 1))
	w, err := NewWeights(spec, cfg, rng)
	if err != nil {
		return 0, 0, 0, err
	}
	tr, err := NewTrainer(w, opt, nil)
	if err != nil {
		return 0, 0, 0, err
	}
	defer tr.Close()
	b := &Batch{N: batch, Obs: make([]float32, batch*spec.Observation.Size()), Value: make([]float32, batch), LegalEnd: make([]int32, batch)}
	for i := range b.Obs {
		b.Obs[i] = float32(rng.IntN(2))
	}
	// 30 legal actions a position (or all, if fewer), a uniform target over them.
	m := min(30, spec.NumActions)
	for i := range batch {
		legal := rng.Perm(spec.NumActions)[:m]
		slices.Sort(legal)
		for _, a := range legal {
			b.Legal = append(b.Legal, env.Action(a))
			b.Policy = append(b.Policy, 1/float32(m))
		}
		b.LegalEnd[i] = int32(len(b.Legal))
		b.Value[i] = float32(i%3 - 1)
	}
	if _, err := tr.Step(b); err != nil {
		return 0, 0, 0, err
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	for range steps {
		if _, err := tr.Step(b); err != nil {
			return 0, 0, 0, err
		}
	}
	elapsed := time.Since(start).Seconds()
	runtime.ReadMemStats(&after)
	n := float64(steps)
	return float64(batch*steps) / elapsed, float64(after.TotalAlloc-before.TotalAlloc) / n, float64(after.Mallocs-before.Mallocs) / n, nil
}
