package datasets

import (
	"math"
	"sort"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// singularValues returns the singular values of d.X, largest first.
func singularValues(t testing.TB, d *Dataset) []float64 {
	t.Helper()
	var svd mat.SVD
	if !svd.Factorize(d.X, mat.SVDThin) {
		t.Fatal("SVD failed")
	}
	return svd.Values(nil)
}

// numericalRank counts singular values above 1e-9 × the largest.
func numericalRank(s []float64) int {
	r := 0
	for _, v := range s {
		if v > 1e-9*s[0] {
			r++
		}
	}
	return r
}

// residualVariance returns the mean squared residual of y after projecting it
// on the column space of X (through the SVD's left singular vectors of the
// non-zero singular values).
func residualVariance(t testing.TB, d *Dataset) float64 {
	t.Helper()
	var svd mat.SVD
	if !svd.Factorize(d.X, mat.SVDThin) {
		t.Fatal("SVD failed")
	}
	var u mat.Dense
	svd.UTo(&u)
	k := numericalRank(svd.Values(nil))
	uk := u.Slice(0, d.Rows(), 0, k)
	y := mat.NewVecDense(len(d.Y), append([]float64(nil), d.Y...))
	var coef, fit mat.VecDense
	coef.MulVec(uk.T(), y)
	fit.MulVec(uk, &coef)
	fit.SubVec(y, &fit)
	return mat.Dot(&fit, &fit) / float64(d.Rows()-k)
}

func meanSquaredNorm(d *Dataset) float64 {
	var s float64
	for i := 0; i < d.Rows(); i++ {
		s += floats.Dot(d.X.RawRowView(i), d.X.RawRowView(i))
	}
	return s / float64(d.Rows())
}

func TestGaussMixLowRankGenerators(t *testing.T) {
	// Rows x = Qz lie on a q-dimensional subspace: numerical rank q. Gaussian
	// latent: E‖x‖² = q (χ²_q, sd of the mean √(2q/n)); uniform latent
	// (U(−1,1)·√12, variance 4 per coordinate): E‖x‖² = 4q, ‖x‖² ≤ 12q. The
	// residual of y off the column space is σξ with Var ξ = 1/3.
	const n, d, q, sigma = 2000, 20, 3, 0.1
	cases := []struct {
		name      string
		meanSq    float64
		tolMeanSq float64 // 5 sd of the sample mean of ‖x‖²
		maxSq     float64
	}{
		{"gaussmix-gaussian", q, 5 * math.Sqrt(2*q/float64(n)), math.Inf(1)},
		{"gaussmix-uniform", 4 * q, 5 * math.Sqrt(q*16*0.8/float64(n)), 12 * q},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ds := load(t, tc.name, "n=2000", "d=20", "rank=3", "seed=5").All
			checkWellFormed(t, ds, Regression)
			if r := numericalRank(singularValues(t, ds)); r != q {
				t.Errorf("rank %d, want %d", r, q)
			}
			if g := meanSquaredNorm(ds); math.Abs(g-tc.meanSq) > tc.tolMeanSq {
				t.Errorf("mean ‖x‖² = %v, want %v ± %v", g, tc.meanSq, tc.tolMeanSq)
			}
			for i := 0; i < ds.Rows(); i++ {
				if s := floats.Dot(ds.X.RawRowView(i), ds.X.RawRowView(i)); s > tc.maxSq+1e-9 {
					t.Fatalf("row %d: ‖x‖² = %v above %v", i, s, tc.maxSq)
				}
			}
			// Var ξσ = σ²/3 ≈ 0.00333; relative sd of the estimate ≈ √(0.8/n) ≈ 0.02.
			if g := residualVariance(t, ds); math.Abs(g/(sigma*sigma/3)-1) > 0.1 {
				t.Errorf("residual variance %v, want %v ± 10%%", g, sigma*sigma/3)
			}
		})
	}
}

func TestGaussMixMLPGenerator(t *testing.T) {
	ds := load(t, "gaussmix-mlp", "n=3000", "d=6", "hidden=4", "noise=0.1", "seed=2").All
	checkWellFormed(t, ds, Regression)
	// Sigmoid outputs: every feature in (0, 1).
	for i := 0; i < ds.Rows(); i++ {
		for _, v := range ds.X.RawRowView(i) {
			if !(v > 0 && v < 1) {
				t.Fatalf("feature %v outside (0, 1)", v)
			}
		}
	}
	// y is exactly linear in x plus σξ: the residual variance is σ²/3.
	if g := residualVariance(t, ds); math.Abs(g/(0.01/3)-1) > 0.1 {
		t.Errorf("residual variance %v, want %v ± 10%%", g, 0.01/3)
	}
}

