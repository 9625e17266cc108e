package nettrain

import (
	"math/rand/v2"
	"testing"

	"github.com/zerogames/zero/env/gyges"
	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/net"
)

// presetConfig is configs/yinsh-blitz.yaml's net, the one self-play and the trainer run.
func presetConfig() net.Config {
	return net.Config{Blocks: 4, Channels: 32, PolicyChannels: 16, ValueChannels: 2, ValueHidden: 64}
}

// BenchmarkTrainStep measures a training step of YINSH's benchmark net (net.BenchConfig) on
// batches of 64, as the Trainer runs it (our convolution and batchnorm ops, the graph and
// machine of the batch size reused) and, for comparison, with gorgonia's Conv2d and BatchNorm,
// reused or rebuilt every step (a naive use of gorgonia); and the preset's net (YINSH blitz,
// 4 blocks × 32 channels) and Gygès advanced's on batches of 128 as the presets train them.
func BenchmarkTrainStep(b *testing.B) {
	normal := yinshSpec(b)
	blitz, err := net.SpecOf(yinsh.Blitz.Info(), yinsh.Blitz)
	if err != nil {
		b.Fatal(err)
	}
	advanced, err := net.SpecOf(gyges.Advanced.Info(), gyges.Advanced)
	if err != nil {
		b.Fatal(err)
	}
	gygesPreset := net.Config{Blocks: 4, Channels: 32, PolicyChannels: 16, ValueChannels: 2, ValueHidden: 64}
	for _, mode := range []struct {
		name            string
		spec            *net.Spec
		cfg             net.Config
		n               int
		ownOps, rebuild bool
	}{
		{"yinsh/trainer", normal, net.BenchConfig(), 64, true, false},
		{"yinsh/gorgonia-ops", normal, net.BenchConfig(), 64, false, false},
		{"yinsh/gorgonia-ops-rebuilt", normal, net.BenchConfig(), 64, false, true},
		{"yinsh-blitz-preset/trainer", blitz, presetConfig(), 128, true, false},
		// Gygès' policy is 1,336 planes of 6 × 6 (48,006 actions), the trunk's 32 channels of 6 × 6.
		{"gyges-advanced-preset/trainer", advanced, gygesPreset, 128, true, false},
	} {
		b.Run(mode.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			w, err := net.NewWeights(mode.spec, mode.cfg, rng)
			if err != nil {
				b.Fatal(err)
			}
			batch := randomBatch(rng, mode.n, mode.spec)
			tr, err := NewTrainer(w, net.DefaultOptimizer(), nil)
			if err != nil {
				b.Fatal(err)
			}
			tr.ownOps = mode.ownOps
			if _, err := tr.Step(batch); err != nil { // builds the graph
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu := cpuSeconds()
			for b.Loop() {
				if mode.rebuild {
					tr.Close()
				}
				if _, err := tr.Step(batch); err != nil {
					b.Fatal(err)
				}
			}
			cpu = cpuSeconds() - cpu
			tr.Close()
			b.ReportMetric(float64(b.N*mode.n)/b.Elapsed().Seconds(), "samples/s")
			// The process's CPU time (the step's, and the collector's): on a busy machine the
			// wall clock also counts the time spent waiting for a core.
			b.ReportMetric(float64(b.N*mode.n)/cpu, "samples/CPU-s")
		})
	}
}
