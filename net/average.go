package net

import (
	"errors"
	"fmt"
)

// Average returns the element-wise mean of nets of one game and one architecture: every
// parameter, batchnorm statistics included, averaged over the nets, summed in float64 so that
// the order of the nets does not matter. The mean of checkpoints taken along one run at a low
// learning rate (stochastic weight averaging, Izmailov et al. 2018; KataGo ships such means)
// sits nearer the middle of the region the run wanders in than any one of them. The batchnorm
// statistics are averaged as the weights are, not measured again for the mean's weights: close
// checkpoints (a run's last, at a small learning rate) have close statistics.
func Average(nets ...*Weights) (*Weights, error) {
	if len(nets) == 0 {
		return nil, errors.New("average: no nets")
	}
	first := nets[0]
	for i, w := range nets[1:] {
		switch {
		case w.Spec.Game != first.Spec.Game:
			return nil, fmt.Errorf("average: net %d is for %q, net 1 for %q", i+2, w.Spec.Game, first.Spec.Game)
		case w.Config != first.Config:
			return nil, fmt.Errorf("average: net %d is %+v, net 1 %+v", i+2, w.Config, first.Config)
		}
		if err := first.Spec.sameShape(w.Spec); err != nil {
			return nil, fmt.Errorf("average: net %d has %w", i+2, err)
		}
		if w.Spec.layoutHash() != first.Spec.layoutHash() {
			return nil, fmt.Errorf("average: net %d maps its actions to other policy outputs than net 1", i+2)
		}
	}
	mean := first.Clone()
	for k, p := range mean.Params {
		sum := make([]float64, len(p.Data))
		for _, w := range nets {
			for i, x := range w.Params[k].Data {
				sum[i] += float64(x)
			}
		}
		for i := range p.Data {
			p.Data[i] = float32(sum[i] / float64(len(nets)))
		}
	}
	return mean, nil
}
