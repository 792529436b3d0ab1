package datasets

import (
	"math"
	"testing"
)

// TestSummaryMatchesClosedForm checks Summarize against an independent
// closed form: for the rows e1, e2 (unit) and (1, 1), XᵀX = [[2, 1], [1, 2]]
// with eigenvalues 1 and 3, max row norm √2.
func TestSummaryMatchesClosedForm(t *testing.T) {
	d := rows([]float64{1, -2, 4}, []float64{1, 0}, []float64{0, 1}, []float64{1, 1})
	s := Summarize(d, 10)
	if s.Rows != 3 || s.Cols != 2 || s.YMin != -2 || s.YMax != 4 || s.YMean != 1 {
		t.Errorf("summary %+v", s)
	}
	near(t, "max row norm", s.MaxRowNorm, math.Sqrt2, 1e-15)
	near(t, "λ_min", s.LambdaMin, 1, 1e-12)
	near(t, "λ_min / max‖x‖²", s.LambdaMinMax, 0.5, 1e-12)
	if s := Summarize(d, 1); !math.IsNaN(s.LambdaMin) {
		t.Error("λ_min computed above maxEigDim")
	}
}
