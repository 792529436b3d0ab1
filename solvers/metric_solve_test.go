package solvers

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// randomMetric returns the metric of a random symmetric positive definite
// matrix AᵀA/n + I of order d.
func randomMetric(t testing.TB, d int) *Metric {
	m, _ := randomMetricChol(t, d)
	return m
}

// randomMetricChol is randomMetric with the factorisation it copied.
func randomMetricChol(t testing.TB, d int) (*Metric, *mat.Cholesky) {
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
	return NewMetric(&ch), &ch
}

// TestMetricSolvesMatchTrsv: the metric's triangular solves equal
// blas64.Trsv's (the reference BLAS operation), L⁻ᵀ exactly (the same
// operations in the same order) and L⁻¹ to 1e-13 relative (floats.Dot sums
// in another order), and they invert L: L·(L⁻¹b) = b.
func TestMetricSolvesMatchTrsv(t *testing.T) {
	for _, d := range []int{1, 2, 7, 64, 301} {
		t.Run(fmt.Sprint(d), func(t *testing.T) {
			m := randomMetric(t, d)
			l := m.triangular()
			b := randomVec(newTestRand(), d, 1)
			for _, tr := range []blas.Transpose{blas.NoTrans, blas.Trans} {
				got, want := append([]float64(nil), b...), append([]float64(nil), b...)
				blas64.Trsv(tr, l, blas64.Vector{N: d, Inc: 1, Data: want})
				if tr == blas.NoTrans {
					m.solveL(got)
					if dist := floats.Distance(got, want, math.Inf(1)); dist > 1e-13*floats.Norm(want, math.Inf(1)) {
						t.Errorf("L⁻¹b: max difference from Trsv %g", dist)
					}
					back := append([]float64(nil), got...)
					blas64.Trmv(blas.NoTrans, l, blas64.Vector{N: d, Inc: 1, Data: back})
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

// TestMetricSolve: Solve equals mat.Cholesky.SolveVecTo with the
// factorisation the Metric copied bit for bit (the same operations in the
// same order; objective perturbation's warm start moved from one to the
// other), in place too, and inverts H₀ (H₀·Solve(b) = b to 1e-12
// relative); NewMetric of an empty factorisation is a Metric Minimize
// refuses.
func TestMetricSolve(t *testing.T) {
	for _, d := range []int{1, 2, 5, 130, 301} {
		m, ch := randomMetricChol(t, d)
		b := randomVec(newTestRand(), d, 1)
		b[d/2] = 0 // a zero right-hand side entry, as Dtrsm skips none of b
		x := make([]float64, d)
		m.Solve(x, b)
		var want mat.VecDense
		if err := ch.SolveVecTo(&want, mat.NewVecDense(d, append([]float64(nil), b...))); err != nil {
			t.Fatal(err)
		}
		for i, v := range want.RawVector().Data {
			if x[i] != v {
				t.Fatalf("d = %d: Solve(b)[%d] = %v, Cholesky.SolveVecTo %v", d, i, x[i], v)
			}
		}
		var h mat.SymDense
		ch.ToSym(&h)
		var back mat.VecDense
		back.MulVec(&h, mat.NewVecDense(d, x))
		if dist := floats.Distance(back.RawVector().Data, b, math.Inf(1)); dist > 1e-12*floats.Norm(b, math.Inf(1)) {
			t.Errorf("d = %d: ‖H₀·Solve(b) − b‖∞ = %g", d, dist)
		}
		inPlace := append([]float64(nil), b...)
		m.Solve(inPlace, inPlace)
		if !floats.Equal(inPlace, x) {
			t.Errorf("d = %d: Solve in place differs", d)
		}
	}
	_, err := Minimize(quadratic{a: mat.NewSymDense(1, []float64{1}), b: []float64{1}}, []float64{0}, &Settings{Metric: NewMetric(&mat.Cholesky{})})
	if err == nil || !strings.Contains(err.Error(), "Metric is empty") {
		t.Errorf("empty metric: err %v", err)
	}
}

// BenchmarkMetricPointGrad: one evaluation's change of variables at
// d = 2,000 (compare_classification's Synthetic-H): the point x = x₀ +
// c·L⁻ᵀw and the gradient c·L⁻¹g.
func BenchmarkMetricPointGrad(b *testing.B) {
	const d = 2000
	m := newCoords(randomMetric(b, d), make([]float64, d))
	w, x := randomVec(newTestRand(), d, 1), make([]float64, d)
	for b.Loop() {
		m.point(x, w)
		m.grad(x, w)
	}
}

// BenchmarkMetricSolve: objective perturbation's warm start at d = 2,000,
// H₀⁻¹b once a fit, by Metric.Solve and by the mat.Cholesky it copies.
func BenchmarkMetricSolve(b *testing.B) {
	const d = 2000
	m, ch := randomMetricChol(b, d)
	rhs, x := randomVec(newTestRand(), d, 1), make([]float64, d)
	b.Run("Metric", func(b *testing.B) {
		for b.Loop() {
			m.Solve(x, rhs)
		}
	})
	b.Run("Cholesky", func(b *testing.B) {
		var dst mat.VecDense
		for b.Loop() {
			if err := ch.SolveVecTo(&dst, mat.NewVecDense(d, rhs)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
