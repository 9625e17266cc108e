package nettrain

import (
	"fmt"
	"sync"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/net/internal/dnnl"
	"github.com/zerogames/zero/net/linalg"
)

// useBLAS makes gorgonia (and its tensor package) run on this build's BLAS, once, before the
// first graph is built. gorgonia keeps its BLAS in a package variable: this is the one place
// that sets it, here rather than in linalg.Setup so that only training links gorgonia.
var useBLAS = sync.OnceFunc(func() { G.Use(linalg.Implementation) })

// graph is the network as a gorgonia expression graph for one batch size: the training graph
// (with the loss and its gradient) or the forward pass alone. Weight nodes are backed by the
// Weights' own slices, so an optimizer step on the Weights is seen by the graph and the other
// way round. Batchnorm running statistics: our op updates the Weights' directly; gorgonia's
// keeps them in its ops, and statsIn/statsOut copy them.
type graph struct {
	g      *G.ExprGraph
	w      *net.Weights
	batch  int
	x      *G.Node // input (batch, planes, height, width)
	logits *G.Node // (batch, Spec.Outputs()); nil with our ops: see parts
	// parts are the logits in parts whose concatenation along axis 1 they are (our ops: the
	// loss takes them so, and nothing else needs the concatenation)
	parts  []*G.Node
	value  *G.Node // (batch), after tanh
	nodes  []*G.Node
	params []*net.Param // aligned with nodes: the trained parameters
	bns    []bnLink
	err    error
	// scratch is the buffers of our convolution ops; nil: gorgonia's Conv2d and BatchNorm
	scratch *convScratch

	// training graphs only
	mask, target, z *G.Node // (batch, outputs) additive mask, (batch, outputs), (batch); gorgonia's ops
	// legal is the targets of our ops' loss: each position's legal outputs and their target
	// (the dense mask and target, tens of megabytes a batch where the policy is wide, are
	// gorgonia's only)
	legal           *sparseTargets
	ce, mse, cost   *G.Node
	xBuf, maskBuf   []float32
	targetBuf, zBuf []float32
	ceVal, mseVal   G.Value
	machine         G.VM
}

// bnLink ties a gorgonia batchnorm op to the parameters holding its statistics.
type bnLink struct {
	op         *G.BatchNormOp
	mean, vari *net.Param
}

// maskedOut is the logit offset of an illegal action in training: exp of it is 0 in float32,
// and 0 × it is 0 (not NaN, as 0 × -Inf would be).
const maskedOut = -1e9

