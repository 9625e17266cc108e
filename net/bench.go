package net

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"gonum.org/v1/gonum/blas"

	"github.com/zerogames/zero/net/internal/dnnl"
	"github.com/zerogames/zero/net/linalg"
)

// Speed is the measured speed of the inference engine on one backend.
type Speed struct {
	Backend Backend
	// Engine says what the engine ran on (Engine.Describe).
	Engine         string
	Batch, Workers int
	// Positions is positions evaluated per second, all workers together.
	Positions float64
	// PositionsCPU is positions evaluated per second of the workers' CPU time, all workers
	// together: the rate that waiting for a core on a busy machine does not lower (the wall
	// clock's Positions does).
	PositionsCPU float64
	// GFLOPS is the engine's arithmetic rate, all workers together.
	GFLOPS float64
	// GEMM is the rate of the fastest 1024×1024 matrix product of the backend's precision
	// (float32: this build's BLAS, or oneDNN's; bfloat16: oneDNN's), run interleaved with the
	// engines' batches in the same workers, all together: the yardstick, under the same load as
	// the engine. Yardstick names it.
	GEMM      float64
	Yardstick string
}

// MeasureEngine measures backend Go alone (see MeasureEngines).
func MeasureEngine(m *Model, batch, workers int, d time.Duration) Speed {
	sp, err := MeasureEngines(m, []Backend{Go}, batch, workers, d)
	if err != nil {
		panic(err) // the Go backend is always there
	}
	return sp[0]
}

// yardstick is a 1024×1024 matrix product that MeasureEngines times.
type yardstick struct {
	name  string
	bf16  bool
	run   func() error
	close func()
}

// yardsticks are the matrix products of the precisions of backends: this build's BLAS SGEMM,
// oneDNN's float32 matmul with oneDNN, and its bfloat16 matmul for a bfloat16 backend. They
// are made on the calling thread.
func yardsticks(backends []Backend) ([]yardstick, error) {
	const n = 1024
	x, y, z := make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
	for i := range x {
		x[i], y[i] = float32(i%7)/7, float32(i%5)/5
	}
	ys := []yardstick{{name: linalg.Name + " sgemm", close: func() {}, run: func() error {
		linalg.Float32.Sgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, x, n, y, n, 0, z, n)
		return nil
	}}}
	for _, bf16 := range []bool{false, true} {
		if !dnnl.Built || bf16 && !slices.ContainsFunc(backends, Backend.bf16) {
			continue
		}
		mm, err := dnnl.NewMatmul(n, bf16)
		if err != nil {
			for _, y := range ys {
				y.close()
			}
			return nil, fmt.Errorf("oneDNN matmul: %w", err)
		}
		name := "oneDNN f32 matmul"
		if bf16 {
			name = "oneDNN bf16 matmul"
		}
		ys = append(ys, yardstick{name: name, bf16: bf16, run: mm.Run, close: mm.Close})
	}
	return ys, nil
}

// MeasureEngines runs, in each of workers goroutines, one engine of model per backend
// (Engine.Evaluate, every action's logit) on batches of batch random positions, for about d
// of each backend's time, and reports their speeds, in the order of backends. Each worker
// interleaves the backends batch by batch, and the yardsticks (1024×1024 matrix products,
// each half as much time as one backend), so that the backends and their yardsticks see the
// same load on a shared machine. Each worker is locked to its OS thread, where its engines
// are built and run, as the inference workers of self-play are.
func MeasureEngines(m *Model, backends []Backend, batch, workers int, d time.Duration) ([]Speed, error) {
	s := m.spec
	rng := rand.New(rand.NewPCG(uint64(batch), uint64(workers)))
	obs := make([]float32, batch*s.Observation.Size())
	for i := range obs {
		obs[i] = float32(rng.IntN(2))
	}
	const flop = 2 * 1024 * 1024 * 1024
	type tally struct {
		batches []int
		engine  []time.Duration
		cpu     []int64
		about   []string
		names   []string
		bf16    []bool
		runs    []int
		gemm    []time.Duration
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
			t.batches, t.engine, t.cpu = make([]int, len(backends)), make([]time.Duration, len(backends)), make([]int64, len(backends))
			engines := make([]*Engine, len(backends))
			for i, b := range backends {
				if engines[i], t.err = NewEngineOn(m, b); t.err != nil {
					return
				}
				defer engines[i].Close()
				t.about = append(t.about, engines[i].Describe())
			}
			var ys []yardstick
			if ys, t.err = yardsticks(backends); t.err != nil {
				return
			}
			t.runs, t.gemm = make([]int, len(ys)), make([]time.Duration, len(ys))
			for _, y := range ys {
				defer y.close()
				t.names, t.bf16 = append(t.names, y.name), append(t.bf16, y.bf16)
			}
			logits, value := make([]float32, batch*s.NumActions), make([]float32, batch)
			for _, e := range engines {
				if t.err = e.Evaluate(obs, logits, value); t.err != nil { // warm up
					return
				}
			}
			for _, y := range ys {
				if t.err = y.run(); t.err != nil {
					return
				}
			}
			for done := false; !done; {
				done = true
				var total time.Duration
				for i, e := range engines {
					t0, c0 := time.Now(), threadCPU()
					if t.err = e.Evaluate(obs, logits, value); t.err != nil {
						return
					}
					t.engine[i] += time.Since(t0)
					t.cpu[i] += threadCPU() - c0
					t.batches[i]++
					total += t.engine[i]
					done = done && t.engine[i] >= d
				}
				for j, y := range ys {
					for t.gemm[j] < total/time.Duration(2*len(engines)) {
						t0 := time.Now()
						if t.err = y.run(); t.err != nil {
							return
						}
						t.gemm[j] += time.Since(t0)
						t.runs[j]++
					}
				}
			}
		}()
	}
	wg.Wait()
	for _, t := range tallies {
		if t.err != nil {
			return nil, fmt.Errorf("measuring the engine: %w", t.err)
		}
	}
	// The yardsticks' rates, all workers together.
	rates := make([]float64, len(tallies[0].names))
	for _, t := range tallies {
		for j := range rates {
			rates[j] += flop * float64(t.runs[j]) / t.gemm[j].Seconds() / 1e9
		}
	}
	sp := make([]Speed, len(backends))
	for i, b := range backends {
		sp[i] = Speed{Backend: b, Engine: tallies[0].about[i], Batch: batch, Workers: workers}
		for _, t := range tallies {
			sp[i].Positions += float64(t.batches[i]*batch) / t.engine[i].Seconds()
			sp[i].PositionsCPU += float64(t.batches[i]*batch) / (float64(t.cpu[i]) / 1e9)
		}
		sp[i].GFLOPS = sp[i].Positions * m.flops / 1e9
		for j, r := range rates {
			if tallies[0].bf16[j] == b.bf16() && r > sp[i].GEMM {
				sp[i].GEMM, sp[i].Yardstick = r, tallies[0].names[j]
			}
		}
	}
	return sp, nil
}
