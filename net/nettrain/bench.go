package nettrain

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"syscall"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/net/internal/dnnl"
)

// TrainingSpeed is what MeasureTraining measured.
type TrainingSpeed struct {
	SamplesPerSec float64 // of wall time
	// SamplesPerCPUSec is per second of the process's CPU time (the steps' and the garbage
	// collector's): on a busy machine the wall clock also counts the waits for a core.
	SamplesPerCPUSec            float64
	BytesPerStep, AllocsPerStep float64
	// Ops says what ran the convolutions and batchnorms: "oneDNN 2.6.3" (built with the tag
	// dnnl) or "Go".
	Ops string
}

// MeasureTraining runs steps training steps of a fresh net of cfg for spec on random batches of
// batch positions (after one step that builds the graph) and reports samples per second (of wall
// time and of CPU time) and the bytes and allocations per step.
func MeasureTraining(spec *net.Spec, cfg net.Config, opt net.OptimizerConfig, batch, steps int) (TrainingSpeed, error) {
	rng := rand.New(rand.NewPCG(1, 1))
	w, err := net.NewWeights(spec, cfg, rng)
	if err != nil {
		return TrainingSpeed{}, err
	}
	tr, err := NewTrainer(w, opt, nil)
	if err != nil {
		return TrainingSpeed{}, err
	}
	defer tr.Close()
	b := &net.Batch{N: batch, Obs: make([]float32, batch*spec.Observation.Size()), Value: make([]float32, batch), LegalEnd: make([]int32, batch)}
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
		return TrainingSpeed{}, err
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start, cpu := time.Now(), cpuSeconds()
	for range steps {
		if _, err := tr.Step(b); err != nil {
			return TrainingSpeed{}, err
		}
	}
	elapsed, cpu := time.Since(start).Seconds(), cpuSeconds()-cpu
	runtime.ReadMemStats(&after)
	n := float64(steps)
	sp := TrainingSpeed{
		SamplesPerSec:    float64(batch*steps) / elapsed,
		SamplesPerCPUSec: float64(batch*steps) / cpu,
		BytesPerStep:     float64(after.TotalAlloc-before.TotalAlloc) / n,
		AllocsPerStep:    float64(after.Mallocs-before.Mallocs) / n,
		Ops:              "Go",
	}
	if tr.dnnl {
		sp.Ops = "oneDNN " + dnnl.Version()
	}
	return sp, nil
}

// cpuSeconds is the process's CPU time so far (user and system, every thread).
func cpuSeconds() float64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()).Seconds()
}
