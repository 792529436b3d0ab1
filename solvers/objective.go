package solvers

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Function is a twice-differentiable function f: R^Dim() → R, evaluated in
// one pass for its value and gradient. GLM and Objective implement it;
// Minimize minimises any Function.
type Function interface {
	// Dim returns the dimension of the argument x.
	Dim() int
	// ValueGrad returns f(x) and, when grad is not nil, stores ∇f(x) in
	// grad (len(grad) = Dim()). It must not modify x.
	ValueGrad(grad, x []float64) float64
	// Hessian stores ∇²f(x) in hess, which has order Dim(). It must not
	// modify x.
	Hessian(hess *mat.SymDense, x []float64)
}

// Objective is a loss plus an L2 regulariser and a linear term:
//
//	J(θ) = Loss(θ) + (L2/2)‖θ‖² + Linearᵀθ.
//
// With Loss the summed logistic loss, L2 = λ and Linear = b ~ N(0, σ²I), this
// is objective perturbation's perturbed objective L^P(θ; Z, b) = Σᵢ ℓ(θ; zᵢ) +
// (λ/2)‖θ‖² + bᵀθ, and its gradient is ∇L^P(θ) = Σᵢ ∇ℓ(θ; zᵢ) + λθ + b, the
// quantity Algorithm 1 drives below τ.
//
// Ref: [RKW23] §2.2 (ObjPert), §4 Algorithm 1 lines 2–4, §5 (logistic with
// bias). Symbols: λ = L2, b = Linear.
type Objective struct {
	// Loss is the data term, summed (not averaged) over examples.
	Loss Function
	// L2 is the regularisation strength λ ≥ 0.
	L2 float64
	// Linear is the linear term b; nil means b = 0, else len(Linear) = Dim().
	Linear []float64
}

// Validate returns an error unless Loss is set, L2 is finite and ≥ 0, and
// Linear is nil or a finite vector of length Loss.Dim().
func (o Objective) Validate() error {
	if o.Loss == nil {
		return fmt.Errorf("solvers: objective has no loss")
	}
	if err := checkRegularization(o.L2); err != nil {
		return err
	}
	if o.Linear != nil && len(o.Linear) != o.Loss.Dim() {
		return fmt.Errorf("solvers: objective linear term has length %d, want %d", len(o.Linear), o.Loss.Dim())
	}
	return checkFinite("linear term", o.Linear)
}

// Dim implements Function.
func (o Objective) Dim() int { return o.Loss.Dim() }

// ValueGrad implements Function.
func (o Objective) ValueGrad(grad, x []float64) float64 {
	f := o.Loss.ValueGrad(grad, x)
	if o.L2 != 0 {
		f += 0.5 * o.L2 * floats.Dot(x, x)
		if grad != nil {
			floats.AddScaled(grad, o.L2, x)
		}
	}
	if o.Linear != nil {
		f += floats.Dot(o.Linear, x)
		if grad != nil {
			floats.Add(grad, o.Linear)
		}
	}
	return f
}

// Hessian implements Function: ∇²J = ∇²Loss + L2·I.
func (o Objective) Hessian(hess *mat.SymDense, x []float64) {
	o.Loss.Hessian(hess, x)
	if o.L2 != 0 {
		raw := hess.RawSymmetric()
		for i := 0; i < raw.N; i++ {
			raw.Data[i*raw.Stride+i] += o.L2
		}
	}
}

// gradNorm returns ‖g‖₂, or +Inf if g holds a NaN.
func gradNorm(g []float64) float64 {
	n := floats.Norm(g, 2)
	if math.IsNaN(n) {
		return math.Inf(1)
	}
	return n
}
