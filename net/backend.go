package net

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/zerogames/zero/net/internal/dnnl"
	"github.com/zerogames/zero/net/linalg"
)

// Backend names an implementation of the engine's forward pass. All compute the same network
// from the same Model; they differ in speed and, for bf16, in precision.
type Backend string

const (
	// Go is the engine written here: im2col and this build's BLAS (OpenBLAS with the tag
	// openblas, gonum's otherwise). Always available; the fallback of the others.
	Go Backend = "go"
	// OneDNN is the whole network on oneDNN's primitives in float32 (build tag dnnl).
	OneDNN Backend = "onednn-fp32"
	// OneDNNBF16 is oneDNN in bfloat16 (float32 outputs): fast on AMX, where it is chosen;
	// elsewhere forced only (ZERO_BACKEND), where the CPU has AVX512-BF16 at least.
	OneDNNBF16 Backend = "onednn-bf16"
)

// BackendVar is the environment variable that forces a backend: go, onednn (oneDNN, in the
// precision Auto would choose), onednn-fp32, onednn-bf16, or auto (the default).
const BackendVar = "ZERO_BACKEND"

// Backends lists the backends this build can run on this CPU, the one Auto chooses first.
func Backends() []Backend {
	var bs []Backend
	switch {
	case dnnl.AMX():
		bs = []Backend{OneDNNBF16, OneDNN}
	case dnnl.BF16():
		bs = []Backend{OneDNN, OneDNNBF16}
	case dnnl.Built:
		bs = []Backend{OneDNN}
	}
	return append(bs, Go)
}

// Auto is the backend chosen unless one is forced: oneDNN in bfloat16 where its kernels run on
// AMX, oneDNN in float32 on any other CPU when the binary is built with the tag dnnl, else Go.
func Auto() Backend { return Backends()[0] }

// Available tells whether this build can run b on this CPU, and if not, why.
func (b Backend) Available() error {
	switch b {
	case Go:
		return nil
	case OneDNN, OneDNNBF16:
		if !dnnl.Built {
			return fmt.Errorf("%s: built without oneDNN (go build -tags dnnl, with libdnnl-dev)", b)
		}
		if b == OneDNNBF16 && !dnnl.BF16() {
			return fmt.Errorf("%s: the CPU has no bfloat16 instructions (oneDNN's ISA is %s; AVX512-BF16 or AMX needed)", b, dnnl.ISA())
		}
		return nil
	}
	return fmt.Errorf("unknown backend %q (go, onednn, onednn-fp32, onednn-bf16, auto)", string(b))
}

// ParseBackend reads a backend's name as BackendVar takes it ("" and "auto": Auto).
func ParseBackend(name string) (Backend, error) {
	switch name = strings.ToLower(strings.TrimSpace(name)); name {
	case "", "auto":
		return Auto(), nil
	case "onednn", "dnnl":
		if Auto() == OneDNNBF16 {
			return OneDNNBF16, nil
		}
		return OneDNN, nil
	}
	b := Backend(name)
	if err := b.Available(); err != nil && strings.HasPrefix(err.Error(), "unknown") {
		return "", err
	}
	return b, nil
}

// DefaultBackend is the backend NewEngine uses: the one BackendVar names, or Auto. An unknown
// name gives way to Auto, a backend this build or CPU cannot run to its fallback (oneDNN's
// float32 for bfloat16, else Go), each with one warning line on stderr.
var DefaultBackend = sync.OnceValue(func() Backend {
	name := os.Getenv(BackendVar)
	b, err := ParseBackend(name)
	if err != nil {
		b = Auto()
	} else if err = b.Available(); err != nil {
		b = fallback(b)
	}
	if err != nil {
		warn(fmt.Sprintf("net: %s=%s: %v: using %s", BackendVar, name, err, b))
	}
	return b
})

// fallback is the backend that stands in for b: oneDNN in float32 for bfloat16, else Go.
func fallback(b Backend) Backend {
	if b == OneDNNBF16 && OneDNN.Available() == nil {
		return OneDNN
	}
	return Go
}

// warned holds the warnings printed, so that each is printed once.
var warned sync.Map

func warn(line string) {
	if _, dup := warned.LoadOrStore(line, true); !dup {
		fmt.Fprintln(os.Stderr, line)
	}
}

// Describe says what b runs on: the library, the kernels' instruction set.
func (b Backend) Describe() string {
	switch b {
	case OneDNN, OneDNNBF16:
		return fmt.Sprintf("%s (oneDNN %s, %s)", b, dnnl.Version(), dnnl.ISA())
	}
	return fmt.Sprintf("%s (BLAS %s, %s kernels)", b, linalg.Name, linalg.Kernels())
}

// dnnlOptions are the oneDNN backend's choices for a net.
type dnnlOptions struct {
	// chunk is the number of positions run through the net at once: the primitives are built
	// for that batch size (and, for the rest of a batch, for the powers of two below it).
	chunk int
	// winograd runs the tower's 3×3 convolutions by Winograd's F(4×4, 3×3) where oneDNN has
	// it (float32; not in bfloat16): 2.25× fewer multiplications, within
	// 1e-4 of the Go engine like the direct ones.
	winograd bool
}

// dnnlTuning chooses the oneDNN backend's options for m, as measured (2026-11-24, AMD EPYC with
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
