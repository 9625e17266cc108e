package net

import (
	"math/rand/v2"
	"testing"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/yinsh"
)

// The shapes and inputs the tests share (nettrain's tests have the same).

// synthetic is a game shape with a dense policy head, as Gygès's and Imbriqua's may be.
func synthetic(tb testing.TB, name string, planes, h, w, actions int) *Spec {
	tb.Helper()
	info := &env.Info{Name: name, NumActions: actions, Observation: env.Shape{Planes: planes, Height: h, Width: w}}
	s, err := NewSpec(info, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func yinshSpec(tb testing.TB) *Spec {
	tb.Helper()
	s, err := SpecOf(yinsh.Normal.Info(), yinsh.Normal)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func randomObs(rng *rand.Rand, n int, s *Spec) []float32 {
	obs := make([]float32, n*s.Observation.Size())
	for i := range obs {
		switch rng.IntN(3) {
		case 0:
			obs[i] = 0
		case 1:
			obs[i] = 1
		default:
			obs[i] = rng.Float32()*2 - 1
		}
	}
	return obs
}

// architectures are the shapes every test of the two implementations runs on: YINSH's spatial
// head, dense 6×6 and 8×8 games, each with and without global pooling.
func architectures(tb testing.TB) []struct {
	name string
	spec *Spec
	cfg  Config
} {
	small := Config{Blocks: 2, Channels: 16, PolicyChannels: 4, ValueChannels: 2, ValueHidden: 16}
	pooled := small
	pooled.GlobalPool = true
	pooled.ValueChannels = 8
	return []struct {
		name string
		spec *Spec
		cfg  Config
	}{
		{"yinsh", yinshSpec(tb), small},
		{"yinsh-pool", yinshSpec(tb), pooled},
		{"dense6x6", synthetic(tb, "six", 7, 6, 6, 300), small},
		{"dense8x8-pool", synthetic(tb, "eight", 12, 8, 8, 200), pooled},
		{"dense8x8-noblocks", synthetic(tb, "eight", 12, 8, 8, 200), Config{Blocks: 0, Channels: 8, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 4}},
	}
}

// randomBatch is n positions with random observations, random legal actions (at least one each),
// a random target distribution over them and random results.
func randomBatch(rng *rand.Rand, n int, s *Spec) *Batch {
	b := &Batch{N: n, Obs: randomObs(rng, n, s), Value: make([]float32, n), LegalEnd: make([]int32, n)}
	for i := range n {
		var sum float32
		start := len(b.Legal)
		for a := range s.NumActions {
			if rng.IntN(4) == 0 || (a == s.NumActions-1 && len(b.Legal) == start) {
				b.Legal = append(b.Legal, env.Action(a))
				p := rng.Float32()
				b.Policy = append(b.Policy, p)
				sum += p
			}
		}
		for j := start; j < len(b.Legal); j++ {
			b.Policy[j] /= sum
		}
		b.LegalEnd[i] = int32(len(b.Legal))
		b.Value[i] = float32(rng.IntN(3) - 1)
	}
	return b
}
