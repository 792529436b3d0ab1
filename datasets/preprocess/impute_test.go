package preprocess

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

var nan = math.NaN()

// toy is 6 rows × 3 features with missing values; its per-feature observed
// values, worked by hand:
//
//	feature 0: 0.1, 0.3, −0.2, 0.4, 0.0        (5)  mean 0.12, median 0.1, 1-trimmed {0, 0.1, 0.3} → 0.4/3
//	feature 1: 0.2, −0.1, 0.5, 0.3             (4)  mean 0.225, median (0.2 + 0.3)/2 = 0.25, 1-trimmed {0.2, 0.3} → 0.25
//	feature 2: −0.3, 0.1, 0.2, 0.0, −0.1, 0.6  (6)  mean 0.0833…, median (0 + 0.1)/2 = 0.05, 1-trimmed {−0.1, 0, 0.1, 0.2} → 0.05
//
// Rows 1 and 4 miss feature 1, row 5 misses feature 0: p = 3, m_feat = 1.
func toy() *mat.Dense {
	return mat.NewDense(6, 3, []float64{
		0.1, 0.2, -0.3,
		0.3, nan, 0.1,
		-0.2, -0.1, 0.2,
		0.4, 0.5, 0.0,
		0.0, nan, -0.1,
		nan, 0.3, 0.6,
	})
}

func TestImputersByHand(t *testing.T) {
	cases := []struct {
		p     Preprocessor
		f0    float64 // value imputed for feature 0
		f1    float64 // for feature 1
		band  []float64
		label string
	}{
		{MeanImputer{}, 0.12, 0.225, nil, "mean"},
		{MedianImputer{}, 0.1, 0.25, []float64{0, 0.3}, "median: lower/upper medians 0.1/0.1, 0.2/0.3, 0/0.1"},
		{&TrimmedMeanImputer{Trim: 1}, 0.4 / 3, 0.25, []float64{-0.1, 0.3}, "1-trimmed: retained ranges [0, 0.3], [0.2, 0.3], [−0.1, 0.2]"},
	}
	for _, c := range cases {
		f, err := c.p.Fit(toy())
		if err != nil {
			t.Fatal(err)
		}
		out := f.Output().X
		for _, cell := range []struct {
			i, j int
			want float64
		}{{1, 1, c.f1}, {4, 1, c.f1}, {5, 0, c.f0}, {0, 0, 0.1}, {5, 2, 0.6}} {
			if g := out.At(cell.i, cell.j); math.Abs(g-cell.want) > 1e-15 {
				t.Errorf("%s: out[%d][%d] = %v, want %v", c.label, cell.i, cell.j, g, cell.want)
			}
		}
		o := f.Observed()
		if o.N != 6 || o.MaxMissingRows != 3 || o.MaxImputedFeatures != 1 {
			t.Errorf("%s: observed %+v, want n = 6, p = 3, m_feat = 1", c.label, o)
		}
		if c.band != nil && (math.Abs(o.OrderBand[0]-c.band[0]) > 1e-15 || math.Abs(o.OrderBand[1]-c.band[1]) > 1e-15) {
			t.Errorf("%s: band %v, want %v", c.label, o.OrderBand, c.band)
		}
		// Transform fills held-out rows with the same model.
		held, err := f.Transform(mat.NewDense(1, 3, []float64{nan, nan, 0.5}))
		if err != nil || math.Abs(held.At(0, 0)-c.f0) > 1e-15 || math.Abs(held.At(0, 1)-c.f1) > 1e-15 || held.At(0, 2) != 0.5 {
			t.Errorf("%s: Transform = %v, %v", c.label, held, err)
		}
	}
	// A feature with no observed value cannot be imputed.
	_, err := MeanImputer{}.Fit(mat.NewDense(2, 2, []float64{nan, 0.1, nan, 0.2}))
	if err == nil || !strings.Contains(err.Error(), "feature 0 has no observed value") {
		t.Errorf("all-missing feature: %v", err)
	}
}

// TestLinRegImputerAgainstLeastSquares compares each imputed value with an
// independent least-squares fit (gonum's QR solve of X_{C,O} β = X_{C,j} on
// the complete rows C) and checks the observed λ_min, λ_max of X_CᵀX_C
// against an SVD of X_C.
func TestLinRegImputerAgainstLeastSquares(t *testing.T) {
	x := toy()
	f, err := LinRegImputer{}.Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	complete := []int{0, 2, 3}
	xc := mat.NewDense(3, 3, nil)
	for r, i := range complete {
		xc.SetRow(r, x.RawRowView(i))
	}
	check := func(row int, obs []int, target int) {
		a := mat.NewDense(3, len(obs), nil)
		y := mat.NewVecDense(3, nil)
		for r := 0; r < 3; r++ {
			for c, j := range obs {
				a.Set(r, c, xc.At(r, j))
			}
			y.SetVec(r, xc.At(r, target))
		}
		var beta mat.VecDense
		if err := beta.SolveVec(a, y); err != nil {
			t.Fatal(err)
		}
		var want float64
		for c, j := range obs {
			want += x.At(row, j) * beta.AtVec(c)
		}
		if g := f.Output().X.At(row, target); math.Abs(g-want) > 1e-12 {
			t.Errorf("row %d feature %d: imputed %v, least squares %v", row, target, g, want)
		}
	}
	check(1, []int{0, 2}, 1)
	check(4, []int{0, 2}, 1)
	check(5, []int{1, 2}, 0)
	var svd mat.SVD
	svd.Factorize(xc, mat.SVDNone)
	sv := svd.Values(nil)
	o := f.Observed()
	if math.Abs(o.LambdaMax-sv[0]*sv[0]) > 1e-12 || math.Abs(o.LambdaMin-sv[2]*sv[2]) > 1e-12 {
		t.Errorf("λ = [%v, %v], SVD gives [%v, %v]", o.LambdaMin, o.LambdaMax, sv[2]*sv[2], sv[0]*sv[0])
	}
	// Too few complete rows for the observed features: an error, not a panic.
	_, err = LinRegImputer{}.Fit(mat.NewDense(3, 3, []float64{0.1, 0.2, nan, 0.2, 0.4, nan, 0.1, 0.1, 0.1}))
	if err == nil || !strings.Contains(err.Error(), "positive definite") {
		t.Errorf("rank-deficient complete rows: %v", err)
	}
}

