package solvers

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// ridgeData returns n rows of d standard-normal features scaled by scale and
// targets ±1 (ijcnn1's shape), from the fixed test seed.
func ridgeData(n, d int, scale float64) (*mat.Dense, []float64) {
	r := newTestRand()
	x := randomDense(r, n, d)
	x.Scale(scale, x)
	y := make([]float64, n)
	for i := range y {
		y[i] = 1
		if r.Float64() < 0.7 {
			y[i] = -1
		}
	}
	return x, y
}

// naiveSampleGrads returns the per-sample gradients ∇ℓ_j(θ) = x_j(x_jᵀθ − y_j)
// + μθ, computed one by one ([HMB23] v2 Eq. (81)'s summands).
func naiveSampleGrads(x *mat.Dense, y, theta []float64, mu float64) [][]float64 {
	n, d := x.Dims()
	out := make([][]float64, n)
	for j := 0; j < n; j++ {
		row := x.RawRowView(j)
		res := floats.Dot(row, theta) - y[j]
		g := make([]float64, d)
		for k := range g {
			g[k] = row[k]*res + mu*theta[k]
		}
		out[j] = g
	}
	return out
}

// TestRidgeNodeAgainstDirect checks A, b, f, ∇f, A⁻¹, the optimum and the
// eigenvalues against direct evaluation of their definitions ([HMB23] v2
// Eq. (9)): A = XᵀX/n + μI by mat.Mul, f as (1/(2n))‖Xθ − y‖² + (μ/2)‖θ‖²,
// ∇f as Xᵀ(Xθ − y)/n + μθ, λ by mat.EigenSym. Tolerance 1e-12 relative:
// the sums are over 37 terms of order 1.
func TestRidgeNodeAgainstDirect(t *testing.T) {
	const n, d, mu, tol = 37, 5, 0.1, 1e-12
	x, y := ridgeData(n, d, 1)
	node, err := NewRidgeNode(x, y, mu)
	if err != nil {
		t.Fatal(err)
	}
	var a mat.Dense
	a.Mul(x.T(), x)
	a.Scale(1/float64(n), &a)
	for i := 0; i < d; i++ {
		a.Set(i, i, a.At(i, i)+mu)
	}
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			if !scalar.EqualWithinAbsOrRel(node.A().At(i, j), a.At(i, j), tol, tol) {
				t.Errorf("A[%d,%d] = %v, want %v", i, j, node.A().At(i, j), a.At(i, j))
			}
		}
	}
	var b mat.VecDense
	b.MulVec(x.T(), mat.NewVecDense(n, y))
	b.ScaleVec(1/float64(n), &b)
	if !floats.EqualApprox(node.B(), b.RawVector().Data, tol) {
		t.Errorf("b = %v, want %v", node.B(), b.RawVector().Data)
	}
	theta := randomVec(newTestRand(), d, 0.7)
	var res mat.VecDense
	res.MulVec(x, mat.NewVecDense(d, theta))
	res.SubVec(&res, mat.NewVecDense(n, y))
	want := mat.Dot(&res, &res)/(2*n) + mu/2*floats.Dot(theta, theta)
	if got := node.Value(theta); !scalar.EqualWithinAbsOrRel(got, want, tol, tol) {
		t.Errorf("f(θ) = %v, want %v", got, want)
	}
	var g mat.VecDense
	g.MulVec(x.T(), &res)
	g.ScaleVec(1/float64(n), &g)
	g.AddScaledVec(&g, mu, mat.NewVecDense(d, theta))
	grad := make([]float64, d)
	node.Grad(grad, theta)
	if !floats.EqualApprox(grad, g.RawVector().Data, tol) {
		t.Errorf("∇f(θ) = %v, want %v", grad, g.RawVector().Data)
	}
	// A·A⁻¹ = I and A·θ* = b.
	var ai, prod mat.Dense
	ai.CloneFrom(mat.NewDense(d, d, node.AInverse()))
	prod.Mul(&a, &ai)
	if !mat.EqualApprox(&prod, eye(d), tol) {
		t.Errorf("A·A⁻¹ = %v", mat.Formatted(&prod))
	}
	opt := node.Optimum()
	node.Grad(grad, opt)
	if floats.Norm(grad, 2) > tol {
		t.Errorf("‖∇f(θ*)‖ = %v", floats.Norm(grad, 2))
	}
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(d, a.RawMatrix().Data), false) {
		t.Fatal("eigen")
	}
	vals := eig.Values(nil)
	if lmin, lmax := node.Eigen(); !scalar.EqualWithinAbsOrRel(lmin, vals[0], tol, tol) || !scalar.EqualWithinAbsOrRel(lmax, vals[d-1], tol, tol) {
		t.Errorf("eigen = (%v, %v), want (%v, %v)", lmin, lmax, vals[0], vals[d-1])
	}
	// MulRows gives M x_j.
	m := randomVec(newTestRand(), d*d, 1)
	node.MulRows(m, func(j int, row, u []float64) {
		var want mat.VecDense
		want.MulVec(mat.NewDense(d, d, m), mat.NewVecDense(d, x.RawRowView(j)))
		if !floats.EqualApprox(u, want.RawVector().Data, tol) || !floats.Equal(row, x.RawRowView(j)) {
			t.Fatalf("MulRows row %d: %v, want %v", j, u, want.RawVector().Data)
		}
	})
}

