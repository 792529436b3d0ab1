package solvers

import (
	"testing"
)

// BenchmarkMinimizeLogistic fits objective perturbation's perturbed logistic
// objective Σℓ + (λ/2)‖θ‖² + bᵀθ ([RKW23] §5) on Adult-sized synthetic data
// (36,000 unit-norm rows, 104 features + bias) to τ = 0.01, the paper's
// setting, from θ = 0. b ~ N(0, σ²I).
func BenchmarkMinimizeLogistic(b *testing.B) {
	r := newTestRand()
	x, y := logisticData(r, 36000, 104, 4)
	for _, bc := range []struct {
		name          string
		lambda, sigma float64
	}{
		{"n=36000,d=105", 1, 10},
		{"n=36000,d=105,lambda=100,sigma=100", 100, 100},
	} {
		b.Run(bc.name, func(b *testing.B) {
			l, err := NewLogistic(x, y, LogisticConfig{Bias: true})
			if err != nil {
				b.Fatal(err)
			}
			obj := Objective{Loss: l, L2: bc.lambda, Linear: randomVec(newTestRand(), l.Dim(), bc.sigma)}
			x0 := make([]float64, l.Dim())
			b.ReportAllocs()
			var res Result
			for b.Loop() {
				res, err = Minimize(obj, x0, &Settings{GradTol: 0.01})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.FuncEvals), "evals/op")
			b.ReportMetric(float64(res.Iterations), "iters/op")
		})
	}
}
