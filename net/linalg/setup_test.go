package linalg

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"
)

func TestMain(m *testing.M) {
	if err := Setup(); err != nil {
		fmt.Fprintln(os.Stderr, "linalg:", err)
	}
	os.Exit(m.Run())
}

// TestSetup checks what Setup leaves behind: with OpenBLAS on an AVX-512 CPU the process runs
// (re-executed) with OPENBLAS_CORETYPE set and OpenBLAS on the SkylakeX kernels, one thread.
func TestSetup(t *testing.T) {
	t.Logf("BLAS %s, %s kernels, %d thread(s), OPENBLAS_CORETYPE=%q", Name, Kernels(), Threads(), CoreType())
	if Threads() != 1 {
		t.Errorf("%d BLAS threads after Setup, want 1", Threads())
	}
	if Name != "openblas" || !cpu.X86.HasAVX512F {
		return
	}
	if CoreType() == "" {
		t.Error("OPENBLAS_CORETYPE unset after Setup on an AVX-512 CPU")
	}
	if CoreType() == "SkylakeX" && !strings.Contains(strings.ToLower(Kernels()), "skylakex") {
		t.Errorf("OPENBLAS_CORETYPE=SkylakeX but OpenBLAS runs %s kernels: the variable was set too late", Kernels())
	}
	if reexecNeeded() {
		t.Error("Setup would re-execute again")
	}
}
