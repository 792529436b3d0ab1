package solvers

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// rounded adds to f's value a deterministic error of up to ±c, a hash of
// x: its gradient and Hessian are f's, but its value is as noisy as a sum of
// many losses is in float64 — near the minimiser, where f changes by less
// than c per step, a line search sees its rounding, not its decrease
// (objective perturbation on compare_classification's Synthetic-H, d =
// 2,000, stopped there).
type rounded struct {
	Function
	c float64
}

func (o rounded) ValueGrad(grad, x []float64) float64 {
	h := fnv.New64a()
	for _, v := range x {
		binary.Write(h, binary.LittleEndian, v)
	}
	u := float64(h.Sum64()>>11)/(1<<53)*2 - 1
	return o.Function.ValueGrad(grad, x) + o.c*u
}

// perturbedLogistic returns a perturbed logistic objective (n rows, d
// features and a bias, ridge λ, b ~ N(0, bScale²I)), its start at the
// Newton point from the noiseless minimiser and the metric of the
// noiseless Hessian there times h: objective perturbation's warm start,
// with a metric made worse by h ≠ 1 (the noiseless Hessian is only close to
// the perturbed one).
func perturbedLogistic(t *testing.T, n, d int, lambda, bScale, h float64) (Objective, []float64, *Metric) {
	t.Helper()
	r := newTestRand()
	x, y := logisticData(r, n, d, 2)
	l, err := NewGLM(x, y, GLMConfig{Bias: true})
	if err != nil {
		t.Fatal(err)
	}
	b := randomVec(r, l.Dim(), bScale)
	x0, hess, _ := warmStart(t, l, lambda, b, 1e-9)
	hess.ScaleSym(h, hess)
	var ch mat.Cholesky
	if !ch.Factorize(hess) {
		t.Fatal("scaled Hessian not positive definite")
	}
	return Objective{Loss: l, L2: lambda, Linear: b}, x0, NewMetric(&ch)
}

// TestSecantFinishesWhereLineSearchesCannot: when f's rounding hides its
// decrease near the minimiser, both L-BFGS runs stop short; the secant
// stage then meets the same stopping rule from gradients alone, with no
// Hessian (Newton's costs O(n·d²) + O(d³): seconds at d = 2,000), and the
// point lies within 2τ/λ of the solve of f without the rounding (both within
// τ/λ of the minimiser by λ-strong convexity). Before the secant stage these
// runs fell back to Newton: one Hessian each.
func TestSecantFinishesWhereLineSearchesCannot(t *testing.T) {
	const n, d, tau = 2000, 12, 1e-7
	for _, tc := range []struct{ lambda, b, c, h float64 }{
		{1, 30, 1e-5, 3},
		{0.01, 30, 1e-7, 0.3},
		{0.01, 3, 1e-3, 3},
	} {
		t.Run(fmt.Sprintf("λ=%g,b=%g,c=%g,h=%g", tc.lambda, tc.b, tc.c, tc.h), func(t *testing.T) {
			obj, x0, ch := perturbedLogistic(t, n, d, tc.lambda, tc.b, tc.h)
			plain, err := Minimize(obj, x0, &Settings{GradTol: tau, Metric: ch})
			if err != nil {
				t.Fatal(err)
			}
			f := rounded{obj, tc.c}
			res, err := Minimize(f, x0, &Settings{GradTol: tau, Metric: ch})
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, f, res, tau)
			if res.HessEvals != 0 || strings.Contains(res.Method, MethodNewton) {
				t.Errorf("stages %s, %d Hessians: the secant stage should have finished", res.Method, res.HessEvals)
			} else if !strings.Contains(res.Method, methodSecant) {
				t.Fatalf("stages %s: the line searches reached τ despite f's rounding; the case no longer exercises the secant stage", res.Method)
			}
			if dist := floats.Distance(res.X, plain.X, 2); dist > 2*tau/tc.lambda {
				t.Errorf("‖x − x_plain‖ = %v > 2τ/λ = %v", dist, 2*tau/tc.lambda)
			}
		})
	}
}

// TestSecantStopsWhenStepsGrow: with a metric far too small (H₀ = 10⁻⁶·I,
// so the first unit step is 10⁶ times Newton's), the secant stage's steps
// grow the gradient and it hands over to Newton, which meets τ.
func TestSecantStopsWhenStepsGrow(t *testing.T) {
	const n, d, tau = 500, 6, 1e-7
	obj, x0, _ := perturbedLogistic(t, n, d, 1, 3, 1)
	tiny := mat.NewSymDense(obj.Dim(), nil)
	for i := 0; i < obj.Dim(); i++ {
		tiny.SetSym(i, i, 1e-6)
	}
	var ch mat.Cholesky
	ch.Factorize(tiny)
	e := newEvaluator(t.Context(), rounded{obj, 1e-5}, tau)
	e.metric = newCoords(NewMetric(&ch), x0)
	e.eval(make([]float64, obj.Dim()))
	e.metric.setScale(e.g)
	copy(e.bestG, e.g)
	if _, err := e.secant(secantStore); !errors.Is(err, errSecantDiverged) {
		t.Fatalf("secant with H₀ = 10⁻⁶·I: err %v, want %v", err, errSecantDiverged)
	}
	f := rounded{obj, 1e-5}
	res, err := Minimize(f, x0, &Settings{GradTol: tau, Metric: NewMetric(&ch)})
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, f, res, tau)
	if math.IsNaN(res.F) {
		t.Fatal("NaN value at the result")
	}
}
