package nettrain

import (
	"fmt"
	"hash"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The policy's loss is our own op as well: the cross-entropy of the softmax of logits + mask
// against the target, averaged over the batch, in one op whose gradient with respect to the
// logits is (softmax · Σ target − target) / batch. gorgonia's chain (a sum with the mask, its
// LogSoftMax, a product with the target, a sum, a mean, a negation, and as many backward ops)
// made a tensor of the policy's size at each link, and computed the exponential of every
// output, where the masked ones (most: the illegal actions) are 0. The logits come in parts (the
// grid's outputs and the off-grid ones), the policy's outputs being their concatenation along
// axis 1, so that they need not be concatenated (nor their gradient sliced apart).

// ceOp is the loss: inputs the logits' parts (batch, width each), then mask and target (batch,
// outputs); output a scalar.
type ceOp struct {
	batch, outputs int
	widths         []int
	out            G.F32
	// the last run's softmax (batch, outputs) and Σ target of each position, for the gradient
	soft, tsum []float32
}

// ceGradOp is the gradient with respect to one part of the logits: inputs the ceOp's output
// (which it must follow), the target and the loss's gradient (a scalar).
type ceGradOp struct {
	f          *ceOp
	part, from int // the part, and its first column among the outputs
	res        owned
}

var (
	_ G.SDOp = (*ceOp)(nil)
	_ G.Op   = (*ceGradOp)(nil)
)

// crossEntropy is the loss of logits (the parts of the policy's outputs) against target, the
// outputs where mask is very negative (maskedOut) left out of the softmax.
func crossEntropy(mask, target *G.Node, logits ...*G.Node) (*G.Node, error) {
	ms := mask.Shape()
	op := &ceOp{batch: ms[0], outputs: ms[1]}
	sum := 0
	for _, l := range logits {
		s := l.Shape()
		if s.Dims() != 2 || s[0] != op.batch {
			return nil, fmt.Errorf("crossEntropy: logits %v for a mask %v", s, ms)
		}
		op.widths = append(op.widths, s[1])
		sum += s[1]
	}
	if ms.Dims() != 2 || sum != op.outputs || !target.Shape().Eq(ms) {
		return nil, fmt.Errorf("crossEntropy: logits of %d outputs, mask %v, target %v", sum, ms, target.Shape())
	}
	op.soft = make([]float32, op.batch*op.outputs)
	op.tsum = make([]float32, op.batch)
	return G.ApplyOp(op, append(append([]*G.Node(nil), logits...), mask, target)...)
}

func matType() G.TensorType { return G.TensorType{Dims: 2, Of: hm.TypeVariable('a')} }

func (op *ceOp) Arity() int { return len(op.widths) + 2 }
func (op *ceOp) Type() hm.Type {
	ts := make([]hm.Type, 0, op.Arity()+1)
	for range op.Arity() {
		ts = append(ts, matType())
	}
	return hm.NewFnType(append(ts, hm.TypeVariable('a'))...)
}
func (op *ceOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return tensor.ScalarShape(), nil }
func (op *ceOp) ReturnsPtr() bool                               { return false }
func (op *ceOp) CallsExtern() bool                              { return false }
func (op *ceOp) OverwritesInput() int                           { return -1 }
func (op *ceOp) WriteHash(h hash.Hash)                          { fmt.Fprintf(h, "zeroce%v,%p", op.widths, op) }
func (op *ceOp) Hashcode() uint32                               { return hashOf(op.WriteHash) }
func (op *ceOp) String() string                                 { return "zeroce" }

func (op *ceOp) Do(inputs ...G.Value) (G.Value, error) {
	k := len(op.widths)
	mask, target := f32(inputs[k]), f32(inputs[k+1])
	var loss float64
	for i := range op.batch {
		row := i * op.outputs
		soft := op.soft[row : row+op.outputs]
		t := target[row : row+op.outputs]
		m := mask[row : row+op.outputs]
		// soft = logits + mask, part by part.
		j := 0
		for p, w := range op.widths {
			l := f32(inputs[p])[i*w : (i+1)*w]
			s, mm := soft[j:j+w], m[j:j+w]
			for c, v := range l {
				s[c] = v + mm[c]
			}
			j += w
		}
		hi := float32(math.Inf(-1))
		for _, z := range soft {
			hi = max(hi, z)
		}
		// log Σ exp(z − hi); the outputs far below the largest (the masked ones) weigh 0.
		var sum, ce, ts float64
		for j, z := range soft {
			if tj := t[j]; tj != 0 {
				ce -= float64(tj) * float64(z)
				ts += float64(tj)
			}
			if d := z - hi; d > -80 {
				e := math.Exp(float64(d))
				soft[j] = float32(e)
				sum += e
			} else {
				soft[j] = 0
			}
		}
		lse := float64(hi) + math.Log(sum)
		ce += ts * lse // −Σ t·(z − lse)
		inv := float32(1 / sum)
		for j, e := range soft {
			if e != 0 {
				soft[j] = e * inv
			}
		}
		op.tsum[i] = float32(ts)
		loss += ce
	}
	op.out = G.F32(loss / float64(op.batch))
	return &op.out, nil
}

func (op *ceOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	for i := range op.widths {
		d[i] = true
	}
	return d
}

func (op *ceOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	k := len(op.widths)
	out := make(G.Nodes, len(inputs))
	from := 0
	for p, w := range op.widths {
		d, err := G.ApplyOp(&ceGradOp{f: op, part: p, from: from}, output, inputs[k+1], grad)
		if err != nil {
			return nil, err
		}
		out[p] = d
		from += w
	}
	return out, nil
}

func (op *ceGradOp) Arity() int { return 3 }
func (op *ceGradOp) Type() hm.Type {
	return hm.NewFnType(hm.TypeVariable('a'), matType(), hm.TypeVariable('a'), matType())
}
func (op *ceGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.f.batch, op.f.widths[op.part]}, nil
}
func (op *ceGradOp) ReturnsPtr() bool      { return false }
func (op *ceGradOp) CallsExtern() bool     { return false }
func (op *ceGradOp) OverwritesInput() int  { return -1 }
func (op *ceGradOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "zerocegrad%d,%p", op.part, op.f) }
func (op *ceGradOp) Hashcode() uint32      { return hashOf(op.WriteHash) }
func (op *ceGradOp) String() string        { return "zerocegrad" }

