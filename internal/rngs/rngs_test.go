package rngs

import (
	"math"
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
