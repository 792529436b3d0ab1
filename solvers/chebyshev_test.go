package solvers

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestChebyshevGolden: GaussMix's Chebyshev(−6, 6, 3, log-sigmoid)
// (shared/research/reference-code.md §6 G4, marked exact; c₁ = 3 exactly
// by symmetry).
func TestChebyshevGolden(t *testing.T) {
	t.Parallel()
	logSigmoid := func(s float64) float64 { return -math.Log1p(math.Exp(-s)) }
	c, err := Chebyshev(logSigmoid, -6, 6, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{-3.9335631399195656, 3.0, -1.273634389399838}
	// Tolerance: a few ulps — the reference (numpy) sums the same terms in
	// the same order but its cos may differ in the last bit.
	for j := range want {
		if math.Abs(c[j]-want[j]) > 4e-16*math.Abs(want[j]) {
			t.Errorf("c[%d] = %.17g, want %.17g", j, c[j], want[j])
		}
	}
	// The authors' code's response scale −c₁/(2c₂) (G4).
	if s := -c[1] / (2 * c[2]); math.Abs(s-1.1777320182967341) > 4e-16*s {
		t.Errorf("−c₁/(2c₂) = %.17g, want 1.1777320182967341", s)
	}
}

// TestChebyshevMonomialExact: the interpolant of a polynomial of degree
// < n is the polynomial itself, so the conversion recovers its coefficients.
func TestChebyshevMonomialExact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p    []float64 // monomial coefficients
		a, b float64
		n    int
	}{
		{[]float64{1, -2, 0, 0.5}, -1, 3, 4},
		{[]float64{1, -2, 0, 0.5}, -1, 3, 6}, // higher coefficients come out 0
		{[]float64{-0.3, 0, 2}, 2, 5, 3},
		{[]float64{7}, -10, -4, 1},
	}
	for _, tc := range tests {
		f := func(x float64) float64 {
			var s float64
			for k := len(tc.p) - 1; k >= 0; k-- {
				s = s*x + tc.p[k]
			}
			return s
		}
		c, err := Chebyshev(f, tc.a, tc.b, tc.n)
		if err != nil {
			t.Fatal(err)
		}
		got := ChebyshevMonomial(c, tc.a, tc.b)
		want := make([]float64, tc.n)
		copy(want, tc.p)
		// Tolerance: conditioning of the monomial basis on intervals up to
		// |x| = 10 amplifies rounding ~1e-16 by at most ~1e3.
		if d := maxAbsDiff(got, want); d > 1e-12 {
			t.Errorf("p = %v on [%v, %v], n = %d: got %v", tc.p, tc.a, tc.b, tc.n, got)
		}
	}
	if _, err := Chebyshev(math.Sin, 1, 1, 3); err == nil {
		t.Error("empty interval: no error")
	}
	if _, err := Chebyshev(math.Sin, 0, 1, 0); err == nil {
		t.Error("n = 0: no error")
	}
}

func TestLogisticSurrogate(t *testing.T) {
	t.Parallel()
	q, err := LogisticSurrogate(6)
	if err != nil {
		t.Fatal(err)
	}
	logSigmoid := func(s float64) float64 { return -math.Log1p(math.Exp(-s)) }
	// Interpolation: q equals log sigmoid at the nodes 0 and ±6cos(π/6).
	// Tolerance: rounding of O(1) values.
	for _, s := range []float64{0, 6 * math.Cos(math.Pi/6), -6 * math.Cos(math.Pi/6)} {
		if math.Abs(q.Eval(s)-logSigmoid(s)) > 1e-14 {
			t.Errorf("q(%v) = %v, log sigmoid = %v", s, q.Eval(s), logSigmoid(s))
		}
	}
	// Closed forms: log sigmoid(s) = s/2 − log(2cosh(s/2)) has odd part s/2
	// (so B1 = 1/2) and even part −log 2 at the node 0 (so B0 = −log 2); B2
	// from G4's c₂: 2c₂/Q². Values [V] in gaussmix.md §5.1: B2 = −0.0707575,
	// scale −B1/(2B2) = 3.53320, max error 0.2379.
	tests := []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"B0", q.B0, -math.Ln2, 1e-15},
		{"B1", q.B1, 0.5, 1e-15},
		{"B2", q.B2, 2 * -1.273634389399838 / 36, 1e-16},
		{"scale", q.ResponseScale(), 3.53320, 5e-6},
	}
	for _, tc := range tests {
		if math.Abs(tc.got-tc.want) > tc.tol {
			t.Errorf("%s = %.17g, want %.17g", tc.name, tc.got, tc.want)
		}
	}
	var maxErr float64
	for i := 0; i <= 12000; i++ {
		s := -6 + float64(i)*1e-3
		maxErr = math.Max(maxErr, math.Abs(q.Eval(s)-logSigmoid(s)))
	}
	// Tolerance: the [V] value is printed to 4 digits.
	if math.Abs(maxErr-0.2379) > 1e-4 {
		t.Errorf("max error on [−6, 6] = %v, want 0.2379", maxErr)
	}
	if _, err := LogisticSurrogate(0); err == nil {
		t.Error("Q = 0: no error")
	}
}

