package net

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/net/linalg"
)

// Model is a network folded for inference: each batchnorm merged into the convolution before it
// (scaled weights and a bias). It is a snapshot: it copies what it needs of the Weights, so
// training may go on while Engines run it; read-only, shared by any number of Engines.
type Model struct {
	spec   *Spec
	cfg    Config
	stem   conv
	blocks [][2]conv
	pconv  conv
	pout   conv  // spatial heads: 1×1 to the policy planes, with bias
	poff   dense // spatial heads with off-grid actions
	pfc    dense // dense heads
	vconv  conv
	vfc1   dense
	vfc2   dense
	flops  float64 // multiply-adds ×2 per position
	// plane[a] and cell[a] say where action a's logit is: policy plane and cell (plane ≥ 0),
	// off-grid output cell (plane −1), or dense output cell (plane −2).
	plane, cell []int32
	blas        blas.Float32
	maxCols     int // columns of one im2col tile: 256 to 2048 measured alike on YINSH, 4096 slower
	// params holds every folded tensor above, one after the other (the layers' slices are
	// views of it); offsets[2k], offsets[2k+1] are layer k's weights and bias in it, in the
	// order of layers(): how the oneDNN backend loads them in one call.
	params  []float32
	offsets []int64
}

// conv is a convolution with its batchnorm folded in: out = w·im2col(in) + b.
type conv struct {
	out, in, k int
	w          []float32 // [out][in·k·k]
	b          []float32 // [out]
}

// dense is a dense layer: out = in·w + b.
type dense struct {
	in, out int
	w       []float32 // [in][out]
	b       []float32 // [out]
}

// BatchNormEpsilon is batchnorm's variance smoothing, the same in training (package nettrain)
// and inference.
const BatchNormEpsilon = 1e-5

// NewModel folds the weights for inference on this build's BLAS.
func NewModel(w *Weights) *Model {
	m := &Model{spec: w.Spec, cfg: w.Config, blas: linalg.Float32, maxCols: 1024}
	c, s := w.Config, w.Spec
	m.stem = m.fold(w, "stem", "stem.bn")
	for i := range c.Blocks {
		m.blocks = append(m.blocks, [2]conv{
			m.fold(w, BlockName(i, "conv1"), BlockName(i, "bn1")),
			m.fold(w, BlockName(i, "conv2"), BlockName(i, "bn2")),
		})
	}
	m.pconv = m.fold(w, "policy.conv", "policy.bn")
	if s.Spatial() {
		p := w.byName["policy.out.w"]
		m.pout = conv{out: p.Shape[0], in: p.Shape[1], k: 1, w: clone(p.Data), b: clone(w.get("policy.out.b"))}
		m.flops += 2 * float64(len(p.Data)*s.Cells())
		if s.OffGrid > 0 {
			m.poff = m.dense(w, "policy.offgrid")
		}
	} else {
		m.pfc = m.dense(w, "policy.fc")
	}
	m.plane, m.cell = make([]int32, s.NumActions), make([]int32, s.NumActions)
	cells, grid := s.Cells(), s.PolicyPlanes*s.Cells()
	for a := range s.NumActions {
		o := s.OutputOf(env.Action(a))
		switch {
		case !s.Spatial():
			m.plane[a], m.cell[a] = -2, int32(o)
		case o >= grid:
			m.plane[a], m.cell[a] = -1, int32(o-grid)
		default:
			m.plane[a], m.cell[a] = int32(o/cells), int32(o%cells)
		}
	}
	m.vconv = m.fold(w, "value.conv", "value.bn")
	m.vfc1 = m.dense(w, "value.fc1")
	m.vfc2 = m.dense(w, "value.fc2")
	m.pack()
	return m
}

