package audit

import (
	"math"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
	"gonum.org/v1/gonum/mat"
)

// minEigen returns the smallest eigenvalue of AᵀA, A the dataset's [X y]
// (withY) or X, and its eigenvector.
func minEigen(t *testing.T, d *datasets.Dataset, withY bool) (float64, []float64) {
	t.Helper()
	n, p := d.X.Dims()
	cols := p
	if withY {
		cols++
	}
	a := mat.NewDense(n, cols, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			a.Set(i, j, d.X.At(i, j))
		}
		if withY {
			a.Set(i, p, d.Y[i])
		}
	}
	var g mat.SymDense
	g.SymOuterK(1, a.T())
	var e mat.EigenSym
	if !e.Factorize(&g, true) {
		t.Fatal("eigendecomposition failed")
	}
	var v mat.Dense
	e.VectorsTo(&v)
	vals := e.Values(nil)
	return vals[0], mat.Col(nil, 0, &v)
}

// TestGramPairMovesLambdaMin checks the sketch mechanisms' pair against an
// eigendecomposition: λ_min([X y]ᵀ[X y]) is a on D₀, along (e_d, 1)/√2, and
// a + 2 = a + ‖z‖² on D₁; the rows respect the unit bounds; D₀ and D₁ differ
// in one row, D₀'s being zero (zero-out).
func TestGramPairMovesLambdaMin(t *testing.T) {
	s := Setup{AuditSetup: mechanisms.AuditSetup{Task: datasets.Regression, Dim: 3}}
	for _, a := range []float64{54.3, 233, 420.9} {
		d0, d1, _ := gramPair(s, a)
		l0, u := minEigen(t, d0, true)
		l1, _ := minEigen(t, d1, true)
		if math.Abs(l0-a) > 1e-9*a || math.Abs(l1-(a+2)) > 1e-9*a {
			t.Errorf("a = %v: λ_min %v on D₀, %v on D₁; want a and a + 2", a, l0, l1)
		}
		if c := math.Abs(u[2]+u[3]) / math.Sqrt2; math.Abs(c-1) > 1e-9 || math.Abs(u[0])+math.Abs(u[1]) > 1e-9 {
			t.Errorf("a = %v: D₀'s smallest direction %v, want ±(e_d, 1)/√2", a, u)
		}
		assertUnitRows(t, d0)
		assertUnitRows(t, d1)
		n, _ := d0.X.Dims()
		if d0.X.At(n-1, 2) != 0 || d0.Y[n-1] != 0 || d1.X.At(n-1, 2) != 1 || d1.Y[n-1] != 1 {
			t.Errorf("a = %v: the last row is not zero on D₀ and the canary on D₁", a)
		}
	}
}

// TestAdasspPairMovesAllStatistics checks AdaSSP's pair: λ_min(XᵀX) = n_G
// along e_d on D₀ and n_G + 1 on D₁, Xᵀy_d = n_G on D₀ and n_G − 1 on D₁.
func TestAdasspPairMovesAllStatistics(t *testing.T) {
	s := Setup{AuditSetup: mechanisms.AuditSetup{Task: datasets.Regression, Dim: 3}}
	probe := &mechanisms.Release{Noise: map[string]float64{"noise_multiplier": 10.94, "lambda": 23.3, "lambda_min_tilde": 42.6}}
	c, err := adasspPair(s, accounting.RelationAddRemove, mechanisms.Budget{Delta: 1e-5}, probe)
	if err != nil {
		t.Fatal(err)
	}
	l0, u := minEigen(t, c.d0, false)
	l1, _ := minEigen(t, c.d1, false)
	var xty0, xty1 float64
	for i, y := range c.d0.Y {
		xty0 += c.d0.X.At(i, 2) * y
	}
	for i, y := range c.d1.Y {
		xty1 += c.d1.X.At(i, 2) * y
	}
	if math.Abs(math.Abs(u[2])-1) > 1e-9 || l1 != l0+1 || xty0 != l0 || xty1 != l0-1 {
		t.Errorf("λ_min %v → %v along %v, Xᵀy_d %v → %v; want n_G → n_G + 1 along e_d, n_G → n_G − 1", l0, l1, u, xty0, xty1)
	}
	assertUnitRows(t, c.d0)
	assertUnitRows(t, c.d1)
	if _, err := adasspPair(s, accounting.RelationReplaceOne, mechanisms.Budget{Delta: 1e-5}, probe); err == nil {
		t.Error("adasspPair accepted a replace-one ledger")
	}
}

func assertUnitRows(t *testing.T, d *datasets.Dataset) {
	t.Helper()
	n, _ := d.X.Dims()
	for i := 0; i < n; i++ {
		if mat.Norm(d.X.RowView(i), 2) > 1+1e-12 || math.Abs(d.Y[i]) > 1 {
			t.Fatalf("row %d outside the unit bounds", i)
		}
	}
}