// newGraph builds the network over w for batches of batch positions; with an optimizer
// configuration (training), also the loss and its gradient with respect to every trained
// parameter, and a machine to run them.
//
// With ownOps the convolutions and batchnorms are this package's ops (convop.go, bnop.go),
// else gorgonia's Conv2d and BatchNorm: the trainer uses ours (faster, a third of the memory),
// the parity tests gorgonia's (an independent reference). With onDNNL too, our convolutions run
// on oneDNN (built with the tag dnnl).
func newGraph(w *net.Weights, batch int, opt *net.OptimizerConfig, ownOps, onDNNL bool) (*graph, error) {
	useBLAS()
	train := opt != nil
	bnMomentum := 0.1 // unused in evaluation mode
	if train {
		bnMomentum = opt.BatchNormMomentum
	}
	s, c := w.Spec, w.Config
	obs := s.Observation
	cells := s.Cells()
	gr := &graph{g: G.NewGraph(), w: w, batch: batch}
	if ownOps {
		gr.scratch = &convScratch{dnnl: onDNNL}
	}
	if train {
		gr.xBuf = make([]float32, batch*obs.Size())
		gr.x = G.NewTensor(gr.g, tensor.Float32, 4, G.WithShape(batch, obs.Planes, obs.Height, obs.Width), G.WithName("x"),
			G.WithValue(tensor.New(tensor.WithShape(batch, obs.Planes, obs.Height, obs.Width), tensor.WithBacking(gr.xBuf))))
	} else {
		gr.x = G.NewTensor(gr.g, tensor.Float32, 4, G.WithShape(batch, obs.Planes, obs.Height, obs.Width), G.WithName("x"))
	}

	// The tower's activations: on oneDNN in its blocked layout where the planes fill blocks of 16
	// (its AVX-512 kernels' format: no reorder between layers), else plain. The heads' features
	// are plain: gorgonia's reshapes and means read them.
	tower, plain := dnnl.Plain, dnnl.Plain
	if ownOps && onDNNL && c.Channels%16 == 0 {
		tower = dnnl.Blocked
	}
	h := gr.convBN(gr.x, "stem", "stem.bn", 3, plain, tower, bnMomentum)
	h = gr.relu(h)
	for i := range c.Blocks {
		t := gr.convBN(h, net.BlockName(i, "conv1"), net.BlockName(i, "bn1"), 3, tower, tower, bnMomentum)
		t = gr.relu(t)
		t = gr.convBN(t, net.BlockName(i, "conv2"), net.BlockName(i, "bn2"), 3, tower, tower, bnMomentum)
		h = gr.addRelu(t, h)
	}

	// Policy head.
	p := gr.relu(gr.convBN(h, "policy.conv", "policy.bn", 1, tower, plain, bnMomentum))
	if s.Spatial() {
		planes := gr.conv(p, "policy.out", 1, plain, plain)
		if gr.scratch != nil {
			planes = gr.apply(addBias(planes, gr.param("policy.out.b")))
		} else {
			planes = gr.apply(G.Auto(G.BroadcastAdd, planes, gr.param("policy.out.b", 1, s.PolicyPlanes, 1, 1)))
		}
		gr.parts = []*G.Node{gr.apply(G.Reshape(planes, tensor.Shape{batch, s.PolicyPlanes * cells}))}
		if s.OffGrid > 0 {
			mean := gr.apply(G.Mean(gr.apply(G.Reshape(p, tensor.Shape{batch, c.PolicyChannels, cells})), 2))
			gr.parts = append(gr.parts, gr.dense(mean, "policy.offgrid"))
		}
	} else {
		flat := gr.apply(G.Reshape(p, tensor.Shape{batch, c.PolicyChannels * cells}))
		gr.parts = []*G.Node{gr.dense(flat, "policy.fc")}
	}
	if gr.scratch == nil {
		gr.logits = gr.parts[0]
		if len(gr.parts) > 1 {
			gr.logits = gr.apply(G.Concat(1, gr.parts...))
		}
	}

	// Value head.
	v := gr.relu(gr.convBN(h, "value.conv", "value.bn", 1, tower, plain, bnMomentum))
	if c.GlobalPool {
		planes := gr.apply(G.Reshape(v, tensor.Shape{batch, c.ValueChannels, cells}))
		mean := gr.apply(G.Mean(planes, 2))
		hi := gr.apply(G.Max(planes, 2))
		v = gr.apply(G.Concat(1, mean, hi))
	} else {
		v = gr.apply(G.Reshape(v, tensor.Shape{batch, c.ValueChannels * cells}))
	}
	v = gr.relu(gr.dense(v, "value.fc1"))
	v = gr.dense(v, "value.fc2")
	gr.value = gr.apply(G.Tanh(gr.apply(G.Reshape(v, tensor.Shape{batch}))))
	if gr.err != nil {
		return nil, fmt.Errorf("net: building the graph: %w", gr.err)
	}
	if train {
		if err := gr.addLoss(opt.ValueWeight); err != nil {
			return nil, fmt.Errorf("net: building the loss: %w", err)
		}
	}
	return gr, nil
}

// apply records the first error of a chain of graph constructions.
func (gr *graph) apply(n *G.Node, err error) *G.Node {
	if err != nil && gr.err == nil {
		gr.err = err
	}
	return n
}

// relu is max(x, 0): our op (ownOps) or gorgonia's Rectify.
func (gr *graph) relu(x *G.Node) *G.Node {
	if gr.err != nil {
		return x
	}
	if gr.scratch != nil {
		return gr.apply(relu(x))
	}
	return gr.apply(G.Rectify(x))
}

