//go:build !noasm && !gccgo && !safe

package rngs

import "golang.org/x/sys/cpu"

// haveBlockKernel reports whether block16AVX512 runs.
var haveBlockKernel = cpu.X86.HasAVX512F

// block16AVX512 is block16Go with one Z register per ChaCha state word and
// one lane per block.
//
//go:noescape
func block16AVX512(seed *[4]uint64, out *[cycleWords]uint64)
