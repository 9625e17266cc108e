package nettrain

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	"gonum.org/v1/gonum/blas"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/net/internal/dnnl"
	"github.com/zerogames/zero/net/linalg"
)

// The training graph's convolutions are our own gorgonia ops instead of G.Conv2d: the same
// im2col and GEMM as the inference engine, chunk by chunk, with the backward pass as two more
// ops (gradient with respect to the input, and to the weights). gorgonia's Conv2d spent most of
// a training step in its im2col, col2im and transposes (see BENCHMARKS.md).
//
// Built with the tag dnnl, the three ops run on oneDNN's primitives instead (dnnl.Conv:
// forward, backward data, backward weights), one set per shape, shared by the graph's
// convolutions of that shape; the Go code stays as the fallback and the reference.
//
// Shapes: input (batch, in, h, w), weights (out, in, k, k) with k 1 or 3 (pad k/2, stride 1),
// output (batch, out, h, w).

// convScratch holds what the convolution ops of one graph share: they run one after the other.
type convScratch struct {
	xc, col, yc []float32
	// dnnl: the ops (and the batchnorms) run on oneDNN, with the primitives of each shape
	dnnl  bool
	convs map[convGeom]*dnnl.Conv
	bns   map[[5]int]*dnnl.BatchNorm
}

// bnFor returns the oneDNN batchnorm of shape (batch, c, h, w), built on first request; nil if
// the graph's ops run in Go.
func (s *convScratch) bnFor(shape tensor.Shape, l dnnl.Layout) (*dnnl.BatchNorm, error) {
	if !s.dnnl || shape.Dims() != 4 {
		if l != dnnl.Plain {
			return nil, fmt.Errorf("batchnorm: layout %d in Go", l)
		}
		return nil, nil
	}
	key := [5]int{shape[0], shape[1], shape[2], shape[3], int(l)}
	if d := s.bns[key]; d != nil {
		return d, nil
	}
	d, err := dnnl.NewBatchNorm(key[0], key[1], key[2], key[3], net.BatchNormEpsilon, l)
	if err != nil {
		return nil, fmt.Errorf("batchnorm: %w", err)
	}
	if s.bns == nil {
		s.bns = map[[5]int]*dnnl.BatchNorm{}
	}
	s.bns[key] = d
	return d, nil
}

// dnnlFor returns the oneDNN primitives of geometry g, built on first request.
func (s *convScratch) dnnlFor(g convGeom) (*dnnl.Conv, error) {
	if d := s.convs[g]; d != nil {
		return d, nil
	}
	d, err := dnnl.NewConv(g.batch, g.in, g.out, g.h, g.w, g.k, g.xl, g.yl)
	if err != nil {
		return nil, fmt.Errorf("conv2d: %w", err)
	}
	if s.convs == nil {
		s.convs = map[convGeom]*dnnl.Conv{}
	}
	s.convs[g] = d
	return d, nil
}

// close releases the oneDNN primitives.
func (s *convScratch) close() {
	for _, d := range s.convs {
		d.Close()
	}
	for _, d := range s.bns {
		d.Close()
	}
	s.convs, s.bns = nil, nil
}

// owned is an op's output value: made on the op's first run and reused by every later one, so
// that a step allocates none (the tape machine forgets its values between runs, and would
// otherwise have each op make a new one). Safe because gorgonia keeps no value of a run beyond
// the next (gradients are added into the weights' own dual values).
type owned struct{ t *tensor.Dense }

func (o *owned) get(shape ...int) *tensor.Dense {
	if o.t == nil {
		o.t = newDense(shape...)
	}
	return o.t
}

func (s *convScratch) get(buf *[]float32, n int) []float32 {
	if cap(*buf) < n {
		*buf = make([]float32, n)
	}
	return (*buf)[:n]
}

// convGeom is a convolution's geometry and the chunking of its batch, and the layouts of its
// input and output (plain but on oneDNN).
type convGeom struct {
	batch, in, out, h, w, k int
	xl, yl                  dnnl.Layout
}

func (g convGeom) cells() int { return g.h * g.w }

