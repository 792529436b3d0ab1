package accounting

import (
	"fmt"
	"math"
)

// Conversions from RDP to (ε, δ) guarantees.
//
// An (α, r)-RDP mechanism is (ε, δ)-DP with
//
//	ε = r + log(1 − 1/α) − log(δ α)/(α − 1)                          (1)
//	δ = exp((α − 1)(r − ε + log(1 − 1/α))) / α                       (2)
//
// Ref: [BBG+20] Thm 21; [CKS20] Prop. 12 (arXiv:2004.00010v4); [ALC+21]
// Eq. 20 (arXiv:2001.05990v1). Following dp_accounting's compute_epsilon and
// compute_delta (b5b0286): (1) and (2) are used only for α > 1.01, where they
// are numerically stable; for every order the KL bound δ ≤ √(1 − e^{−r})
// ([CKS20] Prop. 12's companion, KL ≤ D_α) gives ε = 0 when δ² > 1 − e^{−r},
// and the best order is the first minimiser in the order list. A negative
// RDP value (which only arises from a numerical failure) excludes its order,
// where dp_accounting would report ε = 0 or δ = 0.

// epsAt returns the ε of (1) for one order, with the KL shortcut.
func epsAt(a, r, delta float64) float64 {
	switch {
	case math.IsNaN(r) || r < 0:
		return math.Inf(1)
	case delta*delta+math.Expm1(-r) > 0:
		return 0
	case a > 1.01:
		ld := math.Log(delta * a)
		if delta < minNormal {
			// log δ + log α: the product of a subnormal δ loses digits,
			// and logPos is right where math.Log is not (subnormals).
			ld = logPos(delta) + math.Log(a)
		}
		return r + math.Log1p(-1/a) - ld/(a-1)
	}
	return math.Inf(1)
}

// The classic conversion ([Mir17] Prop. 3, arXiv:1702.07476v3): an (α, r)-RDP
// mechanism is (ε, δ)-DP with
//
//	ε = r + log(1/δ)/(α − 1),     δ = exp((α − 1)(r − ε)).              (3)
//
// It is the conversion TF Privacy's tutorials print (its compute_eps before
// it adopted (1)). (1) minus (3) is log(1 − 1/α) − log(α)/(α − 1) < 0 for
// every α > 1, so (1) is tighter at every order α > 1.01 where it is used; both are valid upper bounds
// on the ε of an (α, r)-RDP mechanism.

// Conversions are the names of the RDP → (ε, δ) conversions Config.Conversion
// takes: "default" ((1), (2) and the KL bound) and "classic" ((3)).
func Conversions() []string { return []string{"default", "classic"} }

// epsAtClassic returns the ε of (3) for one order α > 1.
func epsAtClassic(a, r, delta float64) float64 {
	if math.IsNaN(r) || r < 0 || !(a > 1) {
		return math.Inf(1)
	}
	return r - logPos(delta)/(a-1)
}

// logDeltaAtClassic returns log δ of (3) for one order α > 1.
func logDeltaAtClassic(a, r, eps float64) float64 {
	if math.IsNaN(r) || r < 0 || !(a > 1) {
		return math.Inf(1)
	}
	return (a - 1) * (r - eps)
}

// logDeltaAt returns log δ of (2) for one order, with the KL bound.
func logDeltaAt(a, r, eps float64) float64 {
	var ld float64
	switch {
	case math.IsNaN(r) || r < 0:
		return math.Inf(1)
	case r == 0:
		ld = math.Inf(-1)
	default:
		ld = 0.5 * log1mExp(-r)
	}
	if a > 1.01 {
		ld = math.Min(ld, (a-1)*(r-eps+math.Log1p(-1/a))-math.Log(a))
	}
	return ld
}

// EpsilonFromRDP returns the smallest ε of (1) over the orders, clamped at
// 0, and the order that attains it (dp_accounting's compute_epsilon). δ = 0
// gives ε = 0 if every r is 0 and +Inf otherwise.
func EpsilonFromRDP(orders, rdp []float64, delta float64) (eps, alpha float64, err error) {
	if len(orders) != len(rdp) {
		return 0, 0, fmt.Errorf("accounting: %d orders but %d RDP values", len(orders), len(rdp))
	}
	if err := checkDelta(delta); err != nil {
		return 0, 0, err
	}
	if delta == 0 {
		for _, r := range rdp {
			if r != 0 {
				return math.Inf(1), 0, nil
			}
		}
		return 0, 0, nil
	}
	best, at := math.Inf(1), 0.0
	for i, a := range orders {
		if a < 1 {
			return 0, 0, fmt.Errorf("accounting: RDP order %v, want ≥ 1", a)
		}
		if e := epsAt(a, rdp[i], delta); e < best || i == 0 {
			best, at = e, a
		}
	}
	return math.Max(0, best), at, nil
}

// DeltaFromRDP returns the smallest δ of (2) and the KL bound over the
// orders, capped at 1, and the order that attains it (dp_accounting's
// compute_delta).
func DeltaFromRDP(orders, rdp []float64, eps float64) (delta, alpha float64, err error) {
	if len(orders) != len(rdp) {
		return 0, 0, fmt.Errorf("accounting: %d orders but %d RDP values", len(orders), len(rdp))
	}
	if err := checkEpsilon(eps); err != nil {
		return 0, 0, err
	}
	best, at := math.Inf(1), 0.0
	for i, a := range orders {
		if a < 1 {
			return 0, 0, fmt.Errorf("accounting: RDP order %v, want ≥ 1", a)
		}
		if ld := logDeltaAt(a, rdp[i], eps); ld < best || i == 0 {
			best, at = ld, a
		}
	}
	return math.Min(math.Exp(best), 1), at, nil
}
