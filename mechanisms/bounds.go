package mechanisms

import (
	"fmt"
	"math"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/solvers"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// boundSlack absorbs rounding in data scaled to the bound exactly (a row
// divided by its own norm has norm 1 ± a few ulps).
const boundSlack = 1e-9

// checkBounds returns an error if a row of d has ‖xᵢ‖₂ > boundX or a target
// has |yᵢ| > boundY (boundY ≤ 0 skips the y check). Mechanisms whose privacy
// rests on these bounds call it before touching the data: a violated bound
// would silently void the guarantee.
func checkBounds(name string, d *datasets.Dataset, boundX, boundY float64) error {
	m, err := d.Memo("mechanisms/bounds", func() (any, error) { return dataBounds(d), nil })
	if err != nil {
		return err
	}
	b := m.(maxima)
	if !(b.rowNorm <= boundX*(1+boundSlack)) { // NaN fails too
		return fmt.Errorf("%s: row %d has norm %.6g > bound_x = %g; scale the rows (scale.x = \"max-row-norm\" or \"clip\") or raise bound_x", name, b.row, b.rowNorm, boundX)
	}
	if boundY > 0 && !(b.absY <= boundY*(1+boundSlack)) {
		return fmt.Errorf("%s: target %d is %.6g, |y| > bound_y = %g; scale y (scale.y = \"max-abs\") or raise bound_y", name, b.target, d.Y[b.target], boundY)
	}
	return nil
}

// maxima are the largest row norm and |y| of a dataset (NaN if any is NaN),
// with their first indices; checkBounds memoises them on the (read-only) training set, so
// the trials of a fixed split scan it once.
type maxima struct {
	rowNorm, absY float64
	row, target   int
}

func dataBounds(d *datasets.Dataset) maxima {
	var m maxima
	for i := 0; i < d.Rows(); i++ {
		if nr := floats.Norm(d.X.RawRowView(i), 2); nr > m.rowNorm || math.IsNaN(nr) && !math.IsNaN(m.rowNorm) {
			m.rowNorm, m.row = nr, i
		}
		if a := math.Abs(d.Y[i]); a > m.absY || math.IsNaN(a) && !math.IsNaN(m.absY) {
			m.absY, m.target = a, i
		}
	}
	return m
}

// boundsParams are the data bounds shared by the linear-regression
// mechanisms. Zero means 1, which is what the specs' default scaling
// (rows by the max training row norm, y by max|y_train|) guarantees.
type boundsParams struct {
	BoundX float64 `toml:"bound_x" default:"1" range:"> 0"` // C_X ≥ maxᵢ ‖xᵢ‖₂
	BoundY float64 `toml:"bound_y" default:"1" range:"> 0"` // C_Y ≥ maxᵢ |yᵢ|
}

func (p boundsParams) validate() error {
	if err := checkNonNegative("bound_x", p.BoundX); err != nil {
		return err
	}
	return checkNonNegative("bound_y", p.BoundY)
}

func (p boundsParams) cx() float64 { return orDefault(p.BoundX, 1) }
func (p boundsParams) cy() float64 { return orDefault(p.BoundY, 1) }

// orDefault returns x, or def when x is zero (a params struct's zero value
// means its documented default).
func orDefault(x, def float64) float64 {
	if x == 0 {
		return def
	}
	return x
}

// param is a named numeric parameter, for checkDefaults.
type param struct {
	key string
	x   float64
}

// checkDefaults returns an error naming the first parameter that is negative
// or not finite; zero is allowed (it means the documented default).
func checkDefaults(ps ...param) error {
	for _, p := range ps {
		if err := checkNonNegative(p.key, p.x); err != nil {
			return fmt.Errorf("%w (0 means the default)", err)
		}
	}
	return nil
}

// checkNonNegative returns an error naming key unless x is finite and ≥ 0.
func checkNonNegative(key string, x float64) error {
	if x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return fmt.Errorf("%s = %v must be finite and ≥ 0", key, x)
	}
	return nil
}

// gramStats returns XᵀX and λ_min(XᵀX) of d, computed once per dataset (the
// trials of a fixed split share the training set). The caller must not
// modify the returned matrix.
func gramStats(d *datasets.Dataset) (*mat.SymDense, float64, error) {
	type stats struct {
		gram   *mat.SymDense
		lamMin float64
	}
	v, err := d.Memo("mechanisms/gram", func() (any, error) {
		g := solvers.Gram(d.X)
		l, err := solvers.LambdaMin(g)
		return stats{g, l}, err
	})
	if err != nil {
		return nil, 0, err
	}
	st := v.(stats)
	return st.gram, st.lamMin, nil
}

// sharedGLM returns the GLM cfg on d's rows and labels, built once per
// dataset (the trials of a fixed split share the training set), so that a
// fit does not pay NewGLM's check of every entry of X (a pass over the data,
// about one evaluation of the loss) again. The GLM is safe for concurrent
// use. Memory: a config's GLM holds a sparse copy of a sparse X and, with
// clipping, five numbers per row, for the dataset's lifetime: use it for
// configs fixed per training set, not for a swept clipping threshold.
func sharedGLM(d *datasets.Dataset, cfg solvers.GLMConfig) (*solvers.GLM, error) {
	v, err := d.Memo(fmt.Sprintf("solvers/glm|%+v", cfg), func() (any, error) {
		return solvers.NewGLM(d.X, d.Y, cfg)
	})
	if err != nil {
		return nil, err
	}
	return v.(*solvers.GLM), nil
}
