package rngs

import (
	"math/bits"
	"math/rand/v2"
)

// Source returns the ChaCha8 source of the stream called name (the one
// Get(name) draws from, created by it if need be), for code that draws
// from it directly; its draws and the stream's continue one sequence.
func (s Streams) Source(name string) *ChaCha8 {
	s.Get(name)
	return s.sources[name]
}

// IntN returns the value that rand.New(c).IntN(n) would, from the same
// draws of c (the same bits, c left in the same state), without a method
// call through rand.Source per draw: math/rand/v2's bounded draw on 64-bit
// platforms, the high word of the product of a uniform 64-bit draw and n,
// redrawn while the low word falls below 2⁶⁴ mod n (Lemire's
// nearly divisionless multiply-and-reject method of [Lem19], as
// Rand.uint64n does it); a power of two n masks one draw. On 32-bit
// platforms it calls Rand.IntN itself. It panics if n ≤ 0, as Rand.IntN
// does.
//
// TestIntNMatchesStdlib holds it to Rand.IntN bit for bit.
//
// Ref: [Lem19].
func IntN(c *ChaCha8, n int) int {
	if n <= 0 {
		panic("rngs: invalid argument to IntN")
	}
	if is32bit {
		return rand.New(c).IntN(n)
	}
	m := uint64(n)
	if m&(m-1) == 0 {
		return int(c.Uint64() & (m - 1))
	}
	hi, lo := bits.Mul64(c.Uint64(), m)
	if lo < m {
		thresh := -m % m
		for lo < thresh {
			hi, lo = bits.Mul64(c.Uint64(), m)
		}
	}
	return int(hi)
}

// Swaps sets dst[i] = j0 + i + IntN(c, n − j0 − i) for i < len(dst), in
// order, with IntN's draws and values: the positions that a Fisher–Yates
// shuffle of n entries swaps with positions j0, j0 + 1, … ([Knu97] §3.4.2,
// Algorithm P), in one call rather than one per draw. It panics unless
// 0 ≤ j0 and j0 + len(dst) ≤ n.
//
// TestSwapsMatchesIntN holds it to IntN bit for bit.
//
// Ref: [Knu97], [Lem19].
func Swaps(c *ChaCha8, dst []int, j0, n int) {
	if j0 < 0 || len(dst) > n-j0 {
		panic("rngs: Swaps past the end")
	}
	for i := range dst {
		j := j0 + i
		m := uint64(n - j)
		if is32bit || m&(m-1) == 0 {
			dst[i] = j + IntN(c, n-j)
			continue
		}
		// IntN's multiply-and-reject; the redraw is rare (lo < m).
		hi, lo := bits.Mul64(c.Uint64(), m)
		if lo < m {
			thresh := -m % m
			for lo < thresh {
				hi, lo = bits.Mul64(c.Uint64(), m)
			}
		}
		dst[i] = j + int(hi)
	}
}

// is32bit reports a platform whose Rand.IntN draws 32-bit words for small n.
const is32bit = ^uint(0)>>32 == 0
