package accounting

import "math"

// One-dimensional numerical building blocks: minimisation of a unimodal
// function and the smallest feasible point of a decreasing function.

// Minimize returns an approximate minimiser x of f on [lo, hi] and f(x),
// by Brent's method (golden-section steps with parabolic interpolation;
// Brent 1973, "Algorithms for Minimization without Derivatives", ch. 5),
// stopping when the bracket is below tol·|x| + 1e-12 (tol = 0 means 1e-9).
// f may return +Inf; the best point evaluated is returned, so for a
// function that is not unimodal the result is a point, not necessarily the
// global minimum.
func Minimize(f func(float64) float64, lo, hi, tol float64) (x, fx float64) {
	return minimizeFrom(f, lo, lo+0.3819660112501051*(hi-lo), hi, tol)
}

// minimizeFrom is Minimize starting from an interior guess x0 ∈ (lo, hi).
func minimizeFrom(f func(float64) float64, lo, x0, hi, tol float64) (float64, float64) {
	if tol == 0 {
		tol = 1e-9
	}
	const cgold = 0.3819660112501051
	a, b := math.Min(lo, hi), math.Max(lo, hi)
	x, w, v := x0, x0, x0
	fx := f(x)
	fw, fv := fx, fx
	bestX, bestF := x, fx
	var d, e float64
	for iter := 0; iter < 200; iter++ {
		m := 0.5 * (a + b)
		tol1 := tol*math.Abs(x) + 1e-12
		tol2 := 2 * tol1
		if math.Abs(x-m) <= tol2-0.5*(b-a) {
			break
		}
		parabolic := false
		if math.Abs(e) > tol1 && !math.IsInf(fx, 0) && !math.IsInf(fw, 0) && !math.IsInf(fv, 0) {
			r := (x - w) * (fx - fv)
			q := (x - v) * (fx - fw)
			p := (x-v)*q - (x-w)*r
			q = 2 * (q - r)
			if q > 0 {
				p = -p
			}
			q = math.Abs(q)
			if math.Abs(p) < math.Abs(0.5*q*e) && p > q*(a-x) && p < q*(b-x) {
				e, d = d, p/q
				u := x + d
				if u-a < tol2 || b-u < tol2 {
					d = math.Copysign(tol1, m-x)
				}
				parabolic = true
			}
		}
		if !parabolic {
			if x >= m {
				e = a - x
			} else {
				e = b - x
			}
			d = cgold * e
		}
		u := x + d
		if math.Abs(d) < tol1 {
			u = x + math.Copysign(tol1, d)
		}
		fu := f(u)
		if fu < bestF {
			bestX, bestF = u, fu
		}
		if fu <= fx {
			if u >= x {
				a = x
			} else {
				b = x
			}
			v, fv = w, fw
			w, fw = x, fx
			x, fx = u, fu
		} else {
			if u < x {
				a = u
			} else {
				b = u
			}
			if fu <= fw || w == x {
				v, fv = w, fw
				w, fw = u, fu
			} else if fu <= fv || v == x || v == w {
				v, fv = u, fu
			}
		}
	}
	return bestX, bestF
}

// Memoize returns f remembering each x's value (errors are not
// remembered), for a deterministic f searched by a bracket doubling and then
// SmallestFeasible, which evaluate some points twice (the bracket's upper
// end, points SmallestFeasible returns to, a caller's re-check): a fifth of
// a calibration's evaluations (BenchmarkCalibrateSigma).
func Memoize(f func(float64) (float64, error)) func(float64) (float64, error) {
	seen := map[float64]float64{}
	return func(x float64) (float64, error) {
		if v, ok := seen[x]; ok {
			return v, nil
		}
		v, err := f(x)
		if err == nil {
			seen[x] = v
		}
		return v, err
	}
}

// SmallestFeasible returns the smallest x in [lo, hi] (to relative
// tolerance rtol, 0 meaning 1e-9) with f(x) ≤ target, for f non-increasing
// in x; the returned x was evaluated and satisfies f(x) ≤ target. It
// requires f(hi) ≤ target (checked) and treats lo as infeasible without
// evaluating it when f(lo) > target or lo is where f is undefined (e.g. 0
// noise). The search is a bracketing root finder on f − target (Illinois
// false position, falling back to bisection, on a log scale when lo > 0),
// so every step keeps an infeasible lower end and a feasible upper end.
func SmallestFeasible(f func(float64) (float64, error), target, lo, hi, rtol float64) (float64, error) {
	if rtol == 0 {
		rtol = 1e-9
	}
	fhi, err := f(hi)
	if err != nil {
		return 0, err
	}
	if !(fhi <= target) {
		return 0, errf("f(%g) = %g exceeds the target %g: no feasible point in the bracket", hi, fhi, target)
	}
	// lower end: its value, or +Inf when not evaluated/undefined
	flo := math.Inf(1)
	if lo > 0 {
		v, err := f(lo)
		if err == nil {
			flo = v
		}
		if flo <= target {
			return lo, nil
		}
	}
	side := 0
	for iter := 0; iter < 300 && hi-lo > rtol*hi; iter++ {
		var x float64
		useFP := !math.IsInf(flo, 0) && !math.IsInf(fhi, 0) && iter%4 != 3
		switch {
		case useFP:
			// False position on g = f − target: g(lo) > 0 ≥ g(hi).
			gl, gh := flo-target, fhi-target
			x = hi - gh*(hi-lo)/(gh-gl)
		case lo > 0 && hi/lo > 4:
			x = math.Sqrt(lo * hi)
		default:
			x = 0.5 * (lo + hi)
		}
		// keep x strictly inside and away from the ends
		minStep := 0.25 * rtol * hi
		if !(x > lo+minStep) {
			x = lo + math.Max(minStep, 0.5*(hi-lo)*1e-3)
		}
		if !(x < hi-minStep) {
			x = hi - math.Max(minStep, 0.5*(hi-lo)*1e-3)
		}
		fx, err := f(x)
		if err != nil {
			return 0, err
		}
		if fx <= target {
			hi, fhi = x, fx
			if side == 1 && !math.IsInf(flo, 0) {
				flo = target + (flo-target)/2 // Illinois step
			}
			side = 1
		} else {
			lo, flo = x, fx
			if side == -1 {
				fhi = target + (fhi-target)/2
			}
			side = -1
		}
	}
	return hi, nil
}