// layers lists the model's weights and biases, layer by layer: stem, each block's two
// convolutions, the policy convolution, then the spatial head's output and off-grid layers or
// the dense head's, the value convolution and its two dense layers (zdnnl.h's zd_load order).
func (m *Model) layers() [][2]*[]float32 {
	var ls [][2]*[]float32
	conv := func(c *conv) { ls = append(ls, [2]*[]float32{&c.w, &c.b}) }
	dense := func(d *dense) { ls = append(ls, [2]*[]float32{&d.w, &d.b}) }
	conv(&m.stem)
	for i := range m.blocks {
		conv(&m.blocks[i][0])
		conv(&m.blocks[i][1])
	}
	conv(&m.pconv)
	if m.spec.Spatial() {
		conv(&m.pout)
		if m.spec.OffGrid > 0 {
			dense(&m.poff)
		}
	} else {
		dense(&m.pfc)
	}
	conv(&m.vconv)
	dense(&m.vfc1)
	dense(&m.vfc2)
	return ls
}

// pack moves every tensor of the model into one slice, params.
func (m *Model) pack() {
	ls := m.layers()
	n := 0
	for _, l := range ls {
		n += len(*l[0]) + len(*l[1])
	}
	m.params = make([]float32, 0, n)
	for _, l := range ls {
		for _, t := range l {
			at := len(m.params)
			m.params = append(m.params, *t...)
			*t = m.params[at:len(m.params):len(m.params)]
			m.offsets = append(m.offsets, int64(at))
		}
	}
}

// fold merges batchnorm bn into convolution name: γ(conv(x)−μ)/√(σ²+ε)+β.
func (m *Model) fold(w *Weights, name, bn string) conv {
	p := w.byName[name+".w"]
	cv := conv{out: p.Shape[0], in: p.Shape[1], k: p.Shape[2]}
	cv.w = make([]float32, len(p.Data))
	cv.b = make([]float32, cv.out)
	gamma, beta, mean, vari := w.get(bn+".gamma"), w.get(bn+".beta"), w.get(bn+".mean"), w.get(bn+".var")
	row := cv.in * cv.k * cv.k
	for o := range cv.out {
		scale := gamma[o] / float32(math.Sqrt(float64(vari[o])+BatchNormEpsilon))
		for j := range row {
			cv.w[o*row+j] = p.Data[o*row+j] * scale
		}
		cv.b[o] = beta[o] - mean[o]*scale
	}
	m.flops += 2 * float64(len(p.Data)*m.spec.Cells())
	return cv
}

func (m *Model) dense(w *Weights, name string) dense {
	p := w.byName[name+".w"]
	m.flops += 2 * float64(len(p.Data))
	return dense{in: p.Shape[0], out: p.Shape[1], w: clone(p.Data), b: clone(w.get(name + ".b"))}
}

func clone(x []float32) []float32 {
	return append([]float32(nil), x...)
}

// Spec is the game the model plays.
func (m *Model) Spec() *Spec { return m.spec }

// FLOPs is the number of floating-point operations of one position's forward pass (the
// multiply-adds of convolutions and dense layers, ×2).
func (m *Model) FLOPs() float64 { return m.flops }

// Batch is n positions for the network: their observations and legal actions, and their
// policy and value, which Engine.EvaluateLegal writes (and nettrain.Trainer.Step reads as
// targets).
type Batch struct {
	// N is the number of positions.
	N int
	// Obs holds the observations, N × Spec.Observation.Size() values, position after position.
	Obs []float32
	// Legal holds the legal actions of position 0, then of position 1, and so on.
	Legal []env.Action
	// LegalEnd[i] is the end of position i's actions in Legal (they start at LegalEnd[i-1], or 0).
	LegalEnd []int32
	// Policy is aligned with Legal: each action's probability (the softmax of the legal actions'
	// logits; the illegal ones are masked out).
	Policy []float32
	// Value[i] is the expected result of position i for the player to decide, in [-1, 1].
	Value []float32
}

