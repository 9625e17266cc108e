package nettrain

import (
	"fmt"
	"os"
	"testing"

	"github.com/zerogames/zero/net/linalg"
)

// TestMain prepares the BLAS as the binary does (with -tags openblas on an AVX-512 CPU that
// re-executes the test binary with OPENBLAS_CORETYPE=SkylakeX), so tests and benchmarks run on
// the kernels the program uses.
func TestMain(m *testing.M) {
	if err := linalg.Setup(); err != nil {
		fmt.Fprintln(os.Stderr, "linalg:", err)
	}
	os.Exit(m.Run())
}
