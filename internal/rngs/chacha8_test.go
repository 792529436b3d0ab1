package rngs

import (
	"math/rand/v2"
	"testing"
)

// TestChaCha8MatchesStdlib: ChaCha8 gives rand.NewChaCha8's words bit for
// bit (the oracle: math/rand/v2 itself), for 16 seeds (among them the
// all-zero and all-one seeds) and 2·10⁶ words in all, across many reseeds
// (one per 124 words), drawn by Uint64 and by Fill in runs of varying
// length (1 to 500 words, crossing the 124-word boundaries at every
// offset), with the block kernel of this build and CPU (where there is
// one) and with the fallback that draws from math/rand/v2.
func TestChaCha8MatchesStdlib(t *testing.T) {
	kernels := map[string]bool{"kernel": haveBlockKernel, "fallback": false}
	for name, kernel := range kernels {
		t.Run(name, func(t *testing.T) {
			defer setBlockKernel(kernel)()
			words := 0
			buf := make([]uint64, 500)
			for seed := range 16 {
				s := Derive("chacha8-test", string(rune('a'+seed)))
				switch seed {
				case 0:
					s = Seed{}
				case 1:
					for i := range s {
						s[i] = 0xff
					}
				}
				got, want := NewChaCha8(s), rand.NewChaCha8(s)
				for run := 0; words < (seed+1)*125_000; run++ {
					var g []uint64
					if run%2 == 0 {
						g = buf[:1+run*37%len(buf)]
						got.Fill(g)
					} else {
						g = buf[:1+run%7]
						for i := range g {
							g[i] = got.Uint64()
						}
					}
					for i, v := range g {
						if w := want.Uint64(); v != w {
							t.Fatalf("seed %d, word %d: %#x, rand.ChaCha8 %#x", seed, words+i, v, w)
						}
					}
					words += len(g)
				}
			}
		})
	}
}

// TestStreamsMatchStdlib: a stream (Get, Seed.Rand) draws what
// math/rand/v2's ChaCha8 of the same seed draws, through rand.Rand's
// methods, and Source continues the stream's sequence.
func TestStreamsMatchStdlib(t *testing.T) {
	s := New(Derive("streams-stdlib"))
	got, want := s.Get("x"), stdlibStream(s.Seed(), "x")
	for i := range 10_000 {
		if a, b := got.NormFloat64(), want.NormFloat64(); a != b {
			t.Fatalf("draw %d: the stream gave the normal %v, want %v", i, a, b)
		}
		if a, b := s.Source("x").Uint64(), want.Uint64(); a != b {
			t.Fatalf("draw %d: Source's Uint64 %#x, want %#x", i, a, b)
		}
	}
	seed := Derive("seed-rand")
	got, want = seed.Rand(), rand.New(rand.NewChaCha8(seed))
	for i := range 1000 {
		if a, b := got.Uint64(), want.Uint64(); a != b {
			t.Fatalf("Seed.Rand draw %d: %#x, want %#x", i, a, b)
		}
	}
}

// stdlibStream is the stream Get(name) of New(seed) on math/rand/v2's own
// ChaCha8: the oracle of the tests.
func stdlibStream(seed Seed, name string) *rand.Rand {
	return rand.New(rand.NewChaCha8(Derive("dplab/stream", string(seed[:]), name)))
}

// setBlockKernel sets haveBlockKernel to on (false, or its own value)
// and returns the function that restores it.
func setBlockKernel(on bool) func() {
	old := haveBlockKernel
	haveBlockKernel = on
	return func() { haveBlockKernel = old }
}

// BenchmarkChaCha8 draws 798 words (a k × p sketch of Boston, k = 57,
// p = 14) from math/rand/v2's ChaCha8 and from ChaCha8's Uint64 and Fill
// (with the block kernel of this build and CPU, and with the fallback).
func BenchmarkChaCha8(b *testing.B) {
	buf := make([]uint64, 798)
	b.Run("rand.ChaCha8.Uint64", func(b *testing.B) {
		c := rand.NewChaCha8(Seed{})
		for b.Loop() {
			for i := range buf {
				buf[i] = c.Uint64()
			}
		}
	})
	b.Run("Uint64", func(b *testing.B) {
		c := NewChaCha8(Seed{})
		for b.Loop() {
			for i := range buf {
				buf[i] = c.Uint64()
			}
		}
	})
	b.Run("Fill", func(b *testing.B) {
		c := NewChaCha8(Seed{})
		for b.Loop() {
			c.Fill(buf)
		}
	})
	b.Run("Fill,fallback", func(b *testing.B) {
		defer setBlockKernel(false)()
		c := NewChaCha8(Seed{})
		for b.Loop() {
			c.Fill(buf)
		}
	})
}
