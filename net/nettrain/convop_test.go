package nettrain

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/zerogames/zero/net"
)

// convShapes are the convolutions the nets train: YINSH's stem and tower (3×3), its heads
// (1×1), and a small dense game's.
var convShapes = []struct{ in, out, h, w, k int }{
	{14, 32, 11, 11, 3}, // stem
	{32, 32, 11, 11, 3}, // tower
	{32, 16, 11, 11, 1}, // policy conv
	{16, 4, 11, 11, 1},  // spatial policy out
	{32, 2, 11, 11, 1},  // value conv
	{7, 8, 6, 6, 3},     // a dense 6×6 game's stem
}

func randomTensor(rng *rand.Rand, shape ...int) *tensor.Dense {
	t := newDense(shape...)
	for i, d := 0, t.Data().([]float32); i < len(d); i++ {
		d[i] = float32(rng.NormFloat64())
	}
	return t
}

// maxRelErr is the largest difference between a and b over b's largest magnitude: the error
// of a sum of many products relative to the sums' scale (an element near 0 has no meaningful
// relative error of its own).
func maxRelErr(a, b []float32) float64 {
	var d, m float64
	for i := range b {
		d = max(d, math.Abs(float64(a[i])-float64(b[i])))
		m = max(m, math.Abs(float64(b[i])))
	}
	return d / max(m, 1e-30)
}

// TestDNNLConvMatchesGo holds the convolution ops on oneDNN (built with the tag dnnl) to the Go
// ops, forward and each gradient, on random tensors of each shape the nets train, at batch
// sizes 1, 7 and 128; and checks that neither allocates once it has run.
func TestDNNLConvMatchesGo(t *testing.T) {
	if net.DNNLVersion() == "" {
		t.Skip("built without oneDNN (tag dnnl)")
	}
	for _, sh := range convShapes {
		for _, n := range []int{1, 7, 128} {
			t.Run(fmt.Sprintf("%dx%d_%d-%d_%dx%d_batch%d", sh.k, sh.k, sh.in, sh.out, sh.h, sh.w, n), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(n), uint64(sh.in*sh.out)))
				g := convGeom{batch: n, in: sh.in, out: sh.out, h: sh.h, w: sh.w, k: sh.k}
				x := randomTensor(rng, n, sh.in, sh.h, sh.w)
				w := randomTensor(rng, sh.out, sh.in, sh.k, sh.k)
				dy := randomTensor(rng, n, sh.out, sh.h, sh.w)
				d, err := net.NewDNNLConv(n, sh.in, sh.out, sh.h, sh.w, sh.k)
				if err != nil {
					t.Fatal(err)
				}
				defer d.Close()
				if n == 128 {
					t.Log(d.Impl())
				}
				var results [2][3][]float32
				for i, dd := range []*net.DNNLConv{nil, d} {
					s := &convScratch{}
					ops := []struct {
						op   G.Op
						a, b G.Value
					}{
						{&convOp{convGeom: g, s: s, d: dd}, x, w},
						{&convInputGradOp{convGeom: g, s: s, d: dd}, w, dy},
						{&convWeightGradOp{convGeom: g, s: s, d: dd}, x, dy},
					}
					for j, o := range ops {
						in := []G.Value{o.a, o.b} // as the machine passes them
						v, err := o.op.Do(in...)
						if err != nil {
							t.Fatal(err)
						}
						results[i][j] = append([]float32(nil), v.Data().([]float32)...)
						if allocs := testing.AllocsPerRun(3, func() {
							if _, err := o.op.Do(in...); err != nil {
								t.Fatal(err)
							}
						}); allocs > 0 {
							t.Errorf("%v (oneDNN %t) allocates %.0f times a run", o.op, dd != nil, allocs)
						}
					}
				}
				for j, name := range []string{"forward", "input gradient", "weight gradient"} {
					if e := maxRelErr(results[1][j], results[0][j]); e > 1e-4 {
						t.Errorf("%s: oneDNN differs from Go by %.2g relative", name, e)
					}
				}
			})
		}
	}
}
