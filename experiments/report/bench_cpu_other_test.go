//go:build !unix

package report

import "time"

// processCPU returns 0: the benchmarks read CPU time on Unix only.
func processCPU() time.Duration { return 0 }
