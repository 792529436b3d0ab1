package datasets

import (
	"math"
	"testing"

	"github.com/dplab/dplab/internal/strictoml"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
)

// load is a test helper: the dataset name with key=value params.
func load(t testing.TB, name string, kv ...string) *Loaded {
	t.Helper()
	e, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	l, err := e.Load("", strictoml.DecodeKV(kv))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// ols returns the least-squares coefficients of y on X.
func ols(t testing.TB, d *Dataset) []float64 {
	t.Helper()
	var beta mat.VecDense
	if err := beta.SolveVec(d.X, mat.NewVecDense(len(d.Y), d.Y)); err != nil {
		t.Fatal(err)
	}
	return beta.RawVector().Data
}

func TestSyntheticLinearRecoversAUnitThetaAndTheNoise(t *testing.T) {
	const n, d, noise = 4000, 5, 0.1
	ds := load(t, "synthetic-linear", "n=4000", "d=5", "noise=0.1", "seed=7").All
	checkWellFormed(t, ds, Regression)
	beta := ols(t, ds)
	// θ is on the unit sphere; the OLS error of each coordinate has sd
	// noise/√n ≈ 0.0016, so ‖β̂‖ is within 0.01 of 1 (6 sd).
	if g := floats.Norm(beta, 2); math.Abs(g-1) > 0.01 {
		t.Errorf("‖β̂‖ = %v, want 1 ± 0.01", g)
	}
	// Residual sd estimates noise; its relative sd is 1/√(2(n−d)) ≈ 0.011,
	// so 5% is 4.5 sd.
	var ss float64
	for i := 0; i < n; i++ {
		r := ds.Y[i] - floats.Dot(ds.X.RawRowView(i), beta)
		ss += r * r
	}
	if g := math.Sqrt(ss / (n - d)); math.Abs(g/noise-1) > 0.05 {
		t.Errorf("residual sd %v, want %v ± 5%%", g, noise)
	}
	// Features are standard normal: the mean of x² over n·d cells has sd √(2/(n·d)) ≈ 0.01.
	var sq float64
	for i := 0; i < n; i++ {
		sq += floats.Dot(ds.X.RawRowView(i), ds.X.RawRowView(i))
	}
	if g := sq / (n * d); math.Abs(g-1) > 0.05 {
		t.Errorf("mean x² = %v, want 1 ± 0.05", g)
	}
}

func TestSyntheticLogisticFollowsTheLogisticModel(t *testing.T) {
	const n, temp = 40000, 0.25
	ds := load(t, "synthetic-logistic", "n=40000", "d=4", "seed=3").All
	checkWellFormed(t, ds, Binary)
	// For Gaussian X, the least-squares fit of y on X points along θ
	// (Brillinger 1982), so sign(xᵀβ̂) ≈ sign(xᵀθ). The labels then agree with
	// that sign with probability E[σ(|z|/T)], z ~ N(0,1), computed here by
	// quadrature: 2 ∫_0^∞ σ(z/T) φ(z) dz.
	beta := ols(t, ds)
	want := 2 * quad.Fixed(func(z float64) float64 {
		return sigmoid(z/temp) * math.Exp(-z*z/2) / math.Sqrt(2*math.Pi)
	}, 0, math.Inf(1), 200, nil, 0)
	agree := 0
	for i := 0; i < n; i++ {
		if (floats.Dot(ds.X.RawRowView(i), beta) > 0) == (ds.Y[i] == 1) {
			agree++
		}
	}
	// Binomial sd √(p(1−p)/n) ≈ 0.0014; β̂'s direction error adds < 0.002.
	if g := float64(agree) / n; math.Abs(g-want) > 0.008 {
		t.Errorf("agreement %v, want %v ± 0.008", g, want)
	}
	if m := floats.Sum(ds.Y) / n; math.Abs(m-0.5) > 0.01 {
		t.Errorf("positive rate %v, want 0.5 ± 0.01 (the model is symmetric)", m)
	}
}
