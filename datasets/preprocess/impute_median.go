package preprocess

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// MedianImputer fills each missing value with the median of its feature's
// observed values in S (the mean of the two middle values for an even count)
// ([HSS24] App. C.2, Table 3).
type MedianImputer struct{}

// Name implements Preprocessor.
func (MedianImputer) Name() string { return "impute-median" }

// String implements Preprocessor.
func (MedianImputer) String() string { return "impute-median" }

// RowLipschitz implements Preprocessor (as MeanImputer).
func (MedianImputer) RowLipschitz() float64 { return 1 }

// OutputDiameter implements Preprocessor: imputed rows may leave the unit ball.
func (MedianImputer) OutputDiameter() float64 { return math.Inf(1) }

// Fit implements Preprocessor. Observed records the order band
// [min_j lower median_j, max_j upper median_j] over all features.
func (p MedianImputer) Fit(x *mat.Dense) (Fitted, error) {
	s, err := scanMissing(p.String(), x)
	if err != nil {
		return nil, err
	}
	med := make([]float64, s.d)
	lo, hi := math.Inf(1), math.Inf(-1)
	for j, o := range s.observed {
		v := slices.Clone(o)
		slices.Sort(v)
		m := len(v)
		l, u := v[(m-1)/2], v[m/2]
		med[j] = (l + u) / 2
		lo, hi = math.Min(lo, l), math.Max(hi, u)
	}
	obs := s.baseObserved()
	obs.OrderBand = []float64{lo, hi}
	return newImputeFit(p.String(), x, s, obs, []field{fieldN, fieldMissing, fieldImputed, fieldBand}, fillConstant(med))
}

// Sensitivity implements Preprocessor. Δ_∞ = p in both modes.
//
// Paper mode, [HSS24] Table 3:
//
//	Δ_2 = x^max_((n+1)/2) − x^min_(n/2) = hi − lo
//
// with [lo, hi] = OrderBand, the declared band holding every median (lower
// and upper middle value) of every feature of every dataset in 𝓛: both
// medians of a feature lie in it, so each imputed value moves by ≤ hi − lo.
//
// Safe mode (preprocessing.md §2.3, D6): Table 3's entry is per imputed
// value; the L2 move of a row imputing up to m values (MaxImputedFeatures,
// [HSS24] Prop. 15) is
//
//	Δ_2 = (hi − lo)·√m
//
// The "order-gap" probe (every feature's common values half at ±a, z₁ = +a,
// z₂ = −a, rows missing all d features) reaches (hi − lo)·√d.
func (p MedianImputer) Sensitivity(c Collection, m Mode) (Sensitivity, error) {
	s, err := imputeSensitivity(p.String(), c, m)
	if err != nil {
		return s, err
	}
	lo, hi, err := c.band(p.String())
	if err != nil {
		return Sensitivity{}, err
	}
	switch m {
	case Paper:
		s.Delta2 = hi - lo
		s.Formula = fmt.Sprintf("Δ_2 = hi − lo = %.6g, Δ_∞ = p = %d", s.Delta2, c.MaxMissingRows)
		s.Ref = "[HSS24] Table 3 (per imputed value)"
	case Safe:
		mf, err := imputedFeatures(p.String(), c)
		if err != nil {
			return Sensitivity{}, err
		}
		s.Delta2 = (hi - lo) * math.Sqrt(float64(mf))
		s.Formula = fmt.Sprintf("Δ_2 = (hi − lo)·√m = %.6g (m = %d), Δ_∞ = p = %d", s.Delta2, mf, c.MaxMissingRows)
		s.Ref = "[HSS24] Table 3 × √m (preprocessing.md §2.3: Prop. 15 sums over the imputed features)"
		s.Derived = true
	}
	return s, nil
}
