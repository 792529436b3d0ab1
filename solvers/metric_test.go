package solvers

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestMinimizeMetric: on random perturbed logistic objectives (random n, d,
// λ and b, features of very different scales so that plain L-BFGS needs
// many steps), Minimize with Settings.Metric — the factored
// Hessian at the noiseless minimiser, the start at its Newton point — meets
// the same stopping rule at the point it returns (checkResult recomputes
// ‖∇f‖ there), lies within 2τ/λ of the cold solve from 0 (both are within
// τ/λ of the exact minimiser by λ-strong convexity), and, with Newton as
// the method (the Hessian in the new coordinates), does the same; neither
// changes the Metric, which the fits of one start share.
func TestMinimizeMetric(t *testing.T) {
	t.Parallel()
	r := newTestRand()
	const tau = 1e-6
	var warmEvals, coldEvals int
	for trial := range 6 {
		n, d := 300+r.IntN(1500), 2+r.IntN(20)
		x, y := logisticData(r, n, d, 1+4*r.Float64())
		raw := x.RawMatrix()
		for i := 0; i < n; i++ {
			for j := 0; j < d; j++ {
				raw.Data[i*raw.Stride+j] *= math.Pow(0.6, float64(j))
			}
		}
		l, err := NewGLM(x, y, GLMConfig{Bias: trial%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		lambda := math.Pow(10, -2+3*r.Float64())
		b := randomVec(r, l.Dim(), 10*r.Float64())
		obj := Objective{Loss: l, L2: lambda, Linear: b}
		x0, _, m := warmStart(t, l, lambda, b, tau)
		factor := slices.Clone(m.l)
		cold, err := Minimize(obj, make([]float64, l.Dim()), &Settings{GradTol: tau})
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, obj, cold, tau)
		for _, method := range []string{MethodLBFGS, MethodNewton} {
			t.Run(fmt.Sprintf("n=%d,d=%d,λ=%.3g,%s", n, l.Dim(), lambda, method), func(t *testing.T) {
				warm, err := Minimize(obj, x0, &Settings{GradTol: tau, Metric: m, Method: method})
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, obj, warm, tau)
				if dist := floats.Distance(warm.X, cold.X, 2); dist > 2*tau/lambda {
					t.Errorf("‖x_metric − x_cold‖ = %v > 2τ/λ = %v", dist, 2*tau/lambda)
				}
				if method == MethodLBFGS {
					warmEvals += warm.GradEvals
					coldEvals += cold.GradEvals
				}
			})
		}
		if !slices.Equal(m.l, factor) { // the fits of one start share it (objpert-kifer's memo)
			t.Errorf("Minimize changed the Metric it was given")
		}
	}
	if warmEvals*2 > coldEvals {
		t.Errorf("with the metric L-BFGS took %d evaluations, cold %d: want at most half", warmEvals, coldEvals)
	}
}

// TestMinimizeMetricExactQuadratic: on a strongly convex quadratic
// ½xᵀAx − cᵀx (least squares with a ridge) whose Hessian A is the metric,
// the problem in the new coordinates is ½‖z − z*‖², which L-BFGS's first
// line search solves: a handful of evaluations where the cold solve of the
// same ill-conditioned problem needs dozens; the answer is A⁻¹c (closed
// form) to within τ/λ_min(A).
func TestMinimizeMetricExactQuadratic(t *testing.T) {
	t.Parallel()
	r := newTestRand()
	const n, d, tau = 400, 15, 1e-8
	x := randomDense(r, n, d)
	raw := x.RawMatrix()
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			raw.Data[i*raw.Stride+j] *= math.Pow(0.5, float64(j))
		}
	}
	y := randomVec(r, n, 1)
	l, err := NewGLM(x, y, GLMConfig{Loss: LossSquared})
	if err != nil {
		t.Fatal(err)
	}
	const lambda = 1e-3
	obj := Objective{Loss: l, L2: lambda}
	a := mat.NewSymDense(d, nil)
	obj.Hessian(a, make([]float64, d))
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		t.Fatal("not positive definite")
	}
	var want mat.VecDense // A⁻¹Xᵀy
	var c mat.VecDense
	c.MulVec(x.T(), mat.NewVecDense(n, y))
	if err := ch.SolveVecTo(&want, &c); err != nil {
		t.Fatal(err)
	}
	warm, err := Minimize(obj, make([]float64, d), &Settings{GradTol: tau, Metric: NewMetric(&ch)})
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, obj, warm, tau)
	cold, err := Minimize(obj, make([]float64, d), &Settings{GradTol: tau})
	if err != nil {
		t.Fatal(err)
	}
	if warm.GradEvals > 6 || cold.GradEvals < 4*warm.GradEvals {
		t.Errorf("evaluations: %d with the exact metric, %d cold; want ≤ 6 and a quarter of cold's", warm.GradEvals, cold.GradEvals)
	}
	if dist := floats.Distance(warm.X, want.RawVector().Data, 2); dist > tau/lambda {
		t.Errorf("‖x − A⁻¹c‖ = %v > τ/λ = %v", dist, tau/lambda)
	}
}

