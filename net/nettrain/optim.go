package nettrain

import (
	"math"

	"github.com/zerogames/zero/net"
)

// l2 is the L2 term of the loss: L2 × the sum of squares of the penalised weights.
func l2(o *net.Optimizer, w *net.Weights) float64 {
	if o.Config.L2 == 0 {
		return 0
	}
	var sum float64
	for _, p := range w.Params {
		if p.Penalised() {
			for _, v := range p.Data {
				sum += float64(v) * float64(v)
			}
		}
	}
	return o.Config.L2 * sum
}

// apply takes one step of o down grads (one per trained parameter, in Weights order), adding
// the L2 term's gradient 2·L2·w to the penalised weights. The state is plain slices (net's
// Optimizer, which a checkpoint saves) so that a resumed run takes exactly the steps the
// uninterrupted one would have.
func apply(o *net.Optimizer, w *net.Weights, grads [][]float32) {
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
		if p.Penalised() {
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
