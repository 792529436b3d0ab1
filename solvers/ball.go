package solvers

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// LogisticInBall returns θ* = argmin over ‖θ‖₂ ≤ R of the mean logistic
// loss (1/n)Σᵢ log(1 + e^{xᵢᵀθ}) − yᵢxᵢᵀθ (no intercept, labels in {0, 1})
// and its value: the reference of an excess empirical risk over the ball
// ([HSS24] Prop. 8; preprocessing.md §5 D22: the same constraint set as the
// learner, a deterministic solver).
//
// The loss is convex, so by the KKT conditions θ* is either the
// unconstrained minimiser, when it lies in the ball, or the minimiser of
// the loss plus (λ/2)‖θ‖² for the λ > 0 at which its norm is R (the
// regularised minimiser's norm decreases in λ). LogisticInBall solves the
// regularised problem (L-BFGS with a Newton fallback, gradient tolerance
// 1e-9 on the mean loss) and bisects on log λ until ‖θ_λ‖ is within
// 1e-9·R of R.
func LogisticInBall(ctx context.Context, X *mat.Dense, y []float64, R float64) ([]float64, float64, error) {
	if !(R > 0) || math.IsInf(R, 1) {
		return nil, 0, fmt.Errorf("solvers: ball radius R = %v, want a finite value > 0", R)
	}
	n, _ := X.Dims()
	if n == 0 {
		return nil, 0, fmt.Errorf("solvers: no rows")
	}
	loss, err := NewGLM(X, y, GLMConfig{})
	if err != nil {
		return nil, 0, err
	}
	// The mean loss is the summed loss over n: λ on the mean is nλ on the
	// sum, and the gradient tolerance scales with n.
	set := &Settings{GradTol: 1e-9 * float64(n)}
	var warm []float64
	solve := func(lambda float64) ([]float64, error) {
		x0 := make([]float64, loss.Dim())
		if warm != nil {
			copy(x0, warm)
		}
		res, err := MinimizeContext(ctx, Objective{Loss: loss, L2: lambda * float64(n)}, x0, set)
		if err != nil {
			return nil, err
		}
		warm = res.X
		return res.X, nil
	}
	value := func(theta []float64) float64 { return loss.ValueGrad(nil, theta) / float64(n) }
	// The smallest λ tried stands for "unconstrained": if even there the
	// minimiser lies in the ball, it is θ* (up to a λ of 1e-12 on a loss of
	// order 1).
	lo, hi := 1e-12, 1.0
	theta, err := solve(lo)
	if err != nil {
		return nil, 0, err
	}
	if floats.Norm(theta, 2) <= R {
		return theta, value(theta), nil
	}
	for {
		t, err := solve(hi)
		if err != nil {
			return nil, 0, err
		}
		if floats.Norm(t, 2) <= R {
			break
		}
		lo, hi = hi, hi*16
		if hi > 1e12 {
			return nil, 0, fmt.Errorf("solvers: no λ ≤ 1e12 brings the regularised minimiser into the ball of radius %g", R)
		}
	}
	var best []float64
	for i := 0; i < 200; i++ {
		mid := math.Sqrt(lo * hi)
		t, err := solve(mid)
		if err != nil {
			return nil, 0, err
		}
		nrm := floats.Norm(t, 2)
		if nrm <= R {
			hi, best = mid, append(best[:0], t...)
		} else {
			lo = mid
		}
		if math.Abs(nrm-R) <= 1e-9*R || hi/lo < 1+1e-12 {
			break
		}
	}
	if best == nil {
		t, err := solve(hi)
		if err != nil {
			return nil, 0, err
		}
		best = t
	}
	// best is inside the ball (or on it to 1e-9): feasible, so its value
	// bounds the optimum from above; the excess risk it references is
	// therefore never overstated by an infeasible reference.
	ProjectBall(best, R)
	return best, value(best), nil
}

// ProjectBall projects v in place onto the ball {‖v‖₂ ≤ r}.
func ProjectBall(v []float64, r float64) {
	if nrm := floats.Norm(v, 2); nrm > r {
		floats.Scale(r/nrm, v)
	}
}