func TestIJCNN1LikeHitsItsPositiveRate(t *testing.T) {
	const n, p = 40000, 0.096
	ds := load(t, "ijcnn1-like", "n=40000", "seed=4").All
	checkWellFormed(t, ds, Regression)
	if ds.Cols() != 22 {
		t.Errorf("%d features, want 22", ds.Cols())
	}
	pos := 0
	for _, y := range ds.Y {
		switch y {
		case 1:
			pos++
		case -1:
		default:
			t.Fatalf("label %v not ±1", y)
		}
	}
	// Binomial: sd √(p(1−p)/n) ≈ 0.0015; 4 sd.
	if g := float64(pos) / n; math.Abs(g-p) > 4*math.Sqrt(p*(1-p)/n) {
		t.Errorf("positive rate %v, want %v", g, p)
	}
}

func TestLowRankLogisticMatchesSpecF3(t *testing.T) {
	ds := load(t, "lowrank-logistic", "seed=1").All
	checkWellFormed(t, ds, Binary)
	if ds.Rows() != 5000 || ds.Cols() != 200 {
		t.Fatalf("shape %d × %d", ds.Rows(), ds.Cols())
	}
	for i := 0; i < ds.Rows(); i++ {
		if nrm := floats.Norm(ds.X.RawRowView(i), 2); nrm > 1+1e-12 {
			t.Fatalf("row %d has norm %v > 1", i, nrm)
		}
	}
	// Covariance spectrum (centred, 1/(n−1), preprocessing.md D7): F3 declares
	// δ_min = 0.1 for the 5th eigengap (check_declared_gap) and the tail must be
	// small but positive (approximately low rank).
	var cov mat.SymDense
	stat.CovarianceMatrix(&cov, ds.X, nil)
	var eig mat.EigenSym
	if !eig.Factorize(&cov, false) {
		t.Fatal("eigendecomposition failed")
	}
	ev := eig.Values(nil)
	sort.Sort(sort.Reverse(sort.Float64Slice(ev)))
	if gap := ev[4] - ev[5]; gap < 0.1 {
		t.Errorf("eigengap λ5 − λ6 = %v, below the declared 0.1 (λ = %v…)", gap, ev[:7])
	}
	if !(ev[5] > 0 && ev[5] < 0.01*ev[4]) {
		t.Errorf("tail eigenvalue λ6 = %v, want in (0, 0.01·λ5 = %v)", ev[5], 0.01*ev[4])
	}
	// Centred before clipping: column means are O(1/√n) (< 0.02 ≈ 5 sd of √(0.152/5000)·√… ).
	mean, _ := columnMoments(ds, 0)
	if m := floats.Norm(mean, math.Inf(1)); m > 0.02 {
		t.Errorf("largest |column mean| %v", m)
	}
	if m := floats.Sum(ds.Y) / 5000; math.Abs(m-0.5) > 0.05 {
		t.Errorf("positive rate %v, want ≈ 0.5 (symmetric model)", m)
	}
}

// classificationStructure checks make_classification's structure: numerical
// rank features − redundant when redundant > 0 (redundant columns are linear combinations of the
// informative ones), exactly `useless` columns with unit variance (pure
// N(0, 1) noise; informative columns have variance ≥ class_sep² = 4), and the
// label balance (two clusters of n/4 rows per class; 1% of labels redrawn).
func classificationStructure(t *testing.T, ds *Dataset, redundant, useless int) {
	t.Helper()
	n, d := ds.X.Dims()
	if redundant > 0 {
		if r := numericalRank(singularValues(t, ds)); r != d-redundant {
			t.Errorf("rank %d, want %d", r, d-redundant)
		}
	}
	unit := 0
	col := make([]float64, n)
	for j := 0; j < d; j++ {
		mat.Col(col, j, ds.X)
		if v := stat.Variance(col, nil); v < 1.5 {
			unit++
		}
	}
	if unit != useless {
		t.Errorf("%d columns with variance < 1.5, want the %d noise columns", unit, useless)
	}
	// Redrawn labels: ~Bin(n, 0.01); the positive count moves by at most a few sd of that.
	if pos := floats.Sum(ds.Y); math.Abs(pos-float64(n)/2) > 4*math.Sqrt(0.01*float64(n))+1 {
		t.Errorf("%v positives of %d", pos, n)
	}
}

func TestMakeClassificationPortStructure(t *testing.T) {
	l := load(t, "synthetic-l-gen").All
	checkWellFormed(t, l, Binary)
	classificationStructure(t, l, 2, 8)
	h := load(t, "synthetic-h-gen", "seed=3").All
	checkWellFormed(t, h, Binary)
	classificationStructure(t, h, 0, 1990)
}
