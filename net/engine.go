package net

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/net/internal/dnnl"
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
// It runs on one Backend, chosen when it is made. On Go, the engine written here, a batch runs
// through the net in chunks of positions sized so that a chunk's im2col holds about maxCols
// columns (8 YINSH positions, 28 of 6×6): each chunk's activations stay in cache from layer to
// layer. Activations are laid out channel-major over the chunk,
// [channel][position][cell], so that a 3×3 convolution is one GEMM, weights [out][in·9] times
// the chunk's im2col [in·9][positions·cells]: on small boards the batch is what makes the GEMM
// large. On oneDNN (build tag dnnl; zdnnl.c) the whole net is oneDNN's primitives, built once
// per chunk size; such an engine holds C memory until Close (or until the collector finds it
// unreachable). Every backend runs with flush-to-zero and denormals-are-zero on its thread,
// for the call only (fpu.go).
type Engine struct {
	m       *Model
	backend Backend
	dnnl    *dnnl.Net // the oneDNN backend's network; nil on the Go engine
	scratch []float32 // oneDNN's logits of one chunk, for EvaluateLegal
	chunk   int       // positions run through the net at once: one im2col tile, or a oneDNN plan
	in      []float32 // [planes][n·cells]
	act     [3][]float32
	col     []float32 // one im2col tile
	pfeat   []float32 // [policy channels][n·cells]
	pplane  []float32 // [policy planes][n·cells] (spatial) or [n][actions] (dense)
	pooled  []float32 // [n][max(policy channels, 2·value channels)]
	poff    []float32 // [n][off-grid]
	vfeat   []float32 // [value channels][n·cells]
	vhid    []float32 // [n][value hidden]
	vout    []float32 // [n]
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
	if b == Go {
		return newGoEngine(m), nil
	}
	o := dnnlTuning(m, b == OneDNNBF16)
	d, err := newDNNL(m, b == OneDNNBF16, o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b, err)
	}
	return &Engine{m: m, backend: b, dnnl: d, chunk: o.chunk, scratch: make([]float32, o.chunk*m.spec.NumActions)}, nil
}

// Backend is the backend the engine runs on.
func (e *Engine) Backend() Backend { return e.backend }

// Describe says what the engine runs on: the backend, its library and kernels.
func (e *Engine) Describe() string {
	if e.dnnl != nil {
		return fmt.Sprintf("%s, %s, chunks of %d", e.backend.Describe(), e.dnnl.Impl(), e.chunk)
	}
	return e.backend.Describe()
}

// Close releases what the engine holds outside Go's memory (oneDNN's); the engine is not to be
// used after. Engines of the Go backend hold nothing: Close does nothing.
func (e *Engine) Close() {
	if e.dnnl != nil {
		e.dnnl.Close()
		e.dnnl = nil
	}
}

// newGoEngine makes an engine that runs m on the Go backend.
func newGoEngine(m *Model) *Engine {
	s, c := m.spec, m.cfg
	cells := s.Cells()
	e := &Engine{m: m, backend: Go, chunk: max(1, m.maxCols/cells)}
	cols := e.chunk * cells
	e.in = make([]float32, s.Observation.Planes*cols)
	for i := range e.act {
		e.act[i] = make([]float32, c.Channels*cols)
	}
	e.col = make([]float32, max(c.Channels, s.Observation.Planes)*9*cols)
	e.pfeat = make([]float32, c.PolicyChannels*cols)
	if s.Spatial() {
		e.pplane = make([]float32, s.PolicyPlanes*cols)
		e.poff = make([]float32, e.chunk*s.OffGrid)
	} else {
		e.pplane = make([]float32, e.chunk*s.NumActions)
	}
	e.pooled = make([]float32, e.chunk*max(c.PolicyChannels, 2*c.ValueChannels))
	e.vfeat = make([]float32, c.ValueChannels*cols)
	e.vhid = make([]float32, e.chunk*c.ValueHidden)
	e.vout = make([]float32, e.chunk)
	return e
}

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
	if e.dnnl != nil {
		if err := e.dnnl.Load(m.params, m.offsets); err != nil {
			return fmt.Errorf("net: swapping: %w", err)
		}
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
	if e.dnnl != nil {
		return e.dnnl.Run(n, obs, logits, value)
	}
	defer restoreFPU(flushDenormals())
	size, actions := s.Observation.Size(), s.NumActions
	for c0 := 0; c0 < n; c0 += e.chunk {
		k := min(e.chunk, n-c0)
		e.forward(k, obs[c0*size:])
		copy(value[c0:], e.vout[:k])
		for i := range k {
			out := logits[(c0+i)*actions : (c0+i+1)*actions]
			for a := range out {
				out[a] = e.logit(k, i, a)
			}
		}
	}
	return nil
}

