package run

import (
	"math"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/mechanisms"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// linearStats are the sufficient statistics of a dataset's rows for the
// squared error of any linear model x ↦ θᵀx + b, centred at the column
// means for accuracy:
//
//	n, x̄ = (1/n)Σxᵢ, ȳ = (1/n)Σyᵢ,
//	C = Σ(xᵢ−x̄)(xᵢ−x̄)ᵀ, c = Σ(xᵢ−x̄)(yᵢ−ȳ), s = Σ(yᵢ−ȳ)²,
//	u = Σ(xᵢ−x̄), v = Σ(yᵢ−ȳ)   (zero but for rounding).
//
// With rᵢ = yᵢ − θᵀxᵢ − b = (yᵢ−ȳ) − θᵀ(xᵢ−x̄) + e, e = ȳ − θᵀx̄ − b,
//
//	Σrᵢ² = s − 2θᵀc + θᵀCθ + 2e(v − θᵀu) + n·e²,
//
// an O(d²) quadratic form in θ instead of an O(nd) pass over the rows
// (issue 17).
type linearStats struct {
	n     int
	xbar  []float64
	ybar  float64
	cxx   blas64.Symmetric // C, upper triangle
	cxy   []float64        // c
	syy   float64          // s
	sx    []float64        // u
	sy    float64          // v
	sqrtC []float64        // √C_jj, for the cancellation bound
}

// linearStatsMemoKey is the Dataset.Memo key of a part's linearStats.
const linearStatsMemoKey = "run/linear-mse-stats"

// statsOf returns d's linearStats, computed once per dataset (the parts of
// a fixed split are shared by every trial).
func statsOf(d *datasets.Dataset) *linearStats {
	v, _ := d.Memo(linearStatsMemoKey, func() (any, error) { return newLinearStats(d), nil })
	return v.(*linearStats)
}

// newLinearStats computes the statistics of d's rows (n ≥ 1).
func newLinearStats(d *datasets.Dataset) *linearStats {
	n, p := d.X.Dims()
	st := &linearStats{n: n, xbar: make([]float64, p), cxy: make([]float64, p), sx: make([]float64, p), sqrtC: make([]float64, p)}
	for i := 0; i < n; i++ {
		floats.Add(st.xbar, d.X.RawRowView(i))
	}
	floats.Scale(1/float64(n), st.xbar)
	st.ybar = floats.Sum(d.Y) / float64(n)
	// The centred rows Z = X − 1x̄ᵀ, then C = ZᵀZ by one rank-n update.
	z := make([]float64, n*p)
	for i := 0; i < n; i++ {
		zi := z[i*p : (i+1)*p]
		floats.SubTo(zi, d.X.RawRowView(i), st.xbar)
		ry := d.Y[i] - st.ybar
		floats.Add(st.sx, zi)
		floats.AddScaled(st.cxy, ry, zi)
		st.sy += ry
		st.syy += ry * ry
	}
	st.cxx = blas64.Symmetric{N: p, Stride: p, Uplo: blas.Upper, Data: make([]float64, p*p)}
	blas64.Syrk(blas.Trans, 1, blas64.General{Rows: n, Cols: p, Stride: p, Data: z}, 0, st.cxx)
	for j := range p {
		st.sqrtC[j] = math.Sqrt(st.cxx.Data[j*p+j])
	}
	return st
}

// maxCancellation bounds how much larger than the squared error the terms
// of the quadratic form may be (their magnitudes summed): the rounding of
// the difference is about that ratio times 2⁻⁵³ relative (measured in
// TestLinearStatsMSEMatchesRows: ≤ 1.1e-14 at 100, 7e-12 at 7·10⁴), far
// below issue 17's 1e-12 here; beyond it (a near-exact fit) the rows are
// summed instead.
const maxCancellation = 100

// sse returns Σrᵢ² for the model (θ, b) from the statistics, and false
// when the terms cancel by more than maxCancellation (a near-exact fit).
func (st *linearStats) sse(theta []float64, b float64) (float64, bool) {
	p := len(theta)
	ctheta := make([]float64, p)
	blas64.Symv(1, st.cxx, blas64.Vector{N: p, Inc: 1, Data: theta}, 0, blas64.Vector{N: p, Inc: 1, Data: ctheta})
	quad := floats.Dot(theta, ctheta)
	lin := floats.Dot(theta, st.cxy)
	e := st.ybar - floats.Dot(theta, st.xbar) - b
	rest := st.sy - floats.Dot(theta, st.sx)
	nf := float64(st.n)
	v := st.syy - 2*lin + quad + 2*e*rest + nf*e*e
	// |θ|ᵀ|C||θ| ≤ (Σ|θⱼ|√C_jj)² (C is positive semi-definite).
	var w float64
	for j, t := range theta {
		w += math.Abs(t) * st.sqrtC[j]
	}
	mag := st.syy + 2*math.Abs(lin) + w*w + 2*math.Abs(e*rest) + nf*e*e
	if !(v > 0) || mag > maxCancellation*v {
		return 0, false
	}
	return v, true
}

// mseShared is mse for a part shared by the trials (a fixed split): a
// linear model's error comes from the part's sufficient statistics
// (linearStats), any other model's — or a near-exact fit's — from its rows.
func mseShared(m mechanisms.Model, d *datasets.Dataset) float64 {
	lin, ok := m.(*mechanisms.Linear)
	if !ok || d.Rows() == 0 || len(lin.Theta) != d.Cols() {
		return mse(m, d)
	}
	if v, ok := statsOf(d).sse(lin.Theta, lin.Intercept); ok {
		return v / float64(d.Rows())
	}
	return mse(m, d)
}

// evaluator returns the evaluator of the named metric on a part of data:
// metricEval's, but a shared (fixed) split's MSE comes from the part's
// statistics (mseShared).
func evaluator(name string, data *split) func(m mechanisms.Model, d *datasets.Dataset) float64 {
	if data.shared && (name == "test_mse" || name == "train_mse") {
		return mseShared
	}
	return metricEval[name]
}
