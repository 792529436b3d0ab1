//go:build !amd64 || noasm || gccgo || safe

package rngs

// haveBlockKernel is false: block16 runs block16Go. (A variable, as on
// amd64, so that tests may set it.)
var haveBlockKernel = false

func block16AVX512(*[4]uint64, *[cycleWords]uint64) { panic("unreachable") }
