package datasets

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Summary describes one dataset part for `dplab datasets info`.
type Summary struct {
	Rows, Cols   int
	Positives    int     // binary: number of label-1 rows
	YMin, YMax   float64 // target range
	YMean        float64
	MaxRowNorm   float64 // max_i ‖x_i‖₂
	LambdaMin    float64 // λ_min(XᵀX); NaN when not computed
	LambdaMinMax float64 // λ_min(XᵀX) / max_i ‖x_i‖²: λ_min after x = "max-row-norm" scaling; NaN when not computed
}

// Summarize computes d's summary. λ_min(XᵀX) needs an O(d³) eigendecomposition
// and is computed only when d.Cols() ≤ maxEigDim.
func Summarize(d *Dataset, maxEigDim int) Summary {
	s := Summary{Rows: d.Rows(), Cols: d.Cols(), LambdaMin: math.NaN(), LambdaMinMax: math.NaN()}
	s.YMin, s.YMax, s.YMean = floats.Min(d.Y), floats.Max(d.Y), floats.Sum(d.Y)/float64(len(d.Y))
	if d.Task == Binary {
		s.Positives = int(floats.Sum(d.Y))
	}
	s.MaxRowNorm = maxRowNorm(d)
	if s.Cols <= maxEigDim {
		var xtx mat.SymDense
		xtx.SymOuterK(1, d.X.T())
		var eig mat.EigenSym
		if eig.Factorize(&xtx, false) {
			s.LambdaMin = math.Max(0, floats.Min(eig.Values(nil))) // clamp round-off below 0 of a PSD matrix
			if s.MaxRowNorm > 0 {
				s.LambdaMinMax = s.LambdaMin / (s.MaxRowNorm * s.MaxRowNorm)
			}
		}
	}
	return s
}
