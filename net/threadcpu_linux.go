package net

import "golang.org/x/sys/unix"

// threadCPU is the CPU time of the calling OS thread, in nanoseconds; measured around a call
// by a goroutine locked to its thread, it is the call's own CPU time (not the time the thread
// waited for a core, which the wall clock would count on a busy machine).
func threadCPU() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return ts.Nano()
}
