package solvers

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// RidgeNode is one node's ridge-regression objective in the distributed
// experiment of [HMB23] §6 (v2 Eq. (9), on the node's n rows x_j with
// targets y_j):
//
//	f(θ)    = (1/(2n))‖Xθ − y‖² + (μ/2)‖θ‖² = ½θᵀAθ − bᵀθ + ‖y‖²/(2n)
//	A       = XᵀX/n + μI,   b = Xᵀy/n,   ∇f(θ) = Aθ − b
//	ℓ_j(θ)  = ½(x_jᵀθ − y_j)² + (μ/2)‖θ‖²,   ∇ℓ_j(θ) = x_j r_j + μθ,   r_j = x_jᵀθ − y_j
//
// Ref: [HMB23] v2 Eq. (9) (the objective), App. C Eqs. (80)–(81) (the full
// and the per-sample gradients, the regularizer inside ℓ_j as in the
// authors' code, rgm.md §6 item 11). Unlike the rest of this package the
// objective is a mean over the rows, [HMB23]'s scale.
//
// A, b, A⁻¹ (Cholesky), the extreme eigenvalues of A and the squared row
// norms are computed once by NewRidgeNode; Grad and Value then cost O(d²)
// and ClippedGrad one pass over the rows, O(nd). A RidgeNode is immutable
// and safe for concurrent use.
type RidgeNode struct {
	n, d int
	x    []float64 // n × d, row-major, contiguous (not modified)
	y    []float64
	mu   float64
	a    *mat.SymDense
	b    []float64
	ainv []float64 // A⁻¹, d × d row-major (full)
	yy   float64   // ‖y‖²/(2n)
	xx   []float64 // ‖x_j‖²
	lmin float64
	lmax float64
}

// NewRidgeNode builds node objective on the rows of X (n × d, n ≥ 1) and
// targets y with regularization μ > 0. It keeps X's data (copying it only
// when its rows are not contiguous): the caller must not modify X or y
// afterwards. It returns an error for μ ≤ 0, non-finite data, or an A that
// is not positive definite to working precision; it panics if len(y) is not
// the number of rows.
func NewRidgeNode(X *mat.Dense, y []float64, mu float64) (*RidgeNode, error) {
	n, d := X.Dims()
	if len(y) != n {
		panic(badShape)
	}
	if n < 1 || d < 1 {
		return nil, fmt.Errorf("solvers: ridge node needs at least one row and one column, have %d × %d", n, d)
	}
	if !(mu > 0) || math.IsInf(mu, 0) {
		return nil, fmt.Errorf("solvers: ridge node: μ = %v, want a finite value > 0", mu)
	}
	if err := checkFiniteMatrix("X", X); err != nil {
		return nil, err
	}
	if err := checkFinite("y", y); err != nil {
		return nil, err
	}
	raw := X.RawMatrix()
	data := raw.Data
	if raw.Stride != d {
		data = make([]float64, n*d)
		for j := 0; j < n; j++ {
			copy(data[j*d:(j+1)*d], raw.Data[j*raw.Stride:j*raw.Stride+d])
		}
	}
	r := &RidgeNode{n: n, d: d, x: data[:n*d], y: y, mu: mu}
	xm := mat.NewDense(n, d, r.x)
	// A = XᵀX/n + μI, b = Xᵀy/n  ([HMB23] v2 Eq. (9); rgm.md §4.1)
	a := Gram(xm)
	inv := 1 / float64(n)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			v := a.At(i, j) * inv
			if i == j {
				v += mu
			}
			a.SetSym(i, j, v)
		}
	}
	r.a = a
	r.b = mulTransVec(xm, y)
	for i := range r.b {
		r.b[i] *= inv
	}
	r.xx = make([]float64, n)
	for j := 0; j < n; j++ {
		row := r.x[j*d : (j+1)*d]
		r.xx[j] = dot(row, row)
		r.yy += y[j] * y[j]
	}
	r.yy *= 0.5 * inv
	var eig mat.EigenSym
	if !eig.Factorize(a, false) {
		return nil, errors.New("solvers: ridge node: eigendecomposition of A did not converge")
	}
	vals := eig.Values(nil)
	r.lmin, r.lmax = vals[0], vals[d-1]
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		return nil, errors.New("solvers: ridge node: A = XᵀX/n + μI is not positive definite")
	}
	var ai mat.SymDense
	if err := ch.InverseTo(&ai); err != nil {
		return nil, fmt.Errorf("solvers: ridge node: invert A: %w", err)
	}
	r.ainv = make([]float64, d*d)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			r.ainv[i*d+j] = ai.At(i, j)
		}
	}
	return r, nil
}