// TestMetricFirstStepIsNewton: with the metric H₀ = LLᵀ, L-BFGS's first
// trial point is the Newton step with H₀, x0 − H₀⁻¹∇f(x0); on a strongly
// convex quadratic whose Hessian is H₀ that point is the minimiser (closed
// form A⁻¹c), so Minimize evaluates exactly twice: the start and that
// point, where ‖∇f‖ is rounding. For starts far from and near to the
// minimiser (‖∇f(x0)‖ from about 10⁻⁴ to 10⁴). Before, gonum's first trial
// step had length 1 in z = Lᵀ(x − x0) and the line search stretched it,
// one evaluation at a time (fails before: 3 to 8 evaluations).
func TestMetricFirstStepIsNewton(t *testing.T) {
	t.Parallel()
	r := newTestRand()
	const n, d, lambda, tau = 300, 8, 1e-2, 1e-8
	x := randomDense(r, n, d)
	y := randomVec(r, n, 1)
	l, err := NewGLM(x, y, GLMConfig{Loss: LossSquared})
	if err != nil {
		t.Fatal(err)
	}
	obj := Objective{Loss: l, L2: lambda}
	a := mat.NewSymDense(d, nil)
	obj.Hessian(a, make([]float64, d))
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		t.Fatal("not positive definite")
	}
	var want, c mat.VecDense // A⁻¹Xᵀy
	c.MulVec(x.T(), mat.NewVecDense(n, y))
	if err := ch.SolveVecTo(&want, &c); err != nil {
		t.Fatal(err)
	}
	for _, scale := range []float64{1e-6, 1e-2, 1, 1e2} {
		x0 := randomVec(r, d, 1)
		floats.Scale(scale, x0)
		floats.Add(x0, want.RawVector().Data)
		res, err := Minimize(obj, x0, &Settings{GradTol: tau, Metric: NewMetric(&ch)})
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, obj, res, tau)
		if res.GradEvals != 2 {
			t.Errorf("‖x0 − x*‖ ≈ %g: %d evaluations, want 2 (the start and its Newton step)", scale, res.GradEvals)
		}
	}
}

// TestStagesWithMetric: with a metric, L-BFGS that stops short is restarted
// once (cheap in well-conditioned coordinates) before Newton; without one
// the stages are unchanged.
func TestStagesWithMetric(t *testing.T) {
	var ch mat.Cholesky
	ch.Factorize(mat.NewSymDense(2, []float64{2, 0, 0, 1}))
	for _, tc := range []struct {
		s    Settings
		want string
	}{
		{Settings{NewtonMaxDim: 10}, "lbfgs+newton"},
		{Settings{NewtonMaxDim: 10, Metric: NewMetric(&ch)}, "lbfgs+lbfgs+secant+newton"},
		{Settings{NewtonMaxDim: 1, Metric: NewMetric(&ch)}, "lbfgs+lbfgs+secant+lbfgs+lbfgs"},
		{Settings{NewtonMaxDim: 10, Metric: NewMetric(&ch), Method: MethodNewton}, "newton"},
	} {
		if got := strings.Join(stages(tc.s, 2), "+"); got != tc.want {
			t.Errorf("%+v: stages %s, want %s", tc.s, got, tc.want)
		}
	}
}
