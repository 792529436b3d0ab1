package rngs

import (
	"encoding/binary"
	"math/bits"
)

// ChaCha8 is math/rand/v2's ChaCha8 generator, the same uint64 sequence from
// the same seed (bit for bit, reseeding included), computed sixteen blocks at
// a time: the chacha8rand construction of [CV23] (ChaCha8's block function,
// [Ber08] §2 with 8 rounds, keyed by the seed and applied with counters
// 0…15; only the key words are added back after the rounds; the 16 blocks,
// four at a time with their 32-bit words interleaved, give 124 output words
// and the 4 words that key the next 16 blocks). Where the CPU has AVX-512 the
// 16 blocks are one vector each of the 16 state words; elsewhere (or with
// -tags noasm) they are computed in Go.
//
// Uint64 draws one word; Fill draws many. A ChaCha8 belongs to one goroutine.
// TestChaCha8MatchesStdlib holds it to rand.NewChaCha8 bit for bit.
//
// Ref: [CV23], [Ber08].
type ChaCha8 struct {
	buf  [cycleWords]uint64 // the current 16 blocks; buf[outWords:] keys the next
	i    int                // next word of buf to return
	seed [4]uint64          // the key of buf's blocks
}

const (
	cycleWords = 128 // 16 blocks of 64 bytes, as uint64s
	outWords   = 124 // the ones output; the last 4 are the next key ([CV23])
)

// NewChaCha8 returns the generator that rand.NewChaCha8(seed) is: the seed's
// 32 bytes are the four little-endian 64-bit words of its first key.
func NewChaCha8(seed [32]byte) *ChaCha8 {
	c := &ChaCha8{}
	for k := range c.seed {
		c.seed[k] = binary.LittleEndian.Uint64(seed[8*k:])
	}
	block16(&c.seed, &c.buf)
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
// the previous 16). It is not inlined, so that Uint64 is.
//
//go:noinline
func (c *ChaCha8) refill() {
	copy(c.seed[:], c.buf[outWords:])
	block16(&c.seed, &c.buf)
	c.i = 0
}

// block16 sets out to the 16 ChaCha8 blocks of key seed and counters 0…15,
// in chacha8rand's order.
func block16(seed *[4]uint64, out *[cycleWords]uint64) {
	if haveBlockKernel {
		block16AVX512(seed, out)
		return
	}
	block16Go(seed, out)
}

// block16Go is block16 in Go. ChaCha's state ([Ber08] §2): the four
// constant words of "expand 32-byte k", the 8 key words (the seed's
// little-endian 32-bit halves), the 32-bit block counter, and three words
// that chacha8rand sets to 0 ([CV23]). After 8 rounds, only the key words
// are added back ([CV23]). Word w of block b is 32-bit word 4·(16·(b/4) + w)
// + b%4 of out, as the blocks are laid out four at a time ([CV23]).
func block16Go(seed *[4]uint64, out *[cycleWords]uint64) {
	var key [8]uint32
	for k, s := range seed {
		key[2*k], key[2*k+1] = uint32(s), uint32(s>>32)
	}
	var words [cycleWords * 2]uint32
	for b := range 16 {
		x := [16]uint32{
			0x61707865, 0x3320646e, 0x79622d32, 0x6b206574,
			key[0], key[1], key[2], key[3], key[4], key[5], key[6], key[7],
			uint32(b), 0, 0, 0,
		}
		for range 4 { // 4 double rounds: columns, then diagonals ([Ber08] §2)
			x[0], x[4], x[8], x[12] = quarterRound(x[0], x[4], x[8], x[12])
			x[1], x[5], x[9], x[13] = quarterRound(x[1], x[5], x[9], x[13])
			x[2], x[6], x[10], x[14] = quarterRound(x[2], x[6], x[10], x[14])
			x[3], x[7], x[11], x[15] = quarterRound(x[3], x[7], x[11], x[15])
			x[0], x[5], x[10], x[15] = quarterRound(x[0], x[5], x[10], x[15])
			x[1], x[6], x[11], x[12] = quarterRound(x[1], x[6], x[11], x[12])
			x[2], x[7], x[8], x[13] = quarterRound(x[2], x[7], x[8], x[13])
			x[3], x[4], x[9], x[14] = quarterRound(x[3], x[4], x[9], x[14])
		}
		for k := range key {
			x[4+k] += key[k]
		}
		base := 64*(b/4) + b%4
		for w, v := range x {
			words[base+4*w] = v
		}
	}
	for i := range out {
		out[i] = uint64(words[2*i]) | uint64(words[2*i+1])<<32
	}
}

// quarterRound is ChaCha's quarter-round ([Ber08] §2).
func quarterRound(a, b, c, d uint32) (uint32, uint32, uint32, uint32) {
	a += b
	d = bits.RotateLeft32(d^a, 16)
	c += d
	b = bits.RotateLeft32(b^c, 12)
	a += b
	d = bits.RotateLeft32(d^a, 8)
	c += d
	b = bits.RotateLeft32(b^c, 7)
	return a, b, c, d
}