// Dims returns the number of rows n and the dimension d.
func (r *RidgeNode) Dims() (n, d int) { return r.n, r.d }

// Mu returns the regularization μ.
func (r *RidgeNode) Mu() float64 { return r.mu }

// A returns A = XᵀX/n + μI. The caller must not modify it.
func (r *RidgeNode) A() *mat.SymDense { return r.a }

// B returns b = Xᵀy/n. The caller must not modify it.
func (r *RidgeNode) B() []float64 { return r.b }

// Row returns row j of X and its target. The caller must not modify them.
func (r *RidgeNode) Row(j int) (x []float64, y float64) {
	return r.x[j*r.d : (j+1)*r.d : (j+1)*r.d], r.y[j]
}

// Eigen returns the smallest and the largest eigenvalue of A.
func (r *RidgeNode) Eigen() (lmin, lmax float64) { return r.lmin, r.lmax }

// Value returns f(θ) = ½θᵀAθ − bᵀθ + ‖y‖²/(2n), O(d²).
func (r *RidgeNode) Value(theta []float64) float64 {
	r.checkDim(theta)
	d := r.d
	var q float64
	for i := 0; i < d; i++ {
		var s float64
		for j := 0; j < d; j++ {
			s += r.a.At(i, j) * theta[j]
		}
		q += theta[i] * s
	}
	return 0.5*q - dot(r.b, theta) + r.yy
}

// Grad stores ∇f(θ) = Aθ − b in dst, O(d²).
func (r *RidgeNode) Grad(dst, theta []float64) {
	r.checkDim(theta)
	r.checkDim(dst)
	raw := r.a.RawSymmetric()
	d := r.d
	// The upper triangle holds A; walk it once for both halves.
	for i := 0; i < d; i++ {
		dst[i] = -r.b[i]
	}
	for i := 0; i < d; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+d]
		dst[i] += row[i] * theta[i]
		for j := i + 1; j < d; j++ {
			dst[i] += row[j] * theta[j]
			dst[j] += row[j] * theta[i]
		}
	}
}

// SolveA stores A⁻¹v in dst, O(d²).
func (r *RidgeNode) SolveA(dst, v []float64) {
	r.checkDim(v)
	r.checkDim(dst)
	mulVec(dst, r.ainv, v, r.d)
}

// Optimum returns the minimiser A⁻¹b of f.
func (r *RidgeNode) Optimum() []float64 {
	out := make([]float64, r.d)
	r.SolveA(out, r.b)
	return out
}

// SampleGradNorms returns max_j ‖∇ℓ_j(θ)‖ and Σ_j ‖∇ℓ_j(θ)‖² in one pass
// over the rows, by the closed form of ClippedGrad.
func (r *RidgeNode) SampleGradNorms(theta []float64) (max, sumSq float64) {
	r.checkDim(theta)
	d, mu := r.d, r.mu
	tt := dot(theta, theta)
	for j := 0; j < r.n; j++ {
		xt := dot(r.x[j*d:(j+1)*d], theta)
		n2 := sampleNorm2(r.xx[j], xt-r.y[j], xt, mu, tt)
		sumSq += n2
		if n2 > max {
			max = n2
		}
	}
	return math.Sqrt(max), sumSq
}

// sampleNorm2 returns ‖∇ℓ_j(θ)‖² = ‖x_j r_j + μθ‖² = r_j²‖x_j‖² +
// 2μ r_j x_jᵀθ + μ²‖θ‖² from the squared row norm xx, the residual res, the
// inner product xt = x_jᵀθ and tt = ‖θ‖², clamped at 0 against rounding.
func sampleNorm2(xx, res, xt, mu, tt float64) float64 {
	return math.Max(0, res*res*xx+2*mu*res*xt+mu*mu*tt)
}

