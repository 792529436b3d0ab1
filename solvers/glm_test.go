package solvers

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/dplab/dplab/internal/rngs"
)

// regressionData returns n unit-norm rows of d standard-normal features and
// targets yᵢ = xᵢᵀw + 0.2 + N(0, 0.1²) with ‖w‖ = scale, the shape of the
// comparison suite's scaled regression data.
func regressionData(r *rand.Rand, n, d int, scale float64) (*mat.Dense, []float64) {
	x, _ := logisticData(r, n, d, 1)
	w := randomVec(r, d, 1)
	floats.Scale(scale/floats.Norm(w, 2), w)
	y := make([]float64, n)
	for i := range y {
		y[i] = floats.Dot(x.RawRowView(i), w) + 0.2 + 0.1*r.NormFloat64()
	}
	return x, y
}

// TestSquaredClippedIsHuber: the clipped squared loss equals, example by
// example, the Huber loss with threshold aᵢ = C/‖x̃ᵢ‖ written out directly,
//
//	h(r) = r²/2 (|r| ≤ a),  a|r| − a²/2 (|r| > a),   ∇ = clamp(r, −a, a)·x̃,
//
// and every per-example gradient has norm ≤ C.
func TestSquaredClippedIsHuber(t *testing.T) {
	t.Parallel()
	const c = 0.4
	x, y := regressionData(newTestRand(), 40, 3, 2)
	r := newTestRand()
	for k := 0; k < 10; k++ {
		theta := randomVec(r, 4, 0.5)
		var f float64
		g := make([]float64, 4)
		binds := 0
		for i := 0; i < 40; i++ {
			xt := append(mat.Row(nil, i, x), 1)
			a := c / floats.Norm(xt, 2)
			res := floats.Dot(xt, theta) - y[i]
			psi := math.Max(-a, math.Min(a, res))
			if math.Abs(res) <= a {
				f += res * res / 2
			} else {
				f += a*math.Abs(res) - a*a/2
				binds++
			}
			floats.AddScaled(g, psi, xt)
			// One example alone: ‖∇ℓ_C‖ ≤ C.
			one, err := NewGLM(x.Slice(i, i+1, 0, 3).(*mat.Dense), y[i:i+1], GLMConfig{Loss: LossSquared, Bias: true, Clip: c})
			if err != nil {
				t.Fatal(err)
			}
			gi := make([]float64, 4)
			one.ValueGrad(gi, theta)
			// Tolerance: rounding of a product of O(1) numbers.
			if n := floats.Norm(gi, 2); n > c*(1+1e-14) {
				t.Fatalf("example %d: ‖∇ℓ_C‖ = %v > C = %v", i, n, c)
			}
		}
		l, err := NewGLM(x, y, GLMConfig{Loss: LossSquared, Bias: true, Clip: c})
		if err != nil {
			t.Fatal(err)
		}
		grad := make([]float64, 4)
		got := l.ValueGrad(grad, theta)
		// Tolerance: 40 terms of size ≤ 10, rounding ~1e-15 each.
		if math.Abs(got-f) > 1e-12 || maxAbsDiff(grad, g) > 1e-12 {
			t.Fatalf("draw %d: ValueGrad = %v, %v; Huber %v, %v", k, got, grad, f, g)
		}
		if binds == 0 || binds == 40 {
			t.Fatalf("draw %d: clipping bound for %d of 40 examples; want some of each", k, binds)
		}
	}
}

// TestSquaredNaive: unclipped, the loss and gradient are ½‖X̃θ − y‖² and
// X̃ᵀ(X̃θ − y) computed with gonum's matrix products.
func TestSquaredNaive(t *testing.T) {
	t.Parallel()
	x, y := regressionData(newTestRand(), 50, 3, 1)
	l, err := NewGLM(x, y, GLMConfig{Loss: LossSquared, Bias: true})
	if err != nil {
		t.Fatal(err)
	}
	xt := mat.NewDense(50, 4, nil)
	xt.Augment(x, mat.NewDense(50, 1, slices.Repeat([]float64{1}, 50)))
	theta := []float64{0.5, -1, 2, 0.25}
	var res mat.VecDense
	res.MulVec(xt, mat.NewVecDense(4, theta))
	res.SubVec(&res, mat.NewVecDense(50, y))
	var g mat.VecDense
	g.MulVec(xt.T(), &res)
	grad := make([]float64, 4)
	got := l.ValueGrad(grad, theta)
	// Tolerance: 50 terms of size ≤ 16, rounding ~1e-15 each.
	if f := mat.Dot(&res, &res) / 2; math.Abs(got-f) > 1e-12 || maxAbsDiff(grad, g.RawVector().Data) > 1e-12 {
		t.Fatalf("ValueGrad = %v, %v; want %v, %v", got, grad, f, g.RawVector().Data)
	}
	// The Hessian is X̃ᵀX̃ (f″ = 1).
	h := mat.NewSymDense(4, nil)
	l.Hessian(h, theta)
	var want mat.Dense
	want.Mul(xt.T(), xt)
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			if math.Abs(h.At(i, j)-want.At(i, j)) > 1e-12 {
				t.Fatalf("Hessian[%d,%d] = %v, want %v", i, j, h.At(i, j), want.At(i, j))
			}
		}
	}
}

