package net

import (
	"fmt"
	"math/rand/v2"
)

// Deepen returns w's network with residual blocks added after its own, so that it computes
// exactly what w computes: a trained net grown into a deeper one whose training goes on from
// where it stood (the extra capacity to learn with, none of its knowledge lost). Each new
// block's convolutions are drawn as a fresh network's are (He-normal, from rng), and its second
// batchnorm's scale and shift are zero, so the block adds nothing to its input: a block's output
// is ReLU(x + bn2(conv2(…))), and x, a ReLU's output, is ReLU(x) (the zero-initialised residual
// of Goyal et al. 2017). cfg must be w's configuration with more blocks, nothing else changed.
func (w *Weights) Deepen(cfg Config, rng *rand.Rand) (*Weights, error) {
	if cfg.Blocks <= w.Config.Blocks {
		return nil, fmt.Errorf("deepen: a net of %d blocks to %d: want more", w.Config.Blocks, cfg.Blocks)
	}
	same := cfg
	same.Blocks = w.Config.Blocks
	if same != w.Config {
		return nil, fmt.Errorf("deepen: %+v differs from %+v in more than its blocks", cfg, w.Config)
	}
	d, err := NewWeights(w.Spec, cfg, rng)
	if err != nil {
		return nil, err
	}
	for _, p := range d.Params {
		if q := w.byName[p.Name]; q != nil {
			copy(p.Data, q.Data)
		}
	}
	for i := w.Config.Blocks; i < cfg.Blocks; i++ {
		fill(d.get(BlockName(i, "bn2.gamma")), 0)
	}
	return d, nil
}
