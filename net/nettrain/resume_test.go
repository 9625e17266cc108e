package nettrain

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/zerogames/zero/models"
	"github.com/zerogames/zero/net"
)

func smallConfig() net.Config {
	return net.Config{Blocks: 1, Channels: 8, PolicyChannels: 2, ValueChannels: 2, ValueHidden: 8}
}

// TestResumeIsExact trains 5 steps straight, and 3 steps, a checkpoint, a load and 2 steps: the
// weights must come out bit for bit the same.
func TestResumeIsExact(t *testing.T) {
	spec := synthetic(t, "six", 7, 6, 6, 300)
	cfg := smallConfig()
	batches := func() []*net.Batch {
		rng := rand.New(rand.NewPCG(21, 22))
		var bs []*net.Batch
		for range 5 {
			bs = append(bs, randomBatch(rng, 4, spec))
		}
		return bs
	}
	fresh := func() *net.Weights {
		w, err := net.NewWeights(spec, cfg, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	step := func(tr *Trainer, bs []*net.Batch) {
		for _, b := range bs {
			if _, err := tr.Step(b); err != nil {
				t.Fatal(err)
			}
		}
	}
	straight := fresh()
	tr, err := NewTrainer(straight, testOptimizer("adam"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	step(tr, batches())

	first := fresh()
	tr1, err := NewTrainer(first, testOptimizer("adam"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr1.Close()
	step(tr1, batches()[:3])
	path := filepath.Join(t.TempDir(), "net.ckpt")
	if err := net.Save(path, first, tr1.Optimizer(), 3, time.Now()); err != nil {
		t.Fatal(err)
	}
	c, err := net.Load(models.ReadFile, path, spec)
	if err != nil {
		t.Fatal(err)
	}
	tr2, err := NewTrainer(c.Weights, *c.Header.Optimizer, c.Optimizer)
	if err != nil {
		t.Fatal(err)
	}
	defer tr2.Close()
	step(tr2, batches()[3:])
	for i, p := range straight.Params {
		if !slices.Equal(p.Data, c.Weights.Params[i].Data) {
			t.Errorf("%s: resumed training differs from uninterrupted training", p.Name)
		}
	}
}
