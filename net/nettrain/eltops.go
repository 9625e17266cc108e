package nettrain

import (
	"fmt"
	"hash"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The training graph's ReLUs (and the spatial policy's bias, at the end) are our own ops too:
// gorgonia's Rectify is a comparison with 0 that makes a mask, a product by it, and in the
// backward pass another product, each a new tensor every step walked by its iterators. Ours is
// one loop each way into a value it keeps; the residual sum and its ReLU are one op (addRelu),
// whose gradient serves both summands.

// reluOp is max(x, 0), or with two inputs max(a + b, 0).
type reluOp struct {
	shape tensor.Shape
	arity int
	res   owned
}

// reluGradOp is the gradient of a reluOp: dy where its output is positive, else 0. Inputs: the
// reluOp's output and dy.
type reluGradOp struct {
	shape tensor.Shape
	res   owned
}

var (
	_ G.SDOp = (*reluOp)(nil)
	_ G.Op   = (*reluGradOp)(nil)
)

// relu applies max(x, 0).
func relu(x *G.Node) (*G.Node, error) {
	return G.ApplyOp(&reluOp{shape: x.Shape().Clone(), arity: 1}, x)
}

// addRelu applies max(a + b, 0).
func addRelu(a, b *G.Node) (*G.Node, error) {
	if !a.Shape().Eq(b.Shape()) {
		return nil, fmt.Errorf("addRelu: shapes %v and %v", a.Shape(), b.Shape())
	}
	return G.ApplyOp(&reluOp{shape: a.Shape().Clone(), arity: 2}, a, b)
}

func sameType(n int) hm.Type {
	ts := make([]hm.Type, n+1)
	for i := range ts {
		ts[i] = hm.TypeVariable('a')
	}
	return hm.NewFnType(ts...)
}

func (op *reluOp) Arity() int                                     { return op.arity }
func (op *reluOp) Type() hm.Type                                  { return sameType(op.arity) }
func (op *reluOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.shape.Clone(), nil }
func (op *reluOp) ReturnsPtr() bool                               { return false }
func (op *reluOp) CallsExtern() bool                              { return false }
func (op *reluOp) OverwritesInput() int                           { return -1 }
func (op *reluOp) WriteHash(h hash.Hash)                          { fmt.Fprintf(h, "zerorelu%d%v", op.arity, op.shape) }
func (op *reluOp) Hashcode() uint32                               { return hashOf(op.WriteHash) }
func (op *reluOp) String() string                                 { return fmt.Sprintf("zerorelu%d", op.arity) }

func (op *reluOp) Do(inputs ...G.Value) (G.Value, error) {
	return op.UsePreallocDo(op.res.get(op.shape...), inputs...)
}

func (op *reluOp) UsePreallocDo(prealloc G.Value, inputs ...G.Value) (G.Value, error) {
	y := f32(prealloc)
	x := f32(inputs[0])[:len(y)]
	if op.arity == 1 {
		for i, v := range x {
			y[i] = max(v, 0)
		}
		return prealloc, nil
	}
	b := f32(inputs[1])[:len(y)]
	for i, v := range x {
		y[i] = max(v+b[i], 0)
	}
	return prealloc, nil
}

func (op *reluOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	for i := range d {
		d[i] = true
	}
	return d
}

func (op *reluOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	d, err := G.ApplyOp(&reluGradOp{shape: op.shape}, output, grad)
	if err != nil {
		return nil, err
	}
	if op.arity == 1 {
		return G.Nodes{d}, nil
	}
	return G.Nodes{d, d}, nil
}

func (op *reluGradOp) Arity() int                                     { return 2 }
func (op *reluGradOp) Type() hm.Type                                  { return sameType(2) }
func (op *reluGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.shape.Clone(), nil }
func (op *reluGradOp) ReturnsPtr() bool                               { return false }
func (op *reluGradOp) CallsExtern() bool                              { return false }
func (op *reluGradOp) OverwritesInput() int                           { return -1 }
func (op *reluGradOp) WriteHash(h hash.Hash)                          { fmt.Fprintf(h, "zerorelugrad%v", op.shape) }
func (op *reluGradOp) Hashcode() uint32                               { return hashOf(op.WriteHash) }
func (op *reluGradOp) String() string                                 { return "zerorelugrad" }

func (op *reluGradOp) Do(inputs ...G.Value) (G.Value, error) {
	return op.UsePreallocDo(op.res.get(op.shape...), inputs...)
}

