//go:build !amd64 || noasm || gccgo || safe

package rngs

// haveBlockKernel is false: ChaCha8 draws from math/rand/v2's ChaCha8. (A
// variable, as on amd64, so that tests may set it.)
var haveBlockKernel = false

func block16AVX512(*[4]uint64, *[cycleWords]uint64) { panic("unreachable") }
