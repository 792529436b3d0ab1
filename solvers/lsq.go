package solvers

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// choleskyCondMax is the largest condition number of XᵀX + λI that Ridge
// accepts from the Cholesky path. The normal equations square the condition
// number of X, so a Cholesky solve loses about log10(cond) digits; above
// 1/√ε ≈ 6.7e7 the SVD of X (which loses only about half as many) is used.
const choleskyCondMax = 6.7e7

// Gram returns XᵀX, computed by a symmetric rank-k update (BLAS dsyrk), which
// does half the work of a general product.
func Gram(X *mat.Dense) *mat.SymDense {
	_, d := X.Dims()
	g := mat.NewSymDense(d, nil)
	blas64.Syrk(blas.Trans, 1, X.RawMatrix(), 0, g.RawSymmetric())
	return g
}

// Ridge returns the ridge-regression coefficients
//
//	θ = argmin ‖y − Xθ‖² + λ‖θ‖² = (XᵀX + λI)⁻¹ Xᵀy.
//
// Ref: [LSS25] eq. (8), θ*(ν) with ν = λ (the non-private reference line).
//
// It solves the normal equations by Cholesky. When XᵀX + λI is not positive
// definite to working precision, or is so ill-conditioned that the normal
// equations would lose more than half the digits (condition number above
// 6.7e7), it falls back to the thin SVD X = UΣVᵀ:
//
//	θ = V diag(σᵢ/(σᵢ² + λ)) Uᵀy.
//
// At λ = 0 with X rank-deficient, Ridge returns the minimum-norm
// least-squares solution, dropping singular values σᵢ ≤ max(n, d)·ε·σ₁ (the
// cut-off of numpy.linalg.lstsq), as numpy.linalg.lstsq and scikit-learn's
// LinearRegression do. It returns an error if λ < 0, if X or y holds a NaN or
// an infinity, or if the SVD fails. It panics if len(y) differs from the
// number of rows of X.
func Ridge(X *mat.Dense, y []float64, lambda float64) ([]float64, error) {
	n, _ := X.Dims()
	if len(y) != n {
		panic(badShape)
	}
	if err := checkRegularization(lambda); err != nil {
		return nil, err
	}
	if err := checkFiniteMatrix("X", X); err != nil {
		return nil, err
	}
	if err := checkFinite("y", y); err != nil {
		return nil, err
	}
	a := Gram(X)
	b := mulTransVec(X, y)
	if theta, ok := solveCholesky(a, b, lambda, choleskyCondMax); ok {
		return theta, nil
	}
	return ridgeSVD(X, y, lambda)
}

// mulTransVec returns Xᵀv.
func mulTransVec(X *mat.Dense, v []float64) []float64 {
	_, d := X.Dims()
	out := make([]float64, d)
	blas64.Gemv(blas.Trans, 1, X.RawMatrix(), blas64.Vector{N: len(v), Inc: 1, Data: v},
		0, blas64.Vector{N: d, Inc: 1, Data: out})
	return out
}

// solveCholesky solves (A + λI)θ = b by Cholesky. ok is false when A + λI is
// not positive definite or its condition number exceeds condMax.
func solveCholesky(a *mat.SymDense, b []float64, lambda, condMax float64) (theta []float64, ok bool) {
	m := shifted(a, lambda)
	var chol mat.Cholesky
	if !chol.Factorize(m) || !(chol.Cond() <= condMax) {
		return nil, false
	}
	theta = make([]float64, len(b))
	if err := chol.SolveVecTo(mat.NewVecDense(len(theta), theta), mat.NewVecDense(len(b), b)); err != nil {
		return nil, false
	}
	return theta, true
}

// shifted returns a copy of A + λI.
func shifted(a *mat.SymDense, lambda float64) *mat.SymDense {
	d := a.SymmetricDim()
	m := mat.NewSymDense(d, nil)
	m.CopySym(a)
	if lambda != 0 {
		raw := m.RawSymmetric()
		for i := 0; i < d; i++ {
			raw.Data[i*raw.Stride+i] += lambda
		}
	}
	return m
}

