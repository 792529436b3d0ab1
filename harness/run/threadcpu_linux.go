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

// processCPU is the CPU time of the whole process so far, all its threads
// (getrusage's RUSAGE_SELF, user and system), or −1 when it cannot be read.
func processCPU() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
