package rngs

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

func TestDeriveIsLengthPrefixed(t *testing.T) {
	if Derive("ab", "c") == Derive("a", "bc") {
		t.Fatal("Derive(\"ab\",\"c\") == Derive(\"a\",\"bc\"): parts are not separated")
	}
	if a, b := Derive("x"), Derive("x"); a != b {
		t.Fatal("Derive is not deterministic")
	}
}

func TestTrialSeedDependsOnEveryPart(t *testing.T) {
	base := TrialSeed(1, "cell", 0)
	for name, other := range map[string]Seed{
		"base seed": TrialSeed(2, "cell", 0),
		"cell":      TrialSeed(1, "cell2", 0),
		"trial":     TrialSeed(1, "cell", 1),
	} {
		if other == base {
			t.Errorf("changing the %s does not change the seed", name)
		}
	}
}

func TestStreamsAreNamedAndIndependentOfOrder(t *testing.T) {
	seed := TrialSeed(7, "k", 3)
	a := New(seed)
	x1 := a.Get("noise").Uint64()
	_ = a.Get("sketch").Uint64() // drawing from another stream must not shift "noise"
	x2 := a.Get("noise").Uint64()

	b := New(seed)
	y1 := b.Get("noise").Uint64()
	y2 := b.Get("noise").Uint64()
	if x1 != y1 || x2 != y2 {
		t.Fatalf("stream %q depends on draws from another stream", "noise")
	}
	if g1, g2 := a.Get("noise"), a.Get("noise"); g1 != g2 {
		t.Fatal("Get does not return the same generator for the same name")
	}
	if New(seed).Get("noise").Uint64() == New(seed).Get("sketch").Uint64() {
		t.Fatal("two names gave the same first draw")
	}
	if New(seed).Sub("run0").Get("noise").Uint64() == x1 {
		t.Fatal("Sub streams coincide with the parent's")
	}
}

// TestStreamUniformity is a coarse sanity check that a stream's normal draws
// have mean 0 and variance 1 (10^5 draws: SE of the mean 0.0032, of the
// variance ≈ 0.0045; bounds at about 5 SE).
func TestStreamUniformity(t *testing.T) {
	r := New(Derive("moments")).Get("noise")
	const n = 100000
	var s, s2 float64
	for i := 0; i < n; i++ {
		z := r.NormFloat64()
		s += z
		s2 += z * z
	}
	mean := s / n
	variance := s2/n - mean*mean
	if math.Abs(mean) > 0.016 || math.Abs(variance-1) > 0.025 {
		t.Fatalf("normal draws: mean %.4f, variance %.4f", mean, variance)
	}
}

// TestDeriveVectors pins Derive's bits: SHA-256 over each part's length (8
// bytes, little-endian) and bytes, computed here by hand, for short parts,
// an empty part and parts longer than Derive's stack buffer; and one
// TrialSeed against its definition.
func TestDeriveVectors(t *testing.T) {
	oracle := func(parts ...string) Seed {
		var msg []byte
		for _, p := range parts {
			var n [8]byte
			binary.LittleEndian.PutUint64(n[:], uint64(len(p)))
			msg = append(append(msg, n[:]...), p...)
		}
		return sha256.Sum256(msg)
	}
	long := strings.Repeat("x", 300)
	for _, parts := range [][]string{{}, {""}, {"dplab/trial", "50", "cell|key", "7"}, {long}, {"a", long, "b"}} {
		if got, want := Derive(parts...), oracle(parts...); got != want {
			t.Errorf("Derive(%.20q…) = %x, want %x", parts, got, want)
		}
	}
	if got, want := TrialSeed(18446744073709551615, "k", 123456), oracle("dplab/trial", "18446744073709551615", "k", "123456"); got != want {
		t.Errorf("TrialSeed = %x, want %x", got, want)
	}
	// A fixed value (SHA-256 of the empty message: Derive of no parts).
	if got := Derive().Hex(); got != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("Derive() = %s", got)
	}
}
