package solvers

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// metric is the change of variables of Settings.Metric: for a symmetric
// positive definite H₀ = LLᵀ and a start x₀, the stages minimise
//
//	g(z) = f(x₀ + L⁻ᵀz),   ∇g(z) = L⁻¹∇f(x),   ∇²g(z) = L⁻¹∇²f(x)L⁻ᵀ,
//
// which is well conditioned when H₀ is close to ∇²f near the minimiser
// (∇²g ≈ I there), while the stopping rule stays on ‖∇f(x)‖₂ in the
// original coordinates (evaluator). For L-BFGS this amounts to the initial
// inverse Hessian γH₀⁻¹ in place of γI ([NW06] Alg. 7.4 takes any symmetric
// positive definite H_k⁰).
//
// The stages see z scaled by a constant c > 0 (setScale), w = z/c, in which
// g's gradient is c·∇g(z) and its Hessian c²·∇²g(z): gonum's L-BFGS takes
// its first trial step with unit length, which for c = ‖∇g(z₀)‖₂ is the
// full step z₀ − ∇g(z₀), x₀ − H₀⁻¹∇f(x₀), the Newton step with H₀ (instead
// of a step of length 1 in z, which on a problem far from its minimiser in
// H₀'s norm its line search must first stretch, one evaluation at a time).
// Later L-BFGS steps scale by sᵀy/yᵀy and Newton's are unchanged by c.
type metric struct {
	x0    []float64
	l     blas64.Triangular // lower Cholesky factor L of H₀
	scale float64           // c; 1 until setScale
	tmp   []float64
}

// newMetric returns the change of variables for H₀ = ch's matrix at x0
// (copied).
func newMetric(ch *mat.Cholesky, x0 []float64) *metric {
	var lt mat.TriDense
	ch.LTo(&lt)
	return &metric{x0: append([]float64(nil), x0...), l: lt.RawTriangular(), scale: 1, tmp: make([]float64, len(x0))}
}

// setScale sets c = ‖gz‖₂ for gz the gradient in the coordinates z of the
// start z = 0 (w = 0 too), and scales gz to the gradient c·gz in w. It
// keeps c = 1 when ‖gz‖₂ is 0 or not finite.
func (m *metric) setScale(gz []float64) {
	c := gradNorm(gz)
	if !(c > 0) || math.IsInf(c, 1) {
		return
	}
	m.scale = c
	for i := range gz {
		gz[i] *= c
	}
}

// point sets x = x₀ + c·L⁻ᵀw.
func (m *metric) point(x, w []float64) {
	copy(x, w)
	m.solveLT(x)
	for i, v := range m.x0 {
		x[i] = v + m.scale*x[i]
	}
}

// grad sets gw = c·L⁻¹g.
func (m *metric) grad(gw, g []float64) {
	copy(gw, g)
	m.solveL(gw)
	if m.scale != 1 {
		for i := range gw {
			gw[i] *= m.scale
		}
	}
}

// solveL overwrites x by L⁻¹x: forward substitution, row i of L (its first
// i entries, contiguous in L's rows) dotted with the solved x[:i] by
// floats.Dot. blas64.Trsv does the same with a scalar loop of one
// accumulator, bound by the latency of its additions: at d = 2,000 the two
// solves a point and its gradient need took 56% of compare_classification's
// Synthetic-H × KST CPU time (pprof). The sums' order differs from Trsv's,
// so the result may differ in its last bits.
func (m *metric) solveL(x []float64) {
	a, lda := m.l.Data, m.l.Stride
	for i := range x {
		row := a[i*lda : i*lda+i]
		x[i] = (x[i] - floats.Dot(row, x[:i])) / a[i*lda+i]
	}
}

// solveLT overwrites x by L⁻ᵀx: backward substitution, each solved x[i]
// taken out of x[:i] along row i of L by floats.AddScaled (the column
// sweep of blas64.Trsv's transposed solve, vectorised).
func (m *metric) solveLT(x []float64) {
	a, lda := m.l.Data, m.l.Stride
	for i := len(x) - 1; i >= 0; i-- {
		x[i] /= a[i*lda+i]
		floats.AddScaled(x[:i], -x[i], a[i*lda:i*lda+i])
	}
}

// hessian overwrites h = ∇²f(x) by c²·L⁻¹hL⁻ᵀ.
func (m *metric) hessian(h *mat.SymDense) {
	n := h.SymmetricDim()
	full := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			full.Data[i*n+j] = h.At(i, j)
		}
	}
	blas64.Trsm(blas.Left, blas.NoTrans, 1, m.l, full)
	blas64.Trsm(blas.Right, blas.Trans, m.scale*m.scale, m.l, full)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			h.SetSym(i, j, 0.5*(full.Data[i*n+j]+full.Data[j*n+i]))
		}
	}
}