// chunk is the number of positions processed at once.
func (g convGeom) chunk() int { return max(1, min(g.batch, 2048/g.cells())) }

// toChannelMajor copies positions p0..p0+n of x (batch, c, cells) into dst [c][n·cells].
func toChannelMajor(dst, x []float32, c, cells, p0, n int) {
	for p := range n {
		for ch := range c {
			copy(dst[ch*n*cells+p*cells:ch*n*cells+(p+1)*cells], x[((p0+p)*c+ch)*cells:((p0+p)*c+ch+1)*cells])
		}
	}
}

// fromChannelMajor copies src [c][n·cells] into positions p0..p0+n of y (batch, c, cells).
func fromChannelMajor(y, src []float32, c, cells, p0, n int) {
	for p := range n {
		for ch := range c {
			copy(y[((p0+p)*c+ch)*cells:((p0+p)*c+ch+1)*cells], src[ch*n*cells+p*cells:ch*n*cells+(p+1)*cells])
		}
	}
}

// colOf returns the im2col of positions p0..p0+n of x: [in·k·k][n·cells].
func (g convGeom) colOf(s *convScratch, x []float32, p0, n int) []float32 {
	cells := g.cells()
	xc := s.get(&s.xc, g.in*n*cells)
	toChannelMajor(xc, x, g.in, cells, p0, n)
	if g.k == 1 {
		return xc
	}
	col := s.get(&s.col, g.in*9*n*cells)
	net.Im2col(col, xc, g.in, n*cells, 0, n, g.h, g.w)
	return col
}

