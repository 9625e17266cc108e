//go:build !amd64

package fpu

// Elsewhere than amd64 the FPU's modes are left as they are.

// MXCSR is 0.
func MXCSR() uint32 { return 0 }

// SetMXCSR does nothing.
func SetMXCSR(v uint32) {}