func eye(d int) *mat.Dense {
	m := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		m.Set(i, i, 1)
	}
	return m
}

// TestSampleGradNormsClosedForm: the one-pass norms ‖∇ℓ_j‖² = r_j²‖x_j‖² +
// 2μr_jx_jᵀθ + μ²‖θ‖² give the same max and sum of squares as the
// per-sample gradients formed explicitly (1e-12 relative).
func TestSampleGradNormsClosedForm(t *testing.T) {
	const n, d, mu = 200, 7, 0.03
	x, y := ridgeData(n, d, 0.5)
	node, err := NewRidgeNode(x, y, mu)
	if err != nil {
		t.Fatal(err)
	}
	for _, theta := range [][]float64{make([]float64, d), node.Optimum(), randomVec(newTestRand(), d, 3)} {
		var mx, ss float64
		for _, g := range naiveSampleGrads(x, y, theta, mu) {
			nrm := floats.Norm(g, 2)
			mx = math.Max(mx, nrm)
			ss += nrm * nrm
		}
		gm, gs := node.SampleGradNorms(theta)
		if !scalar.EqualWithinAbsOrRel(gm, mx, 1e-12, 1e-12) || !scalar.EqualWithinAbsOrRel(gs, ss, 1e-12, 1e-12) {
			t.Errorf("θ = %.3v: (max, Σ‖·‖²) = (%v, %v), want (%v, %v)", theta, gm, gs, mx, ss)
		}
	}
}

// TestClippedGradNaive: ClippedGrad equals the mean of the explicitly
// formed, explicitly clipped per-sample gradients (v2 Eq. (81)) for
// thresholds that clip nothing, one row (the sparse path), some rows and
// every row (the dgemv path), at θ = 0, the optimum and a far point; the
// clipped counts agree. Tolerance 1e-12 relative to the largest unclipped
// term: the two sums differ only in rounding (the fast one adds a
// correction to Aθ − b).
func TestClippedGradNaive(t *testing.T) {
	const n, d, mu = 300, 6, 0.03
	x, y := ridgeData(n, d, 0.6)
	node, err := NewRidgeNode(x, y, mu)
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range []struct {
		name  string
		theta []float64
	}{{"zero", make([]float64, d)}, {"optimum", node.Optimum()}, {"far", randomVec(newTestRand(), d, 4)}} {
		grads := naiveSampleGrads(x, y, th.theta, mu)
		norms := make([]float64, n)
		for j, g := range grads {
			norms[j] = floats.Norm(g, 2)
		}
		sorted := append([]float64(nil), norms...)
		floats.Argsort(sorted, make([]int, n))
		mx := sorted[n-1]
		for _, tc := range []struct {
			name string
			c    float64
		}{
			{"none", 2 * mx},
			{"one", (sorted[n-1] + sorted[n-2]) / 2},
			{"half", sorted[n/2] * (1 + 1e-9)},
			{"all", sorted[0] / 2},
		} {
			t.Run(th.name+"/"+tc.name, func(t *testing.T) {
				want := make([]float64, d)
				wantClipped := 0
				for j, g := range grads {
					w := tc.c / math.Max(tc.c, norms[j])
					if norms[j] > tc.c {
						wantClipped++
					}
					floats.AddScaled(want, w/n, g)
				}
				got := make([]float64, d)
				clipped := node.ClippedGrad(got, th.theta, tc.c, nil)
				if clipped != wantClipped {
					t.Errorf("clipped %d rows, want %d", clipped, wantClipped)
				}
				scale := math.Max(mx, 1)
				for k := range got {
					if math.Abs(got[k]-want[k]) > 1e-12*scale {
						t.Errorf("g[%d] = %v, want %v", k, got[k], want[k])
					}
				}
			})
		}
	}
}

