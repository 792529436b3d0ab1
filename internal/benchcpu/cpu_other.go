//go:build !unix

// Package benchcpu reads the CPU time a process has used, for benchmarks
// that report CPU seconds per operation beside wall time (a -j 2 run uses
// both cores, so its wall time alone hides half of its cost).
package benchcpu

import "time"

// Process returns 0: the CPU time is read on Unix only.
func Process() time.Duration { return 0 }
