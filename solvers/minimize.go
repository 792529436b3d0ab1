package solvers

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Minimisation methods named in Settings.Method and Result.Method.
const (
	MethodLBFGS  = "lbfgs"  // L-BFGS with a More–Thuente line search
	MethodNewton = "newton" // Newton with the exact Hessian and backtracking
)

// Settings configures Minimize. A nil *Settings or a zero field means the
// default stated on the field.
type Settings struct {
	// GradTol is the tolerance τ > 0: Minimize stops at the first evaluated
	// point x with ‖∇f(x)‖₂ ≤ τ (the full gradient, Euclidean norm).
	// 0 means 1e-6.
	GradTol float64
	// Method is MethodLBFGS ("" means it) or MethodNewton. L-BFGS falls back
	// to Newton (Dim ≤ NewtonMaxDim) or to restarted L-BFGS if it stops
	// short; Newton runs alone.
	Method string
	// LBFGSIterations caps the major iterations of each L-BFGS run.
	// 0 means 5000.
	LBFGSIterations int
	// NewtonIterations caps the Newton iterations. 0 means 100.
	NewtonIterations int
	// Store is the L-BFGS memory (pairs kept). 0 means 100, PyTorch
	// LBFGS's history_size used by [RKW23]'s code; on Adult-like
	// ill-conditioned data it needs about half the evaluations of 20.
	Store int
	// NewtonMaxDim is the largest dimension for which the L-BFGS fallback
	// is Newton (one Hessian costs O(n·d²) and its factorisation O(d³));
	// above it the fallback restarts L-BFGS. 0 means 2000.
	NewtonMaxDim int
	// Metric, when set, is a factored symmetric positive definite H₀
	// (NewMetric) close to ∇²f near the minimiser (for example the
	// Hessian at a nearby point): every stage then runs in the coordinates
	// z = Lᵀ(x − x0), H₀ = LLᵀ, where the problem is well conditioned, and
	// needs fewer evaluations (L-BFGS's first trial point is the Newton
	// step with H₀, x0 − H₀⁻¹∇f(x0)); L-BFGS falls back to one restarted
	// L-BFGS, then to secant steps without a line search, before Newton
	// (or before the other restarts above NewtonMaxDim). It changes the
	// path, not the stopping rule:
	// GradTol still bounds ‖∇f(x)‖₂ at the returned x. Its order must be
	// f.Dim(); nil means none.
	Metric *Metric
}

// lbfgsRestarts is the number of L-BFGS restarts in the fallback above
// NewtonMaxDim.
const lbfgsRestarts = 3

// stallIterations: an L-BFGS run whose best objective value has not
// decreased for this many major iterations is stopped, and the fallback
// takes over (gonum FunctionConverge with zero tolerances).
const stallIterations = 50

// withDefaults validates s and returns a copy with defaults filled in.
func (s *Settings) withDefaults() (Settings, error) {
	var out Settings
	if s != nil {
		out = *s
	}
	switch {
	case out.GradTol == 0:
		out.GradTol = 1e-6
	case !(out.GradTol > 0) || math.IsInf(out.GradTol, 1):
		return out, fmt.Errorf("solvers: gradient tolerance τ = %v must be finite and > 0", out.GradTol)
	}
	switch out.Method {
	case "":
		out.Method = MethodLBFGS
	case MethodLBFGS, MethodNewton:
	default:
		return out, fmt.Errorf("solvers: unknown method %q (want %q or %q)", out.Method, MethodLBFGS, MethodNewton)
	}
	if out.LBFGSIterations < 0 || out.NewtonIterations < 0 || out.Store < 0 || out.NewtonMaxDim < 0 {
		return out, errors.New("solvers: iteration limits, Store and NewtonMaxDim must be ≥ 0")
	}
	if out.LBFGSIterations == 0 {
		out.LBFGSIterations = 5000
	}
	if out.NewtonIterations == 0 {
		out.NewtonIterations = 100
	}
	if out.Store == 0 {
		out.Store = 100
	}
	if out.NewtonMaxDim == 0 {
		out.NewtonMaxDim = 2000
	}
	if out.Metric != nil && out.Metric.Dim() == 0 {
		return out, errors.New("solvers: Metric is empty")
	}
	return out, nil
}

// Result is the outcome of Minimize.
type Result struct {
	// X is the evaluated point with the smallest gradient norm; when
	// Converged, ‖∇f(X)‖₂ ≤ GradTol.
	X []float64
	// F is f(X).
	F float64
	// GradNorm is ‖∇f(X)‖₂, computed from the full gradient at X.
	GradNorm float64
	// Iterations counts the major iterations of every stage run, as gonum
	// counts them (each stage's starting point counts as one).
	Iterations int
	// FuncEvals counts evaluations of f; each one also computes ∇f (one
	// pass over the data), so GradEvals = FuncEvals.
	FuncEvals, GradEvals int
	// HessEvals counts Hessian evaluations (Newton only).
	HessEvals int
	// Method names the stages run, joined by "+": "lbfgs",
	// "lbfgs+newton", "lbfgs+lbfgs", "lbfgs+lbfgs+secant", "newton";
	// empty when x0 already met the tolerance.
	Method string
	// Converged reports GradNorm ≤ GradTol.
	Converged bool
}

