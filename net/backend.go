package net

import (
	"fmt"
	"os"
	"strings"
	"sync"
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

// backendNames are the names BackendVar and ParseBackend take, for messages.
const backendNames = "go, onednn, onednn-fp32, onednn-bf16, auto"

// backend is one engine's forward pass, built by its backend's factory for one Model's
// architecture. An Engine holds one and calls it for one goroutine, the arguments checked.
type backend interface {
	// evaluate writes every action's logit and the value of n positions (Engine.Evaluate).
	evaluate(n int, obs, logits, value []float32) error
	// evaluateLegal writes the logit of each position's legal actions into b.Policy, and its
	// values (Engine.EvaluateLegalLogits); a backend that runs by chunks has evaluateLegal
	// (engine.go) do it.
	evaluateLegal(b *Batch) error
	// swap makes it run m, of the same game and architecture, from its next call on.
	swap(m *Model) error
	// describe says what it runs on: the backend, its library and kernels (Engine.Describe).
	describe() string
	// close releases what it holds outside Go's memory; it is not used after.
	close()
}

// factory makes one backend's engines.
type factory struct {
	name Backend
	// available says why this build or CPU cannot run it, or nil if they can.
	available func() error
	// auto tells whether Auto may choose it where it is available.
	auto func() bool
	// fallback is what stands in for it where it is not available ("": Go).
	fallback Backend
	// bf16: it computes in bfloat16 (zero bench net holds it to the bfloat16 yardstick).
	bf16 bool
	// describe says what backend b (its name) runs on: the library, the kernels.
	describe func(b Backend) string
	// build makes its backend for m, or says why it cannot.
	build func(m *Model) (backend, error)
}

// factories are the backends, in priority order: Auto walks the list and takes the first
// available and auto; Backends lists it first, then the others available in this order.
var factories = []factory{
	onednnFactory(true),  // onednn-bf16: first where oneDNN runs on AMX
	onednnFactory(false), // onednn-fp32: first elsewhere, when built with the tag dnnl
	goFactory,            // go: always there, the last fallback
}

// factoryOf is b's factory, nil if b names none.
func factoryOf(b Backend) *factory {
	for i := range factories {
		if factories[i].name == b {
			return &factories[i]
		}
	}
	return nil
}

// always is the auto of a backend that Auto may choose wherever it is available.
func always() bool { return true }

// Known lists every backend of the factory list, in its order, whether this build and CPU can
// run it or not: the names a help text offers.
func Known() []Backend {
	names := make([]Backend, len(factories))
	for i, f := range factories {
		names[i] = f.name
	}
	return names
}

// Backends lists the backends this build can run on this CPU, the one Auto chooses first, then
// the others in the order of factories.
func Backends() []Backend {
	var first Backend
	var rest []Backend
	for _, f := range factories {
		switch {
		case f.available() != nil:
		case first == "" && f.auto():
			first = f.name
		default:
			rest = append(rest, f.name)
		}
	}
	return append([]Backend{first}, rest...)
}

// Auto is the backend chosen unless one is forced: oneDNN in bfloat16 where its kernels run on
// AMX, oneDNN in float32 on any other CPU when the binary is built with the tag dnnl, else Go.
func Auto() Backend { return Backends()[0] }

// Available tells whether this build can run b on this CPU, and if not, why.
func (b Backend) Available() error {
	f := factoryOf(b)
	if f == nil {
		return fmt.Errorf("unknown backend %q (%s)", string(b), backendNames)
	}
	if err := f.available(); err != nil {
		return fmt.Errorf("%s: %w", b, err)
	}
	return nil
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
	if factoryOf(b) == nil {
		return "", b.Available()
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

// fallback is the backend that stands in for b: the first its factory's fallbacks lead to that
// is available (oneDNN in float32 for bfloat16), else Go.
func fallback(b Backend) Backend {
	for f := factoryOf(b); f != nil && f.fallback != ""; f = factoryOf(f.fallback) {
		if f.fallback.Available() == nil {
			return f.fallback
		}
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
	if f := factoryOf(b); f != nil {
		return f.describe(b)
	}
	return goFactory.describe(b)
}

// bf16 tells whether b computes in bfloat16.
func (b Backend) bf16() bool {
	f := factoryOf(b)
	return f != nil && f.bf16
}
