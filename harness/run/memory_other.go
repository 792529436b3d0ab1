//go:build !linux

package run

import (
	"math"
	"runtime/debug"
)

// memoryBudget returns how much memory the datasets of a run may take at
// once: half of GOMEMLIMIT, the only bound known here; 0 without it.
func memoryBudget() (int64, string) {
	if l := debug.SetMemoryLimit(-1); l < math.MaxInt64 {
		return l / 2, "half of GOMEMLIMIT"
	}
	return 0, ""
}
