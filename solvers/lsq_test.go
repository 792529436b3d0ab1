package solvers

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// ridgeQR is an independent oracle for Ridge: the least-squares solution of
// the augmented system [X; √λ I] θ ≈ [y; 0] by Householder QR, which never
// forms XᵀX.
func ridgeQR(t *testing.T, X *mat.Dense, y []float64, lambda float64) []float64 {
	t.Helper()
	n, d := X.Dims()
	a := mat.NewDense(n+d, d, nil)
	a.Slice(0, n, 0, d).(*mat.Dense).Copy(X)
	for j := 0; j < d; j++ {
		a.Set(n+j, j, math.Sqrt(lambda))
	}
	b := mat.NewVecDense(n+d, nil)
	for i, v := range y {
		b.SetVec(i, v)
	}
	var qr mat.QR
	qr.Factorize(a)
	var theta mat.VecDense
	if err := qr.SolveVecTo(&theta, false, b); err != nil {
		t.Fatalf("oracle QR: %v", err)
	}
	return theta.RawVector().Data
}

func TestGram(t *testing.T) {
	t.Parallel()
	x := randomDense(newTestRand(), 37, 5)
	g := Gram(x)
	// Oracle: the definition Σ_k x_ki x_kj. Tolerance: 37 products of O(1)
	// terms, rounding ~1e-15 each.
	for i := 0; i < 5; i++ {
		for j := 0; j < 5; j++ {
			var s float64
			for k := 0; k < 37; k++ {
				s += x.At(k, i) * x.At(k, j)
			}
			if math.Abs(g.At(i, j)-s) > 1e-12 {
				t.Fatalf("Gram[%d,%d] = %v, want %v", i, j, g.At(i, j), s)
			}
		}
	}
}

// TestGramMatchesSyrk: GramTo gives the bits of gonum's dsyrk
// (blas64.Syrk(blas.Trans, 1, X, 0, G)) on every shape up to 40 × 19 and on
// the largest X it sums itself (gramSmall entries), with entries of many
// magnitudes, +0, −0 and, in some matrices, NaN and ±Inf; it writes the
// upper triangle only, and a strided X is read within its columns.
// Tolerance: none, except that a NaN may be any NaN (which of two NaN
// operands' payloads an x86 instruction passes on depends on operand order).
func TestGramMatchesSyrk(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(4, 4))
	type shape struct{ rows, cols int }
	var shapes []shape
	for rows := 0; rows <= 40; rows += 1 + rows/8 {
		for cols := 1; cols <= 19; cols++ {
			shapes = append(shapes, shape{rows, cols})
		}
	}
	shapes = append(shapes, shape{gramSmall / 16, 16}, shape{gramSmall/16 + 1, 16})
	for n, sh := range shapes {
		special := n%5 == 0
		stride := sh.cols + n%3
		data := make([]float64, sh.rows*stride)
		for i := range data {
			data[i] = kernelEntry(r, special)
		}
		var x *mat.Dense
		if sh.rows > 0 {
			x = mat.NewDense(sh.rows, stride, data).Slice(0, sh.rows, 0, sh.cols).(*mat.Dense)
		}
		a := blas64.General{Rows: sh.rows, Cols: sh.cols, Stride: stride, Data: data}
		want := blas64.Symmetric{Uplo: blas.Upper, N: sh.cols, Stride: sh.cols, Data: make([]float64, sh.cols*sh.cols)}
		got := mat.NewSymDense(sh.cols, nil)
		raw := got.RawSymmetric()
		for i := range raw.Data {
			raw.Data[i], want.Data[i] = 7, 7 // the lower triangle must stay as it was
		}
		blas64.Syrk(blas.Trans, 1, a, 0, want)
		if x != nil {
			GramTo(got, x)
		} else {
			gramUpper(raw, a) // mat cannot hold 0 rows; what GramTo would call
		}
		for i := range raw.Data {
			if !sameBits(raw.Data[i], want.Data[i]) {
				t.Fatalf("%d × %d (stride %d): entry (%d, %d) = %v, dsyrk %v", sh.rows, sh.cols, stride, i/sh.cols, i%sh.cols, raw.Data[i], want.Data[i])
			}
		}
	}
}