func TestNewGLMErrors(t *testing.T) {
	t.Parallel()
	x := mat.NewDense(2, 1, []float64{1, 2})
	tests := []struct {
		name string
		y    []float64
		cfg  GLMConfig
	}{
		{"unknown loss", []float64{0, 1}, GLMConfig{Loss: "hinge"}},
		{"squared NaN target", []float64{0, math.NaN()}, GLMConfig{Loss: LossSquared}},
		{"squared infinite target", []float64{math.Inf(1), 0}, GLMConfig{Loss: LossSquared}},
	}
	for _, tc := range tests {
		if _, err := NewGLM(x, tc.y, tc.cfg); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	// Real targets are fine for the squared loss.
	if _, err := NewGLM(x, []float64{-0.7, 3}, GLMConfig{Loss: LossSquared}); err != nil {
		t.Errorf("squared loss, real targets: %v", err)
	}
}

// TestDPSGDSquaredNonPrivate: without noise or clipping, DP-SGD on the
// squared loss reaches (nearly) the least-squares optimum, computed by
// Ridge at λ = 0 on [X, 1].
func TestDPSGDSquaredNonPrivate(t *testing.T) {
	t.Parallel()
	x, y := regressionData(newTestRand(), 2000, 5, 1)
	xt := mat.NewDense(2000, 6, nil)
	xt.Augment(x, mat.NewDense(2000, 1, slices.Repeat([]float64{1}, 2000)))
	opt, err := Ridge(xt, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	loss, err := NewGLM(x, y, GLMConfig{Loss: LossSquared, Bias: true})
	if err != nil {
		t.Fatal(err)
	}
	best := loss.ValueGrad(nil, opt)
	cfg := DPSGDConfig{LearningRate: 0.005, Epochs: 40, ExpectedBatch: 64, Bias: true, Loss: LossSquared}
	res, err := DPSGD(context.Background(), x, y, cfg, rngs.New(rngs.Derive("sq")))
	if err != nil {
		t.Fatal(err)
	}
	// Tolerance: the optimum's summed loss is ≈ 2000·0.01/2 = 10 (noise
	// sd 0.1); sampling noise keeps Adam's iterate within 2% of it.
	if got := loss.ValueGrad(nil, res.Theta); got > best*1.02 {
		t.Errorf("loss %v, least-squares optimum %v", got, best)
	}
}

// TestGLMRows4MatchesRowValueDeriv: ValueGrad's four-lane loss values and
// derivatives (rows4: the logistic kernel, clipped lanes on their linear
// pieces) carry rowValueDeriv's bits lane by lane, for clipped and
// unclipped logistic and squared losses, with lanes below, inside and
// above the clipping range, at |z| past the kernel's range and at z = 1
// (the value a clipped lane holds in the kernel).
func TestGLMRows4MatchesRowValueDeriv(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 36))
	const n, d = 4000, 3
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		s := math.Exp(2 * r.NormFloat64())
		for j := range d {
			x.Set(i, j, s*r.NormFloat64())
		}
		y[i] = float64(r.IntN(2))
	}
	var clippedLanes, kernelLanes int
	for _, cfg := range []GLMConfig{{}, {Clip: 0.5}, {Clip: 3, Bias: true}, {Loss: LossSquared, Clip: 0.5}} {
		l, err := NewGLM(x, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+4 <= n; i += 4 {
			var z, v, g [4]float64
			for k := range z {
				switch r.IntN(6) {
				case 0:
					z[k] = 1
				case 1:
					z[k] = 40 * r.NormFloat64()
				default:
					z[k] = 3 * r.NormFloat64()
				}
			}
			l.rows4(&v, &g, &z, i)
			for k, zv := range z {
				wv, wg := l.rowValueDeriv(i+k, zv)
				if math.Float64bits(v[k]) != math.Float64bits(wv) || math.Float64bits(g[k]) != math.Float64bits(wg) {
					t.Fatalf("%+v, row %d, z = %v: rows4 %v, %v; rowValueDeriv %v, %v", cfg, i+k, zv, v[k], g[k], wv, wg)
				}
				switch {
				case l.slope != nil && (zv < l.lo[i+k] || zv > l.hi[i+k]):
					clippedLanes++
				case l.loss == logisticLoss:
					kernelLanes++
				}
			}
		}
	}
	if clippedLanes < 1000 || kernelLanes < 1000 {
		t.Errorf("%d clipped lanes, %d logistic lanes inside the range: the test should see many of each", clippedLanes, kernelLanes)
	}
}
