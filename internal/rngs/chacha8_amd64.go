//go:build !noasm && !gccgo && !safe

package rngs

import "golang.org/x/sys/cpu"

// haveBlockKernel reports whether block16AVX512 runs.
var haveBlockKernel = cpu.X86.HasAVX512F

// block16AVX512 sets out to the 16 ChaCha8 blocks of key seed and counters
// 0…15, in chacha8rand's order ([CV23]; word w of block b is 32-bit word
// 4·(16·(b/4) + w) + b%4 of out), with one Z register per ChaCha state word
// and one lane per block.
//
//go:noescape
func block16AVX512(seed *[4]uint64, out *[cycleWords]uint64)