func TestRidge(t *testing.T) {
	t.Parallel()
	r := newTestRand()
	well := randomDense(r, 40, 4)
	// Columns 0 and 1 equal up to 1e-9: cond(XᵀX) ~ 1e18, so the Cholesky
	// path is refused and the SVD fallback runs.
	ill := randomDense(r, 30, 3)
	for i := 0; i < 30; i++ {
		ill.Set(i, 1, ill.At(i, 0)*(1+1e-9))
	}
	wide := randomDense(r, 3, 6) // n < d
	tests := []struct {
		name   string
		x      *mat.Dense
		lambda float64
		tol    float64 // max abs difference to the QR oracle
	}{
		// Well conditioned: Cholesky and QR agree to rounding.
		{"well/λ=0", well, 0, 1e-12},
		{"well/λ=2.5", well, 2.5, 1e-12},
		// SVD path (cond(XᵀX + λI) ≈ 60/1e-8 > 6.7e7) vs QR on the
		// augmented system, whose condition number is ≈ ‖X‖/√λ ≈ 1e5:
		// errors ~1e-11 on coefficients of size ≤ 1e4.
		{"ill/λ=1e-8", ill, 1e-8, 1e-7},
		{"wide/λ=0.1", wide, 0.1, 1e-12},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, _ := tc.x.Dims()
			y := randomVec(newTestRand(), n, 1)
			_, chol := solveCholesky(Gram(tc.x), mulTransVec(tc.x, y), tc.lambda, choleskyCondMax)
			if wantChol := tc.x != ill; chol != wantChol {
				t.Fatalf("Cholesky path taken = %v, want %v", chol, wantChol)
			}
			got, err := Ridge(tc.x, y, tc.lambda)
			if err != nil {
				t.Fatal(err)
			}
			want := ridgeQR(t, tc.x, y, tc.lambda)
			if d := maxAbsDiff(got, want); d > tc.tol {
				t.Fatalf("Ridge = %v, QR oracle %v (diff %g > %g)", got, want, d, tc.tol)
			}
		})
	}
}

// TestRidgeClosedForm checks a 2-feature ridge problem against the explicit
// inverse of a 2×2 matrix.
func TestRidgeClosedForm(t *testing.T) {
	t.Parallel()
	x := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 7})
	y := []float64{1, -1, 2}
	lambda := 0.5
	// XᵀX + λI = [[35.5, 49], [49, 69.5]], Xᵀy = [8, 12].
	a, b, c := 35.5, 49.0, 69.5
	det := a*c - b*b
	want := []float64{(c*8 - b*12) / det, (-b*8 + a*12) / det}
	got, err := Ridge(x, y, lambda)
	if err != nil {
		t.Fatal(err)
	}
	// Tolerance: a 2×2 system with condition number ~1e3, rounding ~1e-13.
	if d := maxAbsDiff(got, want); d > 1e-12 {
		t.Fatalf("Ridge = %v, want %v", got, want)
	}
}

