package nettrain

import (
	"fmt"
	"hash"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/net/internal/dnnl"
)

// The training graph's batchnorm is our own op too: normalisation by the batch's statistics,
// scale and shift in one pass, the running statistics updated in the Weights themselves. It
// replaces gorgonia's BatchNorm followed by a broadcast product and sum, which materialise the
// broadcast scale and shift and a copy of the input. Its statistics follow gorgonia's: the
// running variance takes the batch's unbiased variance, the normalisation its biased one.
//
// The backward pass computes the three gradients at once (they share their sums): the op of
// the gradient with respect to x does, and the two others copy theirs from it.
//
// Built with the tag dnnl, the forward and backward passes run on oneDNN's batchnorm primitives
// (dnnl.BatchNorm), one pair per shape shared by the graph's batchnorms of that shape.
//
// Shapes: x and y (batch, channels, h, w); gamma and beta (channels).

// bnOp is the forward pass: inputs x, gamma, beta.
type bnOp struct {
	shape                  tensor.Shape
	batch, channels, cells int
	momentum               float32
	mean, vari             []float32 // the Weights' running statistics, updated by each run
	// batchMean, batchVar (biased) and invStd are the last run's, for the backward pass, and
	// dgamma, dbeta the last backward pass's.
	batchMean, batchVar, invStd []float32
	dgamma, dbeta               []float32
	d                           *dnnl.BatchNorm // nil: in Go
	res                         owned
}

// bnDxOp is the gradient with respect to x, gamma and beta: inputs x, gamma, dy; output the
// gradient with respect to x, the others kept for bnDgammaOp and bnDbetaOp.
type bnDxOp struct {
	f   *bnOp
	res owned
}

// bnDgammaOp is the gradient with respect to gamma: input bnDxOp's output (it follows it).
type bnDgammaOp struct {
	f   *bnOp
	res owned
}

// bnDbetaOp is the gradient with respect to beta: input bnDxOp's output.
type bnDbetaOp struct {
	f   *bnOp
	res owned
}

var (
	_ G.SDOp = (*bnOp)(nil)
	_ G.Op   = (*bnDxOp)(nil)
	_ G.Op   = (*bnDgammaOp)(nil)
	_ G.Op   = (*bnDbetaOp)(nil)
)

// batchNorm applies our training batchnorm to x with scale gamma and shift beta, updating the
// running statistics mean and vari; on oneDNN with d, if not nil.
func batchNorm(x, gamma, beta *G.Node, momentum float64, mean, vari []float32, d *dnnl.BatchNorm) (*G.Node, error) {
	s := x.Shape()
	if s.Dims() != 4 || gamma.Shape().TotalSize() != s[1] || beta.Shape().TotalSize() != s[1] || len(mean) != s[1] || len(vari) != s[1] {
		return nil, fmt.Errorf("batchnorm: input %v, scale %v, shift %v", s, gamma.Shape(), beta.Shape())
	}
	c := s[1]
	op := &bnOp{shape: s.Clone(), batch: s[0], channels: c, cells: s[2] * s[3], momentum: float32(momentum),
		mean: mean, vari: vari, batchMean: make([]float32, c), batchVar: make([]float32, c), invStd: make([]float32, c),
		dgamma: make([]float32, c), dbeta: make([]float32, c), d: d}
	return G.ApplyOp(op, x, gamma, beta)
}

func vecType() G.TensorType { return G.TensorType{Dims: 1, Of: hm.TypeVariable('a')} }

// hashTo names the op and its forward op: two batchnorms of one graph never merge.
func (op *bnOp) hashTo(h hash.Hash, name string) {
	fmt.Fprintf(h, "%s{%v,%p}", name, op.shape, op)
}

// rows calls f with each position's plane of channel c in x.
func (op *bnOp) rows(x []float32, c int, f func(plane []float32)) {
	for p := range op.batch {
		i := (p*op.channels + c) * op.cells
		f(x[i : i+op.cells])
	}
}

// sums returns Σ dy and Σ dy·x̂ over channel c.
func (op *bnOp) sums(x, dy []float32, c int) (sumDy, sumDyXhat float64) {
	mean, inv := op.batchMean[c], op.invStd[c]
	for p := range op.batch {
		i := (p*op.channels + c) * op.cells
		xs, ds := x[i:i+op.cells], dy[i:i+op.cells]
		var a, b float32
		for j, d := range ds {
			a += d
			b += d * (xs[j] - mean) * inv
		}
		sumDy += float64(a)
		sumDyXhat += float64(b)
	}
	return sumDy, sumDyXhat
}