// scalar is a scalar value's float32.
func scalar(v G.Value) (float32, error) {
	switch s := v.(type) {
	case *G.F32:
		return float32(*s), nil
	case *tensor.Dense:
		if f, ok := s.ScalarValue().(float32); ok {
			return f, nil
		}
	}
	return 0, fmt.Errorf("zerocegrad: a gradient %v (%T), not a float32", v, v)
}

func (op *ceGradOp) Do(inputs ...G.Value) (G.Value, error) {
	return op.UsePreallocDo(op.res.get(op.f.batch, op.f.widths[op.part]), inputs...)
}

func (op *ceGradOp) UsePreallocDo(prealloc G.Value, inputs ...G.Value) (G.Value, error) {
	f := op.f
	g, err := scalar(inputs[2])
	if err != nil {
		return nil, err
	}
	target, dl := f32(inputs[1]), f32(prealloc)
	w := f.widths[op.part]
	k := g / float32(f.batch)
	for i := range f.batch {
		s := f.soft[i*f.outputs+op.from : i*f.outputs+op.from+w]
		t := target[i*f.outputs+op.from : i*f.outputs+op.from+w]
		d := dl[i*w : (i+1)*w]
		ts := f.tsum[i]
		for j, p := range s {
			d[j] = k * (p*ts - t[j])
		}
	}
	return prealloc, nil
}