// col2im adds the 3×3 neighbourhood gradients dcol [c·9][n·cells] back onto dx [c][n·cells]:
// the adjoint of im2col (it zeroes dcol's off-board entries first).
func col2im(dx, dcol []float32, channels, n, h, w int) {
	cells := h * w
	tc := n * cells
	clear(dx[:channels*tc])
	r := 0
	for c := range channels {
		dst := dx[c*tc : (c+1)*tc]
		for dy := -1; dy <= 1; dy++ {
			for ddx := -1; ddx <= 1; ddx++ {
				row := dcol[r*tc : (r+1)*tc]
				r++
				for p := range n {
					pos := row[p*cells : (p+1)*cells]
					switch dy {
					case -1:
						clear(pos[:w])
					case 1:
						clear(pos[cells-w:])
					}
					switch ddx {
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
				// im2col did row[j] = src[j+shift]; the adjoint adds row[j] into dst[j+shift].
				shift := dy*w + ddx
				lo, hi := max(0, -shift), min(tc, tc-shift)
				d := dst[lo+shift : hi+shift]
				for j, v := range row[lo:hi] {
					d[j] += v
				}
			}
		}
	}
}

// convOp is the forward convolution: inputs x and weights.
type convOp struct {
	convGeom
	s     *convScratch
	d     *dnnl.Conv // nil: im2col and GEMM in Go
	input bool       // x is the graph's input: no gradient with respect to it
	res   owned
}

// convInputGradOp is the gradient with respect to the input: inputs weights and dy.
type convInputGradOp struct {
	convGeom
	s   *convScratch
	d   *dnnl.Conv
	res owned
}

// convWeightGradOp is the gradient with respect to the weights: inputs x and dy.
type convWeightGradOp struct {
	convGeom
	s   *convScratch
	d   *dnnl.Conv
	res owned
}

var (
	_ G.SDOp = (*convOp)(nil)
	_ G.Op   = (*convInputGradOp)(nil)
	_ G.Op   = (*convWeightGradOp)(nil)
)

// conv2d applies our convolution to x with weights w; input: x is the graph's input, whose
// gradient no one needs. x and the output are laid out as xl and yl say: in Go, plain.
func conv2d(s *convScratch, x, w *G.Node, input bool, xl, yl dnnl.Layout) (*G.Node, error) {
	xs, ws := x.Shape(), w.Shape()
	if xs.Dims() != 4 || ws.Dims() != 4 || xs[1] != ws[1] || ws[2] != ws[3] || (ws[2] != 1 && ws[2] != 3) {
		return nil, fmt.Errorf("conv2d: input %v and weights %v", xs, ws)
	}
	op := &convOp{convGeom: convGeom{batch: xs[0], in: xs[1], out: ws[0], h: xs[2], w: xs[3], k: ws[2], xl: xl, yl: yl}, s: s, input: input}
	if s.dnnl {
		d, err := s.dnnlFor(op.convGeom)
		if err != nil {
			return nil, err
		}
		op.d = d
	} else if xl != dnnl.Plain || yl != dnnl.Plain {
		return nil, fmt.Errorf("conv2d: layouts %d, %d in Go", xl, yl)
	}
	return G.ApplyOp(op, x, w)
}

func fourD() G.TensorType { return G.TensorType{Dims: 4, Of: hm.TypeVariable('a')} }

func (g convGeom) hashTo(h hash.Hash, name string) {
	fmt.Fprintf(h, "%s{b%d,i%d,o%d,%dx%d,k%d}", name, g.batch, g.in, g.out, g.h, g.w, g.k)
}

func hashOf(f func(hash.Hash)) uint32 {
	h := fnv.New32a()
	f(h)
	return h.Sum32()
}

// --- convOp ---

func (op *convOp) Arity() int    { return 2 }
func (op *convOp) Type() hm.Type { return hm.NewFnType(fourD(), fourD(), fourD()) }
func (op *convOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.batch, op.out, op.h, op.w}, nil
}
func (op *convOp) ReturnsPtr() bool      { return false }
func (op *convOp) CallsExtern() bool     { return false }
func (op *convOp) OverwritesInput() int  { return -1 }
func (op *convOp) WriteHash(h hash.Hash) { op.hashTo(h, "zeroconv") }
func (op *convOp) Hashcode() uint32      { return hashOf(op.WriteHash) }
func (op *convOp) String() string        { return fmt.Sprintf("zeroconv%dx%d", op.k, op.k) }

func (op *convOp) Do(inputs ...G.Value) (G.Value, error) {
	return op.UsePreallocDo(op.res.get(op.batch, op.out, op.h, op.w), inputs...)
}

func (op *convOp) UsePreallocDo(prealloc G.Value, inputs ...G.Value) (G.Value, error) {
	x, w := f32(inputs[0]), f32(inputs[1])
	y := f32(prealloc)
	if op.d != nil {
		return prealloc, op.d.Forward(x, w, y)
	}
	cells, K := op.cells(), op.in*op.k*op.k
	chunk := op.chunk()
	for p0 := 0; p0 < op.batch; p0 += chunk {
		n := min(chunk, op.batch-p0)
		col := op.colOf(op.s, x, p0, n)
		yc := op.s.get(&op.s.yc, op.out*n*cells)
		linalg.Float32.Sgemm(blas.NoTrans, blas.NoTrans, op.out, n*cells, K, 1, w, K, col, n*cells, 0, yc, n*cells)
		fromChannelMajor(y, yc, op.out, cells, p0, n)
	}
	return prealloc, nil
}

func (op *convOp) DiffWRT(int) []bool { return []bool{!op.input, true} }

func (op *convOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	dw, err := G.ApplyOp(&convWeightGradOp{convGeom: op.convGeom, s: op.s, d: op.d}, inputs[0], grad)
	if err != nil || op.input {
		return G.Nodes{nil, dw}, err
	}
	dx, err := G.ApplyOp(&convInputGradOp{convGeom: op.convGeom, s: op.s, d: op.d}, inputs[1], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx, dw}, nil
}

// --- convInputGradOp: dx = col2im(wᵀ·dy) ---

func (op *convInputGradOp) Arity() int    { return 2 }
func (op *convInputGradOp) Type() hm.Type { return hm.NewFnType(fourD(), fourD(), fourD()) }
func (op *convInputGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.batch, op.in, op.h, op.w}, nil
}
func (op *convInputGradOp) ReturnsPtr() bool      { return false }
func (op *convInputGradOp) CallsExtern() bool     { return false }
func (op *convInputGradOp) OverwritesInput() int  { return -1 }
func (op *convInputGradOp) WriteHash(h hash.Hash) { op.hashTo(h, "zeroconvdx") }
func (op *convInputGradOp) Hashcode() uint32      { return hashOf(op.WriteHash) }
func (op *convInputGradOp) String() string        { return "zeroconvdx" }