// TestRidgeMinimumNorm: at λ = 0 with two identical columns a, every θ with
// θ₀ + θ₁ = c = aᵀy/aᵀa is a least-squares solution; the minimum-norm one is
// (c/2, c/2).
func TestRidgeMinimumNorm(t *testing.T) {
	t.Parallel()
	r := newTestRand()
	a := randomVec(r, 25, 1)
	y := randomVec(r, 25, 1)
	x := mat.NewDense(25, 2, nil)
	for i, v := range a {
		x.Set(i, 0, v)
		x.Set(i, 1, v)
	}
	c := floats.Dot(a, y) / floats.Dot(a, a)
	got, err := Ridge(x, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Tolerance: rounding of an SVD of a 25×2 matrix.
	if d := maxAbsDiff(got, []float64{c / 2, c / 2}); d > 1e-12 {
		t.Fatalf("Ridge = %v, want (%v, %v)", got, c/2, c/2)
	}
}

func TestRidgeErrors(t *testing.T) {
	t.Parallel()
	x := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	nan := mat.NewDense(2, 2, []float64{1, math.NaN(), 0, 1})
	tests := []struct {
		name   string
		x      *mat.Dense
		y      []float64
		lambda float64
	}{
		{"negative λ", x, []float64{1, 2}, -1},
		{"NaN λ", x, []float64{1, 2}, math.NaN()},
		{"NaN in X", nan, []float64{1, 2}, 1},
		{"Inf in y", x, []float64{1, math.Inf(1)}, 1},
	}
	for _, tc := range tests {
		if _, err := Ridge(tc.x, tc.y, tc.lambda); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestSolveRegularized(t *testing.T) {
	t.Parallel()
	r := newTestRand()
	spd := Gram(randomDense(r, 20, 4))
	// A symmetric indefinite matrix such as a noisy Gram matrix at small ε.
	indef := mat.NewSymDense(3, []float64{1, 2, 0, 2, -3, 1, 0, 1, 0.5})
	tests := []struct {
		name   string
		a      *mat.SymDense
		lambda float64
		tol    float64 // on the residual ‖(A + λI)θ − b‖∞
	}{
		// Tolerance: rounding in solving a system with condition < 1e3.
		{"positive definite", spd, 0.1, 1e-11},
		{"indefinite (LU path)", indef, 0.2, 1e-12},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.a.SymmetricDim()
			b := randomVec(newTestRand(), d, 1)
			theta, err := SolveRegularized(tc.a, b, tc.lambda)
			if err != nil {
				t.Fatal(err)
			}
			// Oracle: the defining equation.
			m := shifted(tc.a, tc.lambda)
			var res mat.VecDense
			res.MulVec(m, mat.NewVecDense(d, theta))
			res.SubVec(&res, mat.NewVecDense(d, b))
			if e := mat.Norm(&res, math.Inf(1)); e > tc.tol {
				t.Fatalf("residual %g > %g", e, tc.tol)
			}
		})
	}
}

func TestSolveRegularizedSingular(t *testing.T) {
	t.Parallel()
	// [[1, 1], [1, 1]] is singular and (1, 0) is not in its range.
	a := mat.NewSymDense(2, []float64{1, 1, 1, 1})
	_, err := SolveRegularized(a, []float64{1, 0}, 0)
	var cond mat.Condition
	if !errors.As(err, &cond) {
		t.Fatalf("error %v does not wrap mat.Condition", err)
	}
	if _, err := SolveRegularized(a, []float64{1, 0}, -1); err == nil {
		t.Fatal("negative λ: no error")
	}
}

func TestLambdaMin(t *testing.T) {
	t.Parallel()
	// A = Q diag(ev) Qᵀ with Q the orthogonal factor of a random matrix:
	// its eigenvalues are ev.
	tests := []struct {
		name string
		ev   []float64
	}{
		{"positive", []float64{3, 0.25, 7, 1}},
		{"indefinite", []float64{2, -1.5, 0.5}},
		{"singular", []float64{0, 4, 9}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := len(tc.ev)
			var qr mat.QR
			qr.Factorize(randomDense(newTestRand(), d, d))
			var q mat.Dense
			qr.QTo(&q)
			var m mat.Dense
			m.Mul(&q, mat.NewDiagDense(d, tc.ev))
			m.Mul(&m, q.T())
			a := mat.NewSymDense(d, nil)
			for i := 0; i < d; i++ {
				for j := i; j < d; j++ {
					a.SetSym(i, j, m.At(i, j))
				}
			}
			got, err := LambdaMin(a)
			if err != nil {
				t.Fatal(err)
			}
			// Tolerance: eigenvalue rounding ~ ε‖A‖ with ‖A‖ ≤ 9.
			if want := floats.Min(tc.ev); math.Abs(got-want) > 1e-13 {
				t.Fatalf("LambdaMin = %v, want %v", got, want)
			}
		})
	}
	if _, err := LambdaMin(mat.NewSymDense(2, []float64{1, math.NaN(), math.NaN(), 1})); err == nil {
		t.Fatal("NaN: no error")
	}
}

