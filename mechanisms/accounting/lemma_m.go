package accounting

import (
	"fmt"
	"math"
)

// LemmaMEpsilon converts the RDP curve of e to an (ε, δ) guarantee the way
// [HSS24] does (its Lemma M, [Mir17] Prop. 3):
//
//	ε = min_α  r(α) + log(1/δ)/(α − 1)
//
// minimised over α − 1 ∈ [1e-4, 1e4] (inside the curve's domain): a grid of
// 801 points uniform in log₁₀(α − 1), then Brent's method around the best
// one. It reproduces the paper's and the implementer's report's numbers
// (preprocessing.md §2.8: a dense grid on the same range). The RDP
// accountant's conversion ([BBG+20] Thm 21, Config.Epsilon) is tighter and
// is what dplab records; this one exists to check the paper. It returns
// the minimising α. A ledger with an (ε, δ) part (ApproxDP) is an error.
func LemmaMEpsilon(cfg Config, e Event, delta float64) (eps, alpha float64, err error) {
	if !(delta > 0 && delta < 1) {
		return 0, 0, fmt.Errorf("accounting: Lemma M: δ = %v, want a value in (0, 1)", delta)
	}
	if err := cfg.Validate(); err != nil {
		return 0, 0, err
	}
	if err := Validate(e); err != nil {
		return 0, 0, err
	}
	if _, err := LedgerRelation(e); err != nil {
		return 0, 0, err
	}
	if err := approxInSelect(e); err != nil {
		return 0, 0, err
	}
	c, err := newCurve(e, rdpOptions{orders: cfg.orderSet(), sgmExact: cfg.SGM == "exact"})
	if err != nil {
		return 0, 0, err
	}
	if c.approx.leaf != nil {
		return 0, 0, c.approx.errNoRDP()
	}
	if c.infinite {
		return math.Inf(1), 0, nil
	}
	l := logRatio(1, delta)
	return lemmaM(func(a float64) float64 { return c.atOrCeil(a) }, c.sup, l)
}

// lemmaM minimises r(α) + l/(α − 1) over α − 1 ∈ [1e-4, 1e4] ∩ (0, sup − 1).
func lemmaM(r func(float64) float64, sup, l float64) (float64, float64, error) {
	f := func(u float64) float64 {
		a := 1 + math.Pow(10, u)
		if a >= sup {
			return math.Inf(1)
		}
		v := r(a) + l/(a-1)
		if math.IsNaN(v) {
			return math.Inf(1)
		}
		return v
	}
	const lo, hi, n = -4.0, 4.0, 800
	bestU, best := lo, math.Inf(1)
	for i := 0; i <= n; i++ {
		u := lo + (hi-lo)*float64(i)/n
		if v := f(u); v < best {
			bestU, best = u, v
		}
	}
	if math.IsInf(best, 1) {
		return best, 0, nil
	}
	step := (hi - lo) / n
	a, b := math.Max(lo, bestU-step), math.Min(hi, bestU+step)
	if a < bestU && bestU < b {
		if u, v := minimizeFrom(f, a, bestU, b, 1e-12); v < best {
			bestU, best = u, v
		}
	}
	eps, err := checkNumber("ε", best)
	return eps, 1 + math.Pow(10, bestU), err
}

// LemmaMCalibrate returns the smallest noise x (to relative tolerance
// 1e-12) with LemmaMEpsilon(cfg, event(x), t.Delta) ≤ t.Epsilon, where ε
// must not increase with x: the inversion "target (ε_total, δ) → σ" of
// preprocessing.md §2.6 step 5 under the paper's conversion, to reproduce
// the paper's "adjusted privacy parameter". dplab's own calibrations use
// Calibrator (the accountant's conversion, which needs less noise). The
// bracket is found by doubling (or halving) from x = 1 within [2^-60, 2^30],
// then SmallestFeasible searches it on a log scale; the returned x is an
// evaluated point that meets the target. An unreachable target is an
// *InfeasibleError.
func LemmaMCalibrate(cfg Config, event func(x float64) Event, t Target) (float64, error) {
	if err := t.Validate(); err != nil {
		return 0, err
	}
	if t.Delta == 0 {
		return 0, fmt.Errorf("accounting: Lemma M: δ = 0, want a value in (0, 1)")
	}
	f := Memoize(func(x float64) (float64, error) {
		e := event(x)
		if e == nil {
			return 0, fmt.Errorf("accounting: Lemma M calibration: event(%g) is nil", x)
		}
		if Validate(e) != nil {
			return math.Inf(1), nil // too little noise to be a mechanism
		}
		v, _, err := LemmaMEpsilon(cfg, e, t.Delta)
		return v, err
	})
	lo, hi := 0.5, 1.0
	v, err := f(hi)
	if err != nil {
		return 0, err
	}
	if v <= t.Epsilon {
		for {
			if lo < 0x1p-60 {
				return lo * 2, nil // feasible at every noise level tried
			}
			w, err := f(lo)
			if err != nil {
				return 0, err
			}
			if !(w <= t.Epsilon) {
				break
			}
			lo, hi = lo/2, lo
		}
	} else {
		for !(v <= t.Epsilon) {
			if hi >= maxDoubling {
				return 0, &InfeasibleError{Target: t, Floor: v, X: hi}
			}
			lo, hi = hi, 2*hi
			if v, err = f(hi); err != nil {
				return 0, err
			}
		}
	}
	return SmallestFeasible(f, t.Epsilon, lo, hi, 1e-12)
}
