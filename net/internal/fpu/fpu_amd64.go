package fpu

// MXCSR reads the thread's SSE control and status register.
func MXCSR() uint32

// SetMXCSR writes it.
func SetMXCSR(v uint32)
