//go:build unix

package mechanisms

import "syscall"

// processCPU returns the process's user and system CPU time in
// nanoseconds, and true.
func processCPU() (float64, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return float64(ru.Utime.Nano() + ru.Stime.Nano()), true
}