func newDense(shape ...int) *tensor.Dense {
	return tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(shape...))
}

// --- bnOp ---

func (op *bnOp) Arity() int                                     { return 3 }
func (op *bnOp) Type() hm.Type                                  { return hm.NewFnType(fourD(), vecType(), vecType(), fourD()) }
func (op *bnOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.shape.Clone(), nil }
func (op *bnOp) ReturnsPtr() bool                               { return false }
func (op *bnOp) CallsExtern() bool                              { return false }
func (op *bnOp) OverwritesInput() int                           { return -1 }
func (op *bnOp) WriteHash(h hash.Hash)                          { op.hashTo(h, "zerobn") }
func (op *bnOp) Hashcode() uint32                               { return hashOf(op.WriteHash) }
func (op *bnOp) String() string                                 { return "zerobn" }

func (op *bnOp) Do(inputs ...G.Value) (G.Value, error) {
	return op.UsePreallocDo(op.res.get(op.shape...), inputs...)
}

func (op *bnOp) UsePreallocDo(prealloc G.Value, inputs ...G.Value) (G.Value, error) {
	x, gamma, beta := f32(inputs[0]), f32(inputs[1]), f32(inputs[2])
	y := f32(prealloc)
	n := float64(op.batch * op.cells)
	if op.d != nil {
		if err := op.d.Forward(x, gamma, beta, y, op.batchMean, op.batchVar); err != nil {
			return nil, err
		}
		for c, v := range op.batchVar {
			op.invStd[c] = float32(1 / math.Sqrt(float64(v)+net.BatchNormEpsilon))
			unbiased := float32(float64(v) * n / max(n-1, 1))
			op.mean[c] = op.momentum*op.batchMean[c] + (1-op.momentum)*op.mean[c]
			op.vari[c] = op.momentum*unbiased + (1-op.momentum)*op.vari[c]
		}
		return prealloc, nil
	}
	for c := range op.channels {
		var sum float64
		op.rows(x, c, func(plane []float32) {
			var s float32
			for _, v := range plane {
				s += v
			}
			sum += float64(s)
		})
		mean := float32(sum / n)
		var sq float64
		op.rows(x, c, func(plane []float32) {
			var s float32
			for _, v := range plane {
				d := v - mean
				s += d * d
			}
			sq += float64(s)
		})
		inv := float32(1 / math.Sqrt(sq/n+net.BatchNormEpsilon))
		op.batchMean[c], op.batchVar[c], op.invStd[c] = mean, float32(sq/n), inv
		unbiased := float32(sq / max(n-1, 1))
		op.mean[c] = op.momentum*mean + (1-op.momentum)*op.mean[c]
		op.vari[c] = op.momentum*unbiased + (1-op.momentum)*op.vari[c]
		scale, shift := gamma[c]*inv, beta[c]-gamma[c]*inv*mean
		for p := range op.batch {
			i := (p*op.channels + c) * op.cells
			ys := y[i : i+op.cells]
			for j, v := range x[i : i+op.cells] {
				ys[j] = v*scale + shift
			}
		}
	}
	return prealloc, nil
}

func (op *bnOp) DiffWRT(int) []bool { return []bool{true, true, true} }

func (op *bnOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	dx, err := G.ApplyOp(&bnDxOp{f: op}, inputs[0], inputs[1], grad)
	if err != nil {
		return nil, err
	}
	dgamma, err := G.ApplyOp(&bnDgammaOp{f: op}, dx)
	if err != nil {
		return nil, err
	}
	dbeta, err := G.ApplyOp(&bnDbetaOp{f: op}, dx)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx, dgamma, dbeta}, nil
}

// --- bnDxOp: dx = γ·invstd/N · (N·dy − Σdy − x̂·Σdy·x̂), dγ = Σ dy·x̂, dβ = Σ dy ---

func (op *bnDxOp) Arity() int { return 3 }
func (op *bnDxOp) Type() hm.Type {
	return hm.NewFnType(fourD(), vecType(), fourD(), fourD())
}
func (op *bnDxOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.f.shape.Clone(), nil }
func (op *bnDxOp) ReturnsPtr() bool                               { return false }
func (op *bnDxOp) CallsExtern() bool                              { return false }
func (op *bnDxOp) OverwritesInput() int                           { return -1 }
func (op *bnDxOp) WriteHash(h hash.Hash)                          { op.f.hashTo(h, "zerobndx") }
func (op *bnDxOp) Hashcode() uint32                               { return hashOf(op.WriteHash) }
func (op *bnDxOp) String() string                                 { return "zerobndx" }