// addRelu is max(a + b, 0), the residual sum and its ReLU.
func (gr *graph) addRelu(a, b *G.Node) *G.Node {
	if gr.err != nil {
		return a
	}
	if gr.scratch != nil {
		return gr.apply(addRelu(a, b))
	}
	return gr.apply(G.Rectify(gr.apply(G.Add(a, b))))
}

// param makes the node of parameter name, viewed with shape (same number of values), backed by
// the parameter's slice. Trained parameters are recorded for the gradient.
func (gr *graph) param(name string, shape ...int) *G.Node {
	p := gr.w.Param(name)
	if p == nil {
		panic("net: no parameter " + name)
	}
	if len(shape) == 0 {
		shape = p.Shape
	}
	t := tensor.New(tensor.WithShape(shape...), tensor.WithBacking(p.Data))
	n := G.NewTensor(gr.g, tensor.Float32, len(shape), G.WithShape(shape...), G.WithName(name), G.WithValue(t))
	if p.Trained() {
		gr.nodes = append(gr.nodes, n)
		gr.params = append(gr.params, p)
	}
	return n
}

// conv is a k×k convolution (pad k/2, no bias).
// x and the output are laid out as xl and yl say (only our ops on oneDNN take another layout
// than plain).
func (gr *graph) conv(x *G.Node, name string, k int, xl, yl dnnl.Layout) *G.Node {
	if gr.err != nil {
		return x
	}
	if gr.scratch != nil {
		return gr.apply(conv2d(gr.scratch, x, gr.param(name+".w"), x == gr.x, xl, yl))
	}
	pad := k / 2
	return gr.apply(G.Conv2d(x, gr.param(name+".w"), tensor.Shape{k, k}, []int{pad, pad}, []int{1, 1}, []int{1, 1}))
}

// convBN is a k×k convolution followed by batchnorm.
func (gr *graph) convBN(x *G.Node, name, bn string, k int, xl, yl dnnl.Layout, momentum float64) *G.Node {
	y := gr.conv(x, name, k, xl, yl)
	if gr.err != nil {
		return y
	}
	ch := gr.w.Param(bn + ".gamma").Shape[0]
	if gr.scratch != nil {
		d, err := gr.scratch.bnFor(y.Shape(), yl)
		if err != nil {
			gr.apply(nil, err)
			return y
		}
		return gr.apply(batchNorm(y, gr.param(bn+".gamma"), gr.param(bn+".beta"), momentum, gr.w.Param(bn+".mean").Data, gr.w.Param(bn+".var").Data, d))
	}
	gamma := gr.param(bn+".gamma", 1, ch, 1, 1)
	beta := gr.param(bn+".beta", 1, ch, 1, 1)
	out, _, _, op, err := G.BatchNorm(y, gamma, beta, momentum, net.BatchNormEpsilon)
	if err != nil {
		gr.apply(nil, err)
		return y
	}
	gr.bns = append(gr.bns, bnLink{op: op, mean: gr.w.Param(bn + ".mean"), vari: gr.w.Param(bn + ".var")})
	return out
}

// dense is x·w + b.
func (gr *graph) dense(x *G.Node, name string) *G.Node {
	if gr.err != nil {
		return x
	}
	p := gr.w.Param(name + ".w")
	y := gr.apply(G.Mul(x, gr.param(name+".w")))
	return gr.apply(G.Auto(G.BroadcastAdd, y, gr.param(name+".b", 1, p.Shape[1])))
}

// statsIn copies the Weights' batchnorm statistics into gorgonia's ops (a machine in training
// mode resets them when it is made, and the Weights may have been loaded since).
func (gr *graph) statsIn() {
	for _, b := range gr.bns {
		m, v := b.op.Stats()
		copy(m.Data().([]float32), b.mean.Data)
		copy(v.Data().([]float32), b.vari.Data)
	}
}

