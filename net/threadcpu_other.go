//go:build !linux

package net

import "time"

// threadCPU falls back to the wall clock where a thread's CPU time is not at hand.
func threadCPU() int64 { return time.Now().UnixNano() }
