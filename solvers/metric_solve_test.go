package solvers

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// randomMetric returns the metric of a random symmetric positive definite
// matrix AᵀA/n + I of order d at x0 = 0.
func randomMetric(t testing.TB, d int) *metric {
	r := newTestRand()
	a := randomDense(r, 2*d, d)
	var h mat.SymDense
	h.SymOuterK(1/float64(2*d), a.T())
	for i := range d {
		h.SetSym(i, i, h.At(i, i)+1)
	}
	var ch mat.Cholesky
	if !ch.Factorize(&h) {
		t.Fatal("not positive definite")
	}
	return newMetric(&ch, make([]float64, d))
}

// TestMetricSolvesMatchTrsv: the metric's triangular solves equal
// blas64.Trsv's (the reference BLAS operation), L⁻ᵀ exactly (the same
// operations in the same order) and L⁻¹ to 1e-13 relative (floats.Dot sums
// in another order), and they invert L: L·(L⁻¹b) = b.
func TestMetricSolvesMatchTrsv(t *testing.T) {
	for _, d := range []int{1, 2, 7, 64, 301} {
		t.Run(fmt.Sprint(d), func(t *testing.T) {
			m := randomMetric(t, d)
			b := randomVec(newTestRand(), d, 1)
			for _, tr := range []blas.Transpose{blas.NoTrans, blas.Trans} {
				got, want := append([]float64(nil), b...), append([]float64(nil), b...)
				blas64.Trsv(tr, m.l, blas64.Vector{N: d, Inc: 1, Data: want})
				if tr == blas.NoTrans {
					m.solveL(got)
					if dist := floats.Distance(got, want, math.Inf(1)); dist > 1e-13*floats.Norm(want, math.Inf(1)) {
						t.Errorf("L⁻¹b: max difference from Trsv %g", dist)
					}
					back := append([]float64(nil), got...)
					blas64.Trmv(blas.NoTrans, m.l, blas64.Vector{N: d, Inc: 1, Data: back})
					if dist := floats.Distance(back, b, math.Inf(1)); dist > 1e-12*floats.Norm(b, math.Inf(1)) {
						t.Errorf("L·(L⁻¹b) − b: max %g", dist)
					}
				} else {
					m.solveLT(got)
					for i := range got {
						if got[i] != want[i] {
							t.Fatalf("L⁻ᵀb[%d] = %v, Trsv %v", i, got[i], want[i])
						}
					}
				}
			}
		})
	}
}

// BenchmarkMetricPointGrad: one evaluation's change of variables at
// d = 2,000 (compare_classification's Synthetic-H): the point x = x₀ +
// c·L⁻ᵀw and the gradient c·L⁻¹g.
func BenchmarkMetricPointGrad(b *testing.B) {
	const d = 2000
	m := randomMetric(b, d)
	w, x := randomVec(newTestRand(), d, 1), make([]float64, d)
	for b.Loop() {
		m.point(x, w)
		m.grad(x, w)
	}
}
