package rngs

import (
	"encoding/binary"
	"math/rand/v2"
)

// ChaCha8 is math/rand/v2's ChaCha8 generator, the same uint64 sequence from
// the same seed (bit for bit, reseeding included), computed sixteen blocks at
// a time where the CPU has AVX-512: the chacha8rand construction of [CV23]
// (ChaCha8's block function, [Ber08] §2 with 8 rounds, keyed by the seed and
// applied with counters 0…15; only the key words are added back after the
// rounds; the 16 blocks, four at a time with their 32-bit words interleaved,
// give 124 output words and the 4 words that key the next 16 blocks), one Z
// register per state word and one lane per block (block16AVX512). Elsewhere
// (or with -tags noasm) it draws its words, 124 at a time, from
// math/rand/v2's own ChaCha8 (whose block code is faster than Go's would be
// on SSE2 or NEON).
//
// Uint64 draws one word; Fill draws many. A ChaCha8 belongs to one goroutine;
// the zero value is not usable (call NewChaCha8).
// TestChaCha8MatchesStdlib holds it to rand.NewChaCha8 bit for bit.
//
// Ref: [CV23], [Ber08].
type ChaCha8 struct {
	buf  [cycleWords]uint64 // the current 16 blocks; buf[outWords:] keys the next
	i    int                // next word of buf to return
	seed [4]uint64          // the key of buf's blocks
	std  *rand.ChaCha8      // without the kernel: the generator drawn from
}

const (
	cycleWords = 128 // 16 blocks of 64 bytes, as uint64s
	outWords   = 124 // the ones output; the last 4 are the next key ([CV23])
)

// NewChaCha8 returns the generator that rand.NewChaCha8(seed) is: the seed's
// 32 bytes are the four little-endian 64-bit words of its first key.
func NewChaCha8(seed [32]byte) *ChaCha8 {
	c := &ChaCha8{}
	if !haveBlockKernel {
		c.std = rand.NewChaCha8(seed)
		c.i = outWords
		return c
	}
	for k := range c.seed {
		c.seed[k] = binary.LittleEndian.Uint64(seed[8*k:])
	}
	block16AVX512(&c.seed, &c.buf)
	return c
}

// Uint64 returns the next word of the stream.
func (c *ChaCha8) Uint64() uint64 {
	if c.i >= outWords {
		c.refill()
	}
	c.i++
	return c.buf[c.i-1]
}

// Fill sets dst to the next len(dst) words of the stream, in order: the
// words that len(dst) calls of Uint64 would return.
func (c *ChaCha8) Fill(dst []uint64) {
	for len(dst) > 0 {
		k := copy(dst, c.buffered())
		c.i += k
		dst = dst[k:]
	}
}

// buffered returns the words computed and not yet drawn, at least one
// (it computes the next 16 blocks if none is left). The caller draws the
// first k of them by adding k to c.i.
func (c *ChaCha8) buffered() []uint64 {
	if c.i >= outWords {
		c.refill()
	}
	return c.buf[c.i:outWords]
}

// refill rekeys with the last four words of the spent blocks and computes
// the next sixteen ([CV23]: the key of each 16 blocks is the last 32 bytes of
// the previous 16), or without the kernel draws the next 124 words from
// c.std. It is not inlined, so that Uint64 is.
//
//go:noinline
func (c *ChaCha8) refill() {
	c.i = 0
	if c.std != nil {
		for k := range outWords {
			c.buf[k] = c.std.Uint64()
		}
		return
	}
	copy(c.seed[:], c.buf[outWords:])
	block16AVX512(&c.seed, &c.buf)
}