func (op *bnDxOp) Do(inputs ...G.Value) (G.Value, error) {
	return op.UsePreallocDo(op.res.get(op.f.shape...), inputs...)
}

func (op *bnDxOp) UsePreallocDo(prealloc G.Value, inputs ...G.Value) (G.Value, error) {
	f := op.f
	x, gamma, dy := f32(inputs[0]), f32(inputs[1]), f32(inputs[2])
	dx := f32(prealloc)
	if f.d != nil {
		return prealloc, f.d.Backward(x, dy, gamma, f.batchMean, f.batchVar, dx, f.dgamma, f.dbeta)
	}
	n := float32(f.batch * f.cells)
	for c := range f.channels {
		sumDy, sumDyXhat := f.sums(x, dy, c)
		f.dgamma[c], f.dbeta[c] = float32(sumDyXhat), float32(sumDy)
		mean, inv := f.batchMean[c], f.invStd[c]
		k := gamma[c] * inv / n
		a, b := float32(sumDy), float32(sumDyXhat)
		for p := range f.batch {
			i := (p*f.channels + c) * f.cells
			xs, ds, out := x[i:i+f.cells], dy[i:i+f.cells], dx[i:i+f.cells]
			for j, d := range ds {
				out[j] = k * (n*d - a - (xs[j]-mean)*inv*b)
			}
		}
	}
	return prealloc, nil
}

// --- bnDgammaOp: dγ, as bnDxOp computed it ---

func (op *bnDgammaOp) Arity() int    { return 1 }
func (op *bnDgammaOp) Type() hm.Type { return hm.NewFnType(fourD(), vecType()) }
func (op *bnDgammaOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.f.channels}, nil
}
func (op *bnDgammaOp) ReturnsPtr() bool      { return false }
func (op *bnDgammaOp) CallsExtern() bool     { return false }
func (op *bnDgammaOp) OverwritesInput() int  { return -1 }
func (op *bnDgammaOp) WriteHash(h hash.Hash) { op.f.hashTo(h, "zerobndgamma") }
func (op *bnDgammaOp) Hashcode() uint32      { return hashOf(op.WriteHash) }
func (op *bnDgammaOp) String() string        { return "zerobndgamma" }

func (op *bnDgammaOp) Do(inputs ...G.Value) (G.Value, error) {
	return op.UsePreallocDo(op.res.get(op.f.channels), inputs...)
}

func (op *bnDgammaOp) UsePreallocDo(prealloc G.Value, inputs ...G.Value) (G.Value, error) {
	copy(f32(prealloc), op.f.dgamma)
	return prealloc, nil
}

// --- bnDbetaOp: dβ, as bnDxOp computed it ---

func (op *bnDbetaOp) Arity() int    { return 1 }
func (op *bnDbetaOp) Type() hm.Type { return hm.NewFnType(fourD(), vecType()) }
func (op *bnDbetaOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.f.channels}, nil
}
func (op *bnDbetaOp) ReturnsPtr() bool      { return false }
func (op *bnDbetaOp) CallsExtern() bool     { return false }
func (op *bnDbetaOp) OverwritesInput() int  { return -1 }
func (op *bnDbetaOp) WriteHash(h hash.Hash) { op.f.hashTo(h, "zerobndbeta") }
func (op *bnDbetaOp) Hashcode() uint32      { return hashOf(op.WriteHash) }
func (op *bnDbetaOp) String() string        { return "zerobndbeta" }

func (op *bnDbetaOp) Do(inputs ...G.Value) (G.Value, error) {
	return op.UsePreallocDo(op.res.get(op.f.channels), inputs...)
}

func (op *bnDbetaOp) UsePreallocDo(prealloc G.Value, inputs ...G.Value) (G.Value, error) {
	copy(f32(prealloc), op.f.dbeta)
	return prealloc, nil
}

// f32 is a value's float32s: without boxing them in an interface as Data does (an allocation
// per call).
func f32(v G.Value) []float32 {
	if d, ok := v.(*tensor.Dense); ok {
		return d.Float32s()
	}
	return v.Data().([]float32)
}
