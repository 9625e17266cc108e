// Package fpu reads and writes the thread's SSE control register (MXCSR) on amd64, for the
// flush-to-zero and denormals-are-zero modes of inference. Its own package because a package
// that uses cgo (net, built with oneDNN) may not hold Go assembly.
//
// MXCSR belongs to the OS thread: lock the goroutine to its thread (runtime.LockOSThread)
// before changing it, and restore it before unlocking.
package fpu

// Flush is MXCSR's flush-to-zero (bit 15) and denormals-are-zero (bit 6).
const Flush = 0x8040
