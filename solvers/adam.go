package solvers

import "math"

// Adam is the Adam optimiser with PyTorch's semantics (torch.optim.Adam,
// no weight decay, no AMSGrad). At step t with gradient g:
//
//	m ← m + (1 − β₁)(g − m)                 (= β₁m + (1 − β₁)g)
//	v ← β₂v + (1 − β₂)g²
//	θ ← θ − (η/(1 − β₁ᵗ)) · m / (√v/√(1 − β₂ᵗ) + ε)
//
// Ref: [KB15] Algorithm 1 with ε added to the bias-corrected √v̂, as
// PyTorch does. Symbols: η = LR, β₁ = Beta1, β₂ = Beta2, ε = Eps.
type Adam struct {
	// LR is the learning rate η > 0.
	LR float64
	// Beta1, Beta2 and Eps are β₁, β₂ and ε; NewAdam sets PyTorch's
	// defaults 0.9, 0.999 and 1e-8.
	Beta1, Beta2, Eps float64

	m, v []float64
	t    int
}

// NewAdam returns Adam for dim parameters with learning rate lr and
// PyTorch's default β₁ = 0.9, β₂ = 0.999, ε = 1e-8.
func NewAdam(dim int, lr float64) *Adam {
	return &Adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, m: make([]float64, dim), v: make([]float64, dim)}
}

// Step updates theta in place with gradient grad.
func (a *Adam) Step(theta, grad []float64) {
	if len(theta) != len(a.m) || len(grad) != len(a.m) {
		panic(badShape)
	}
	a.t++
	bc1 := 1 - math.Pow(a.Beta1, float64(a.t))
	bc2 := math.Sqrt(1 - math.Pow(a.Beta2, float64(a.t)))
	step := a.LR / bc1
	j := 0
	if haveAdamKernel && len(grad) >= 4 {
		j = len(grad) &^ 3
		c := [6]float64{1 - a.Beta1, a.Beta2, 1 - a.Beta2, step, bc2, a.Eps}
		adamAVX(&theta[0], &grad[0], &a.m[0], &a.v[0], j, &c)
	}
	for i := j; i < len(grad); i++ {
		g := grad[i]
		a.m[i] += (1 - a.Beta1) * (g - a.m[i])
		a.v[i] = a.Beta2*a.v[i] + (1-a.Beta2)*g*g
		theta[i] -= step * a.m[i] / (math.Sqrt(a.v[i])/bc2 + a.Eps)
	}
}

// sgd is plain gradient descent θ ← θ − η·g.
type sgd struct{ lr float64 }

// Step updates theta in place with gradient grad.
func (s sgd) Step(theta, grad []float64) {
	for i, g := range grad {
		theta[i] -= s.lr * g
	}
}
