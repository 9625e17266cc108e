package net

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/net/linalg"
)

// The Go backend: the engine written here, im2col and this build's BLAS (package linalg) over
// channel-major activations (see Engine).

// goFactory is the Go backend's factory: always available, the fallback of the others.
var goFactory = factory{
	name:      Go,
	available: func() error { return nil },
	auto:      always,
	describe: func(b Backend) string {
		return fmt.Sprintf("%s (BLAS %s, %s kernels)", b, linalg.Name, linalg.Kernels())
	},
	build: func(m *Model) (backend, error) { return newGoBackend(m), nil },
}

// goBackend is the Go engine's buffers for one model's architecture.
type goBackend struct {
	m      *Model
	chunkN int       // positions run through the net at once: one im2col tile
	in     []float32 // [planes][n·cells]
	act    [3][]float32
	col    []float32 // one im2col tile
	pfeat  []float32 // [policy channels][n·cells]
	pplane []float32 // [policy planes][n·cells] (spatial) or [n][actions] (dense)
	pooled []float32 // [n][max(policy channels, 2·value channels)]
	poff   []float32 // [n][off-grid]
	vfeat  []float32 // [value channels][n·cells]
	vhid   []float32 // [n][value hidden]
	vout   []float32 // [n]
}

// newGoBackend makes the Go engine's buffers for m.
func newGoBackend(m *Model) *goBackend {
	s, c := m.spec, m.cfg
	cells := s.Cells()
	e := &goBackend{m: m, chunkN: max(1, m.maxCols/cells)}
	cols := e.chunkN * cells
	e.in = make([]float32, s.Observation.Planes*cols)
	for i := range e.act {
		e.act[i] = make([]float32, c.Channels*cols)
	}
	e.col = make([]float32, max(c.Channels, s.Observation.Planes)*9*cols)
	e.pfeat = make([]float32, c.PolicyChannels*cols)
	if s.Spatial() {
		e.pplane = make([]float32, s.PolicyPlanes*cols)
		e.poff = make([]float32, e.chunkN*s.OffGrid)
	} else {
		e.pplane = make([]float32, e.chunkN*s.NumActions)
	}
	e.pooled = make([]float32, e.chunkN*max(c.PolicyChannels, 2*c.ValueChannels))
	e.vfeat = make([]float32, c.ValueChannels*cols)
	e.vhid = make([]float32, e.chunkN*c.ValueHidden)
	e.vout = make([]float32, e.chunkN)
	return e
}

// newGoEngine makes an engine that runs m on the Go backend.
func newGoEngine(m *Model) *Engine { return &Engine{m: m, backend: Go, impl: newGoBackend(m)} }

func (e *goBackend) describe() string { return Go.Describe() }

func (e *goBackend) close() {}

func (e *goBackend) swap(m *Model) error {
	e.m = m
	return nil
}

func (e *goBackend) evaluate(n int, obs, logits, value []float32) error {
	defer restoreFPU(flushDenormals())
	s := e.m.spec
	size, actions := s.Observation.Size(), s.NumActions
	for c0 := 0; c0 < n; c0 += e.chunkN {
		k := min(e.chunkN, n-c0)
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

func (e *goBackend) evaluateLegal(b *Batch) error {
	defer restoreFPU(flushDenormals())
	return evaluateLegal(e, e.m.spec, b)
}

func (e *goBackend) chunk() int { return e.chunkN }

func (e *goBackend) runChunk(n int, obs, value []float32) error {
	e.forward(n, obs)
	copy(value, e.vout[:n])
	return nil
}

func (e *goBackend) legalLogits(n, i int, legal []env.Action, p []float32) {
	for j, a := range legal {
		p[j] = e.logit(n, i, int(a))
	}
}

// logit reads action a's logit for position i of the last forward pass over n positions.
func (e *goBackend) logit(n, i, a int) float32 {
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

// forward runs the network on n observations.
func (e *goBackend) forward(n int, obs []float32) {
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
func (e *goBackend) conv3(c *conv, n int, in, out, residual []float32) {
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
func (e *goBackend) conv1(c *conv, cols int, in, out []float32, doRelu bool) {
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
func (e *goBackend) pool(n int, feat []float32, channels int, withMax bool) {
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
func (e *goBackend) denseLayer(d *dense, n int, in, out []float32) {
	e.m.blas.Sgemm(blas.NoTrans, blas.NoTrans, n, d.out, d.in, 1, in, d.in, d.w, d.out, 0, out, d.out)
	addBias(out[:n*d.out], d.b)
}

// flatDense computes out [n][d.out] = flatten(feat) · w + b, where feat is [channels][n·cells]
// and a position's flattened input is its channels one after the other (as in [n][c][h][w]):
// one GEMM per channel.
func (e *goBackend) flatDense(d *dense, n int, feat []float32, channels int, out []float32) {
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
