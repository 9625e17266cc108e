package net

import (
	"runtime"

	"github.com/zerogames/zero/net/internal/fpu"
)

// Denormal floats (below 1.2e-38) take the slow path of the FPU: with flush-to-zero and
// denormals-are-zero off, the engine lost up to 40% on some inputs (issue 19). Inference
// needs no denormals, so every backend runs with both set on its thread, for the call only:
// MXCSR is the thread's, and other goroutines must not inherit it. (The oneDNN backend sets
// them in C, zd_run.)

// flushDenormals locks the goroutine to its thread and sets flush-to-zero and
// denormals-are-zero there; it returns the previous state for restoreFPU.
func flushDenormals() uint32 {
	runtime.LockOSThread()
	old := fpu.MXCSR()
	fpu.SetMXCSR(old | fpu.Flush)
	return old
}

// restoreFPU undoes flushDenormals.
func restoreFPU(old uint32) {
	fpu.SetMXCSR(old)
	runtime.UnlockOSThread()
}
