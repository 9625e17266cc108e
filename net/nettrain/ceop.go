package nettrain

import (
	"fmt"
	"hash"
	"math"
	"slices"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The policy's loss is our own op as well: the cross-entropy of the softmax of the legal
// outputs against the target, averaged over the batch, in one op whose gradient with respect
// to the logits is (softmax · Σ target − target) / batch at the legal outputs and 0 elsewhere.
// gorgonia's chain (a sum with a mask, its LogSoftMax, a product with the target, a sum, a
// mean, a negation, and as many backward ops) made a tensor of the policy's size at each link
// and computed the exponential of every output; a dense mask and target cost as much again
// (in Gygès, 48,006 outputs a position, two thirds of a training step). This op reads the
// legal outputs only (sparseTargets). The logits come in parts (the grid's outputs and the
// off-grid ones), the policy's outputs being their concatenation along axis 1, so that they
// need not be concatenated (nor their gradient sliced apart).

// sparseTargets are the targets of a batch's loss: position i's legal outputs (their indices
// among the policy's outputs) and their target probabilities are idx and target from end[i-1]
// (0 for the first) to end[i]. Only they enter the softmax: the policy's other outputs (most of
// them: Gygès has 48,006, of which a position has a few dozen legal) are never read.
type sparseTargets struct {
	idx    []int32
	target []float32
	end    []int32
}

// setTarget makes output o of position i legal with target t: in the sparse targets with our
// ops, else in the dense mask and target of gorgonia's.
func (gr *graph) setTarget(i, outputs, o int, t float32) {
	if l := gr.legal; l != nil {
		l.idx = append(l.idx, int32(o))
		l.target = append(l.target, t)
		return
	}
	gr.maskBuf[i*outputs+o] = 0
	gr.targetBuf[i*outputs+o] = t
}

// endPosition closes position i's legal outputs (setTarget).
func (gr *graph) endPosition(i int) {
	if l := gr.legal; l != nil {
		l.end[i] = int32(len(l.idx))
	}
}

// ceOp is the loss: inputs the logits' parts (batch, width each); output a scalar.
type ceOp struct {
	batch, outputs int
	widths         []int
	legal          *sparseTargets
	out            G.F32
	// the last run's softmax at each legal output (aligned with legal.idx) and Σ target of
	// each position, for the gradient
	soft, tsum []float32
}

// ceGradOp is the gradient with respect to one part of the logits: inputs the ceOp's output
// (which it must follow) and the loss's gradient (a scalar).
type ceGradOp struct {
	f          *ceOp
	part, from int // the part, and its first column among the outputs
	res        owned
}

var (
	_ G.SDOp = (*ceOp)(nil)
	_ G.Op   = (*ceGradOp)(nil)
)

// crossEntropy is the loss of logits (the parts of the policy's outputs, outputs in all)
// against the targets legal holds at each step, only the legal outputs in the softmax.
func crossEntropy(legal *sparseTargets, outputs int, logits ...*G.Node) (*G.Node, error) {
	op := &ceOp{batch: len(legal.end), outputs: outputs, legal: legal}
	sum := 0
	for _, l := range logits {
		s := l.Shape()
		if s.Dims() != 2 || s[0] != op.batch {
			return nil, fmt.Errorf("crossEntropy: logits %v for a batch of %d", s, op.batch)
		}
		op.widths = append(op.widths, s[1])
		sum += s[1]
	}
	if sum != op.outputs {
		return nil, fmt.Errorf("crossEntropy: logits of %d outputs, want %d", sum, outputs)
	}
	op.tsum = make([]float32, op.batch)
	return G.ApplyOp(op, logits...)
}

// logit is output o of position i, from the part that holds it.
func (op *ceOp) logit(inputs []G.Value, i int, o int32) float32 {
	from := int32(0)
	for p, w := range op.widths {
		if o < from+int32(w) {
			return f32(inputs[p])[i*w+int(o-from)]
		}
		from += int32(w)
	}
	panic("nettrain: a legal output past the policy's") // Batch.Check bounds the actions
}

func matType() G.TensorType { return G.TensorType{Dims: 2, Of: hm.TypeVariable('a')} }

func (op *ceOp) Arity() int { return len(op.widths) }
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
	l := op.legal
	op.soft = slices.Grow(op.soft[:0], len(l.idx))[:len(l.idx)]
	var loss float64
	start := int32(0)
	for i := range op.batch {
		end := l.end[i]
		idx, t, soft := l.idx[start:end], l.target[start:end], op.soft[start:end]
		start = end
		op.tsum[i] = 0
		if len(idx) == 0 {
			continue
		}
		hi := float32(math.Inf(-1))
		for j, o := range idx {
			soft[j] = op.logit(inputs, i, o)
			hi = max(hi, soft[j])
		}
		// log Σ exp(z − hi) over the legal outputs
		var sum, ce, ts float64
		for j, z := range soft {
			if tj := t[j]; tj != 0 {
				ce -= float64(tj) * float64(z)
				ts += float64(tj)
			}
			e := math.Exp(float64(z - hi))
			soft[j] = float32(e)
			sum += e
		}
		lse := float64(hi) + math.Log(sum)
		ce += ts * lse // −Σ t·(z − lse)
		inv := float32(1 / sum)
		for j, e := range soft {
			soft[j] = e * inv
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
	out := make(G.Nodes, len(inputs))
	from := 0
	for p, w := range op.widths {
		d, err := G.ApplyOp(&ceGradOp{f: op, part: p, from: from}, output, grad)
		if err != nil {
			return nil, err
		}
		out[p] = d
		from += w
	}
	return out, nil
}

func (op *ceGradOp) Arity() int { return 2 }
func (op *ceGradOp) Type() hm.Type {
	return hm.NewFnType(hm.TypeVariable('a'), hm.TypeVariable('a'), matType())
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
	g, err := scalar(inputs[1])
	if err != nil {
		return nil, err
	}
	dl := f32(prealloc)
	clear(dl) // an output not legal has softmax 0 and target 0
	w := f.widths[op.part]
	lo, hi := int32(op.from), int32(op.from+w)
	k := g / float32(f.batch)
	l := f.legal
	start := int32(0)
	for i := range f.batch {
		end := l.end[i]
		d := dl[i*w : (i+1)*w]
		ts := f.tsum[i]
		for j := start; j < end; j++ {
			if o := l.idx[j]; o >= lo && o < hi {
				d[o-lo] = k * (f.soft[j]*ts - l.target[j])
			}
		}
		start = end
	}
	return prealloc, nil
}
