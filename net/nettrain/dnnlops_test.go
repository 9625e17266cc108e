package nettrain

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/net/internal/dnnl"
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

// blocked converts x, (n, c, cells) plain, to or from dnnl.Blocked (n, c/16, cells, 16).
func blocked(x []float32, n, c, cells int, to bool) []float32 {
	out := make([]float32, len(x))
	for b := range n {
		for ch := range c {
			for p := range cells {
				plain, blk := (b*c+ch)*cells+p, ((b*(c/16)+ch/16)*cells+p)*16+ch%16
				if to {
					out[blk] = x[plain]
				} else {
					out[plain] = x[blk]
				}
			}
		}
	}
	return out
}

// layouts are the layouts of a convolution's input and output to test: plain, and blocked
// where the planes fill blocks of 16.
func layouts(in, out int) [][2]dnnl.Layout {
	ls := [][2]dnnl.Layout{{dnnl.Plain, dnnl.Plain}}
	pick := func(c int) dnnl.Layout {
		if c%16 == 0 {
			return dnnl.Blocked
		}
		return dnnl.Plain
	}
	if l := [2]dnnl.Layout{pick(in), pick(out)}; l != ls[0] {
		ls = append(ls, l)
	}
	return ls
}

// TestDNNLConvMatchesGo holds the convolution ops on oneDNN (built with the tag dnnl) to the Go
// ops, forward and each gradient, on random tensors of each shape the nets train, at batch
// sizes 1, 7 and 128, with plain and (where the planes fill blocks of 16) blocked activations;
// and checks that neither allocates once it has run.
func TestDNNLConvMatchesGo(t *testing.T) {
	if dnnl.Version() == "" {
		t.Skip("built without oneDNN (tag dnnl)")
	}
	for _, sh := range convShapes {
		for _, n := range []int{1, 7, 128} {
			for _, l := range layouts(sh.in, sh.out) {
				t.Run(fmt.Sprintf("%dx%d_%d-%d_%dx%d_batch%d_layouts%d%d", sh.k, sh.k, sh.in, sh.out, sh.h, sh.w, n, l[0], l[1]), func(t *testing.T) {
					testDNNLConv(t, sh.in, sh.out, sh.h, sh.w, sh.k, n, l[0], l[1])
				})
			}
		}
	}
}

func testDNNLConv(t *testing.T, cin, cout, h, wd, k, n int, xl, yl dnnl.Layout) {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(cin*cout)))
	g := convGeom{batch: n, in: cin, out: cout, h: h, w: wd, k: k}
	x := randomTensor(rng, n, cin, h, wd)
	w := randomTensor(rng, cout, cin, k, k)
	dy := randomTensor(rng, n, cout, h, wd)
	cells := h * wd
	d, err := dnnl.NewConv(n, cin, cout, h, wd, k, xl, yl)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if n == 128 {
		t.Log(d.Impl())
	}
	// oneDNN's inputs and outputs in its layouts.
	dx, ddy := x, dy
	if xl == dnnl.Blocked {
		dx = tensor.New(tensor.WithShape(x.Shape()...), tensor.WithBacking(blocked(x.Float32s(), n, cin, cells, true)))
	}
	if yl == dnnl.Blocked {
		ddy = tensor.New(tensor.WithShape(dy.Shape()...), tensor.WithBacking(blocked(dy.Float32s(), n, cout, cells, true)))
	}
	g2 := g
	g2.xl, g2.yl = xl, yl
	var results [2][3][]float32
	for i, dd := range []*dnnl.Conv{nil, d} {
		s := &convScratch{}
		ops := []struct {
			op   G.Op
			a, b G.Value
		}{
			{&convOp{convGeom: g, s: s}, x, w},
			{&convInputGradOp{convGeom: g, s: s}, w, dy},
			{&convWeightGradOp{convGeom: g, s: s}, x, dy},
		}
		if dd != nil {
			ops[0].op, ops[0].a = &convOp{convGeom: g2, s: s, d: dd}, dx
			ops[1].op, ops[1].b = &convInputGradOp{convGeom: g2, s: s, d: dd}, ddy
			ops[2].op, ops[2].a, ops[2].b = &convWeightGradOp{convGeom: g2, s: s, d: dd}, dx, ddy
		}
		for j, o := range ops {
			in := []G.Value{o.a, o.b} // as the machine passes them
			v, err := o.op.Do(in...)
			if err != nil {
				t.Fatal(err)
			}
			results[i][j] = append([]float32(nil), v.Data().([]float32)...)
			if dd != nil && j == 0 && yl == dnnl.Blocked {
				results[i][j] = blocked(results[i][j], n, cout, cells, false)
			}
			if dd != nil && j == 1 && xl == dnnl.Blocked {
				results[i][j] = blocked(results[i][j], n, cin, cells, false)
			}
			if allocs := cgoAllocsPerRun(func() {
				if _, err := o.op.Do(in...); err != nil {
					t.Fatal(err)
				}
			}); allocs > 0 {
				t.Errorf("%v (oneDNN %t) allocates %.0f times a run", o.op, dd != nil, allocs)
			}
		}
	}
	for j, name := range []string{"forward", "input gradient", "weight gradient"} {
		e := maxRelErr(results[1][j], results[0][j])
		if e > 1e-4 {
			t.Errorf("%s: oneDNN differs from Go by %.2g relative", name, e)
		}
		if n == 128 {
			t.Logf("%s: %.2g relative", name, e)
		}
	}
}