// ClippedGrad stores in dst the mean of the per-sample gradients clipped to
// norm c > 0,
//
//	g = (1/n) Σ_j ∇ℓ_j(θ) · w_j,   w_j = c / max(c, ‖∇ℓ_j(θ)‖)
//	  = ∇f(θ) + (1/n) Σ_{j: w_j < 1} (w_j − 1)·(x_j r_j + μθ),
//
// with ‖∇ℓ_j(θ)‖² = r_j²‖x_j‖² + 2μ r_j x_jᵀθ + μ²‖θ‖² from the
// precomputed ‖x_j‖²: the residuals Xθ − y take one pass over the rows (BLAS
// dgemv), the unclipped sum is ∇f(θ) = Aθ − b (O(d²)), and only the clipped
// rows are read again (dgemv with Xᵀ when many are). It returns the number
// of rows whose gradient was clipped (‖∇ℓ_j‖ > c). work is scratch space of
// length ≥ n (nil: allocated).
//
// Ref: [HMB23] v2 Eq. (81) (the clipped gradient of node i), with the
// regularizer inside ℓ_j (rgm.md §6 item 11).
func (r *RidgeNode) ClippedGrad(dst, theta []float64, c float64, work []float64) (clipped int) {
	r.Grad(dst, theta)
	d, n, mu := r.d, r.n, r.mu
	if len(work) < n {
		work = make([]float64, n)
	}
	work = work[:n]
	xm := blas64.General{Rows: n, Cols: d, Stride: d, Data: r.x}
	blas64.Gemv(blas.NoTrans, 1, xm, blas64.Vector{N: d, Inc: 1, Data: theta}, 0, blas64.Vector{N: n, Inc: 1, Data: work})
	tt := dot(theta, theta)
	c2 := c * c
	inv := 1 / float64(n)
	var wsum float64 // Σ over clipped rows of (w_j − 1)
	y, xx := r.y[:n], r.xx[:n]
	for j, xt := range work {
		res := xt - y[j]
		// ‖∇ℓ_j‖² (sampleNorm2 without its clamp: a rounding-negative
		// value is not above c² > 0)
		if n2 := res*res*xx[j] + 2*mu*res*xt + mu*mu*tt; n2 > c2 {
			w := c/math.Sqrt(n2) - 1
			wsum += w
			work[j] = w * res * inv
			clipped++
		} else {
			work[j] = 0
		}
	}
	switch {
	case clipped == 0:
		return 0
	case 8*clipped > n:
		blas64.Gemv(blas.Trans, 1, xm, blas64.Vector{N: n, Inc: 1, Data: work}, 1, blas64.Vector{N: d, Inc: 1, Data: dst})
	default:
		for j, v := range work {
			if v != 0 {
				axpy(dst, v, r.x[j*d:(j+1)*d])
			}
		}
	}
	for i := range dst {
		dst[i] += mu * wsum * theta[i] * inv
	}
	return clipped
}

// MulRows calls fn(j, x_j, M x_j) for every row j, with M a d × d matrix
// given row-major (len d²), computing M x_j for blocks of rows at once
// (BLAS dgemm: U = X_blk Mᵀ). u is reused between calls: fn must copy what
// it keeps.
func (r *RidgeNode) MulRows(m []float64, fn func(j int, x, u []float64)) {
	d := r.d
	if len(m) != d*d {
		panic(badShape)
	}
	const block = 1024
	buf := make([]float64, min(block, r.n)*d)
	mm := blas64.General{Rows: d, Cols: d, Stride: d, Data: m}
	for lo := 0; lo < r.n; lo += block {
		hi := min(lo+block, r.n)
		xb := blas64.General{Rows: hi - lo, Cols: d, Stride: d, Data: r.x[lo*d : hi*d]}
		ub := blas64.General{Rows: hi - lo, Cols: d, Stride: d, Data: buf[:(hi-lo)*d]}
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, xb, mm, 0, ub)
		for j := lo; j < hi; j++ {
			k := (j - lo) * d
			fn(j, r.x[j*d:(j+1)*d:(j+1)*d], buf[k:k+d:k+d])
		}
	}
}

// AInverse returns A⁻¹ row-major (len d²). The caller must not modify it.
func (r *RidgeNode) AInverse() []float64 { return r.ainv }

func (r *RidgeNode) checkDim(v []float64) {
	if len(v) != r.d {
		panic(badShape)
	}
}

// dot returns aᵀb for equal-length slices.
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpy adds s·x to dst.
func axpy(dst []float64, s float64, x []float64) {
	x = x[:len(dst)]
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		dst[i] += s * x[i]
		dst[i+1] += s * x[i+1]
		dst[i+2] += s * x[i+2]
		dst[i+3] += s * x[i+3]
	}
	for ; i < len(dst); i++ {
		dst[i] += s * x[i]
	}
}

// mulVec stores m·v in dst for a d × d row-major m.
func mulVec(dst, m, v []float64, d int) {
	for i := 0; i < d; i++ {
		dst[i] = dot(m[i*d:(i+1)*d], v)
	}
}
