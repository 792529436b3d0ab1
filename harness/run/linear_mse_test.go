package run

import (
	"fmt"
	"math"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms"
	"gonum.org/v1/gonum/mat"
)

// TestLinearStatsMSEMatchesRows: the mean squared error of a linear model
// from a part's sufficient statistics (mseShared) equals the row-by-row sum
// (mse) to 1e-12 relative, on data with offsets, scales and models from a
// good fit to a bad one; a near-exact fit, where the quadratic form's
// terms cancel, is summed over the rows (equal bit for bit); a model that
// is not linear is summed over the rows.
func TestLinearStatsMSEMatchesRows(t *testing.T) {
	r := rngs.Derive("test", "linear-stats").Rand()
	for _, tc := range []struct {
		n, d          int
		offset, scale float64 // of the features
		noise         float64 // of y around a linear function
	}{
		{1, 1, 0, 1, 1}, {5, 3, 0, 1, 0.1}, {100, 13, 0, 0.3, 0.5}, {404, 13, 3, 1, 0.05},
		{1000, 50, -20, 5, 1}, {3000, 11, 100, 0.01, 2}, {200, 8, 0, 1, 1e-4}, {141691, 22, 0.3, 1, 0.5},
	} {
		t.Run(fmt.Sprintf("n=%d,d=%d", tc.n, tc.d), func(t *testing.T) {
			x := mat.NewDense(tc.n, tc.d, nil)
			beta := make([]float64, tc.d)
			for j := range beta {
				beta[j] = r.NormFloat64()
			}
			y := make([]float64, tc.n)
			for i := range tc.n {
				for j := range tc.d {
					x.Set(i, j, tc.offset+tc.scale*r.NormFloat64())
				}
				y[i] = mat.Dot(x.RowView(i), mat.NewVecDense(tc.d, beta)) + 0.7 + tc.noise*r.NormFloat64()
			}
			d := &datasets.Dataset{X: x, Y: y, Task: datasets.Regression}
			for k, perturb := range []float64{0, 1e-3, 0.1, 1, 10} {
				theta := make([]float64, tc.d)
				for j := range theta {
					theta[j] = beta[j] + perturb*r.NormFloat64()
				}
				m := &mechanisms.Linear{Theta: theta, Intercept: 0.7 + perturb*r.NormFloat64()}
				if _, ok := statsOf(d).sse(m.Theta, m.Intercept); !ok && perturb >= 1 {
					t.Errorf("model %d (perturbation %g): the statistics were not used", k, perturb)
				}
				rows, stats := mse(m, d), mseShared(m, d)
				if rel := math.Abs(stats-rows) / rows; !(rel <= 1e-12) {
					t.Errorf("model %d (perturbation %g): statistics %.17g, rows %.17g, relative difference %.3g", k, perturb, stats, rows, rel)
				}
			}
		})
	}
	t.Run("exact fit falls back to rows", func(t *testing.T) {
		x := mat.NewDense(50, 2, nil)
		y := make([]float64, 50)
		for i := range 50 {
			x.Set(i, 0, r.NormFloat64())
			x.Set(i, 1, 1+r.NormFloat64())
			y[i] = 2*x.At(i, 0) - x.At(i, 1) + 1e-9*r.NormFloat64()
		}
		d := &datasets.Dataset{X: x, Y: y, Task: datasets.Regression}
		m := &mechanisms.Linear{Theta: []float64{2, -1}}
		if _, ok := statsOf(d).sse(m.Theta, m.Intercept); ok {
			t.Fatal("the quadratic form was used on a near-exact fit (terms cancel by ~1e18)")
		}
		if a, b := mseShared(m, d), mse(m, d); a != b {
			t.Errorf("near-exact fit: %.17g, rows give %.17g", a, b)
		}
	})
	t.Run("non-linear model uses rows", func(t *testing.T) {
		d := &datasets.Dataset{X: mat.NewDense(3, 1, []float64{1, 2, 3}), Y: []float64{1, 4, 9}, Task: datasets.Regression}
		if got := mseShared(squareModel{}, d); got != 0 {
			t.Errorf("x ↦ x² on y = x²: MSE %g, want 0", got)
		}
	})
}

// squareModel is x ↦ x₀², a model that is not linear.
type squareModel struct{}

func (squareModel) Predict(x []float64) float64 { return x[0] * x[0] }
