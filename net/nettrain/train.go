package nettrain

import (
	"errors"
	"fmt"
	"math"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/net/internal/dnnl"
)

// Trainer trains Weights with the gorgonia graph: one graph and machine per batch size, built
// on first use and reused (inputs are written into the graph's own buffers, the machine is
// reset), and an optimizer whose state is plain slices so that a checkpoint can save it for an
// exact resume. Each batch size holds its own graph (about 3 MB of values per YINSH position of
// the batch for the default net), so train with one or few sizes. Between steps the Weights
// may be read (net.NewModel, net.Save) but not written. A Trainer is for one goroutine.
type Trainer struct {
	w      *net.Weights
	opt    *net.Optimizer
	graphs map[int]*graph
	grads  [][]float32 // scratch: the gradient of each trained parameter, in Weights order
	gradOf map[*net.Param][]float32
	cur    *graph // the graph whose inputs prepare wrote last
	// ownOps: the graphs use this package's convolution and batchnorm ops (false only in tests,
	// to compare with gorgonia's); dnnl: our convolutions run on oneDNN (true when built with
	// the tag dnnl; false in tests, to compare with the Go ops)
	ownOps, dnnl bool
}

// Loss is the loss of one training step, before the step, averaged over the batch.
type Loss struct {
	Policy float64 // cross-entropy of the policy against the target distribution
	Value  float64 // squared error of the value
	L2     float64 // L2 × the sum of squares of the penalised weights
	Total  float64 // Policy + ValueWeight·Value + L2
}

// NewTrainer trains w (in place) with the optimizer cfg, from its state opt if not nil (a
// resumed run), else from a fresh state.
func NewTrainer(w *net.Weights, cfg net.OptimizerConfig, opt *net.Optimizer) (*Trainer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if opt == nil {
		opt = net.NewOptimizer(w)
	} else if err := opt.Fits(w); err != nil {
		return nil, err
	}
	opt.Config = cfg
	t := &Trainer{w: w, opt: opt, graphs: map[int]*graph{}, ownOps: true, dnnl: dnnl.Version() != ""}
	t.gradOf = map[*net.Param][]float32{}
	for _, p := range w.Params {
		if p.Trained() {
			g := make([]float32, len(p.Data))
			t.grads = append(t.grads, g)
			t.gradOf[p] = g
		}
	}
	return t, nil
}

// Weights are the weights being trained.
func (t *Trainer) Weights() *net.Weights { return t.w }

// Optimizer is the optimizer's state (its step counts the steps taken).
func (t *Trainer) Optimizer() *net.Optimizer { return t.opt }

// Step takes one optimizer step on batch b, whose Policy holds the target distribution over each
// position's legal actions (summing to 1) and Value the result for the player to decide. Only
// the legal actions enter the softmax. It returns the batch's loss before the step.
func (t *Trainer) Step(b *net.Batch) (Loss, error) {
	return t.step(t.lossAndGrad(b))
}

// StepDense takes one optimizer step on n = len(value) positions given densely: obs their
// observations, policy their target distributions over the whole action space (n·NumActions,
// as replay.Materialize writes them), value their results for the player to decide. legal, if
// not nil, is n·NumActions flags (non-zero: legal) and only the legal actions enter the softmax;
// if nil, every action does (AlphaZero's loss). It returns the batch's loss before the step.
func (t *Trainer) StepDense(obs, policy, legal, value []float32) (Loss, error) {
	s := t.w.Spec
	n, actions := len(value), s.NumActions
	if len(obs) < n*s.Observation.Size() || len(policy) < n*actions || (legal != nil && len(legal) < n*actions) {
		return Loss{}, fmt.Errorf("net: StepDense: %d positions need %d observation values (have %d), %d policy values (have %d) and as many legal flags (have %d)",
			n, n*s.Observation.Size(), len(obs), n*actions, len(policy), len(legal))
	}
	if err := t.prepare(n, obs, value, func(gr *graph) error {
		out := s.Outputs()
		for i := range n {
			for a := range actions {
				if legal != nil && legal[i*actions+a] == 0 {
					continue
				}
				gr.setTarget(i, out, s.OutputOf(env.Action(a)), policy[i*actions+a])
			}
			gr.endPosition(i)
		}
		return nil
	}); err != nil {
		return Loss{}, err
	}
	return t.step(t.lossAndGradPrepared())
}

