package solvers

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// newTestRand returns the fixed-seed generator tests use (STYLE §2.7).
func newTestRand() *rand.Rand { return rand.New(rand.NewPCG(1, 1)) }

// logisticData returns n unit-norm rows of d standard-normal features and
// labels drawn from a logistic model with coefficients of norm scale (plus
// intercept 0.3), the shape of [RKW23]'s preprocessed data (§5).
func logisticData(r *rand.Rand, n, d int, scale float64) (*mat.Dense, []float64) {
	x := mat.NewDense(n, d, nil)
	raw := x.RawMatrix()
	for i := range raw.Data {
		raw.Data[i] = r.NormFloat64()
	}
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+d]
		floats.Scale(1/floats.Norm(row, 2), row)
	}
	w := make([]float64, d)
	for j := range w {
		w[j] = r.NormFloat64()
	}
	floats.Scale(scale/floats.Norm(w, 2), w)
	y := make([]float64, n)
	for i := range y {
		u := floats.Dot(raw.Data[i*raw.Stride:i*raw.Stride+d], w) + 0.3
		if r.Float64() < 1/(1+math.Exp(-u)) {
			y[i] = 1
		}
	}
	return x, y
}

// randomDense returns an r×c matrix of standard-normal entries.
func randomDense(rnd *rand.Rand, r, c int) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i := range m.RawMatrix().Data {
		m.RawMatrix().Data[i] = rnd.NormFloat64()
	}
	return m
}

// randomVec returns n standard-normal entries times scale.
func randomVec(rnd *rand.Rand, n int, scale float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = scale * rnd.NormFloat64()
	}
	return v
}

// maxAbsDiff returns max |a_i − b_i|.
func maxAbsDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		panic(badShape)
	}
	m := 0.0
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

// sameBits reports whether a and b are the same float64 bit for bit, except
// that a NaN may be any NaN (which of two NaN operands' payloads an x86
// instruction passes on depends on operand order).
func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// kernelLengths returns the row lengths the kernel tests try: 0–40 (every
// tail of 0–3 columns after 0–10 turns of four) and 127–129.
func kernelLengths() []int {
	var lengths []int
	for d := 0; d <= 40; d++ {
		lengths = append(lengths, d)
	}
	return append(lengths, 127, 128, 129)
}

// kernelEntry returns a test entry: mostly of widely spread magnitudes (so a
// change in summation order shows in the last bits), sometimes ±0, huge or
// tiny, and with special set also NaN or ±Inf.
func kernelEntry(r *rand.Rand, special bool) float64 {
	switch r.IntN(12) {
	case 0:
		return 0
	case 1:
		return math.Copysign(0, -1)
	case 2:
		return r.NormFloat64() * 1e150
	case 3:
		return r.NormFloat64() * 1e-160
	case 4:
		if special {
			return []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[r.IntN(3)]
		}
	}
	return r.NormFloat64() * math.Exp(3*r.NormFloat64())
}

// warmStart is objective perturbation's warm start for the loss l at ridge
// λ and linear term b (objpert-kifer's kiferWarm): the minimiser θ₀ of the
// noiseless objective to tolerance tau, its Hessian H there with H
// factored (the metric), and the Newton point x0 = θ₀ − H⁻¹b.
func warmStart(t *testing.T, l Function, lambda float64, b []float64, tau float64) (x0 []float64, h *mat.SymDense, m *Metric) {
	t.Helper()
	noiseless := Objective{Loss: l, L2: lambda}
	theta0, err := Minimize(noiseless, make([]float64, l.Dim()), &Settings{GradTol: tau})
	if err != nil {
		t.Fatal(err)
	}
	h = mat.NewSymDense(l.Dim(), nil)
	noiseless.Hessian(h, theta0.X)
	var ch mat.Cholesky
	if !ch.Factorize(h) {
		t.Fatal("Hessian not positive definite")
	}
	m = NewMetric(&ch)
	x0 = make([]float64, len(b))
	m.Solve(x0, b)
	floats.SubTo(x0, theta0.X, x0)
	return x0, h, m
}
