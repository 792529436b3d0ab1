package rngs

import (
	"math"
	"testing"
)

// TestNormalsFillMatchesStdlib: a stream's Normals.Fill returns, bit
// for bit, what the same stream's Rand.NormFloat64 returns (the oracle:
// math/rand/v2 itself, on its own ChaCha8), over 2·10⁶ draws of several seeds in chunks of
// varying size, with the stream's own draws (Float64, Rand.NormFloat64) in
// between continuing one sequence; the ziggurat's other exits (the tail
// beyond layer 0, the wedges), ≈ 1% of draws, are among them.
func TestNormalsFillMatchesStdlib(t *testing.T) {
	if !zigTables().ok {
		t.Fatal("no table read off rand.Rand.NormFloat64")
	}
	draws, tails := 0, 0
	for seed := range 4 {
		s := Derive("normals-test", string(rune('a'+seed)))
		fast := New(s)
		nf := fast.Normals("noise")
		fr, rr := fast.Get("noise"), stdlibStream(s, "noise")
		buf := make([]float64, 1000)
		for chunk := 0; draws < (seed+1)*500_000; chunk++ {
			n := 1 + chunk*37%len(buf)
			nf.Fill(buf[:n])
			for i, got := range buf[:n] {
				want := rr.NormFloat64()
				if math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("seed %d, draw %d: Fill gave %v, rand.Rand.NormFloat64 %v", seed, draws+i, got, want)
				}
				if math.Abs(want) > 3.442619855899 { // [MT00]'s r: beyond layer 0's box
					tails++
				}
			}
			draws += n
			if chunk%3 == 0 {
				if a, b := fr.Float64(), rr.Float64(); a != b {
					t.Fatalf("seed %d: the stream's Float64 after Fill %v, want %v", seed, a, b)
				}
			}
		}
	}
	if tails == 0 {
		t.Errorf("no draw beyond the ziggurat's base layer in %d: the tail exit went untested", draws)
	}
}

// BenchmarkNormals compares Fill with a Rand.NormFloat64 loop on one stream
// (798 draws: a k × p sketch of Boston, k = 57, p = 14).
func BenchmarkNormals(b *testing.B) {
	buf := make([]float64, 57*14)
	b.Run("rand.NormFloat64", func(b *testing.B) {
		r := New(Seed{}).Get("x")
		for b.Loop() {
			for i := range buf {
				buf[i] = r.NormFloat64()
			}
		}
	})
	b.Run("Fill", func(b *testing.B) {
		n := New(Seed{}).Normals("x")
		for b.Loop() {
			n.Fill(buf)
		}
	})
}

// TestNormalsTableSelfCheck: the table read off Rand.NormFloat64 passes
// its self-check, and a table off by one step in one layer's exit bound or
// width fails it (Normals then fall back to Rand.NormFloat64), as would the
// table of a math/rand/v2 whose ziggurat the probes misread.
func TestNormalsTableSelfCheck(t *testing.T) {
	z := zigTables()
	if !z.ok || !z.agrees() {
		t.Fatal("the probed table fails its self-check")
	}
	wide := *z
	wide.kn[5] += 1 << 28 // accepts draws the stdlib sends to its wedge test
	if wide.agrees() {
		t.Error("a table with a too-wide exit bound passes the self-check")
	}
	scaled := *z
	scaled.wn[7] = math.Nextafter32(scaled.wn[7], 1)
	if scaled.agrees() {
		t.Error("a table with a wrong layer width passes the self-check")
	}
}