func (op *convInputGradOp) Do(inputs ...G.Value) (G.Value, error) {
	return op.UsePreallocDo(op.res.get(op.batch, op.in, op.h, op.w), inputs...)
}

func (op *convInputGradOp) UsePreallocDo(prealloc G.Value, inputs ...G.Value) (G.Value, error) {
	w, dy := f32(inputs[0]), f32(inputs[1])
	dx := f32(prealloc)
	if op.d != nil {
		return prealloc, op.d.BackwardData(w, dy, dx)
	}
	cells, K := op.cells(), op.in*op.k*op.k
	chunk := op.chunk()
	for p0 := 0; p0 < op.batch; p0 += chunk {
		n := min(chunk, op.batch-p0)
		dyc := op.s.get(&op.s.yc, op.out*n*cells)
		toChannelMajor(dyc, dy, op.out, cells, p0, n)
		xc := op.s.get(&op.s.xc, op.in*n*cells)
		if op.k == 1 {
			linalg.Float32.Sgemm(blas.Trans, blas.NoTrans, K, n*cells, op.out, 1, w, K, dyc, n*cells, 0, xc, n*cells)
		} else {
			dcol := op.s.get(&op.s.col, K*n*cells)
			linalg.Float32.Sgemm(blas.Trans, blas.NoTrans, K, n*cells, op.out, 1, w, K, dyc, n*cells, 0, dcol, n*cells)
			col2im(xc, dcol, op.in, n, op.h, op.w)
		}
		fromChannelMajor(dx, xc, op.in, cells, p0, n)
	}
	return prealloc, nil
}

// --- convWeightGradOp: dw = Σ dy·colᵀ ---

func (op *convWeightGradOp) Arity() int    { return 2 }
func (op *convWeightGradOp) Type() hm.Type { return hm.NewFnType(fourD(), fourD(), fourD()) }
func (op *convWeightGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.out, op.in, op.k, op.k}, nil
}
func (op *convWeightGradOp) ReturnsPtr() bool      { return false }
func (op *convWeightGradOp) CallsExtern() bool     { return false }
func (op *convWeightGradOp) OverwritesInput() int  { return -1 }
func (op *convWeightGradOp) WriteHash(h hash.Hash) { op.hashTo(h, "zeroconvdw") }
func (op *convWeightGradOp) Hashcode() uint32      { return hashOf(op.WriteHash) }
func (op *convWeightGradOp) String() string        { return "zeroconvdw" }

func (op *convWeightGradOp) Do(inputs ...G.Value) (G.Value, error) {
	return op.UsePreallocDo(op.res.get(op.out, op.in, op.k, op.k), inputs...)
}

func (op *convWeightGradOp) UsePreallocDo(prealloc G.Value, inputs ...G.Value) (G.Value, error) {
	x, dy := f32(inputs[0]), f32(inputs[1])
	dw := f32(prealloc)
	if op.d != nil {
		return prealloc, op.d.BackwardWeights(x, dy, dw)
	}
	cells, K := op.cells(), op.in*op.k*op.k
	chunk := op.chunk()
	for p0 := 0; p0 < op.batch; p0 += chunk {
		n := min(chunk, op.batch-p0)
		col := op.colOf(op.s, x, p0, n)
		dyc := op.s.get(&op.s.yc, op.out*n*cells)
		toChannelMajor(dyc, dy, op.out, cells, p0, n)
		beta := float32(1)
		if p0 == 0 {
			beta = 0
		}
		linalg.Float32.Sgemm(blas.NoTrans, blas.Trans, op.out, K, n*cells, 1, dyc, n*cells, col, n*cells, beta, dw, K)
	}
	return prealloc, nil
}
