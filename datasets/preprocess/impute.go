package preprocess

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Model-based imputation ([HSS24] §4.1, Cor. 4, App. C.2 Prop. 15, Table 3):
// a model f_S fitted on the observed values of S fills every missing value
// (NaN) of S. The four models live in impute_mean.go, impute_median.go,
// impute_trimmed.go and impute_linreg.go; what they share is here.
//
// For all of them ([HSS24] Prop. 15, preprocessing.md D6): p counts the rows
// with at least one missing value (d_H counts rows), and only those rows can
// change, so Δ_∞ = p. Imputed rows may leave the unit ball (a row with
// observed norm 1 gains the imputed entries): apply ClipRows after, which is
// 1-Lipschitz and does not increase Δ_2 (Chain clips after every step).

// missingScan is what every imputer reads from the missingness of S.
type missingScan struct {
	n, d     int
	miss     [][]int     // per row, its missing features in order (nil: complete)
	p        int         // rows with at least one missing value
	mfeat    int         // the most missing values in one row
	observed [][]float64 // per feature, its observed values in row order
}

// scanMissing validates x (NaN allowed) and reads its missingness.
func scanMissing(name string, x *mat.Dense) (*missingScan, error) {
	if err := checkRows(name, x, true); err != nil {
		return nil, err
	}
	n, d := x.Dims()
	s := &missingScan{n: n, d: d, miss: make([][]int, n), observed: make([][]float64, d)}
	// One backing array each for the observed values (≤ n per feature) and
	// the missing features (≤ d per row), capped per slice so that appends
	// never reach a neighbour's part: two allocations instead of a growing
	// slice per feature and per incomplete row.
	obsBuf, missBuf := make([]float64, n*d), make([]int, n*d)
	for j := range s.observed {
		s.observed[j] = obsBuf[j*n : j*n : (j+1)*n]
	}
	for i := 0; i < n; i++ {
		for j, v := range x.RawRowView(i) {
			if math.IsNaN(v) {
				if s.miss[i] == nil {
					s.miss[i] = missBuf[i*d : i*d : (i+1)*d]
				}
				s.miss[i] = append(s.miss[i], j)
			} else {
				s.observed[j] = append(s.observed[j], v)
			}
		}
		if len(s.miss[i]) > 0 {
			s.p++
			s.mfeat = max(s.mfeat, len(s.miss[i]))
		}
	}
	for j, o := range s.observed {
		if len(o) == 0 {
			return nil, fmt.Errorf("preprocess: %s: feature %d has no observed value: nothing to impute it from", name, j)
		}
	}
	return s, nil
}

// baseObserved returns the observed n, p and most imputed features of one row.
func (s *missingScan) baseObserved() Collection {
	return Collection{N: s.n, MaxMissingRows: s.p, MaxImputedFeatures: s.mfeat}
}

// imputeFit is a fitted imputer: fill writes the imputed values of row's
// missing features miss.
type imputeFit struct {
	fitBase
	d    int
	fill func(row []float64, miss []int) error
}

// newImputeFit applies fill to the rows of x with missing values.
func newImputeFit(name string, x *mat.Dense, s *missingScan, obs Collection, fields []field, fill func(row []float64, miss []int) error) (*imputeFit, error) {
	out := &Output{X: mat.DenseCopyOf(x)}
	for i, m := range s.miss {
		if m != nil {
			if err := fill(out.X.RawRowView(i), m); err != nil {
				return nil, fmt.Errorf("preprocess: %s: row %d: %w", name, i, err)
			}
		}
	}
	return &imputeFit{fitBase: fitBase{name: name, out: out, obs: obs, fields: fields}, d: s.d, fill: fill}, nil
}

// Transform implements Fitted: the missing values (NaN) of x filled by the
// model fitted on S.
func (f *imputeFit) Transform(x *mat.Dense) (*mat.Dense, error) {
	if err := checkCols(f.name, x, f.d, true); err != nil {
		return nil, err
	}
	c := mat.DenseCopyOf(x)
	r, _ := c.Dims()
	var miss []int
	for i := 0; i < r; i++ {
		row := c.RawRowView(i)
		miss = miss[:0]
		for j, v := range row {
			if math.IsNaN(v) {
				miss = append(miss, j)
			}
		}
		if len(miss) > 0 {
			if err := f.fill(row, miss); err != nil {
				return nil, fmt.Errorf("preprocess: %s: row %d: %w", f.name, i, err)
			}
		}
	}
	return c, nil
}

// fillConstant fills each missing feature j with v[j].
func fillConstant(v []float64) func(row []float64, miss []int) error {
	return func(row []float64, miss []int) error {
		for _, j := range miss {
			row[j] = v[j]
		}
		return nil
	}
}

// imputeSensitivity validates what every imputer's bound needs: a valid
// mode, replace-one neighbours, 0 ≤ p < n.
func imputeSensitivity(name string, c Collection, m Mode) (Sensitivity, error) {
	if err := m.check(); err != nil {
		return Sensitivity{}, err
	}
	if err := c.checkBase(name, false); err != nil {
		return Sensitivity{}, err
	}
	if c.MaxMissingRows < 0 || c.MaxMissingRows >= c.N {
		return Sensitivity{}, fmt.Errorf("preprocess: %s: max_missing_rows = %d: must be in 0..n − 1 = %d", name, c.MaxMissingRows, c.N-1)
	}
	return Sensitivity{Preprocessor: name, Mode: m, Relation: c.relation(), DeltaInf: c.MaxMissingRows}, nil
}

// imputedFeatures returns the declared most imputed features of one row
// (safe mode's √m factor for per-value bounds).
func imputedFeatures(name string, c Collection) (int, error) {
	if c.MaxImputedFeatures < 1 {
		return 0, fmt.Errorf("preprocess: %s: safe mode needs max_imputed_features ≥ 1 (the most missing values in one row): Table 3's bound is per imputed value", name)
	}
	return c.MaxImputedFeatures, nil
}