func (op *reluGradOp) UsePreallocDo(prealloc G.Value, inputs ...G.Value) (G.Value, error) {
	dx := f32(prealloc)
	y, dy := f32(inputs[0])[:len(dx)], f32(inputs[1])[:len(dx)]
	// Without a branch, which half the time goes the way not predicted: y ≥ 0 is positive
	// where its bits are not 0, and then b | -b has its top bit set.
	for i, v := range y {
		b := math.Float32bits(v)
		mask := uint32(int32(b|-b) >> 31)
		dx[i] = math.Float32frombits(math.Float32bits(dy[i]) & mask)
	}
	return prealloc, nil
}

// biasOp adds a bias to each plane of x (batch, c, h, w): gorgonia's broadcast sum would first
// repeat the bias into a tensor of x's size. Its gradient with respect to x is the output's;
// biasGradOp's, with respect to the bias, each plane's sum.
type biasOp struct {
	shape tensor.Shape
	res   owned
}

// biasGradOp is the gradient with respect to the bias: input dy.
type biasGradOp struct {
	shape tensor.Shape
	res   owned
}

var (
	_ G.SDOp = (*biasOp)(nil)
	_ G.Op   = (*biasGradOp)(nil)
)

// addBias adds b (c values) to each of the c planes of x.
func addBias(x, b *G.Node) (*G.Node, error) {
	s := x.Shape()
	if s.Dims() != 4 || b.Shape().TotalSize() != s[1] {
		return nil, fmt.Errorf("addBias: %v and %v", s, b.Shape())
	}
	return G.ApplyOp(&biasOp{shape: s.Clone()}, x, b)
}

func (op *biasOp) Arity() int                                     { return 2 }
func (op *biasOp) Type() hm.Type                                  { return hm.NewFnType(fourD(), vecType(), fourD()) }
func (op *biasOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.shape.Clone(), nil }
func (op *biasOp) ReturnsPtr() bool                               { return false }
func (op *biasOp) CallsExtern() bool                              { return false }
func (op *biasOp) OverwritesInput() int                           { return -1 }
func (op *biasOp) WriteHash(h hash.Hash)                          { fmt.Fprintf(h, "zerobias%v", op.shape) }
func (op *biasOp) Hashcode() uint32                               { return hashOf(op.WriteHash) }
func (op *biasOp) String() string                                 { return "zerobias" }

func (op *biasOp) Do(inputs ...G.Value) (G.Value, error) {
	return op.UsePreallocDo(op.res.get(op.shape...), inputs...)
}

func (op *biasOp) UsePreallocDo(prealloc G.Value, inputs ...G.Value) (G.Value, error) {
	x, b, y := f32(inputs[0]), f32(inputs[1]), f32(prealloc)
	c, cells := op.shape[1], op.shape[2]*op.shape[3]
	for p := range op.shape[0] {
		for ch := range c {
			i := (p*c + ch) * cells
			bias := b[ch]
			for j, v := range x[i : i+cells] {
				y[i+j] = v + bias
			}
		}
	}
	return prealloc, nil
}

func (op *biasOp) DiffWRT(int) []bool { return []bool{true, true} }

func (op *biasOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	db, err := G.ApplyOp(&biasGradOp{shape: op.shape}, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{grad, db}, nil
}

func (op *biasGradOp) Arity() int    { return 1 }
func (op *biasGradOp) Type() hm.Type { return hm.NewFnType(fourD(), vecType()) }
func (op *biasGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.shape[1]}, nil
}
func (op *biasGradOp) ReturnsPtr() bool      { return false }
func (op *biasGradOp) CallsExtern() bool     { return false }
func (op *biasGradOp) OverwritesInput() int  { return -1 }
func (op *biasGradOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "zerobiasgrad%v", op.shape) }
func (op *biasGradOp) Hashcode() uint32      { return hashOf(op.WriteHash) }
func (op *biasGradOp) String() string        { return "zerobiasgrad" }

func (op *biasGradOp) Do(inputs ...G.Value) (G.Value, error) {
	return op.UsePreallocDo(op.res.get(op.shape[1]), inputs...)
}

func (op *biasGradOp) UsePreallocDo(prealloc G.Value, inputs ...G.Value) (G.Value, error) {
	dy, db := f32(inputs[0]), f32(prealloc)
	c, cells := op.shape[1], op.shape[2]*op.shape[3]
	clear(db)
	for p := range op.shape[0] {
		for ch := range c {
			i := (p*c + ch) * cells
			var s float32
			for _, v := range dy[i : i+cells] {
				s += v
			}
			db[ch] += s
		}
	}
	return prealloc, nil
}
