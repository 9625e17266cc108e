package net

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// paramKind says how training treats a parameter.
type paramKind uint8

const (
	kindWeight paramKind = iota // a convolution's or dense layer's weights: trained, L2-penalised
	kindShift                   // a bias or a batchnorm scale or shift: trained, not penalised
	kindStat                    // a batchnorm running mean or variance: not trained, updated by batches
)

// Param is one tensor of the network, by name ("block2.conv1.w", "value.bn.mean", ...).
type Param struct {
	Name  string
	Shape []int
	Data  []float32
	kind  paramKind
}

// Trained tells whether the optimizer updates the parameter (batchnorm statistics are not).
func (p *Param) Trained() bool { return p.kind != kindStat }

// Penalised tells whether the loss's L2 term covers the parameter: the weights of convolutions
// and dense layers, not biases or batchnorm scales and shifts.
func (p *Param) Penalised() bool { return p.kind == kindWeight }

// Weights is a network's parameters for one game: the one store that the training graph, the
// inference engine and checkpoints all read and write. Params are in a fixed order, derived
// from the Config and the Spec alone, so two Weights of the same config and spec line up.
type Weights struct {
	Spec   *Spec
	Config Config
	Params []*Param
	byName map[string]*Param
	dry    bool // the shapes only, no data (layoutOf)
}

// NewWeights lays out the parameters of cfg's network for the game spec, initialised as a fresh
// network is: He-normal weights drawn from rng (zero if rng is nil), zero biases, batchnorm as
// the identity.
func NewWeights(spec *Spec, cfg Config, rng *rand.Rand) (*Weights, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	w := &Weights{Spec: spec, Config: cfg, byName: map[string]*Param{}}
	w.layout()
	for _, p := range w.Params {
		switch {
		case p.kind == kindWeight && rng != nil:
			fanIn := 1
			for _, d := range p.Shape[1:] {
				fanIn *= d
			}
			if len(p.Shape) == 2 { // dense layers are [in, out]
				fanIn = p.Shape[0]
			}
			std := math.Sqrt(2 / float64(fanIn))
			for i := range p.Data {
				p.Data[i] = float32(rng.NormFloat64() * std)
			}
		case hasSuffix(p.Name, ".gamma"), hasSuffix(p.Name, ".var"):
			fill(p.Data, 1)
		}
	}
	return w, nil
}

func hasSuffix(s, suffix string) bool {
	return len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix
}

func fill(x []float32, v float32) {
	for i := range x {
		x[i] = v
	}
}

// layoutOf is the parameters of cfg's network for spec, names and shapes only (no data is
// allocated, whatever the sizes): what a checkpoint of that network lists.
func layoutOf(spec *Spec, cfg Config) []*Param {
	w := &Weights{Spec: spec, Config: cfg, byName: map[string]*Param{}, dry: true}
	w.layout()
	return w.Params
}

// layout appends the parameters in their fixed order.
func (w *Weights) layout() {
	s, c := w.Spec, w.Config
	obs := s.Observation
	cells := s.Cells()
	w.conv("stem", c.Channels, obs.Planes, 3)
	w.batchnorm("stem.bn", c.Channels)
	for i := range c.Blocks {
		w.conv(BlockName(i, "conv1"), c.Channels, c.Channels, 3)
		w.batchnorm(BlockName(i, "bn1"), c.Channels)
		w.conv(BlockName(i, "conv2"), c.Channels, c.Channels, 3)
		w.batchnorm(BlockName(i, "bn2"), c.Channels)
	}
	w.conv("policy.conv", c.PolicyChannels, c.Channels, 1)
	w.batchnorm("policy.bn", c.PolicyChannels)
	if s.Spatial() {
		w.conv("policy.out", s.PolicyPlanes, c.PolicyChannels, 1)
		w.add("policy.out.b", kindShift, s.PolicyPlanes)
		if s.OffGrid > 0 {
			w.dense("policy.offgrid", c.PolicyChannels, s.OffGrid)
		}
	} else {
		w.dense("policy.fc", c.PolicyChannels*cells, s.NumActions)
	}
	w.conv("value.conv", c.ValueChannels, c.Channels, 1)
	w.batchnorm("value.bn", c.ValueChannels)
	w.dense("value.fc1", w.valueInputs(), c.ValueHidden)
	w.dense("value.fc2", c.ValueHidden, 1)
}