// EvaluateLegal computes the policy over each position's legal actions (the softmax of their
// logits; the illegal ones are masked out) and the value of each position of b, writing
// b.Policy and b.Value. It allocates nothing.
func (e *Engine) EvaluateLegal(b *Batch) error {
	s := e.m.spec
	if err := b.Check(s); err != nil {
		return err
	}
	size, actions := s.Observation.Size(), s.NumActions
	if e.dnnl == nil {
		defer restoreFPU(flushDenormals())
	}
	start := int32(0)
	for c0 := 0; c0 < b.N; c0 += e.chunk {
		n := min(e.chunk, b.N-c0)
		if e.dnnl != nil {
			if err := e.dnnl.Run(n, b.Obs[c0*size:], e.scratch, b.Value[c0:c0+n]); err != nil {
				return err
			}
		} else {
			e.forward(n, b.Obs[c0*size:])
			copy(b.Value[c0:], e.vout[:n])
		}
		for i := range n {
			end := b.LegalEnd[c0+i]
			legal, p := b.Legal[start:end], b.Policy[start:end]
			if e.dnnl != nil {
				logits := e.scratch[i*actions : (i+1)*actions]
				for j, a := range legal {
					p[j] = logits[a]
				}
			} else {
				for j, a := range legal {
					p[j] = e.logit(n, i, int(a))
				}
			}
			softmax(p)
			start = end
		}
	}
	return nil
}

// logit reads action a's logit for position i of the last forward pass over n positions.
func (e *Engine) logit(n, i, a int) float32 {
	m := e.m
	plane, cell := int(m.plane[a]), int(m.cell[a])
	switch plane {
	case -2:
		return e.pplane[i*m.spec.NumActions+cell]
	case -1:
		return e.poff[i*m.spec.OffGrid+cell]
	}
	cells := m.spec.Cells()
	return e.pplane[(plane*n+i)*cells+cell]
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

// forward runs the network on n observations.
func (e *Engine) forward(n int, obs []float32) {
	m, s := e.m, e.m.spec
	cells := s.Cells()
	cols := n * cells
	// Observations arrive position-major; the tower wants channel-major.
	planes := s.Observation.Planes
	for i := range n {
		for p := range planes {
			copy(e.in[p*cols+i*cells:p*cols+(i+1)*cells], obs[(i*planes+p)*cells:(i*planes+p+1)*cells])
		}
	}
	x, t, y := e.act[0], e.act[1], e.act[2]
	e.conv3(&m.stem, n, e.in, x, nil)
	for i := range m.blocks {
		e.conv3(&m.blocks[i][0], n, x, t, nil)
		e.conv3(&m.blocks[i][1], n, t, y, x)
		x, y = y, x
	}
	// Policy head.
	e.conv1(&m.pconv, cols, x, e.pfeat, true)
	if s.Spatial() {
		e.conv1(&m.pout, cols, e.pfeat, e.pplane, false)
		if s.OffGrid > 0 {
			e.pool(n, e.pfeat, m.pconv.out, false)
			e.denseLayer(&m.poff, n, e.pooled, e.poff)
		}
	} else {
		e.flatDense(&m.pfc, n, e.pfeat, m.pconv.out, e.pplane)
	}
	// Value head.
	e.conv1(&m.vconv, cols, x, e.vfeat, true)
	if m.cfg.GlobalPool {
		e.pool(n, e.vfeat, m.vconv.out, true)
		e.denseLayer(&m.vfc1, n, e.pooled, e.vhid)
	} else {
		e.flatDense(&m.vfc1, n, e.vfeat, m.vconv.out, e.vhid)
	}
	relu(e.vhid[:n*m.vfc1.out])
	e.denseLayer(&m.vfc2, n, e.vhid, e.vout)
	for i := range n {
		e.vout[i] = float32(math.Tanh(float64(e.vout[i])))
	}
}

// conv3 is a 3×3 convolution (pad 1) of in [cin][n·cells] into out [cout][n·cells], plus bias,
// plus residual if not nil, then ReLU, tile of positions by tile of positions.
func (e *Engine) conv3(c *conv, n int, in, out, residual []float32) {
	s := e.m.spec
	cells := s.Cells()
	cols := n * cells
	k := c.in * 9
	tile := max(1, min(n, e.m.maxCols/cells))
	for p0 := 0; p0 < n; p0 += tile {
		nt := min(tile, n-p0)
		tc := nt * cells
		Im2col(e.col[:k*tc], in, c.in, cols, p0, nt, s.Observation.Height, s.Observation.Width)
		e.m.blas.Sgemm(blas.NoTrans, blas.NoTrans, c.out, tc, k, 1, c.w, k, e.col, tc, 0, out[p0*cells:], cols)
		for o := range c.out {
			row := out[o*cols+p0*cells : o*cols+p0*cells+tc]
			b := c.b[o]
			if residual != nil {
				res := residual[o*cols+p0*cells : o*cols+p0*cells+tc]
				for j, v := range row {
					row[j] = max(v+b+res[j], 0)
				}
			} else {
				for j, v := range row {
					row[j] = max(v+b, 0)
				}
			}
		}
	}
}

// Im2col writes the 3×3 neighbourhoods (zero outside the board) of positions p0..p0+nt of in
// [channels][cols] into dst [channels·9][nt·h·w]: row (c, dy, dx), column (position, y, x).
//
// Row (c, dy, dx) is the channel's tile shifted by dy·w+dx: one memmove, then the cells whose
// neighbour is off the board (and which the shift filled from the next row or position) zeroed.
// The training graph's convolution (package nettrain) uses it too.
func Im2col(dst, in []float32, channels, cols, p0, nt, h, w int) {
	cells := h * w
	tc := nt * cells
	r := 0
	for c := range channels {
		src := in[c*cols+p0*cells : c*cols+(p0+nt)*cells]
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				row := dst[r*tc : (r+1)*tc]
				r++
				if shift := dy*w + dx; shift >= 0 {
					copy(row[:tc-shift], src[shift:])
					clear(row[tc-shift:])
				} else {
					copy(row[-shift:], src[:tc+shift])
					clear(row[:-shift])
				}
				for p := range nt {
					pos := row[p*cells : (p+1)*cells]
					switch dy {
					case -1:
						clear(pos[:w])
					case 1:
						clear(pos[cells-w:])
					}
					switch dx {
					case -1:
						for y := 0; y < cells; y += w {
							pos[y] = 0
						}
					case 1:
						for y := w - 1; y < cells; y += w {
							pos[y] = 0
						}
					}
				}
			}
		}
	}
}