// negSurrogate is −Σᵢ q(tᵢ θᵀxᵢ), the negated surrogate log-likelihood.
type negSurrogate struct {
	x    *mat.Dense
	t    []float64
	q    Quadratic
	gram *mat.SymDense
}

func (f negSurrogate) Dim() int { _, d := f.x.Dims(); return d }

func (f negSurrogate) ValueGrad(grad, theta []float64) float64 {
	n, _ := f.x.Dims()
	var v float64
	clear(grad)
	for i := 0; i < n; i++ {
		row := f.x.RawRowView(i)
		var u float64
		for j, x := range row {
			u += x * theta[j]
		}
		s := f.t[i] * u
		v -= f.q.Eval(s)
		if grad != nil {
			ds := -(f.q.B1 + 2*f.q.B2*s) * f.t[i]
			for j, x := range row {
				grad[j] += ds * x
			}
		}
	}
	return v
}

func (f negSurrogate) Hessian(h *mat.SymDense, _ []float64) {
	h.CopySym(f.gram)
	h.ScaleSym(-2*f.q.B2, h)
}

// TestSurrogateReduction: the maximiser of the surrogate log-likelihood,
// found by Newton on the surrogate itself, equals ordinary least squares on
// the response of Quadratic.Response.
func TestSurrogateReduction(t *testing.T) {
	t.Parallel()
	x, y := logisticData(newTestRand(), 300, 4, 2)
	q, err := LogisticSurrogate(6)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := q.Response(y)
	if err != nil {
		t.Fatal(err)
	}
	ols, err := Ridge(x, resp, 0)
	if err != nil {
		t.Fatal(err)
	}
	labels := make([]float64, len(y))
	for i, v := range y {
		labels[i] = 2*v - 1
	}
	f := negSurrogate{x: x, t: labels, q: q, gram: Gram(x)}
	lmin, err := LambdaMin(f.gram)
	if err != nil || -2*q.B2*lmin < 1 {
		t.Fatalf("strong convexity −2B2·λ_min(XᵀX) = %v < 1 (%v)", -2*q.B2*lmin, err)
	}
	checkDerivatives(t, f, []float64{0.1, -0.2, 0.3, 0.4}, 1e-6, 1e-5)
	res, err := Minimize(f, make([]float64, 4), &Settings{GradTol: 1e-10, Method: MethodNewton})
	if err != nil {
		t.Fatal(err)
	}
	// Tolerance: strong convexity −2B2·λ_min(XᵀX) ≥ 1 here, so the
	// minimiser is within τ = 1e-10 of the exact one.
	if d := maxAbsDiff(res.X, ols); d > 1e-9 {
		t.Fatalf("surrogate maximiser %v, OLS on the response %v", res.X, ols)
	}
	if _, err := q.Response([]float64{0, -1}); err == nil {
		t.Error("label −1: no error")
	}
	if _, err := (Quadratic{B1: 1, B2: 0.5}).Response([]float64{0}); err == nil {
		t.Error("B2 > 0: no error")
	}
}
