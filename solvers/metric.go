package solvers

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Metric is a symmetric positive definite H₀ = LLᵀ factored for
// Settings.Metric. It is read-only once made, so the fits of one start
// share it: objective perturbation's trials of one cell share the Hessian
// of their noiseless fit. L's lower triangle is stored packed by rows (16
// MB at order 2,000; a full n×n copy, made per fit, took 32 MB a fit).
type Metric struct {
	n int
	l []float64 // L's row i, L[i][0..i], at l[i(i+1)/2:]
}

// NewMetric returns the metric of ch's matrix H₀, copying its factor once
// (ch may be discarded after). An empty ch gives an empty Metric, which
// Minimize refuses.
func NewMetric(ch *mat.Cholesky) *Metric {
	if ch.IsEmpty() {
		return &Metric{}
	}
	u := ch.RawU().(*mat.TriDense).RawTriangular() // H₀ = UᵀU, L = Uᵀ
	n := u.N
	m := &Metric{n: n, l: make([]float64, n*(n+1)/2)}
	for i := range n {
		row := m.row(i)
		for k := range row {
			row[k] = u.Data[k*u.Stride+i]
		}
	}
	return m
}

// Dim returns the order of H₀, 0 for an empty Metric.
func (m *Metric) Dim() int { return m.n }

// row returns L's row i up to its diagonal, L[i][0..i].
func (m *Metric) row(i int) []float64 {
	off := i * (i + 1) / 2
	return m.l[off : off+i+1 : off+i+1]
}

// Solve sets dst = H₀⁻¹b = L⁻ᵀ(L⁻¹b), with the operations, in their
// order, of mat.Cholesky.SolveVecTo (lapack Dpotrs: Dtrsm with Uᵀ, then
// with U, U = Lᵀ), so that the result has the same bits as that solve
// with the factorisation NewMetric copied: each term −L_ik·x_k is added
// alone, k ascending (zero coefficients skipped), and the sum multiplied
// by 1/L_ii. The second solve reads L by columns. dst and b may be the
// same slice; both have length Dim().
func (m *Metric) Solve(dst, b []float64) {
	if len(dst) != m.n || len(b) != m.n {
		panic(badShape)
	}
	copy(dst, b)
	for i := range m.n { // Uᵀy = b
		row := m.row(i)
		s := dst[i]
		for k, v := range row[:i] {
			if v != 0 {
				s += float64(-v * dst[k]) // the conversion keeps the product rounded apart (no fused multiply-add)
			}
		}
		dst[i] = s * (1 / row[i])
	}
	for i := m.n - 1; i >= 0; i-- { // Ux = y
		s := dst[i]
		for k := i + 1; k < m.n; k++ {
			if v := m.l[k*(k+1)/2+i]; v != 0 {
				s += float64(-v * dst[k])
			}
		}
		dst[i] = s * (1 / m.l[i*(i+1)/2+i])
	}
}

// triangular returns L unpacked, for the BLAS.
func (m *Metric) triangular() blas64.Triangular {
	t := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: m.n, Stride: m.n, Data: make([]float64, m.n*m.n)}
	for i := range m.n {
		copy(t.Data[i*m.n:], m.row(i))
	}
	return t
}

// coords is the change of variables of Settings.Metric: for a symmetric
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
type coords struct {
	*Metric // shared, read-only
	x0      []float64
	scale   float64 // c; 1 until setScale
}

// newCoords returns the change of variables for h at x0 (copied).
func newCoords(h *Metric, x0 []float64) *coords {
	return &coords{Metric: h, x0: append([]float64(nil), x0...), scale: 1}
}

// setScale sets c = ‖gz‖₂ for gz the gradient in the coordinates z of the
// start z = 0 (w = 0 too), and scales gz to the gradient c·gz in w. It
// keeps c = 1 when ‖gz‖₂ is 0 or not finite.
func (m *coords) setScale(gz []float64) {
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
func (m *coords) point(x, w []float64) {
	copy(x, w)
	m.solveLT(x)
	for i, v := range m.x0 {
		x[i] = v + m.scale*x[i]
	}
}

// grad sets gw = c·L⁻¹g.
func (m *coords) grad(gw, g []float64) {
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
func (m *Metric) solveL(x []float64) {
	for i := range x {
		row := m.row(i)
		x[i] = (x[i] - floats.Dot(row[:i], x[:i])) / row[i]
	}
}

// solveLT overwrites x by L⁻ᵀx: backward substitution, each solved x[i]
// taken out of x[:i] along row i of L by floats.AddScaled (the column
// sweep of blas64.Trsv's transposed solve, vectorised).
func (m *Metric) solveLT(x []float64) {
	for i := len(x) - 1; i >= 0; i-- {
		row := m.row(i)
		x[i] /= row[i]
		floats.AddScaled(x[:i], -x[i], row[:i])
	}
}

// hessian overwrites h = ∇²f(x) by c²·L⁻¹hL⁻ᵀ.
func (m *coords) hessian(h *mat.SymDense) {
	n := h.SymmetricDim()
	full := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			full.Data[i*n+j] = h.At(i, j)
		}
	}
	l := m.triangular()
	blas64.Trsm(blas.Left, blas.NoTrans, 1, l, full)
	blas64.Trsm(blas.Right, blas.Trans, m.scale*m.scale, l, full)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			h.SetSym(i, j, 0.5*(full.Data[i*n+j]+full.Data[j*n+i]))
		}
	}
}
