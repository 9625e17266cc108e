package net

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestLearningRateAt(t *testing.T) {
	o := DefaultOptimizer()
	o.LearningRate = 0.1
	o.Warmup = 10
	o.Schedule = []LRStep{{Step: 100, Factor: 0.1}, {Step: 200, Factor: 0.01}}
	for _, c := range []struct {
		step int64
		want float64
	}{{0, 0.01}, {4, 0.05}, {9, 0.1}, {50, 0.1}, {99, 0.1}, {100, 0.01}, {199, 0.01}, {200, 0.001}, {1e6, 0.001}} {
		if got := o.LearningRateAt(c.step); got < c.want*(1-1e-12) || got > c.want*(1+1e-12) {
			t.Errorf("step %d: learning rate %g, want %g", c.step, got, c.want)
		}
	}
}

// FuzzCheckpoint: a damaged checkpoint is refused with an error, never a panic, and whatever
// loads has the game's shape.
func FuzzCheckpoint(f *testing.F) {
	spec := synthetic(f, "tiny", 1, 2, 2, 3)
	w, err := NewWeights(spec, Config{Blocks: 0, Channels: 1, PolicyChannels: 1, ValueChannels: 1, ValueHidden: 1}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		f.Fatal(err)
	}
	opt := NewOptimizer(w)
	opt.Config = DefaultOptimizer()
	path := filepath.Join(f.TempDir(), "seed.ckpt")
	if err := Save(path, w, opt, 0, time.Unix(0, 0)); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	if _, err := decode(good, spec, false); err != nil {
		f.Fatalf("the seed does not load: %v", err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := decode(data, spec, false)
		if err != nil {
			return
		}
		if !bytes.Equal(data, good) {
			// Only a checksum collision could get here; the header must still be consistent.
			if c.Weights.Spec != spec {
				t.Fatal("loaded weights of another spec")
			}
		}
	})
}
