package datasets

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
)

// ScaleMode names a scaling of X or y.
//
// For X: "none" (or ""), "max-row-norm" (divide every row by the maximum
// training row norm, then multiply by Bound), "unit-rows" (each row to norm
// Bound), "clip" (rows longer than Bound shrunk to norm Bound), "standardize"
// (per-column mean and population standard deviation of the training rows;
// a zero deviation counts as 1). For y: "none" (or "") and "max-abs" (divide
// by max |y_train|).
type ScaleMode string

// The scaling modes.
const (
	ScaleNone        ScaleMode = "none"
	ScaleMaxRowNorm  ScaleMode = "max-row-norm"
	ScaleUnitRows    ScaleMode = "unit-rows"
	ScaleClip        ScaleMode = "clip"
	ScaleStandardize ScaleMode = "standardize"
	ScaleMaxAbs      ScaleMode = "max-abs"
)

// Scaling is the preprocessing of a dataset after the split. Statistics
// (maximum row norm, column means and deviations, max |y|) come from the
// training rows only and are applied to every part alike, as GaussMix
// (reference-code.md §7.1) and the Iyengar et al. benchmark do. Like the
// papers, dplab does not account the privacy cost of these data-dependent
// statistics (gaussmix.md §7 item 30).
type Scaling struct {
	X     ScaleMode `toml:"x"`
	Bound float64   `toml:"bound"` // target row norm: max-row-norm and unit-rows (0 means 1), clip (required, > 0)
	Y     ScaleMode `toml:"y"`
}

// Validate checks the modes and the bound.
func (s Scaling) Validate() error {
	switch s.X {
	case "", ScaleNone, ScaleStandardize:
		if s.Bound != 0 {
			return fmt.Errorf("scaling: bound %v is used only with x = %q, %q or %q", s.Bound, ScaleMaxRowNorm, ScaleUnitRows, ScaleClip)
		}
	case ScaleMaxRowNorm, ScaleUnitRows:
		if !(s.Bound >= 0) || math.IsInf(s.Bound, 0) {
			return fmt.Errorf("scaling: bound %v: must be a finite number ≥ 0 (0 means 1)", s.Bound)
		}
	case ScaleClip:
		if !(s.Bound > 0) || math.IsInf(s.Bound, 0) {
			return fmt.Errorf("scaling: x = %q needs a finite bound > 0, got %v", ScaleClip, s.Bound)
		}
	default:
		return fmt.Errorf("scaling: unknown x mode %q (want none, max-row-norm, unit-rows, clip or standardize)", s.X)
	}
	switch s.Y {
	case "", ScaleNone, ScaleMaxAbs:
	default:
		return fmt.Errorf("scaling: unknown y mode %q (want none or max-abs)", s.Y)
	}
	return nil
}

// DataDependent lists, one phrase each, the statistics s reads from the
// training rows (the private data): the maximum row norm, the column means
// and deviations, max |y|. Per-row maps with a fixed bound (unit-rows, clip)
// read nothing. Like Info.DataDependent, the phrases go into every trial's
// privacy assumptions: dplab does not account for these statistics.
func (s Scaling) DataDependent() []string {
	var out []string
	switch s.X {
	case ScaleMaxRowNorm:
		out = append(out, "x divided by the maximum row norm of the training rows")
	case ScaleStandardize:
		out = append(out, "x standardised with the mean and sd of the training rows")
	}
	if s.Y == ScaleMaxAbs {
		out = append(out, "y divided by max |y| of the training rows")
	}
	return out
}

// Apply scales train and others in place, with statistics from train only.
// Callers pass copies (Dataset.Clone) when the originals are shared; nil
// others (an absent validation part) are skipped.
func (s Scaling) Apply(train *Dataset, others ...*Dataset) error {
	if err := s.Validate(); err != nil {
		return err
	}
	all := []*Dataset{train}
	for _, o := range others {
		if o == nil {
			continue
		}
		all = append(all, o)
		if o.Cols() != train.Cols() {
			return fmt.Errorf("scaling: %s has %d columns, the training part %d", o.Name, o.Cols(), train.Cols())
		}
	}
	if s.Y == ScaleMaxAbs && train.Task == Binary {
		return errors.New("scaling: y = \"max-abs\" on a binary dataset would break its {0, 1} labels")
	}
	bound := s.Bound
	if bound == 0 {
		bound = 1
	}
	switch s.X {
	case ScaleMaxRowNorm:
		if m := maxRowNorm(train); m > 0 {
			for _, d := range all {
				d.X.Scale(bound/m, d.X)
			}
		}
	case ScaleUnitRows:
		for _, d := range all {
			scaleRows(d, func(norm float64) float64 { return bound / norm })
		}
	case ScaleClip:
		for _, d := range all {
			scaleRows(d, func(norm float64) float64 { return math.Min(1, bound/norm) })
		}
	case ScaleStandardize:
		mean, sd := columnMoments(train, 0)
		for _, d := range all {
			standardize(d, mean, sd)
		}
	}
	if s.Y == ScaleMaxAbs {
		if m := floats.Norm(train.Y, math.Inf(1)); m > 0 {
			for _, d := range all {
				floats.Scale(1/m, d.Y)
			}
		}
	}
	return nil
}

// maxRowNorm returns max_i ‖x_i‖₂ over the rows of d.
func maxRowNorm(d *Dataset) float64 {
	var m float64
	for i := 0; i < d.Rows(); i++ {
		m = math.Max(m, floats.Norm(d.X.RawRowView(i), 2))
	}
	return m
}

// scaleRows multiplies each non-zero row x of d by factor(‖x‖₂).
func scaleRows(d *Dataset, factor func(norm float64) float64) {
	for i := 0; i < d.Rows(); i++ {
		row := d.X.RawRowView(i)
		if norm := floats.Norm(row, 2); norm > 0 {
			floats.Scale(factor(norm), row)
		}
	}
}

// columnMoments returns the column means and standard deviations of d with
// divisor n − ddof (ddof = 0: numpy's default, population; ddof = 1: pandas'
// default, sample). A zero deviation is returned as 1, as GaussMix's
// feat_std_safe does.
func columnMoments(d *Dataset, ddof int) (mean, sd []float64) {
	n, c := d.Rows(), d.Cols()
	mean = make([]float64, c)
	sd = make([]float64, c)
	for i := 0; i < n; i++ {
		floats.Add(mean, d.X.RawRowView(i))
	}
	floats.Scale(1/float64(n), mean)
	for i := 0; i < n; i++ {
		for j, v := range d.X.RawRowView(i) {
			sd[j] += (v - mean[j]) * (v - mean[j])
		}
	}
	for j := range sd {
		sd[j] = math.Sqrt(sd[j] / float64(n-ddof))
		if sd[j] == 0 {
			sd[j] = 1
		}
	}
	return mean, sd
}

// standardize maps every x[i][j] of d to (x[i][j] − mean[j]) / sd[j].
func standardize(d *Dataset, mean, sd []float64) {
	for i := 0; i < d.Rows(); i++ {
		row := d.X.RawRowView(i)
		for j := range row {
			row[j] = (row[j] - mean[j]) / sd[j]
		}
	}
}