// ridgeSVD solves ridge regression through the thin SVD of X (see Ridge).
func ridgeSVD(X *mat.Dense, y []float64, lambda float64) ([]float64, error) {
	n, d := X.Dims()
	var svd mat.SVD
	if !svd.Factorize(X, mat.SVDThin) {
		return nil, errors.New("solvers: ridge: SVD of X did not converge")
	}
	sigma := svd.Values(nil)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	// c = Uᵀy, then scaled by σᵢ/(σᵢ² + λ).
	c := make([]float64, len(sigma))
	blas64.Gemv(blas.Trans, 1, u.RawMatrix(), blas64.Vector{N: n, Inc: 1, Data: y},
		0, blas64.Vector{N: len(c), Inc: 1, Data: c})
	cut := float64(max(n, d)) * epsilon * sigma[0]
	for i, s := range sigma {
		if lambda == 0 && s <= cut {
			c[i] = 0
			continue
		}
		c[i] *= s / (s*s + lambda)
	}
	theta := make([]float64, d)
	blas64.Gemv(blas.NoTrans, 1, v.RawMatrix(), blas64.Vector{N: len(c), Inc: 1, Data: c},
		0, blas64.Vector{N: d, Inc: 1, Data: theta})
	return theta, nil
}

// epsilon is the float64 machine epsilon 2⁻⁵².
const epsilon = 0x1p-52

// SolveRegularized solves (A + λI)θ = b for a symmetric A that need not be
// positive semi-definite — for example AdaSSP's noisy XᵀX + N_sym(0, σ²)
// ([Wang18] Alg. 2, lines 5 and 7), which can be indefinite at small ε.
//
// It factorizes A + λI by Cholesky when it is positive definite and otherwise
// by LU with partial pivoting, which solves any nonsingular system, definite
// or not (as numpy.linalg.solve / inv do in the published AdaSSP and GaussMix
// code). When A + λI is singular to working precision (condition number above
// gonum's mat.ConditionTolerance = 1e16) it returns an error wrapping the
// mat.Condition. It also returns an error if λ < 0 or if A or b holds a NaN
// or an infinity. It panics if len(b) differs from the order of A.
func SolveRegularized(A *mat.SymDense, b []float64, lambda float64) ([]float64, error) {
	d := A.SymmetricDim()
	if len(b) != d {
		panic(badShape)
	}
	if err := checkRegularization(lambda); err != nil {
		return nil, err
	}
	if err := checkFiniteSym("A", A); err != nil {
		return nil, err
	}
	if err := checkFinite("b", b); err != nil {
		return nil, err
	}
	if theta, ok := solveCholesky(A, b, lambda, mat.ConditionTolerance); ok {
		return theta, nil
	}
	var lu mat.LU
	lu.Factorize(shifted(A, lambda))
	theta := make([]float64, d)
	if err := lu.SolveVecTo(mat.NewVecDense(d, theta), false, mat.NewVecDense(d, b)); err != nil {
		return nil, fmt.Errorf("solvers: A + λI (λ = %g) is singular: %w", lambda, err)
	}
	return theta, nil
}

// LambdaMin returns the smallest eigenvalue of the symmetric matrix A
// (LAPACK dsyev through gonum's EigenSym, eigenvalues only). It returns an
// error if A holds a NaN or an infinity or if the eigensolver fails.
func LambdaMin(A *mat.SymDense) (float64, error) {
	if err := checkFiniteSym("A", A); err != nil {
		return math.NaN(), err
	}
	var eig mat.EigenSym
	if !eig.Factorize(A, false) {
		return math.NaN(), errors.New("solvers: eigendecomposition did not converge")
	}
	return eig.Values(nil)[0], nil
}
