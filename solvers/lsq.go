package solvers

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/dplab/dplab/internal/floatbuf"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
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
	GramTo(g, X)
	return g
}

// GramTo sets g, whose previous values are ignored, to XᵀX as Gram does. It
// panics if g's size is not X's number of columns.
func GramTo(g *mat.SymDense, X *mat.Dense) {
	if _, d := X.Dims(); g.SymmetricDim() != d {
		panic(badShape)
	}
	a, c := X.RawMatrix(), g.RawSymmetric()
	if a.Rows*a.Cols <= gramSmall && c.Uplo == blas.Upper {
		gramUpper(c, a)
		return
	}
	if c.Uplo == blas.Upper {
		// dsyrk with β = 0 first sets the upper triangle to +0.
		for i := range c.N {
			clear(c.Data[i*c.Stride+i : i*c.Stride+c.N])
		}
		syrkUpperAdd(c, a)
		return
	}
	blas64.Syrk(blas.Trans, 1, a, 0, c)
}

// gramSmall is the most entries of X that gramUpper takes (128 KiB: X stays
// in cache across its passes over the rows); larger ones go to
// syrkUpperAdd (dsyrk's bits).
const gramSmall = 1 << 14

// gramUpper sets the upper triangle of c to aᵀa with the bits of gonum's
// dsyrk (blas64.Syrk(blas.Trans, 1, a, 0, c), TestGramMatchesSyrk): each
// cᵢⱼ sums aₗᵢ·aₗⱼ from +0 in order l, each product rounded on its own
// (the explicit conversion: the Go spec lets a compiler fuse x*y + z
// otherwise), skipping a zero aₗᵢ as dsyrk does. dsyrk adds row l's
// aₗᵢ·(aₗᵢ … aₗₙ) into row i of c for each l in turn; here two rows × four
// columns of c are summed at once in registers and written once — for a
// sketch's 32 × 14 (Boston), 2.4 against 3.2 µs (BenchmarkGram).
func gramUpper(c blas64.Symmetric, a blas64.General) {
	n, k := a.Cols, a.Rows
	for i := 0; i < n; i += 2 {
		i2 := min(i+1, n-1) // the second row, or i again when n is odd
		ci := c.Data[i*c.Stride : i*c.Stride+n]
		ci2 := c.Data[i2*c.Stride : i2*c.Stride+n]
		j := i
		for ; j+4 <= n; j += 4 {
			var s0, s1, s2, s3, t0, t1, t2, t3 float64
			for l := range k {
				row := a.Data[l*a.Stride : l*a.Stride+n]
				r := row[j : j+4]
				if u := row[i]; u != 0 {
					s0 += float64(u * r[0])
					s1 += float64(u * r[1])
					s2 += float64(u * r[2])
					s3 += float64(u * r[3])
				}
				if u := row[i2]; u != 0 {
					t0 += float64(u * r[0])
					t1 += float64(u * r[1])
					t2 += float64(u * r[2])
					t3 += float64(u * r[3])
				}
			}
			ci[j], ci[j+1], ci[j+2], ci[j+3] = s0, s1, s2, s3
			if i2 != i {
				// Column j = i is below row i2's diagonal: not stored.
				if j > i {
					ci2[j] = t0
				}
				ci2[j+1], ci2[j+2], ci2[j+3] = t1, t2, t3
			}
		}
		for ; j < n; j++ {
			var s, t float64
			for l := range k {
				row := a.Data[l*a.Stride : l*a.Stride+n]
				if u := row[i]; u != 0 {
					s += float64(u * row[j])
				}
				if u := row[i2]; u != 0 {
					t += float64(u * row[j])
				}
			}
			ci[j] = s
			if i2 != i && j > i {
				ci2[j] = t
			}
		}
	}
}

// Ridge returns the ridge-regression coefficients
//
//	θ = argmin ‖y − Xθ‖² + λ‖θ‖² = (XᵀX + λI)⁻¹ Xᵀy.
//
// Ref: [LSS+25] eq. (8), θ*(ν) with ν = λ (the non-private reference line).
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
//
// The condition number is the one gonum's mat.Cholesky reports (LAPACK
// dpocon's estimate of κ₁ = ‖A‖₁‖A⁻¹‖₁), and θ is computed by the same LAPACK
// calls (dpotrf, dpotrs), so the result is bit for bit that of
// mat.Cholesky.Factorize + SolveVecTo. The estimate is only computed when a
// cheap upper bound on κ₁ does not already certify κ₁ ≤ condMax/2
// (choleskyCondBound): for the small systems of the sketching mechanisms the
// estimator cost more than the factorization and the solve together.
func solveCholesky(a *mat.SymDense, b []float64, lambda, condMax float64) (theta []float64, ok bool) {
	// A + λI and the work space in memory reused between solves: the
	// sketching mechanisms solve a 13 × 13 system per fit, and allocating
	// and copying A + λI took 0.17 s of a profile where the factorization
	// took 0.21 s.
	n := a.SymmetricDim()
	bp := floatbuf.Get(n*n + 3*n)
	defer floatbuf.Put(bp)
	sym := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: (*bp)[:n*n]} // upper triangle, as mat.Cholesky factorizes it
	shiftedTo(sym, a, lambda)
	work := (*bp)[n*n : n*n+3*n]
	anorm := lapack64.Lansy(mat.CondNorm, sym, work)
	if _, ok := lapack64.Potrf(sym); !ok {
		return nil, false
	}
	u := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: sym.Stride, Data: sym.Data}
	if !(anorm > 0 && choleskyCondBound(u, anorm, work) <= condMax/2) {
		// mat.Cholesky's cond: 1/rcond with rcond from dpocon.
		if cond := 1 / lapack64.Pocon(sym, anorm, work, make([]int, n)); !(cond <= condMax) {
			return nil, false
		}
	}
	theta = slices.Clone(b)
	potrsVec(u, theta)
	return theta, true
}

