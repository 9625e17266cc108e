package nettrain

import (
	"fmt"
	"os"
	"testing"

	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/net/linalg"
)

// TestMain prepares the BLAS as the binary does (with -tags openblas on an AVX-512 CPU that
// re-executes the test binary with OPENBLAS_CORETYPE=SkylakeX), so tests and benchmarks run on
// the kernels the program uses. Where the default engine would be bfloat16 (oneDNN on AMX, with
// the build tag dnnl) it is oneDNN's float32 instead, unless ZERO_BACKEND says otherwise: the
// parity tests hold the engine to gorgonia's float32 forward pass within 1e-4, which bf16's 8
// significant bits cannot meet (0.04–0.09 relative); bf16 is held to float32 by net's
// TestOneDNNBF16, with its own bounds.
func TestMain(m *testing.M) {
	if err := linalg.Setup(); err != nil {
		fmt.Fprintln(os.Stderr, "linalg:", err)
	}
	if os.Getenv(net.BackendVar) == "" && net.Auto() == net.OneDNNBF16 {
		os.Setenv(net.BackendVar, string(net.OneDNN))
		fmt.Fprintf(os.Stderr, "net/nettrain: %s=%s (the parity tests are float32's)\n", net.BackendVar, net.OneDNN)
	}
	os.Exit(m.Run())
}
