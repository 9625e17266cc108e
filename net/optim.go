package net

import (
	"fmt"
	"math"
)

// Optimizer is the state of Adam or SGD with momentum over a Weights' trained parameters, kept
// in plain slices (gorgonia's solvers hide theirs) so that a checkpoint saves it and a resumed
// run takes exactly the steps the uninterrupted one would have.
type Optimizer struct {
	// Config is the method and its settings.
	Config OptimizerConfig
	// Step is the number of steps taken.
	Step int64
	// First holds Adam's first moments or SGD's velocities, Second Adam's second moments (empty
	// for SGD), one slice per trained parameter in Weights order.
	First, Second [][]float32
}

// NewOptimizer is a fresh optimizer state for w (the method is set by the Trainer).
func NewOptimizer(w *Weights) *Optimizer {
	o := &Optimizer{}
	for _, p := range w.Params {
		if p.Trained() {
			o.First = append(o.First, make([]float32, len(p.Data)))
			o.Second = append(o.Second, make([]float32, len(p.Data)))
		}
	}
	return o
}

// fits checks that the state has one moment per trained value of w.
func (o *Optimizer) fits(w *Weights) error {
	k := 0
	for _, p := range w.Params {
		if !p.Trained() {
			continue
		}
		if k >= len(o.First) || len(o.First[k]) != len(p.Data) || len(o.Second[k]) != len(p.Data) {
			return fmt.Errorf("net: optimizer state does not fit parameter %s", p.Name)
		}
		k++
	}
	if k != len(o.First) || k != len(o.Second) {
		return fmt.Errorf("net: optimizer state has %d parameters, the net %d", len(o.First), k)
	}
	return nil
}

// l2 is the L2 term of the loss: L2 × the sum of squares of the penalised weights.
func (o *Optimizer) l2(w *Weights) float64 {
	if o.Config.L2 == 0 {
		return 0
	}
	var sum float64
	for _, p := range w.Params {
		if p.kind == kindWeight {
			for _, v := range p.Data {
				sum += float64(v) * float64(v)
			}
		}
	}
	return o.Config.L2 * sum
}

// apply takes one step down grads (one per trained parameter, in Weights order), adding the L2
// term's gradient 2·L2·w to the penalised weights.
func (o *Optimizer) apply(w *Weights, grads [][]float32) {
	c := &o.Config
	lr := float32(c.LearningRateAt(o.Step))
	o.Step++
	decay := float32(2 * c.L2)
	b1, b2 := float32(c.Beta1), float32(c.Beta2)
	// Adam's bias corrections folded into the step size.
	corr1 := 1 - math.Pow(c.Beta1, float64(o.Step))
	corr2 := 1 - math.Pow(c.Beta2, float64(o.Step))
	adamLR := lr * float32(math.Sqrt(corr2)/corr1)
	eps := float32(c.Epsilon * math.Sqrt(corr2))
	mu := float32(c.Momentum)
	k := 0
	for _, p := range w.Params {
		if !p.Trained() {
			continue
		}
		g, m, v, x := grads[k], o.First[k], o.Second[k], p.Data
		k++
		d := float32(0)
		if p.kind == kindWeight {
			d = decay
		}
		switch c.Method {
		case "adam":
			for i := range x {
				gi := g[i] + d*x[i]
				m[i] = b1*m[i] + (1-b1)*gi
				v[i] = b2*v[i] + (1-b2)*gi*gi
				x[i] -= adamLR * m[i] / (float32(math.Sqrt(float64(v[i]))) + eps)
			}
		default: // sgd
			for i := range x {
				gi := g[i] + d*x[i]
				m[i] = mu*m[i] + gi
				x[i] -= lr * m[i]
			}
		}
	}
}
