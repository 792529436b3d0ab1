package solvers

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestLogisticInBall: the KKT conditions of min over ‖θ‖ ≤ R hold (interior:
// ∇ ≈ 0; boundary: ‖θ‖ = R and ∇ = −λθ with λ ≥ 0), and no random feasible
// point has a smaller loss, for a separable problem (minimiser at infinity:
// boundary) and a noisy one with a large ball (interior).
func TestLogisticInBall(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, tc := range []struct {
		name     string
		noise    float64
		R        float64
		interior bool
	}{{"separable, boundary", 0, 1, false}, {"noisy, interior", 3, 50, true}} {
		n, d := 400, 5
		X := mat.NewDense(n, d, nil)
		y := make([]float64, n)
		w := []float64{2, -1, 0.5, 0, 1}
		for i := 0; i < n; i++ {
			u := 0.0
			for j := 0; j < d; j++ {
				v := r.NormFloat64() / math.Sqrt(float64(d))
				X.Set(i, j, v)
				u += w[j] * v
			}
			if u+tc.noise*r.NormFloat64() > 0 {
				y[i] = 1
			}
		}
		theta, val, err := LogisticInBall(context.Background(), X, y, tc.R)
		if err != nil {
			t.Fatal(tc.name, err)
		}
		loss, _ := NewGLM(X, y, GLMConfig{})
		g := make([]float64, d)
		loss.ValueGrad(g, theta)
		floats.Scale(1/float64(n), g)
		nrm := floats.Norm(theta, 2)
		if tc.interior {
			if nrm >= tc.R || floats.Norm(g, 2) > 1e-8 {
				t.Errorf("%s: ‖θ‖ = %g, ‖∇‖ = %g; want interior with ∇ ≈ 0", tc.name, nrm, floats.Norm(g, 2))
			}
		} else {
			lambda := -floats.Dot(g, theta) / (nrm * nrm)
			res := make([]float64, d)
			floats.AddScaledTo(res, g, lambda, theta)
			if math.Abs(nrm-tc.R) > 1e-8 || lambda < 0 || floats.Norm(res, 2) > 1e-6 {
				t.Errorf("%s: ‖θ‖ = %g, λ = %g, ‖∇ + λθ‖ = %g; want a KKT point on the sphere", tc.name, nrm, lambda, floats.Norm(res, 2))
			}
		}
		for k := 0; k < 2000; k++ {
			p := make([]float64, d)
			for j := range p {
				p[j] = theta[j] + 0.05*r.NormFloat64()
			}
			if q := floats.Norm(p, 2); q > tc.R {
				floats.Scale(tc.R/q, p)
			}
			if v := loss.ValueGrad(nil, p) / float64(n); v < val-1e-12 {
				t.Fatalf("%s: feasible point with loss %.12g below the optimum %.12g", tc.name, v, val)
			}
		}
	}
}
