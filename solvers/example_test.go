package solvers_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/dplab/dplab/solvers"
)

// Objective perturbation's perturbed objective Σℓ + (λ/2)‖θ‖² + bᵀθ on four
// examples with an intercept, minimised to ‖∇‖₂ ≤ τ. (Output checked against
// an independent Newton iteration in Python: [0.123246, 0.100160].)
func ExampleMinimize() {
	x := mat.NewDense(4, 1, []float64{-1, -0.5, 0.5, 1})
	y := []float64{0, 1, 0, 1}
	loss, err := solvers.NewGLM(x, y, solvers.GLMConfig{Bias: true})
	if err != nil {
		panic(err)
	}
	obj := solvers.Objective{Loss: loss, L2: 1, Linear: []float64{0.3, -0.2}}
	res, err := solvers.Minimize(obj, []float64{0, 0}, &solvers.Settings{GradTol: 1e-8})
	if err != nil {
		panic(err)
	}
	fmt.Printf("converged %v, θ = [%.4f %.4f]\n", res.Converged, res.X[0], res.X[1])
	// Output: converged true, θ = [0.1232 0.1002]
}

// The Chebyshev quadratic surrogate of log sigmoid on [−6, 6] and the
// response scale of its least-squares reduction.
func ExampleLogisticSurrogate() {
	q, err := solvers.LogisticSurrogate(6)
	if err != nil {
		panic(err)
	}
	fmt.Printf("b = (%.6f, %.6f, %.7f), scale %.5f\n", q.B0, q.B1, q.B2, q.ResponseScale())
	// Output: b = (-0.693147, 0.500000, -0.0707575), scale 3.53320
}
