package solvers

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// evaluator evaluates a Function for gonum's optimize package. It computes
// value and gradient in one pass and caches them (gonum asks for Func and
// Grad separately at the same point), counts evaluations, keeps the point
// with the smallest gradient norm, and stops gonum (through Problem.Status)
// as soon as that norm is ≤ tol or ctx is cancelled.
//
// gonum calls Func/Grad/Hess on a worker goroutine and Status on its
// statistics goroutine; its channels order every call, so no lock is needed.
type evaluator struct {
	ctx context.Context
	f   Function
	tol float64

	x, g  []float64 // last evaluated point and its gradient
	fx    float64
	valid bool

	bestX, bestG []float64 // evaluated point with the smallest ‖∇f‖₂
	bestF        float64
	bestNorm     float64

	// metric, when set (Settings.Metric), makes x, g, bestX and bestG the
	// coordinates z and ∇g(z) gonum sees; fx, the norm and the result are
	// f's at the point xf = metric.point(z), with gradient gf. Without it
	// xf and gf alias x and g.
	metric         *coords
	xf, gf, bestXf []float64

	evals, hessEvals int
	// repeats counts the consecutive requests for the cached point: a line
	// search whose steps no longer change x in float64 asks for it forever
	// (gonum's More–Thuente near the optimum of a function flat to
	// rounding), so the stage is stopped after maxRepeats.
	repeats int
}

// maxRepeats is the number of consecutive evaluations of the same point
// after which a stage is stopped as making no progress (gonum asks for f and
// ∇f separately, so a normal step repeats a point once or twice).
const maxRepeats = 50

// errNoProgress stops a stage whose evaluations no longer move.
var errNoProgress = fmt.Errorf("optimize: no progress: the same point was evaluated %d times in a row (steps below float64 resolution)", maxRepeats)

func newEvaluator(ctx context.Context, f Function, tol float64) *evaluator {
	d := f.Dim()
	return &evaluator{
		ctx: ctx, f: f, tol: tol,
		x: make([]float64, d), g: make([]float64, d),
		bestX: make([]float64, d), bestG: make([]float64, d),
		bestF: math.NaN(), bestNorm: math.Inf(1),
	}
}

// eval evaluates f and ∇f at x unless x is the cached point.
func (e *evaluator) eval(x []float64) {
	if e.valid && slices.Equal(x, e.x) {
		e.repeats++
		return
	}
	e.repeats = 0
	copy(e.x, x)
	xf, gf := e.x, e.g
	if e.metric != nil {
		if e.xf == nil {
			e.xf, e.gf, e.bestXf = make([]float64, len(x)), make([]float64, len(x)), make([]float64, len(x))
		}
		xf, gf = e.xf, e.gf
		e.metric.point(xf, x)
	}
	e.fx = e.f.ValueGrad(gf, xf)
	if e.metric != nil {
		e.metric.grad(e.g, gf)
	}
	e.valid = true
	e.evals++
	if n := gradNorm(gf); n < e.bestNorm && !math.IsNaN(e.fx) {
		e.bestNorm, e.bestF = n, e.fx
		copy(e.bestX, e.x)
		copy(e.bestG, e.g)
		if e.metric != nil {
			copy(e.bestXf, xf)
		}
	}
}

func (e *evaluator) converged() bool { return e.bestNorm <= e.tol }

// problem returns the gonum Problem backed by e.
func (e *evaluator) problem() optimize.Problem {
	return optimize.Problem{
		Func: func(x []float64) float64 {
			e.eval(x)
			return e.fx
		},
		Grad: func(grad, x []float64) {
			e.eval(x)
			copy(grad, e.g)
		},
		Hess: func(hess *mat.SymDense, x []float64) {
			if e.metric == nil {
				e.f.Hessian(hess, x)
			} else {
				xf := make([]float64, len(x))
				e.metric.point(xf, x)
				e.f.Hessian(hess, xf)
				e.metric.hessian(hess)
			}
			e.hessEvals++
		},
		Status: func() (optimize.Status, error) {
			if err := e.ctx.Err(); err != nil {
				return optimize.Failure, err
			}
			if e.converged() {
				return optimize.GradientThreshold, nil
			}
			if e.repeats > maxRepeats {
				return optimize.Failure, errNoProgress
			}
			return optimize.NotTerminated, nil
		},
	}
}

// run runs one stage (method) from the best point so far and returns its
// major iterations and its error (nil when it ended without one).
func (e *evaluator) run(method string, s Settings) (int, error) {
	e.repeats = 0
	if method == methodSecant {
		return e.secant(min(s.Store, secantStore))
	}
	init := &optimize.Location{F: e.bestF, Gradient: slices.Clone(e.bestG)}
	settings := &optimize.Settings{InitValues: init}
	var m optimize.Method
	switch method {
	case MethodLBFGS:
		m = &optimize.LBFGS{
			Linesearcher:      &optimize.MoreThuente{},
			Store:             s.Store,
			GradStopThreshold: math.NaN(), // τ is checked on the ℓ2 norm in Status
		}
		settings.MajorIterations = s.LBFGSIterations
		settings.Converger = &optimize.FunctionConverge{Iterations: stallIterations}
	case MethodNewton:
		m = &optimize.Newton{
			Linesearcher:      &optimize.Backtracking{},
			GradStopThreshold: math.NaN(),
		}
		settings.MajorIterations = s.NewtonIterations
		settings.Converger = optimize.NeverTerminate{}
	default:
		panic("solvers: unknown stage " + method)
	}
	res, err := optimize.Minimize(e.problem(), slices.Clone(e.bestX), settings, m)
	if res == nil {
		return 0, err
	}
	if err == nil {
		err = res.Status.Err()
	}
	if err == nil && !e.converged() {
		// A status that is not "early" in gonum's sense (FunctionConvergence:
		// a stall) that still left the gradient above τ.
		err = fmt.Errorf("optimize: stopped with status %v", res.Status)
	}
	return res.MajorIterations, err
}

// result fills r's point and counters from the best evaluation.
func (e *evaluator) result(r Result) Result {
	r.X = slices.Clone(e.bestX)
	if e.metric != nil {
		r.X = slices.Clone(e.bestXf)
	}
	r.F = e.bestF
	r.GradNorm = e.bestNorm
	r.FuncEvals, r.GradEvals = e.evals, e.evals
	r.HessEvals = e.hessEvals
	r.Converged = e.converged()
	return r
}