// Check reports a batch whose slices do not fit its N and spec.
func (b *Batch) Check(s *Spec) error {
	switch {
	case b.N < 0:
		return fmt.Errorf("net: batch of %d positions", b.N)
	case len(b.Obs) < b.N*s.Observation.Size():
		return fmt.Errorf("net: %d observation values for %d positions of %d", len(b.Obs), b.N, s.Observation.Size())
	case len(b.LegalEnd) < b.N:
		return fmt.Errorf("net: %d legal-action ends for %d positions", len(b.LegalEnd), b.N)
	case len(b.Value) < b.N:
		return fmt.Errorf("net: %d values for %d positions", len(b.Value), b.N)
	}
	start := int32(0)
	for i := range b.N {
		end := b.LegalEnd[i]
		if end < start || int(end) > len(b.Legal) || int(end) > len(b.Policy) {
			return fmt.Errorf("net: position %d: legal actions [%d, %d) out of the %d given (policy %d)", i, start, end, len(b.Legal), len(b.Policy))
		}
		for _, a := range b.Legal[start:end] {
			if a < 0 || int(a) >= s.NumActions {
				return fmt.Errorf("net: position %d: action %d outside [0, %d)", i, a, s.NumActions)
			}
		}
		start = end
	}
	return nil
}

// Engine runs a Model's forward pass on batches of any size, with buffers allocated once:
// Evaluate and EvaluateLegal allocate nothing. An Engine is for one goroutine; run one per
// worker (they share the Model), each single-threaded (BLAS, oneDNN's OpenMP).
//
// It runs on one Backend, chosen when it is made (backend.go: each backend is one value of the
// interface backend there, made by its factory). On Go, the engine written here (backend_go.go),
// a batch runs through the net in chunks of positions sized so that a chunk's im2col holds about
// maxCols columns (8 YINSH positions, 28 of 6×6): each chunk's activations stay in cache from
// layer to layer. Activations are laid out channel-major over the chunk,
// [channel][position][cell], so that a 3×3 convolution is one GEMM, weights [out][in·9] times
// the chunk's im2col [in·9][positions·cells]: on small boards the batch is what makes the GEMM
// large. On oneDNN (build tag dnnl; backend_onednn.go, net/internal/dnnl's zdnnl.c) the whole
// net is oneDNN's primitives, built once per chunk size; such an engine holds C memory until
// Close (or until the collector finds it unreachable). Every backend runs with flush-to-zero and
// denormals-are-zero on its thread, for the call only (fpu.go).
type Engine struct {
	m       *Model
	backend Backend
	impl    backend
	actions Batch // EvaluateActions' batch, kept so that it allocates nothing
}

// NewEngine makes an engine that runs m on DefaultBackend; where that backend cannot be built
// for m, on Go instead, with one warning line on stderr.
func NewEngine(m *Model) *Engine {
	b := DefaultBackend()
	e, err := NewEngineOn(m, b)
	if err != nil {
		warn(fmt.Sprintf("net: %v: using %s", err, Go))
		e, _ = NewEngineOn(m, Go)
	}
	return e
}

// NewEngineOn makes an engine that runs m on backend b, or says why it cannot.
func NewEngineOn(m *Model, b Backend) (*Engine, error) {
	if err := b.Available(); err != nil {
		return nil, err
	}
	impl, err := factoryOf(b).build(m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b, err)
	}
	return &Engine{m: m, backend: b, impl: impl}, nil
}

// Backend is the backend the engine runs on.
func (e *Engine) Backend() Backend { return e.backend }

// Describe says what the engine runs on: the backend, its library and kernels.
func (e *Engine) Describe() string { return e.impl.describe() }

// Close releases what the engine holds outside Go's memory (oneDNN's); the engine is not to be
// used after. Engines of the Go backend hold nothing: Close does nothing.
func (e *Engine) Close() { e.impl.close() }

// Model is the model the engine runs.
func (e *Engine) Model() *Model { return e.m }

// Swap makes the engine run m from its next call on, keeping its buffers: the hot swap of new
// weights during training. m must be of the same game and architecture.
func (e *Engine) Swap(m *Model) error {
	if m.spec.Game != e.m.spec.Game || m.cfg != e.m.cfg {
		return fmt.Errorf("net: swapping a %s %+v engine to a %s %+v model", e.m.spec.Game, e.m.cfg, m.spec.Game, m.cfg)
	}
	if err := e.m.spec.sameShape(m.spec); err != nil {
		return fmt.Errorf("net: swapping models of other shapes: %w", err)
	}
	if err := e.impl.swap(m); err != nil {
		return fmt.Errorf("net: swapping: %w", err)
	}
	e.m = m
	return nil
}

