package net

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"gonum.org/v1/gonum/blas"

	"github.com/zerogames/zero/net/linalg"
)

// Speed is the measured speed of the inference engine on one backend.
type Speed struct {
	Backend        Backend
	Batch, Workers int
	// Positions is positions evaluated per second, all workers together.
	Positions float64
	// GFLOPS is the engine's arithmetic rate, all workers together.
	GFLOPS float64
	// GEMM is the rate of 1024×1024 GEMMs run interleaved with the engine's batches, in the
	// same workers, all together: the yardstick, under the same load as the engine.
	GEMM float64
}

// MeasureEngine measures backend Go alone (see MeasureEngines).
func MeasureEngine(m *Model, batch, workers int, d time.Duration) Speed {
	sp, err := MeasureEngines(m, []Backend{Go}, batch, workers, d)
	if err != nil {
		panic(err) // the Go backend is always there
	}
	return sp[0]
}

// MeasureEngines runs, in each of workers goroutines, one engine of model per backend
// (Engine.Evaluate, every action's logit) on batches of batch random positions, for about d
// of each backend's time, and reports their speeds, in the order of backends. Each worker
// interleaves the backends batch by batch, and 1024×1024 GEMMs (half as much time as one
// backend), so that the backends and their yardstick see the same load on a shared machine.
// Each worker is locked to its OS thread, where its engines are built and run, as the
// inference workers of self-play are.
func MeasureEngines(m *Model, backends []Backend, batch, workers int, d time.Duration) ([]Speed, error) {
	s := m.spec
	rng := rand.New(rand.NewPCG(uint64(batch), uint64(workers)))
	obs := make([]float32, batch*s.Observation.Size())
	for i := range obs {
		obs[i] = float32(rng.IntN(2))
	}
	const n = 1024
	type tally struct {
		batches []int
		engine  []time.Duration
		gemms   int
		gemm    time.Duration
		err     error
	}
	tallies := make([]tally, workers)
	var wg sync.WaitGroup
	for k := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			t := &tallies[k]
			t.batches, t.engine = make([]int, len(backends)), make([]time.Duration, len(backends))
			engines := make([]*Engine, len(backends))
			for i, b := range backends {
				if engines[i], t.err = NewEngineOn(m, b); t.err != nil {
					return
				}
				defer engines[i].Close()
			}
			logits, value := make([]float32, batch*s.NumActions), make([]float32, batch)
			x, y, z := make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
			for i := range x {
				x[i], y[i] = float32(i%7)/7, float32(i%5)/5
			}
			gemm := func() { linalg.Float32.Sgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, x, n, y, n, 0, z, n) }
			for _, e := range engines {
				if t.err = e.Evaluate(obs, logits, value); t.err != nil { // warm up
					return
				}
			}
			gemm()
			for done := false; !done; {
				done = true
				var total time.Duration
				for i, e := range engines {
					t0 := time.Now()
					if t.err = e.Evaluate(obs, logits, value); t.err != nil {
						return
					}
					t.engine[i] += time.Since(t0)
					t.batches[i]++
					total += t.engine[i]
					done = done && t.engine[i] >= d
				}
				for t.gemm < total/time.Duration(2*len(engines)) {
					t0 := time.Now()
					gemm()
					t.gemm += time.Since(t0)
					t.gemms++
				}
			}
		}()
	}
	wg.Wait()
	sp := make([]Speed, len(backends))
	for i, b := range backends {
		sp[i] = Speed{Backend: b, Batch: batch, Workers: workers}
	}
	for _, t := range tallies {
		if t.err != nil {
			return nil, fmt.Errorf("measuring the engine: %w", t.err)
		}
		for i := range backends {
			sp[i].Positions += float64(t.batches[i]*batch) / t.engine[i].Seconds()
			sp[i].GEMM += 2 * n * n * n * float64(t.gemms) / t.gemm.Seconds() / 1e9
		}
	}
	for i := range sp {
		sp[i].GFLOPS = sp[i].Positions * m.flops / 1e9
	}
	return sp, nil
}