// potrsVec solves UᵀU x = b for one right-hand side, b in x on entry, U
// upper triangular: the operations of LAPACK dpotrs (Uᵀy = b, then Ux = y)
// as gonum's Dpotrs does them through two Dtrsm calls, in the same order and
// with the same roundings — each xᵢ −= uᵢₖxₖ with the product rounded on its
// own (what gonum's AxpyUnitary does; the explicit conversion stops the
// compiler fusing it), a zero uᵢₖ skipped, and division by uᵢᵢ as
// multiplication by its rounded reciprocal — so the bits are dpotrs's
// (TestPotrsVecMatchesLapack), without the BLAS calls per entry that cost
// more than the arithmetic on the sketching mechanisms' 14 × 14 systems.
func potrsVec(u blas64.Triangular, x []float64) {
	n, a, lda := u.N, u.Data, u.Stride
	x = x[:n]
	// Uᵀy = b, forwards (Dtrsm Left, Upper, Trans, NonUnit).
	for k := 0; k < n; k++ {
		x[k] *= 1 / a[k*lda+k]
		xk := x[k]
		for i, v := range a[k*lda+k+1 : k*lda+n] {
			if v != 0 {
				x[k+1+i] += float64(-v * xk)
			}
		}
	}
	// Ux = y, backwards (Dtrsm Left, Upper, NoTrans, NonUnit).
	for i := n - 1; i >= 0; i-- {
		xi := x[i]
		for j, v := range a[i*lda+i+1 : i*lda+n] {
			if v != 0 {
				xi += float64(-v * x[i+1+j])
			}
		}
		x[i] = xi * (1 / a[i*lda+i])
	}
}

// choleskyCondBound returns an upper bound on κ₁(A) = ‖A‖₁‖A⁻¹‖₁ from the
// Cholesky factor A = UᵀU and anorm = ‖A‖₁, or +Inf. With M(U) the
// comparison matrix of U (|uᵢᵢ| on the diagonal, −|uᵢⱼ| off it),
// |U⁻¹| ≤ M(U)⁻¹ entrywise and M(U)⁻¹ ≥ 0, so ‖U⁻¹‖∞ ≤ ‖M(U)⁻¹e‖∞ and
// ‖U⁻¹‖₁ ≤ ‖M(U)⁻ᵀe‖∞ with e the vector of ones ([Hig02] §8.3, bounds through the
// comparison matrix): two triangular solves with no cancellation. Then
//
//	‖A⁻¹‖₁ = ‖U⁻¹U⁻ᵀ‖₁ ≤ ‖U⁻¹‖₁‖U⁻ᵀ‖₁ = ‖U⁻¹‖₁‖U⁻¹‖∞.
//
// dpocon's estimate is ‖A⁻¹x‖₁ for some ‖x‖₁ = 1, at most ‖A⁻¹‖₁ up to
// rounding of relative size O(n²ε) (its solves are backward stable, and the
// comparison-matrix bound holds for the perturbed factor too), so a bound
// ≤ condMax/2 means the estimate is ≤ condMax. work needs 2n elements.
func choleskyCondBound(u blas64.Triangular, anorm float64, work []float64) float64 {
	n := u.N
	row, col := work[:n], work[n:2*n]
	// M(U)x = e, backwards: xᵢ = (1 + Σⱼ>ᵢ |uᵢⱼ| xⱼ) / |uᵢᵢ|.
	for i := n - 1; i >= 0; i-- {
		s := 1.0
		r := u.Data[i*u.Stride:]
		for j := i + 1; j < n; j++ {
			s += math.Abs(r[j]) * row[j]
		}
		row[i] = s / math.Abs(r[i])
	}
	// M(U)ᵀx = e, forwards: xⱼ = (1 + Σᵢ<ⱼ |uᵢⱼ| xᵢ) / |uⱼⱼ|.
	for j := range col {
		col[j] = 1
	}
	for i := 0; i < n; i++ {
		r := u.Data[i*u.Stride:]
		col[i] /= math.Abs(r[i])
		for j := i + 1; j < n; j++ {
			col[j] += math.Abs(r[j]) * col[i]
		}
	}
	bound := anorm * maxOf(row) * maxOf(col)
	if math.IsNaN(bound) {
		return math.Inf(1)
	}
	return bound
}

// maxOf returns the largest element of the non-empty v.
func maxOf(v []float64) float64 {
	m := v[0]
	for _, x := range v[1:] {
		m = math.Max(m, x)
	}
	return m
}

// shifted returns a copy of A + λI.
func shifted(a *mat.SymDense, lambda float64) *mat.SymDense {
	m := mat.NewSymDense(a.SymmetricDim(), nil)
	shiftedTo(m.RawSymmetric(), a, lambda)
	return m
}

// shiftedTo sets dst (upper, of A's size; its lower triangle zero) to
// A + λI, copying A's upper triangle as mat.SymDense.CopySym does.
func shiftedTo(dst blas64.Symmetric, a *mat.SymDense, lambda float64) {
	src := a.RawSymmetric()
	d := src.N
	for i := range d {
		clear(dst.Data[i*dst.Stride : i*dst.Stride+i])
		copy(dst.Data[i*dst.Stride+i:i*dst.Stride+d], src.Data[i*src.Stride+i:i*src.Stride+d])
	}
	if lambda != 0 {
		for i := 0; i < d; i++ {
			dst.Data[i*dst.Stride+i] += lambda
		}
	}
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