// valueInputs is the width of the value head's first dense layer.
func (w *Weights) valueInputs() int {
	if w.Config.GlobalPool {
		return 2 * w.Config.ValueChannels
	}
	return w.Config.ValueChannels * w.Spec.Cells()
}

// BlockName is the name of a layer of residual block i ("block2.conv1"), as the parameters'
// names begin.
func BlockName(i int, layer string) string { return fmt.Sprintf("block%d.%s", i, layer) }

func (w *Weights) add(name string, kind paramKind, shape ...int) *Param {
	n := 1
	for _, d := range shape {
		n *= d
	}
	p := &Param{Name: name, Shape: shape, kind: kind}
	if !w.dry {
		p.Data = make([]float32, n)
	}
	w.Params = append(w.Params, p)
	w.byName[name] = p
	return p
}

// conv adds a k×k convolution's weights [out, in, k, k] (no bias: batchnorm follows).
func (w *Weights) conv(name string, out, in, k int) { w.add(name+".w", kindWeight, out, in, k, k) }

// batchnorm adds a batchnorm's scale and shift and its running statistics.
func (w *Weights) batchnorm(name string, c int) {
	w.add(name+".gamma", kindShift, c)
	w.add(name+".beta", kindShift, c)
	w.add(name+".mean", kindStat, c)
	w.add(name+".var", kindStat, c)
}

// dense adds a dense layer's weights [in, out] and bias [out].
func (w *Weights) dense(name string, in, out int) {
	w.add(name+".w", kindWeight, in, out)
	w.add(name+".b", kindShift, out)
}

// Param returns the named parameter, or nil.
func (w *Weights) Param(name string) *Param { return w.byName[name] }

// get returns the named parameter, which the layout guarantees.
func (w *Weights) get(name string) []float32 {
	p := w.byName[name]
	if p == nil {
		panic("net: no parameter " + name)
	}
	return p.Data
}

// Count is the number of parameters the optimizer trains.
func (w *Weights) Count() int {
	n := 0
	for _, p := range w.Params {
		if p.Trained() {
			n += len(p.Data)
		}
	}
	return n
}

// Clone returns a deep copy.
func (w *Weights) Clone() *Weights {
	c := &Weights{Spec: w.Spec, Config: w.Config, byName: map[string]*Param{}}
	for _, p := range w.Params {
		q := &Param{Name: p.Name, Shape: append([]int(nil), p.Shape...), Data: append([]float32(nil), p.Data...), kind: p.kind}
		c.Params = append(c.Params, q)
		c.byName[q.Name] = q
	}
	return c
}

// Randomize sets every parameter, batchnorm statistics included, to random values of a
// network's usual magnitudes: for tests that must exercise every term of the forward pass.
func (w *Weights) Randomize(rng *rand.Rand) {
	for _, p := range w.Params {
		for i := range p.Data {
			switch {
			case hasSuffix(p.Name, ".var"):
				p.Data[i] = float32(0.5 + rng.Float64())
			case hasSuffix(p.Name, ".gamma"):
				p.Data[i] = float32(0.5 + rng.Float64())
			case p.kind == kindWeight:
				fanIn := len(p.Data) / p.Shape[0]
				if len(p.Shape) == 2 {
					fanIn = p.Shape[0]
				}
				p.Data[i] = float32(rng.NormFloat64() * math.Sqrt(2/float64(fanIn)))
			default:
				p.Data[i] = float32(rng.NormFloat64() * 0.2)
			}
		}
	}
}