// NotConvergedError reports that Minimize could not reach the gradient
// tolerance. It wraps the error of the last stage (a gonum optimize error
// or Status.Err()).
type NotConvergedError struct {
	GradNorm, GradTol float64
	Method            string
	Err               error
}

// Error names the stages run, the gradient norm reached, τ and the cause.
func (e *NotConvergedError) Error() string {
	return fmt.Sprintf("solvers: %s stopped at ‖∇f‖₂ = %.6g > τ = %g: %v", e.Method, e.GradNorm, e.GradTol, e.Err)
}

// Unwrap returns the underlying stage error.
func (e *NotConvergedError) Unwrap() error { return e.Err }

// Minimize minimises f from x0 until the full gradient satisfies
// ‖∇f(x)‖₂ ≤ s.GradTol; see MinimizeContext.
func Minimize(f Function, x0 []float64, s *Settings) (Result, error) {
	return MinimizeContext(context.Background(), f, x0, s)
}

// MinimizeContext minimises f from x0 until an evaluated point x has
// ‖∇f(x)‖₂ ≤ τ = s.GradTol, and returns that point.
//
// It runs gonum's L-BFGS (More–Thuente line search). If L-BFGS stops short —
// line-search failure, no progress, a stall or the iteration limit — it
// continues from the best point so far on the same f: by Newton's method with
// the exact Hessian and a backtracking line search when Dim ≤
// s.NewtonMaxDim, else by restarting L-BFGS with an empty memory; with a
// Metric, a restarted L-BFGS and then unit L-BFGS steps without a line
// search (the secant stage, which needs gradients only) come first. f is never
// changed, so a caller's noise draw (objective perturbation's b) is never
// redrawn: any point with ‖∇f‖₂ ≤ τ is an acceptable output of [RKW23]
// Algorithm 1, line 4, whichever optimiser found it.
//
// Every evaluation computes the full gradient; the run stops as soon as one
// meets the tolerance, including trial points of a line search. The result
// is the evaluated point with the smallest gradient norm. If τ is not
// reached, MinimizeContext returns that point with Converged = false and a
// *NotConvergedError. If ctx is cancelled it returns ctx.Err() (checked
// after every evaluation).
//
// Ref: [NW06] Alg. 7.5 (L-BFGS two-loop recursion, in gonum), §3.4 (Newton
// with Hessian modification: gonum adds τI until the Cholesky succeeds).
//
// It returns an error for invalid settings, a non-finite x0, or a
// non-finite f(x0) or ∇f(x0), and panics if len(x0) ≠ f.Dim().
func MinimizeContext(ctx context.Context, f Function, x0 []float64, s *Settings) (Result, error) {
	set, err := s.withDefaults()
	if err != nil {
		return Result{}, err
	}
	if len(x0) != f.Dim() {
		panic(badShape)
	}
	if err := checkFinite("x0", x0); err != nil {
		return Result{}, err
	}
	e := newEvaluator(ctx, f, set.GradTol)
	if set.Metric != nil {
		if set.Metric.Dim() != len(x0) {
			panic(badShape)
		}
		e.metric = newCoords(set.Metric, x0)
		x0 = make([]float64, len(x0)) // z = 0 is x0
	}
	e.eval(x0)
	if math.IsInf(e.bestNorm, 1) || math.IsInf(e.fx, 0) {
		return Result{}, fmt.Errorf("solvers: f(x0) = %v or its gradient is not finite", e.fx)
	}
	if e.metric != nil {
		// The cached gradients at the start are its gradient in z, the
		// same vector: both become the gradient in w.
		e.metric.setScale(e.g)
		copy(e.bestG, e.g)
	}
	res := Result{}
	var stageErr error
	for _, st := range stages(set, f.Dim()) {
		if e.converged() {
			break
		}
		if err := ctx.Err(); err != nil {
			return e.result(res), err
		}
		iters, err := e.run(st, set)
		res.Iterations += iters
		if res.Method != "" {
			res.Method += "+"
		}
		res.Method += st
		if cerr := ctx.Err(); cerr != nil {
			return e.result(res), cerr
		}
		stageErr = err
	}
	res = e.result(res)
	if !res.Converged {
		if stageErr == nil {
			stageErr = errors.New("no stage reached the tolerance")
		}
		return res, &NotConvergedError{GradNorm: res.GradNorm, GradTol: set.GradTol, Method: res.Method, Err: stageErr}
	}
	return res, nil
}

// stages lists the methods Minimize runs in turn, each from the best point
// of the previous ones.
func stages(s Settings, dim int) []string {
	if s.Method == MethodNewton {
		return []string{MethodNewton}
	}
	if dim <= s.NewtonMaxDim {
		if s.Metric != nil {
			// In the metric the problem is well conditioned, and a run that
			// stops short has usually met f's rounding in a line search: a
			// restart with an empty memory finishes in a few evaluations,
			// where Newton would first pay a Hessian (O(n·d²)).
			return []string{MethodLBFGS, MethodLBFGS, methodSecant, MethodNewton}
		}
		return []string{MethodLBFGS, MethodNewton}
	}
	out := []string{MethodLBFGS}
	for i := range lbfgsRestarts {
		if i == 1 && s.Metric != nil {
			out = append(out, methodSecant)
		}
		out = append(out, MethodLBFGS)
	}
	return out
}