// conv1 is a 1×1 convolution of in [cin][cols] into out [cout][cols], plus bias, then ReLU if
// asked.
func (e *Engine) conv1(c *conv, cols int, in, out []float32, doRelu bool) {
	e.m.blas.Sgemm(blas.NoTrans, blas.NoTrans, c.out, cols, c.in, 1, c.w, c.in, in, cols, 0, out, cols)
	for o := range c.out {
		row := out[o*cols : (o+1)*cols]
		b := c.b[o]
		if doRelu {
			for j, v := range row {
				row[j] = max(v+b, 0)
			}
		} else {
			for j := range row {
				row[j] += b
			}
		}
	}
}

// pool writes each position's mean (and, if withMax, then max) of each of channels planes of
// feat [channels][n·cells] into e.pooled [n][channels or 2·channels].
func (e *Engine) pool(n int, feat []float32, channels int, withMax bool) {
	cells := e.m.spec.Cells()
	cols := n * cells
	width := channels
	if withMax {
		width *= 2
	}
	inv := 1 / float32(cells)
	for c := range channels {
		for i := range n {
			plane := feat[c*cols+i*cells : c*cols+(i+1)*cells]
			var sum float32
			hi := plane[0]
			for _, v := range plane {
				sum += v
				hi = max(hi, v)
			}
			e.pooled[i*width+c] = sum * inv
			if withMax {
				e.pooled[i*width+channels+c] = hi
			}
		}
	}
}

// denseLayer computes out [n][d.out] = in [n][d.in] · w + b.
func (e *Engine) denseLayer(d *dense, n int, in, out []float32) {
	e.m.blas.Sgemm(blas.NoTrans, blas.NoTrans, n, d.out, d.in, 1, in, d.in, d.w, d.out, 0, out, d.out)
	addBias(out[:n*d.out], d.b)
}

// flatDense computes out [n][d.out] = flatten(feat) · w + b, where feat is [channels][n·cells]
// and a position's flattened input is its channels one after the other (as in [n][c][h][w]):
// one GEMM per channel.
func (e *Engine) flatDense(d *dense, n int, feat []float32, channels int, out []float32) {
	cells := e.m.spec.Cells()
	cols := n * cells
	for c := range channels {
		beta := float32(1)
		if c == 0 {
			beta = 0
		}
		e.m.blas.Sgemm(blas.NoTrans, blas.NoTrans, n, d.out, cells, 1, feat[c*cols:], cells, d.w[c*cells*d.out:], d.out, beta, out, d.out)
	}
	addBias(out[:n*d.out], d.b)
}

func addBias(out, b []float32) {
	for i := 0; i < len(out); i += len(b) {
		row := out[i : i+len(b)]
		for j := range row {
			row[j] += b[j]
		}
	}
}

func relu(x []float32) {
	for i, v := range x {
		x[i] = max(v, 0)
	}
}

// newDNNL builds m's network on oneDNN, in bfloat16 if bf16, with options o, and loads m's
// weights.
func newDNNL(m *Model, bf16 bool, o dnnlOptions) (*dnnl.Net, error) {
	s, c := m.spec, m.cfg
	d, err := dnnl.New(dnnl.Shape{
		Planes: s.Observation.Planes, Height: s.Observation.Height, Width: s.Observation.Width,
		Channels: c.Channels, Blocks: c.Blocks, PolicyChannels: c.PolicyChannels,
		PolicyPlanes: s.PolicyPlanes, OffGrid: s.OffGrid, Actions: s.NumActions,
		ValueChannels: c.ValueChannels, ValueHidden: c.ValueHidden, GlobalPool: c.GlobalPool,
		BF16: bf16, Winograd: o.winograd, Chunk: o.chunk,
	}, s.output)
	if err != nil {
		return nil, err
	}
	if err := d.Load(m.params, m.offsets); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}
