package solvers

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
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
type metric struct {
	x0  []float64
	l   blas64.Triangular // lower Cholesky factor L of H₀
	tmp []float64
}

// newMetric returns the change of variables for H₀ = ch's matrix at x0
// (copied).
func newMetric(ch *mat.Cholesky, x0 []float64) *metric {
	var lt mat.TriDense
	ch.LTo(&lt)
	return &metric{x0: append([]float64(nil), x0...), l: lt.RawTriangular(), tmp: make([]float64, len(x0))}
}

// point sets x = x₀ + L⁻ᵀz.
func (m *metric) point(x, z []float64) {
	copy(x, z)
	blas64.Trsv(blas.Trans, m.l, blas64.Vector{N: len(x), Inc: 1, Data: x})
	for i, v := range m.x0 {
		x[i] += v
	}
}

// grad sets gz = L⁻¹g.
func (m *metric) grad(gz, g []float64) {
	copy(gz, g)
	blas64.Trsv(blas.NoTrans, m.l, blas64.Vector{N: len(gz), Inc: 1, Data: gz})
}

// hessian overwrites h = ∇²f(x) by L⁻¹hL⁻ᵀ.
func (m *metric) hessian(h *mat.SymDense) {
	n := h.SymmetricDim()
	full := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			full.Data[i*n+j] = h.At(i, j)
		}
	}
	blas64.Trsm(blas.Left, blas.NoTrans, 1, m.l, full)
	blas64.Trsm(blas.Right, blas.Trans, 1, m.l, full)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			h.SetSym(i, j, 0.5*(full.Data[i*n+j]+full.Data[j*n+i]))
		}
	}
}