// TestImputeSensitivityFormulas evaluates Cor. 4, Table 3 and the safe
// variants by hand at n = 100, p = 10.
func TestImputeSensitivityFormulas(t *testing.T) {
	c := Collection{N: 100, MaxMissingRows: 10, MaxImputedFeatures: 4, OrderBand: []float64{-0.2, 0.3}, LambdaMin: 5, LambdaMax: 40}
	cases := []struct {
		p    Preprocessor
		m    Mode
		want float64
		why  string
	}{
		{MeanImputer{}, Paper, 2.0 / 90, "2/(n − p)"},
		{MeanImputer{}, Safe, (2 + math.Sqrt(99.0/89)) / 89, "(2 + √(99/89))/89"},
		{MedianImputer{}, Paper, 0.5, "hi − lo"},
		{MedianImputer{}, Safe, 1.0, "(hi − lo)·√4"},
		{&TrimmedMeanImputer{Trim: 5}, Paper, 0.5 / 80, "(hi − lo)/(n − 2m − p)"},
		{&TrimmedMeanImputer{Trim: 5}, Safe, 1.0 / 80, "× √4"},
		{LinRegImputer{}, Paper, 1600.0/(41*25) + 0.2, "λ_max²/((λ_max+1)λ_min²) + 1/λ_min"},
		{LinRegImputer{}, Safe, 2 * (1 + math.Sqrt(20)) / 5, "√4·(1 + √(100/5))/5"},
	}
	for _, k := range cases {
		s, err := k.p.Sensitivity(c, k.m)
		if err != nil {
			t.Fatal(err)
		}
		if s.DeltaInf != 10 || math.Abs(s.Delta2-k.want) > 1e-15*k.want {
			t.Errorf("%s %s: Δ_∞ = %d, Δ_2 = %v, want 10, %v (%s)", k.p, k.m, s.DeltaInf, s.Delta2, k.want, k.why)
		}
	}
	// Table 2's τ for mean imputation: p·2/(n − p) (n = 1000, p = 100: 0.2222, §2.8).
	s, _ := MeanImputer{}.Sensitivity(Collection{N: 1000, MaxMissingRows: 100}, Paper)
	if math.Abs(s.Tau()-200.0/900) > 1e-15 {
		t.Errorf("τ = %v, want 0.2222", s.Tau())
	}
}

// TestMeanImputationDifferingMissingness is erratum 18 on a hand-built pair:
// n − 2 common rows at v = e₀, one row missing everything; z₁ = (−1/√2, 1/√2)
// observes both features, z₂ = (NaN, −1) misses feature 0. The all-missing
// row moves by ‖((−1/√2 − 1)/(n − 1), (1/√2 + 1)/(n − 1))‖ = (1 + 1/√2)√2/(n − 1)
// = 2.414/(n − 1) > 2/(n − p) = 2/(n − 2), within the safe bound.
func TestMeanImputationDifferingMissingness(t *testing.T) {
	const n = 40
	s := mat.NewDense(n-1, 2, nil)
	for i := 0; i < n-2; i++ {
		s.Set(i, 0, 1)
	}
	s.Set(n-2, 0, nan)
	s.Set(n-2, 1, nan)
	w := Swap{Target: "hand", S: s, Z1: []float64{-1 / math.Sqrt2, 1 / math.Sqrt2}, Z2: []float64{nan, -1}, Index: 3}
	m, col, err := MeasureSwap(MeanImputer{}, w)
	if err != nil {
		t.Fatal(err)
	}
	want := (1 + 1/math.Sqrt2) * math.Sqrt2 / (n - 1)
	if m.DeltaInf != 1 || math.Abs(m.Delta2-want) > 1e-14 {
		t.Fatalf("measure %+v, want Δ_2 = %v", m, want)
	}
	paper, _ := MeanImputer{}.Sensitivity(col, Paper)
	safe, _ := MeanImputer{}.Sensitivity(col, Safe)
	if col.MaxMissingRows != 2 || !(m.Delta2 > paper.Delta2) || m.Delta2 > safe.Delta2 {
		t.Errorf("p = %d, Δ_2 = %v against paper %v (must exceed) and safe %v (must hold)", col.MaxMissingRows, m.Delta2, paper.Delta2, safe.Delta2)
	}
}
