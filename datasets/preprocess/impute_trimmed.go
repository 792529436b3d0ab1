package preprocess

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TrimmedMeanImputer fills each missing value with the m-trimmed mean of its
// feature's observed values in S: the mean after dropping the Trim smallest
// and the Trim largest ([HSS24] App. C.2, Table 3).
type TrimmedMeanImputer struct{ Trim int }

// NewTrimmedMeanImputer returns the m-trimmed mean imputer, m = trim ≥ 0.
func NewTrimmedMeanImputer(trim int) (*TrimmedMeanImputer, error) {
	if trim < 0 {
		return nil, fmt.Errorf("preprocess: impute-trimmed: trim = %d: must be ≥ 0", trim)
	}
	return &TrimmedMeanImputer{Trim: trim}, nil
}

// Name implements Preprocessor.
func (p *TrimmedMeanImputer) Name() string { return "impute-trimmed" }

// String implements Preprocessor.
func (p *TrimmedMeanImputer) String() string { return fmt.Sprintf("impute-trimmed[trim=%d]", p.Trim) }

// RowLipschitz implements Preprocessor (as MeanImputer).
func (p *TrimmedMeanImputer) RowLipschitz() float64 { return 1 }

// OutputDiameter implements Preprocessor: imputed rows may leave the unit ball.
func (p *TrimmedMeanImputer) OutputDiameter() float64 { return math.Inf(1) }

// Fit implements Preprocessor. Every feature needs more than 2m observed
// values. Observed records the order band [min_j x_j,(m+1), max_j x_j,(n_j−m)]:
// the extremes of the retained order statistics over all features.
func (p *TrimmedMeanImputer) Fit(x *mat.Dense) (Fitted, error) {
	if p.Trim < 0 {
		return nil, fmt.Errorf("preprocess: %s: trim must be ≥ 0", p)
	}
	s, err := scanMissing(p.String(), x)
	if err != nil {
		return nil, err
	}
	tm := make([]float64, s.d)
	lo, hi := math.Inf(1), math.Inf(-1)
	for j, o := range s.observed {
		if len(o) <= 2*p.Trim {
			return nil, fmt.Errorf("preprocess: %s: feature %d has %d observed values: trimming %d at each end leaves none", p, j, len(o), p.Trim)
		}
		v := slices.Clone(o)
		slices.Sort(v)
		w := v[p.Trim : len(v)-p.Trim]
		tm[j] = floats.Sum(w) / float64(len(w))
		lo, hi = math.Min(lo, w[0]), math.Max(hi, w[len(w)-1])
	}
	obs := s.baseObserved()
	obs.OrderBand = []float64{lo, hi}
	return newImputeFit(p.String(), x, s, obs, []field{fieldN, fieldMissing, fieldImputed, fieldBand}, fillConstant(tm))
}

// Sensitivity implements Preprocessor. Δ_∞ = p in both modes.
//
// Paper mode, [HSS24] Table 3, with the order statistics corrected
// (erratum 19: the printed (x^max_(m) − x^min_(n−m)) is sign-ambiguous; the
// range of the retained order statistics is meant, preprocessing.md §2.3):
//
//	Δ_2 = (hi − lo) / (n − 2m − p)
//
// with [lo, hi] = OrderBand holding every retained order statistic
// (ranks m+1 … n_j − m) of every feature of every dataset in 𝓛. Why it
// holds [derived, this package]: S ∪ {z} retains W_S ∪ {w}, W_S the window of
// the common values and w a value inside S ∪ {z}'s own window, so the two
// trimmed means differ by |w₁ − w₂|/k with k = n_j − 2m ≥ n − 2m − p (the same
// with one side missing: |w − T₂|/(k + 1)).
//
// Safe mode: × √m_feat (MaxImputedFeatures), as MedianImputer.
func (p *TrimmedMeanImputer) Sensitivity(c Collection, m Mode) (Sensitivity, error) {
	s, err := imputeSensitivity(p.String(), c, m)
	if err != nil {
		return s, err
	}
	if p.Trim < 0 {
		return Sensitivity{}, fmt.Errorf("preprocess: %s: trim must be ≥ 0", p)
	}
	lo, hi, err := c.band(p.String())
	if err != nil {
		return Sensitivity{}, err
	}
	k := c.N - 2*p.Trim - c.MaxMissingRows
	if k < 1 {
		return Sensitivity{}, fmt.Errorf("preprocess: %s: n − 2m − p = %d − %d − %d < 1: nothing is retained", p, c.N, 2*p.Trim, c.MaxMissingRows)
	}
	base := (hi - lo) / float64(k)
	switch m {
	case Paper:
		s.Delta2 = base
		s.Formula = fmt.Sprintf("Δ_2 = (hi − lo)/(n − 2m − p) = %.6g, Δ_∞ = p = %d", s.Delta2, c.MaxMissingRows)
		s.Ref = "[HSS24] Table 3 with erratum 19 (range of the retained order statistics)"
	case Safe:
		mf, err := imputedFeatures(p.String(), c)
		if err != nil {
			return Sensitivity{}, err
		}
		s.Delta2 = base * math.Sqrt(float64(mf))
		s.Formula = fmt.Sprintf("Δ_2 = √m·(hi − lo)/(n − 2m_trim − p) = %.6g (m = %d), Δ_∞ = p = %d", s.Delta2, mf, c.MaxMissingRows)
		s.Ref = "[HSS24] Table 3, erratum 19, × √m (preprocessing.md §2.3)"
		s.Derived = true
	}
	return s, nil
}
