//go:build !openblas

package linalg

import "gonum.org/v1/gonum/blas/gonum"

const name = "gonum"

var impl = gonum.Implementation{}

// SetThreads sets the number of threads BLAS may use for one call. gonum's BLAS parallelises
// some level-3 calls itself over GOMAXPROCS and has no such knob: a no-op in this build.
func SetThreads(n int) {}

// Threads is the number of threads one BLAS call may use (0: gonum decides, up to GOMAXPROCS).
func Threads() int { return 0 }

// Kernels names the kernels in use: gonum's pure-Go ones.
func Kernels() string { return "pure Go" }
