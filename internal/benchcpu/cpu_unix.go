//go:build unix

// Package benchcpu reads the CPU time a process has used, for benchmarks
// that report CPU seconds per operation beside wall time (a -j 2 run uses
// both cores, so its wall time alone hides half of its cost).
package benchcpu

import (
	"syscall"
	"time"
)

// Process returns the CPU time (user + system, all threads) the process
// has used, or 0 if it cannot be read.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
