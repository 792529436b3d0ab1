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
	st := &linearStats{n: n, sqrtC: make([]float64, p)}
	st.xbar = make([]float64, p)
	sumRows(d, 0, n, st.xbar, &st.ybar)
	floats.Scale(1/float64(n), st.xbar)
	st.ybar /= float64(n)
	b := centredSums(d, 0, n, st.xbar, st.ybar, make([]float64, statsBlock*p))
	st.cxx, st.cxy, st.syy, st.sx, st.sy = b.cxx, b.cxy, b.syy, b.sx, b.sy
	for j := range p {
		st.sqrtC[j] = math.Sqrt(st.cxx.Data[j*p+j])
	}
	return st
}

// statsBlock is the number of rows whose sums are accumulated one row after
// the other; blocks are added pairwise (sumRows, centredSums), so the
// rounding of the statistics grows with statsBlock + log₂(n/statsBlock),
// not with n ([Hig02] §4.2, pairwise summation).
const statsBlock = 128

// sumRows adds Σxᵢ to sx and Σyᵢ to *sy over rows [lo, hi), pairwise.
func sumRows(d *datasets.Dataset, lo, hi int, sx []float64, sy *float64) {
	if hi-lo > statsBlock {
		mid := lo + (hi-lo)/2
		left, right := make([]float64, len(sx)), make([]float64, len(sx))
		var ly, ry float64
		sumRows(d, lo, mid, left, &ly)
		sumRows(d, mid, hi, right, &ry)
		floats.Add(left, right)
		floats.Add(sx, left)
		*sy += ly + ry
		return
	}
	for i := lo; i < hi; i++ {
		floats.Add(sx, d.X.RawRowView(i))
		*sy += d.Y[i]
	}
}

// centred is the centred sums of a block of rows (linearStats' C, c, s, u, v).
type centred struct {
	cxx     blas64.Symmetric
	cxy, sx []float64
	syy, sy float64
}

// centredSums returns the centred sums over rows [lo, hi): one rank-k
// update per block of statsBlock rows, blocks added pairwise. z is scratch
// of statsBlock·p.
func centredSums(d *datasets.Dataset, lo, hi int, xbar []float64, ybar float64, z []float64) centred {
	p := len(xbar)
	if hi-lo > statsBlock {
		mid := lo + (hi-lo)/2
		a := centredSums(d, lo, mid, xbar, ybar, z)
		b := centredSums(d, mid, hi, xbar, ybar, z)
		floats.Add(a.cxx.Data, b.cxx.Data)
		floats.Add(a.cxy, b.cxy)
		floats.Add(a.sx, b.sx)
		a.syy += b.syy
		a.sy += b.sy
		return a
	}
	c := centred{cxx: blas64.Symmetric{N: p, Stride: p, Uplo: blas.Upper, Data: make([]float64, p*p)},
		cxy: make([]float64, p), sx: make([]float64, p)}
	rows := hi - lo
	for i := 0; i < rows; i++ {
		zi := z[i*p : (i+1)*p]
		floats.SubTo(zi, d.X.RawRowView(lo+i), xbar)
		ry := d.Y[lo+i] - ybar
		floats.Add(c.sx, zi)
		floats.AddScaled(c.cxy, ry, zi)
		c.sy += ry
		c.syy += ry * ry
	}
	blas64.Syrk(blas.Trans, 1, blas64.General{Rows: rows, Cols: p, Stride: p, Data: z[:rows*p]}, 0, c.cxx)
	return c
}

// maxCancellation bounds how much larger than the squared error the terms
// of the quadratic form may be (their magnitudes summed): the rounding of
// the difference grows with that ratio (measured in
// TestLinearStatsMSEMatchesRows: ≤ 1.1e-14 relative at 100, 7e-12 at
// 7·10⁴), below issue 17's 1e-12 here; beyond it (a near-exact fit) the
// rows are summed instead.
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
