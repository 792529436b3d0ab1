package solvers

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
)

// methodSecant names the stage of Minimize that takes L-BFGS steps of unit
// length with no line search, in a metric's coordinates only.
const methodSecant = "secant"

// secantIterations caps the secant stage's steps.
const secantIterations = 50

// secantGrowth stops the secant stage when a step's gradient norm exceeds
// this multiple of the best one: the steps are no longer contracting.
const secantGrowth = 4

// errSecantDiverged stops a secant stage whose steps grow the gradient.
var errSecantDiverged = fmt.Errorf("secant: a step grew ‖∇f‖₂ more than %d-fold", secantGrowth)

// secant runs the stage that follows a metric's L-BFGS runs when their line
// searches fail: near the minimiser a Newton-like step lowers f by about
// ½∇fᵀ(∇²f)⁻¹∇f, which at ‖∇f‖₂ ≈ τ = 1e-6 can be below f's rounding (a sum
// of n losses), so More–Thuente no longer sees a decrease, while the
// gradients are still accurate. In the metric's coordinates ∇²g ≈ I, so the step
// −H_k∇g with H_k the L-BFGS inverse-Hessian approximation ([NW06] Alg. 7.4,
// the two-loop recursion, with H_k⁰ = γ_k I, γ_k = sᵀy/yᵀy, eq. 7.20) and
// unit length contracts ∇g without a line search, using gradients only;
// the first step's γ is 1/c², the Newton step with H₀ (coords.setScale).
// Every point is evaluated by e, which keeps the one with the smallest
// ‖∇f‖₂ and stops at τ, so the stopping rule is Minimize's; a step that
// grows the gradient norm secantGrowth-fold, or that no longer moves, ends
// the stage. It replaces Newton's Hessian (O(n·d²), and its change of
// variables and factorisation O(d³): seconds at d = 2,000) where it
// succeeds. It returns the steps taken and the error that ended the stage.
func (e *evaluator) secant(store int) (int, error) {
	d := len(e.bestX)
	x, g := slices.Clone(e.bestX), slices.Clone(e.bestG)
	var ss, ys [][]float64
	var rhos []float64
	gamma := 1.0
	if e.metric != nil {
		gamma = 1 / (e.metric.scale * e.metric.scale)
	}
	p := make([]float64, d)
	alpha := make([]float64, 0, store)
	for k := 0; k < secantIterations; k++ {
		if err := e.ctx.Err(); err != nil {
			return k, err
		}
		// Two-loop recursion ([NW06] Alg. 7.4): p = −H_k g.
		copy(p, g)
		alpha = alpha[:0]
		for i := len(ss) - 1; i >= 0; i-- {
			a := rhos[i] * floats.Dot(ss[i], p)
			alpha = append(alpha, a)
			floats.AddScaled(p, -a, ys[i])
		}
		floats.Scale(gamma, p)
		for i := range ss {
			b := rhos[i] * floats.Dot(ys[i], p)
			floats.AddScaled(p, alpha[len(ss)-1-i]-b, ss[i])
		}
		floats.Scale(-1, p)
		next := slices.Clone(x)
		floats.Add(next, p)
		if slices.Equal(next, x) {
			return k, errors.New("secant: the step is below float64 resolution")
		}
		e.eval(next)
		if e.converged() {
			return k + 1, nil
		}
		if n := gradNorm(e.fGrad()); math.IsNaN(e.fx) || !(n <= secantGrowth*e.bestNorm) {
			return k + 1, errSecantDiverged
		}
		s, y := p, make([]float64, d)
		floats.SubTo(y, e.g, g)
		if sy := floats.Dot(s, y); sy > 0 {
			if len(ss) == store {
				ss, ys, rhos = ss[1:], ys[1:], rhos[1:]
			}
			ss, ys, rhos = append(ss, slices.Clone(s)), append(ys, y), append(rhos, 1/sy)
			// [NW06] eq. 7.20.
			gamma = sy / floats.Dot(y, y)
		}
		x = next
		copy(g, e.g)
	}
	return secantIterations, fmt.Errorf("secant: %d steps left ‖∇f‖₂ = %.3g above τ", secantIterations, e.bestNorm)
}

// fGrad returns the gradient of f at the last evaluated point, in f's own
// coordinates (the metric's gf, or g without one).
func (e *evaluator) fGrad() []float64 {
	if e.metric != nil {
		return e.gf
	}
	return e.g
}

// secantStore caps the secant stage's memory: it runs a few steps from
// near the minimiser.
const secantStore = 20
