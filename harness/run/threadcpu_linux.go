package run

import (
	"fmt"
	"os"
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

// threadWait is how long the calling thread has waited, runnable, for a
// CPU (the second field of /proc/thread-self/schedstat: the time on a run
// queue), or −1 when it cannot be read. Time asleep (a timer, a lock, a
// child process, the disk) is not in it.
func threadWait() time.Duration {
	b, err := os.ReadFile("/proc/thread-self/schedstat")
	if err != nil {
		return -1
	}
	var run, wait int64
	if _, err := fmt.Sscan(string(b), &run, &wait); err != nil {
		return -1
	}
	return time.Duration(wait)
}