// TestDNNLBatchNormMatchesGo holds the batchnorm ops on oneDNN to the Go ops: output, updated
// running statistics and the three gradients, on the shapes the nets train at batch sizes 1, 7
// and 128, plain and (where the planes fill blocks of 16) blocked; and checks that neither
// allocates once it has run.
func TestDNNLBatchNormMatchesGo(t *testing.T) {
	if dnnl.Version() == "" {
		t.Skip("built without oneDNN (tag dnnl)")
	}
	for _, sh := range []struct{ c, h, w int }{{32, 11, 11}, {16, 11, 11}, {2, 11, 11}, {8, 6, 6}} {
		for _, n := range []int{1, 7, 128} {
			for _, l := range layouts(sh.c, sh.c) {
				t.Run(fmt.Sprintf("%d_%dx%d_batch%d_layout%d", sh.c, sh.h, sh.w, n, l[0]), func(t *testing.T) {
					rng := rand.New(rand.NewPCG(uint64(n), uint64(sh.c)))
					x := randomTensor(rng, n, sh.c, sh.h, sh.w)
					for i, v := range x.Float32s() {
						x.Float32s()[i] = 3*v + 1 // not already normalised
					}
					gamma, beta := randomTensor(rng, sh.c), randomTensor(rng, sh.c)
					dy := randomTensor(rng, n, sh.c, sh.h, sh.w)
					d, err := dnnl.NewBatchNorm(n, sh.c, sh.h, sh.w, net.BatchNormEpsilon, l[0])
					if err != nil {
						t.Fatal(err)
					}
					defer d.Close()
					if n == 128 && sh.c == 32 {
						t.Log(d.Impl())
					}
					cells := sh.h * sh.w
					xd, dyd := x, dy
					if l[0] == dnnl.Blocked {
						xd = tensor.New(tensor.WithShape(x.Shape()...), tensor.WithBacking(blocked(x.Float32s(), n, sh.c, cells, true)))
						dyd = tensor.New(tensor.WithShape(dy.Shape()...), tensor.WithBacking(blocked(dy.Float32s(), n, sh.c, cells, true)))
					}
					var results [2][6][]float32
					for i, dd := range []*dnnl.BatchNorm{nil, d} {
						x, dy := x, dy
						if dd != nil {
							x, dy = xd, dyd
						}
						mean, vari := make([]float32, sh.c), make([]float32, sh.c)
						for c := range vari {
							vari[c] = 1
						}
						f := &bnOp{shape: x.Shape().Clone(), batch: n, channels: sh.c, cells: sh.h * sh.w, momentum: 0.1,
							mean: mean, vari: vari, batchMean: make([]float32, sh.c), batchVar: make([]float32, sh.c),
							invStd: make([]float32, sh.c), dgamma: make([]float32, sh.c), dbeta: make([]float32, sh.c), d: dd}
						fwd := []G.Value{x, gamma, beta}
						y, err := f.Do(fwd...)
						if err != nil {
							t.Fatal(err)
						}
						results[i][0] = append([]float32(nil), y.Data().([]float32)...)
						if dd != nil && l[0] == dnnl.Blocked {
							results[i][0] = blocked(results[i][0], n, sh.c, cells, false)
						}
						results[i][1] = append([]float32(nil), mean...)
						results[i][2] = append([]float32(nil), vari...)
						dxOp := &bnDxOp{f: f}
						bwd := []G.Value{x, gamma, dy}
						dx, err := dxOp.Do(bwd...)
						if err != nil {
							t.Fatal(err)
						}
						results[i][3] = append([]float32(nil), dx.Data().([]float32)...)
						if dd != nil && l[0] == dnnl.Blocked {
							results[i][3] = blocked(results[i][3], n, sh.c, cells, false)
						}
						for j, op := range []G.Op{&bnDgammaOp{f: f}, &bnDbetaOp{f: f}} {
							v, err := op.Do(dx)
							if err != nil {
								t.Fatal(err)
							}
							results[i][4+j] = append([]float32(nil), v.Data().([]float32)...)
						}
						if allocs := cgoAllocsPerRun(func() {
							if _, err := f.Do(fwd...); err != nil {
								t.Fatal(err)
							}
							if _, err := dxOp.Do(bwd...); err != nil {
								t.Fatal(err)
							}
						}); allocs > 0 {
							t.Errorf("batchnorm (oneDNN %t) allocates %.0f times a run", dd != nil, allocs)
						}
					}
					for j, name := range []string{"output", "running mean", "running variance", "input gradient", "scale gradient", "shift gradient"} {
						if e := maxRelErr(results[1][j], results[0][j]); e > 1e-4 {
							t.Errorf("%s: oneDNN differs from Go by %.2g relative", name, e)
						}
					}
				})
			}
		}
	}
}

// cgoAllocsPerRun is testing.AllocsPerRun(3, f), measured up to 3 times, the least. AllocsPerRun
// counts the allocations of every goroutine, and while f's cgo call into oneDNN runs, its P is
// free for the test binary's other goroutines (the runtime's cleanups of earlier tests'
// primitives, a GC), whose allocations count too: a CI run saw "allocates 2 times a run" once,
// then 0 in five runs alone. f's own path allocates alike every time, so one measurement of 0
// shows it allocates nothing, and an f that allocates is never measured at 0.
func cgoAllocsPerRun(f func()) float64 {
	least := testing.AllocsPerRun(3, f)
	for i := 1; i < 3 && least > 0; i++ {
		least = min(least, testing.AllocsPerRun(3, f))
	}
	return least
}
