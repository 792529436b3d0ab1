package preprocess

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// MeanImputer fills each missing value with the mean of its feature's
// observed values in S ([HSS24] §4.1, Cor. 4).
type MeanImputer struct{}

// Name implements Preprocessor.
func (MeanImputer) Name() string { return "impute-mean" }

// String implements Preprocessor.
func (MeanImputer) String() string { return "impute-mean" }

// RowLipschitz implements Preprocessor: 1 between rows with the same missing
// features (observed values pass through, imputed ones are constants).
func (MeanImputer) RowLipschitz() float64 { return 1 }

// OutputDiameter implements Preprocessor: imputed rows may leave the unit ball.
func (MeanImputer) OutputDiameter() float64 { return math.Inf(1) }

// Fit implements Preprocessor.
func (p MeanImputer) Fit(x *mat.Dense) (Fitted, error) {
	s, err := scanMissing(p.String(), x)
	if err != nil {
		return nil, err
	}
	means := make([]float64, s.d)
	for j, o := range s.observed {
		means[j] = floats.Sum(o) / float64(len(o))
	}
	return newImputeFit(p.String(), x, s, s.baseObserved(), []field{fieldN, fieldMissing, fieldImputed}, fillConstant(means))
}

// Sensitivity implements Preprocessor. Δ_∞ = p in both modes.
//
// Paper mode, [HSS24] Cor. 4:
//
//	Δ_2 = 2/(n − p)
//
// Its proof assumes the swapped records z₁, z₂ miss the same features, so
// that every feature keeps its count n_j ≥ n − p of observed values. When z₁
// observes feature j and z₂ does not, the mean moves by (z₁ⱼ − Āⱼ)/(n_j + 1),
// Ā the mean over the common rows, and the move of a row imputing several
// features can exceed 2/(n − p) (the "missingness" probe: about
// 2.41/(n − p + 1), with z₁ = (cos φ·(−Ā_J/‖Ā_J‖), sin φ·w), z₂ = (NaN_J, −w), φ = π/4).
//
// Safe mode, preprocessing.md §2.3 (erratum 18) [derived]:
//
//	Δ_2 = (2 + √((n − 1)/(n − p − 1))) / (n − p − 1)
//
// Proof sketch (this package): the imputed vector of a common row differs by
// (a − b)ⱼ/(n_j + 1) on its missing features, where a = z₁ on the features z₁
// observes and Ā elsewhere, b likewise for z₂; ‖a − b‖ ≤ ‖z₁‖ + ‖z₂‖ + ‖Ā‖ ≤
// 2 + √((n − 1)/m_min) by Jensen (Āⱼ² ≤ Σᵢ xᵢⱼ²/n_j, rows in the unit ball)
// with every common count n_j ≥ m_min ≥ n − 1 − p, and n_j + 1 ≥ n − p − 1.
// The probes find no pair above it.
func (p MeanImputer) Sensitivity(c Collection, m Mode) (Sensitivity, error) {
	s, err := imputeSensitivity(p.String(), c, m)
	if err != nil {
		return s, err
	}
	n, q := float64(c.N), float64(c.MaxMissingRows)
	switch m {
	case Paper:
		s.Delta2 = 2 / (n - q)
		s.Formula = fmt.Sprintf("Δ_2 = 2/(n − p) = %.6g, Δ_∞ = p = %d (n = %d)", s.Delta2, c.MaxMissingRows, c.N)
		s.Ref = "[HSS24] Cor. 4 (same missingness pattern assumed)"
	case Safe:
		if c.N-c.MaxMissingRows-1 < 1 {
			return Sensitivity{}, fmt.Errorf("preprocess: %s: safe mode needs n − p − 1 ≥ 1, got n = %d, p = %d", p, c.N, c.MaxMissingRows)
		}
		k := n - q - 1
		s.Delta2 = (2 + math.Sqrt((n-1)/k)) / k
		s.Formula = fmt.Sprintf("Δ_2 = (2 + √((n − 1)/(n − p − 1)))/(n − p − 1) = %.6g, Δ_∞ = p = %d (n = %d)", s.Delta2, c.MaxMissingRows, c.N)
		s.Ref = "[HSS24] Cor. 4 with erratum 18 (preprocessing.md §2.3: differing missingness patterns)"
		s.Derived = true
	}
	return s, nil
}
