package net

import "fmt"

// Optimizer is the state of Adam or SGD with momentum over a Weights' trained parameters, kept
// in plain slices (gorgonia's solvers hide theirs) so that a checkpoint saves it and a resumed
// run takes exactly the steps the uninterrupted one would have. The steps themselves are the
// trainer's (package nettrain); this package holds the state because the checkpoint does.
type Optimizer struct {
	// Config is the method and its settings.
	Config OptimizerConfig
	// Step is the number of steps taken.
	Step int64
	// First holds Adam's first moments or SGD's velocities, Second Adam's second moments (empty
	// for SGD), one slice per trained parameter in Weights order.
	First, Second [][]float32
}

// NewOptimizer is a fresh optimizer state for w (the method is set by the trainer).
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

// Fits checks that the state has one moment per trained value of w.
func (o *Optimizer) Fits(w *Weights) error {
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
