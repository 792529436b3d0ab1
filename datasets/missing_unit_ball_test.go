package datasets

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// TestMissingUnitBallPattern checks the declared missingness exactly (p rows,
// features_per_row distinct sorted features each), the unit ball, the target
// noise, and that the complete rows do not depend on the missingness params.
func TestMissingUnitBallPattern(t *testing.T) {
	p := MissingUnitBallParams{N: 4000, D: 6, MissingFraction: 0.25, FeaturesPerRow: 3, Seed: 9}
	ds, miss, err := GenerateMissingUnitBall(p)
	if err != nil {
		t.Fatal(err)
	}
	checkWellFormed(t, ds, Regression)
	if p.MissingRows() != 1000 {
		t.Fatalf("MissingRows = %d, want round(0.25·4000) = 1000", p.MissingRows())
	}
	rows := 0
	for i, m := range miss {
		if m == nil {
			continue
		}
		rows++
		if len(m) != 3 || !slices.IsSorted(m) || m[0] == m[1] || m[1] == m[2] || m[0] < 0 || m[2] >= 6 {
			t.Fatalf("row %d: missing features %v, want 3 distinct sorted indices in 0..5", i, m)
		}
	}
	if rows != 1000 {
		t.Errorf("%d rows with missing features, want 1000", rows)
	}
	clipped := 0
	for i := 0; i < ds.Rows(); i++ {
		nrm := floats.Norm(ds.X.RawRowView(i), 2)
		if nrm > 1+1e-12 {
			t.Fatalf("row %d has norm %v", i, nrm)
		}
		if nrm > 1-1e-12 {
			clipped++
		}
	}
	// ‖x‖² ~ χ²_6/6: P(χ²_6 > 6) = 0.4232 (scipy.stats.chi2.sf(6, 6)); binomial sd ≈ 0.008.
	if f := float64(clipped) / 4000; math.Abs(f-0.4232) > 0.04 {
		t.Errorf("clipped fraction %v, want ≈ 0.42", f)
	}
	if v := residualVariance(t, ds); math.Abs(v-0.01) > 0.002 {
		t.Errorf("residual variance %v, want noise² = 0.01", v)
	}
	other, _, err := GenerateMissingUnitBall(MissingUnitBallParams{N: 4000, D: 6, MissingFraction: 0.5, FeaturesPerRow: 1, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	if !sameData([]*Dataset{ds}, []*Dataset{other}) {
		t.Error("the complete rows depend on the missingness params")
	}
}

func TestMissingUnitBallValidate(t *testing.T) {
	for _, p := range []MissingUnitBallParams{{MissingFraction: 1}, {N: 10, MissingFraction: 0.99}, {D: 3, FeaturesPerRow: 4}, {Noise: -1}} {
		if err := p.Validate(); err == nil {
			t.Errorf("%+v: no validation error", p)
		}
	}
}