// TestRidgeNodeG6 pins the reference toy of reference-code.md §6 G6 (the
// authors' code, HadrienHx/RGM 953a431, model.py LinearRegression on
// X[i,j] = cos(0.37(i+1)(j+1)), y_i = sign(sin(1.3(i+1))), n = 40, d = 3,
// reg = 0.03): A, b and x* printed to 8 decimals (tolerance 5e-9 absolute),
// λ_max(A) in full (1e-12 relative).
func TestRidgeNodeG6(t *testing.T) {
	const n, d = 40, 3
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			x.Set(i, j, math.Cos(0.37*float64(i+1)*float64(j+1)))
		}
		y[i] = math.Copysign(1, math.Sin(1.3*float64(i+1)))
	}
	node, err := NewRidgeNode(x, y, 0.03)
	if err != nil {
		t.Fatal(err)
	}
	wantA := [][]float64{{0.50660102, 0.01978162, -0.03193984}, {0.01978162, 0.52145914, 0.00641292}, {-0.03193984, 0.00641292, 0.53024389}}
	for i := range wantA {
		for j := range wantA[i] {
			if got := node.A().At(i, j); math.Abs(got-wantA[i][j]) > 5e-9 {
				t.Errorf("A[%d,%d] = %.10f, want %.8f", i, j, got, wantA[i][j])
			}
		}
	}
	for _, v := range []struct {
		name      string
		got, want []float64
	}{
		{"b", node.B(), []float64{-0.00704898, -0.01007484, 0.10226928}},
		{"x*", node.Optimum(), []float64{-0.00089526, -0.02166103, 0.19308021}},
	} {
		for k := range v.want {
			if math.Abs(v.got[k]-v.want[k]) > 5e-9 {
				t.Errorf("%s[%d] = %.10f, want %.8f", v.name, k, v.got[k], v.want[k])
			}
		}
	}
	if _, lmax := node.Eigen(); !scalar.EqualWithinAbsOrRel(lmax, 0.5538463634434242, 1e-12, 1e-12) {
		t.Errorf("λ_max = %.16g, want 0.5538463634434242", lmax)
	}
}

// TestRidgeNodeBadInput: bad regularization or data is an error naming
// what is wrong, not a panic.
func TestRidgeNodeBadInput(t *testing.T) {
	x, y := ridgeData(10, 3, 1)
	bad := mat.DenseCopyOf(x)
	bad.Set(4, 1, math.NaN())
	for _, tc := range []struct {
		name string
		x    *mat.Dense
		mu   float64
		want string
	}{
		{"mu zero", x, 0, "μ = 0"},
		{"mu negative", x, -1, "μ = -1"},
		{"mu inf", x, math.Inf(1), "μ = +Inf"},
		{"nan", bad, 0.1, "X[4,1]"},
	} {
		if _, err := NewRidgeNode(tc.x, y, tc.mu); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one naming %q", tc.name, err, tc.want)
		}
	}
}
