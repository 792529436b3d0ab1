package run

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time of the calling thread (clock_gettime's
// CLOCK_THREAD_CPUTIME_ID), or −1 when it cannot be read. The caller locks
// its goroutine to the thread (runtime.LockOSThread) between two readings.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return -1
	}
	return time.Duration(ts.Nano())
}