// statsOut copies the ops' running statistics, updated by a training run, into the Weights.
func (gr *graph) statsOut() {
	for _, b := range gr.bns {
		m, v := b.op.Stats()
		copy(b.mean.Data, m.Data().([]float32))
		copy(b.vari.Data, v.Data().([]float32))
	}
}

// addLoss adds the inputs of the targets and the loss: the policy's cross-entropy against the
// target distribution (illegal actions masked out of the softmax) plus the value's squared
// error times the value weight; then its gradient and a machine to run it.
func (gr *graph) addLoss(valueWeight float64) error {
	b, out := gr.batch, gr.w.Spec.Outputs()
	gr.zBuf = make([]float32, b)
	gr.z = G.NewVector(gr.g, tensor.Float32, G.WithShape(b), G.WithName("z"),
		G.WithValue(tensor.New(tensor.WithShape(b), tensor.WithBacking(gr.zBuf))))
	if gr.scratch != nil {
		gr.legal = &sparseTargets{end: make([]int32, b)}
		gr.ce = gr.apply(crossEntropy(gr.legal, out, gr.parts...))
	} else {
		gr.maskBuf = make([]float32, b*out)
		gr.targetBuf = make([]float32, b*out)
		gr.mask = G.NewMatrix(gr.g, tensor.Float32, G.WithShape(b, out), G.WithName("mask"),
			G.WithValue(tensor.New(tensor.WithShape(b, out), tensor.WithBacking(gr.maskBuf))))
		gr.target = G.NewMatrix(gr.g, tensor.Float32, G.WithShape(b, out), G.WithName("target"),
			G.WithValue(tensor.New(tensor.WithShape(b, out), tensor.WithBacking(gr.targetBuf))))
		logp := gr.apply(G.LogSoftMax(gr.apply(G.Add(gr.logits, gr.mask)), 1))
		perPos := gr.apply(G.Sum(gr.apply(G.HadamardProd(gr.target, logp)), 1))
		gr.ce = gr.apply(G.Neg(gr.apply(G.Mean(perPos))))
	}
	gr.mse = gr.apply(G.Mean(gr.apply(G.Square(gr.apply(G.Sub(gr.value, gr.z))))))
	gr.cost = gr.apply(G.Add(gr.ce, gr.mse))
	if vw := valueWeight; vw != 1 {
		gr.cost = gr.apply(G.Add(gr.ce, gr.apply(G.Mul(gr.mse, G.NewConstant(float32(vw))))))
	}
	if gr.err != nil {
		return gr.err
	}
	G.Read(gr.ce, &gr.ceVal)
	G.Read(gr.mse, &gr.mseVal)
	if _, err := G.Grad(gr.cost, gr.nodes...); err != nil {
		return err
	}
	gr.machine = G.NewTapeMachine(gr.g, G.BindDualValues(gr.nodes...))
	return nil
}

// forwardEval runs the gorgonia graph in evaluation mode (batchnorm from its running
// statistics) on n observations: the reference the inference engine is held to. It returns the
// policy outputs (n × Spec.Outputs()) and the values.
func forwardEval(w *net.Weights, n int, obs []float32) (logits, value []float32, err error) {
	gr, err := newGraph(w, n, nil, false, false)
	if err != nil {
		return nil, nil, err
	}
	var lv, vv G.Value
	G.Read(gr.logits, &lv)
	G.Read(gr.value, &vv)
	m := G.NewTapeMachine(gr.g, G.EvalMode())
	defer m.Close()
	gr.statsIn() // after the machine is made: it resets the ops' statistics
	o := w.Spec.Observation
	x := tensor.New(tensor.WithShape(n, o.Planes, o.Height, o.Width), tensor.WithBacking(append([]float32(nil), obs[:n*o.Size()]...)))
	if err := G.Let(gr.x, x); err != nil {
		return nil, nil, err
	}
	if err := m.RunAll(); err != nil {
		return nil, nil, err
	}
	logits = append([]float32(nil), lv.Data().([]float32)...)
	value = append([]float32(nil), vv.Data().([]float32)...)
	return logits, value, nil
}
