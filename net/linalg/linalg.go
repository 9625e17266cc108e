package linalg

import (
	"os"
	"syscall"

	"golang.org/x/sys/cpu"
	"gonum.org/v1/gonum/blas"
)

// Float32 is the single-precision BLAS the inference engine calls: OpenBLAS with the tag
// openblas, gonum's pure-Go implementation without it; single-threaded, allocation-free calls.
var Float32 blas.Float32 = engineImpl

// Implementation is this build's whole BLAS (real and complex, single and double precision),
// for a library that takes one: the training graph hands it to gorgonia. Unlike Float32's, its
// calls may spread over threads: gonum's GEMM over GOMAXPROCS goroutines, OpenBLAS's over its
// threads.
var Implementation interface {
	blas.Float32
	blas.Float64
	blas.Complex64
	blas.Complex128
} = impl

// Name names the BLAS of this build: "openblas" or "gonum".
const Name = name

// coreTypeVar is the variable OpenBLAS reads at load time to choose its kernels.
const coreTypeVar = "OPENBLAS_CORETYPE"

// Setup prepares the process for this build's BLAS; call it first thing in main, before any
// goroutine starts. With OpenBLAS on a CPU with AVX-512F and OPENBLAS_CORETYPE unset, it sets
// OPENBLAS_CORETYPE=SkylakeX and re-executes the binary with the same arguments and
// environment (the kernels are chosen when the library loads, so this is the only way); it
// returns only if no re-exec was needed or the re-exec failed (the error says why; the process
// can go on with the kernels it has). It then limits BLAS to one thread.
func Setup() error {
	if reexecNeeded() {
		exe, err := os.Executable()
		if err == nil {
			os.Setenv(coreTypeVar, "SkylakeX")
			err = syscall.Exec(exe, os.Args, os.Environ())
			// Exec returns only on failure: undo, so the variable tells the truth.
			os.Unsetenv(coreTypeVar)
		}
		if err != nil {
			SetThreads(1)
			return err
		}
	}
	SetThreads(1)
	return nil
}

// reexecNeeded tells whether Setup must re-execute the binary to get OpenBLAS's AVX-512 kernels.
func reexecNeeded() bool {
	if Name != "openblas" || !cpu.X86.HasAVX512F {
		return false
	}
	_, set := os.LookupEnv(coreTypeVar)
	return !set
}

// CoreType is OPENBLAS_CORETYPE as this process sees it ("" when unset), for reports.
func CoreType() string { return os.Getenv(coreTypeVar) }
