//go:build !unix

package mechanisms

// processCPU reports no CPU time where getrusage is missing.
func processCPU() (float64, bool) { return 0, false }