// TestSolveCholeskyMatchesGonum checks solveCholesky against the code it
// replaced, mat.Cholesky.Factorize + Cond + SolveVecTo: the same accept or
// reject decision and bit-identical θ, on random symmetric matrices with
// condition numbers from 1 to 1e20 (positive definite, semi-definite and
// indefinite), on sketch-shaped Gram matrices, and on a factor whose
// comparison-matrix bound overestimates κ by 2⁵⁹ (so the dpocon estimate
// decides). It also checks that the bound is never below gonum's estimate.
func TestSolveCholeskyMatchesGonum(t *testing.T) {
	t.Parallel()
	rnd := newTestRand()
	oracle := func(a *mat.SymDense, b []float64, condMax float64) ([]float64, bool) {
		var chol mat.Cholesky
		if !chol.Factorize(a) || !(chol.Cond() <= condMax) {
			return nil, false
		}
		theta := make([]float64, len(b))
		if err := chol.SolveVecTo(mat.NewVecDense(len(theta), theta), mat.NewVecDense(len(b), b)); err != nil {
			return nil, false
		}
		return theta, true
	}
	var cases []*mat.SymDense
	// Q diag(λ) Qᵀ with log-uniform spectra, some with negative or zero
	// eigenvalues.
	for i := 0; i < 400; i++ {
		n := 1 + rnd.IntN(30)
		var q mat.QR
		g := mat.NewDense(n, n, randomVec(rnd, n*n, 1))
		q.Factorize(g)
		var qm mat.Dense
		q.QTo(&qm)
		logCond := 20 * rnd.Float64()
		lam := make([]float64, n)
		for j := range lam {
			lam[j] = math.Pow(10, -logCond*rnd.Float64())
			switch rnd.IntN(20) {
			case 0:
				lam[j] = -lam[j]
			case 1:
				lam[j] = 0
			}
		}
		var a mat.Dense
		a.Mul(&qm, mat.NewDiagDense(n, lam))
		a.Mul(&a, qm.T())
		s := mat.NewSymDense(n, nil)
		for r := 0; r < n; r++ {
			for c := r; c < n; c++ {
				s.SetSym(r, c, a.At(r, c))
			}
		}
		cases = append(cases, s)
	}
	// Gram matrices of k × p Gaussian sketches with skewed column scales.
	for i := 0; i < 200; i++ {
		p := 2 + rnd.IntN(20)
		k := p + rnd.IntN(3*p)
		x := mat.NewDense(k, p, randomVec(rnd, k*p, 1))
		for c := 0; c < p; c++ {
			scale := math.Pow(10, -6*rnd.Float64())
			for r := 0; r < k; r++ {
				x.Set(r, c, scale*x.At(r, c))
			}
		}
		cases = append(cases, Gram(x))
	}
	// A = UᵀU with U unit upper triangular, all ones above the diagonal:
	// κ₁(A) is about 4n², the comparison-matrix bound about 4ⁿ.
	const n = 60
	u := mat.NewTriDense(n, mat.Upper, nil)
	for r := 0; r < n; r++ {
		for c := r; c < n; c++ {
			u.SetTri(r, c, 1)
		}
	}
	var utu mat.Dense
	utu.Mul(u.T(), u)
	ones := mat.NewSymDense(n, nil)
	for r := 0; r < n; r++ {
		for c := r; c < n; c++ {
			ones.SetSym(r, c, utu.At(r, c))
		}
	}
	cases = append(cases, ones)

	accepted, estimated := 0, 0
	for i, a := range cases {
		n := a.SymmetricDim()
		b := randomVec(rnd, n, 1)
		for _, condMax := range []float64{choleskyCondMax, mat.ConditionTolerance} {
			want, wantOK := oracle(a, b, condMax)
			got, gotOK := solveCholesky(a, b, 0, condMax)
			if gotOK != wantOK {
				t.Fatalf("case %d (n = %d, condMax %g): accepted = %v, mat.Cholesky %v", i, n, condMax, gotOK, wantOK)
			}
			for j := range want {
				if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
					t.Fatalf("case %d: θ[%d] = %v, mat.Cholesky %v", i, j, got[j], want[j])
				}
			}
			if gotOK {
				accepted++
			}
		}
		var chol mat.Cholesky
		if !chol.Factorize(a) {
			continue
		}
		raw := a.RawSymmetric()
		work := make([]float64, 3*n)
		anorm := lapack64.Lansy(mat.CondNorm, raw, work)
		f := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: n, Data: chol.RawU().(*mat.TriDense).RawTriangular().Data}
		bound := choleskyCondBound(f, anorm, work)
		if !(bound >= chol.Cond()*(1-1e-12)) {
			t.Fatalf("case %d (n = %d): bound %g below dpocon's estimate %g", i, n, bound, chol.Cond())
		}
		if bound > mat.ConditionTolerance/2 {
			estimated++
		}
	}
	if accepted == 0 || estimated == 0 {
		t.Fatalf("accepted %d, estimated %d: the cases do not exercise both paths", accepted, estimated)
	}
	t.Logf("%d matrices: %d accepted (of 2 thresholds each), %d needed dpocon at 1e16", len(cases), accepted, estimated)
}

// TestPotrsVecMatchesLapack: potrsVec gives dpotrs's bits (gonum's Dpotrs,
// two Dtrsm calls) on upper triangular factors with zeros, entries over
// many orders of magnitude and orders 1 to 20.
func TestPotrsVecMatchesLapack(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for n := 1; n <= 20; n++ {
		for rep := 0; rep < 20; rep++ {
			u := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: n + rep%3, Data: make([]float64, (n-1)*(n+rep%3)+n)}
			for i := 0; i < n; i++ {
				u.Data[i*u.Stride+i] = (0.1 + r.Float64()) * math.Exp(3*r.NormFloat64())
				for j := i + 1; j < n; j++ {
					if r.IntN(4) > 0 {
						u.Data[i*u.Stride+j] = r.NormFloat64() * math.Exp(3*r.NormFloat64())
					}
				}
			}
			b := make([]float64, n)
			for i := range b {
				b[i] = r.NormFloat64() * math.Exp(2*r.NormFloat64())
			}
			want := append([]float64(nil), b...)
			lapack64.Potrs(u, blas64.General{Rows: n, Cols: 1, Stride: 1, Data: want})
			got := append([]float64(nil), b...)
			potrsVec(u, got)
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("n=%d rep=%d: x[%d] = %v, dpotrs %v", n, rep, i, got[i], want[i])
				}
			}
		}
	}
}