// step takes the optimizer step down the gradient just computed, unless computing it failed.
func (t *Trainer) step(loss Loss, err error) (Loss, error) {
	if err != nil {
		return loss, err
	}
	apply(t.opt, t.w, t.grads)
	return loss, nil
}

// lossAndGrad runs the training graph on b: the loss, and its gradient into t.grads; the
// batchnorm running statistics take the batch's in. No optimizer step.
func (t *Trainer) lossAndGrad(b *net.Batch) (Loss, error) {
	if err := t.prepare(b.N, b.Obs, b.Value, func(gr *graph) error {
		if err := b.Check(t.w.Spec); err != nil {
			return err
		}
		out, s := t.w.Spec.Outputs(), t.w.Spec
		start := int32(0)
		for i := range b.N {
			end := b.LegalEnd[i]
			for j := start; j < end; j++ {
				gr.setTarget(i, out, s.OutputOf(b.Legal[j]), b.Policy[j])
			}
			gr.endPosition(i)
			start = end
		}
		return nil
	}); err != nil {
		return Loss{}, err
	}
	return t.lossAndGradPrepared()
}

// prepare gets the graph of n positions and writes its inputs: observations as they come
// (position-major is gorgonia's layout), results, and through scatter the target distribution
// and the mask (0 where an output enters the softmax; every output starts masked out, so the
// outputs of no action, such as the cells off a board, never do).
func (t *Trainer) prepare(n int, obs, value []float32, scatter func(*graph) error) error {
	s := t.w.Spec
	if n < 1 {
		return errors.New("net: training on an empty batch")
	}
	if len(obs) < n*s.Observation.Size() || len(value) < n {
		return fmt.Errorf("net: training on %d positions with %d observation values and %d results", n, len(obs), len(value))
	}
	gr := t.graphs[n]
	if gr == nil {
		var err error
		if gr, err = newGraph(t.w, n, &t.opt.Config, t.ownOps, t.dnnl); err != nil {
			return err
		}
		t.graphs[n] = gr
	}
	t.cur = gr
	copy(gr.xBuf, obs[:len(gr.xBuf)])
	if gr.legal != nil {
		gr.legal.idx, gr.legal.target = gr.legal.idx[:0], gr.legal.target[:0]
	}
	for i := range gr.maskBuf {
		gr.maskBuf[i] = maskedOut
	}
	clear(gr.targetBuf)
	copy(gr.zBuf, value[:n])
	return scatter(gr)
}

// lossAndGradPrepared runs the graph prepared last.
func (t *Trainer) lossAndGradPrepared() (Loss, error) {
	gr := t.cur
	gr.statsIn()
	// The machine adds each run's gradient into the weights' dual values: start from zero.
	for i, n := range gr.nodes {
		if g, err := n.Grad(); err == nil && g != nil {
			clear(g.Data().([]float32))
		} else if err != nil {
			return Loss{}, fmt.Errorf("net: gradient of %s: %w", gr.params[i].Name, err)
		}
	}
	gr.machine.Reset()
	if err := gr.machine.RunAll(); err != nil {
		return Loss{}, fmt.Errorf("net: training step: %w", err)
	}
	gr.statsOut()
	for i, n := range gr.nodes {
		g, err := n.Grad()
		if err != nil {
			return Loss{}, fmt.Errorf("net: gradient of %s: %w", gr.params[i].Name, err)
		}
		copy(t.gradOf[gr.params[i]], g.Data().([]float32))
	}
	loss := Loss{
		Policy: float64(gr.ceVal.Data().(float32)),
		Value:  float64(gr.mseVal.Data().(float32)),
		L2:     l2(t.opt, t.w),
	}
	loss.Total = loss.Policy + t.opt.Config.ValueWeight*loss.Value + loss.L2
	if math.IsNaN(loss.Total) || math.IsInf(loss.Total, 0) {
		return loss, fmt.Errorf("net: training step %d: loss is %v", t.opt.Step, loss.Total)
	}
	return loss, nil
}

// Close releases the graphs' machines and oneDNN primitives.
func (t *Trainer) Close() error {
	var errs []error
	for _, gr := range t.graphs {
		if c, ok := gr.machine.(interface{ Close() error }); ok {
			errs = append(errs, c.Close())
		}
		if gr.scratch != nil {
			gr.scratch.close()
		}
	}
	t.graphs = map[int]*graph{}
	return errors.Join(errs...)
}
