package net

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"unsafe"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/net/internal/dnnl"
)

// The oneDNN backends: the whole net on oneDNN's primitives (net/internal/dnnl's zdnnl.c, build
// tag dnnl), in float32 or in bfloat16. Without the tag, their factories say so.

// onednnFactory is the factory of oneDNN's backend in float32, or with bf16 in bfloat16
// (float32 outputs): chosen by Auto where the kernels run on AMX, elsewhere forced only
// (ZERO_BACKEND), where the CPU has AVX512-BF16 at least.
func onednnFactory(bf16 bool) factory {
	f := factory{name: OneDNN, auto: always, fallback: Go}
	if bf16 {
		f = factory{name: OneDNNBF16, auto: dnnl.AMX, fallback: OneDNN, bf16: true}
	}
	f.available = func() error {
		if !dnnl.Built {
			return errors.New("built without oneDNN (go build -tags dnnl, with libdnnl-dev)")
		}
		if bf16 && !dnnl.BF16() {
			return fmt.Errorf("the CPU has no bfloat16 instructions (oneDNN's ISA is %s; AVX512-BF16 or AMX needed)", dnnl.ISA())
		}
		return nil
	}
	f.describe = func(b Backend) string { return fmt.Sprintf("%s (oneDNN %s, %s)", b, dnnl.Version(), dnnl.ISA()) }
	f.build = func(m *Model) (backend, error) { return newOneDNN(m, f.name, bf16) }
	return f
}

// onednnBackend is a model's network built on oneDNN.
type onednnBackend struct {
	name   Backend
	spec   *Spec
	net    *dnnl.Net // nil once closed
	chunkN int       // positions run through the net at once: the size of its first plan
	logits []float32 // one chunk's logits, for evaluateLegal
}

// newOneDNN builds m's network on oneDNN, in bfloat16 if bf16, and loads m's weights.
func newOneDNN(m *Model, name Backend, bf16 bool) (*onednnBackend, error) {
	o := dnnlTuning(m, bf16)
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
	return &onednnBackend{name: name, spec: s, net: d, chunkN: o.chunk, logits: make([]float32, o.chunk*s.NumActions)}, nil
}

func (d *onednnBackend) describe() string {
	if d.net == nil {
		return d.name.Describe()
	}
	return fmt.Sprintf("%s, %s, chunks of %d", d.name.Describe(), d.net.Impl(), d.chunkN)
}

func (d *onednnBackend) close() {
	if d.net != nil {
		d.net.Close()
		d.net = nil
	}
}

func (d *onednnBackend) swap(m *Model) error {
	if err := d.net.Load(m.params, m.offsets); err != nil {
		return err
	}
	d.spec = m.spec
	return nil
}

// evaluate runs the n positions in C, which chunks them and sets flush-to-zero itself (zd_run).
func (d *onednnBackend) evaluate(n int, obs, logits, value []float32) error {
	return d.net.Run(n, obs, logits, value)
}

// env.Action is int32, as zd_run_legal reads b.Legal (these fail to compile otherwise).
var (
	_ [unsafe.Sizeof(env.Action(0)) - 4]struct{}
	_ [4 - unsafe.Sizeof(env.Action(0))]struct{}
)

// evaluateLegal, for a spatial policy head, works out in C only the legal actions' logits
// (zd_run_legal: each a dot product of its plane's weights with its cell's policy features),
// not the whole policy planes: Gygès' head has 48,096 outputs for some 600 legal moves. A
// dense head runs whole chunks (evaluateLegal).
func (d *onednnBackend) evaluateLegal(b *Batch) error {
	if d.spec.PolicyPlanes == 0 {
		return evaluateLegal(d, d.spec, b)
	}
	var legal []int32
	if len(b.Legal) > 0 {
		legal = unsafe.Slice((*int32)(unsafe.Pointer(&b.Legal[0])), len(b.Legal))
	}
	return d.net.RunLegal(b.N, b.Obs, legal, b.LegalEnd, b.Policy, b.Value)
}

func (d *onednnBackend) chunk() int { return d.chunkN }

func (d *onednnBackend) runChunk(n int, obs, value []float32) error {
	return d.net.Run(n, obs, d.logits, value)
}

func (d *onednnBackend) legalLogits(n, i int, legal []env.Action, p []float32) {
	actions := d.spec.NumActions
	logits := d.logits[i*actions : (i+1)*actions]
	for j, a := range legal {
		p[j] = logits[a]
	}
}

// dnnlOptions are a oneDNN backend's choices for a net.
type dnnlOptions struct {
	// chunk is the number of positions run through the net at once: the primitives are built
	// for that batch size (and, for the rest of a batch, for the powers of two below it).
	chunk int
	// winograd runs the tower's 3×3 convolutions by Winograd's F(4×4, 3×3) where oneDNN has
	// it (float32; not in bfloat16): 2.25× fewer multiplications, within
	// 1e-4 of the Go engine like the direct ones.
	winograd bool
}

// dnnlTuning chooses a oneDNN backend's options for m, as measured (2026-11-24, AMD EPYC with
// AVX-512, one thread, positions per CPU second at batch 128 over chunks of 4 to 64, docs/
// BENCHMARKS.md): Winograd wins where the board is nearly whole tiles of 4×4 (Imbriqua's 8×8
// by 1.5×, YINSH's 11×11, 19% padding, by 1.15 to 1.5×) and loses on 6×6 (Gygès: 78% padding);
// with it, 32 channels run best in chunks of 4 to 8 positions, 64 in chunks of 32; direct
// convolutions, float32 or bfloat16, are flat from 4 to 64. ZERO_DNNL_CHUNK (positions) and
// ZERO_DNNL_CONV (direct or winograd) override the choice, to measure others.
func dnnlTuning(m *Model, bf16 bool) dnnlOptions {
	h, w := m.spec.Observation.Height, m.spec.Observation.Width
	tiles := (h + 3) / 4 * ((w + 3) / 4) * 16
	o := dnnlOptions{chunk: 16, winograd: !bf16 && 4*tiles <= 5*h*w}
	if o.winograd {
		o.chunk = 32
		if m.cfg.Channels <= 32 {
			o.chunk = 8
		}
	}
	if v, err := strconv.Atoi(os.Getenv("ZERO_DNNL_CHUNK")); err == nil && v > 0 {
		o.chunk = v
	}
	switch os.Getenv("ZERO_DNNL_CONV") {
	case "direct":
		o.winograd = false
	case "winograd":
		o.winograd = true
	}
	return o
}