// Evaluate is the search's evaluator (mcts.Evaluator): it reads n = len(value) observations laid
// one after another in obs and writes each position's logits of every action of the game,
// n·NumActions of them, into logits, and its value into value (in [-1, 1], for the player to
// decide). A softmax over the legal actions' logits gives the policy; the illegal ones' logits
// are not meaningful. It allocates nothing.
func (e *Engine) Evaluate(obs, logits, value []float32) error {
	s := e.m.spec
	n := len(value)
	if len(obs) < n*s.Observation.Size() || len(logits) < n*s.NumActions {
		return fmt.Errorf("net: Evaluate: %d positions need %d observation values (have %d) and %d logits (have %d)",
			n, n*s.Observation.Size(), len(obs), n*s.NumActions, len(logits))
	}
	return e.impl.evaluate(n, obs, logits, value)
}

// EvaluateLegal computes the policy over each position's legal actions (the softmax of their
// logits; the illegal ones are masked out) and the value of each position of b, writing
// b.Policy and b.Value. It allocates nothing.
func (e *Engine) EvaluateLegal(b *Batch) error {
	if err := e.EvaluateLegalLogits(b); err != nil {
		return err
	}
	start := int32(0)
	for i := range b.N {
		end := b.LegalEnd[i]
		softmax(b.Policy[start:end])
		start = end
	}
	return nil
}

// EvaluateActions is EvaluateLegalLogits on slices (mcts.ActionEvaluator): n = len(value)
// positions, position i's actions legal[ends[i-1]:ends[i]], their logits written to the same
// places of logits.
func (e *Engine) EvaluateActions(obs []float32, legal []env.Action, ends []int32, logits, value []float32) error {
	e.actions = Batch{N: len(value), Obs: obs, Legal: legal, LegalEnd: ends, Policy: logits, Value: value}
	err := e.EvaluateLegalLogits(&e.actions)
	e.actions = Batch{} // holds none of the caller's buffers
	return err
}

// EvaluateLegalLogits is EvaluateLegal without the softmax: it writes each legal action's
// logit into b.Policy. Where the backend can, it works out those logits only (oneDNN, a
// spatial head: Gygès' has 48,096 outputs for some 600 legal moves); the search's oracles
// read no others. It allocates nothing.
func (e *Engine) EvaluateLegalLogits(b *Batch) error {
	if err := b.Check(e.m.spec); err != nil {
		return err
	}
	return e.impl.evaluateLegal(b)
}

// chunker is a backend that runs a batch chunk by chunk, its logits kept between the chunk's run
// and their reading: evaluateLegal runs a Batch on one.
type chunker interface {
	// chunk is the most positions runChunk takes.
	chunk() int
	// runChunk runs n ≤ chunk() positions, obs, writing their values into value.
	runChunk(n int, obs, value []float32) error
	// legalLogits writes position i's logits of the actions legal into p, after runChunk over n
	// positions.
	legalLogits(n, i int, legal []env.Action, p []float32)
}

// evaluateLegal is Engine.EvaluateLegalLogits on c, b checked: chunk by chunk, the legal
// actions' logits of each position.
func evaluateLegal(c chunker, s *Spec, b *Batch) error {
	size := s.Observation.Size()
	start := int32(0)
	for c0 := 0; c0 < b.N; c0 += c.chunk() {
		n := min(c.chunk(), b.N-c0)
		if err := c.runChunk(n, b.Obs[c0*size:], b.Value[c0:c0+n]); err != nil {
			return err
		}
		for i := range n {
			end := b.LegalEnd[c0+i]
			p := b.Policy[start:end]
			c.legalLogits(n, i, b.Legal[start:end], p)
			start = end
		}
	}
	return nil
}

// softmax turns logits into probabilities in place.
func softmax(p []float32) {
	if len(p) == 0 {
		return
	}
	hi := p[0]
	for _, v := range p[1:] {
		hi = max(hi, v)
	}
	var sum float64
	for j, v := range p {
		x := math.Exp(float64(v - hi))
		p[j] = float32(x)
		sum += x
	}
	inv := float32(1 / sum)
	for j := range p {
		p[j] *= inv
	}
}
