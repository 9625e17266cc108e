// Package linalg chooses the BLAS that the network runs on, and prepares the process for it.
//
// Two builds, one API:
//
//   - the default build (no tags, no cgo needed) uses gonum's pure-Go BLAS;
//   - the build with the tag openblas (go build -tags openblas) uses OpenBLAS through gonum's
//     netlib binding (cgo, Debian's libopenblas-dev), about 8× faster on the GEMMs that make the
//     network, 16× with the SkylakeX kernels on a CPU with AVX-512.
//
// [Float32] is the implementation the inference engine calls; [Implementation] is the whole
// BLAS, which the training graph hands to gorgonia. This package does not import gorgonia, so
// the engine, and everything that only plays, links no training code. OpenBLAS picks its
// kernels from OPENBLAS_CORETYPE when the library is loaded, before any Go code runs, so [Setup]
// must be the first thing a binary does: where the CPU has AVX-512 and the variable is unset it
// sets it and re-executes the binary.
//
// Threads: each inference worker calls BLAS from its own goroutine and the engine is meant to
// scale by workers, so Setup limits OpenBLAS to one thread ([SetThreads] changes that).
package linalg
