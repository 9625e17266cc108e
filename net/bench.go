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

// GEMMPeak measures the float32 GEMM speed of this build's BLAS on 1024×1024 matrices, in
// GFLOP/s, with workers goroutines each making single-threaded calls at once for about d: the
// yardstick the engine is measured against (with OpenBLAS; gonum's GEMM spreads one call over
// GOMAXPROCS goroutines itself).
func GEMMPeak(workers int, d time.Duration) float64 {
	const n = 1024
	calls := make([]int, workers)
	var wg sync.WaitGroup
	var start time.Time
	var ready sync.WaitGroup
	ready.Add(workers)
	for k := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, b, c := make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
			rng := rand.New(rand.NewPCG(1, uint64(k)))
			for i := range a {
				a[i], b[i] = rng.Float32(), rng.Float32()
			}
			gemm := func() { linalg.Float32.Sgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a, n, b, n, 0, c, n) }
			gemm() // warm up: page faults, OpenBLAS's buffers
			ready.Done()
			ready.Wait()
			t0 := time.Now()
			for calls[k] == 0 || time.Since(t0) < d {
				gemm()
				calls[k]++
			}
		}()
	}
	ready.Wait()
	start = time.Now()
	wg.Wait()
	total := 0
	for _, c := range calls {
		total += c
	}
	return 2 * n * n * n * float64(total) / time.Since(start).Seconds() / 1e9
}

// Speed is the measured speed of the inference engine.
type Speed struct {
	Batch, Workers int
	// Positions is positions evaluated per second, all workers together.
	Positions float64
	// GFLOPS is the arithmetic rate, all workers together.
	GFLOPS float64
}

// MeasureEngine runs workers engines of model on batches of batch random positions, each in its
// own goroutine, for about d, and reports their speed.
func MeasureEngine(m *Model, batch, workers int, d time.Duration) Speed {
	s := m.spec
	rng := rand.New(rand.NewPCG(uint64(batch), uint64(workers)))
	b := &Batch{N: batch, Obs: make([]float32, batch*s.Observation.Size()), Value: make([]float32, batch), LegalEnd: make([]int32, batch)}
	for i := range b.Obs {
		b.Obs[i] = float32(rng.IntN(2))
	}
	// A policy over 30 legal actions per position, a typical count.
	for i := range batch {
		legal := rng.Perm(s.NumActions)[:min(30, s.NumActions)]
		slices.Sort(legal)
		for _, a := range legal {
			b.Legal = append(b.Legal, env.Action(a))
		}
		b.LegalEnd[i] = int32(len(b.Legal))
	}
	b.Policy = make([]float32, len(b.Legal))

	counts := make([]int, workers)
	var wg sync.WaitGroup
	start := time.Now()
	for k := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := NewEngine(m, batch)
			mine := *b
			mine.Policy = make([]float32, len(b.Legal))
			mine.Value = make([]float32, batch)
			e.Evaluate(&mine) // warm up
			t0 := time.Now()
			for counts[k] == 0 || time.Since(t0) < d {
				e.Evaluate(&mine)
				counts[k]++
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	total := 0
	for _, c := range counts {
		total += c
	}
	pos := float64(total*batch) / elapsed
	return Speed{Batch: batch, Workers: workers, Positions: pos, GFLOPS: pos * m.flops / 1e9}
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
