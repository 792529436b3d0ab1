//go:build !linux

package run

import "time"

// threadCPU is −1 here: the thread's CPU time is read on Linux only, and
// the estimate uses wall times alone.
func threadCPU() time.Duration { return -1 }

// threadWait is −1 here, as threadCPU.
func threadWait() time.Duration { return -1 }

// processCPU is −1 here, as threadCPU.
func processCPU() time.Duration { return -1 }
