package accounting

import (
	"fmt"
	"math"
)

// approxSum accumulates the ApproxDP leaves of a ledger (basic composition).
type approxSum struct {
	eps, delta float64
	leaf       Event // one ApproxDP leaf, for error messages; nil when none
}

func (s *approxSum) add(e ApproxDP, count float64) {
	s.eps += count * e.Epsilon
	s.delta += count * e.Delta
	s.leaf = e
}

// epsilon returns the ε of a ledger at δ by basic composition of its
// ApproxDP part with the rest, whose ε at a δ is rest (nil: the rest is
// empty). The rest gets δ − ΣDelta; no guarantee (+Inf) when nothing is left.
func (s *approxSum) epsilon(delta float64, rest func(delta float64) (float64, error)) (float64, error) {
	if s.leaf == nil {
		if rest == nil {
			return 0, nil
		}
		return rest(delta)
	}
	left := delta - s.delta
	if rest == nil {
		if left >= 0 {
			return s.eps, nil
		}
		return math.Inf(1), nil
	}
	if !(left > 0) {
		return math.Inf(1), nil
	}
	e, err := rest(left)
	return s.eps + e, err
}

// deltaAt returns the δ of a ledger at ε by basic composition: the rest's δ
// at ε − ΣEpsilon plus ΣDelta (1 when ε < ΣEpsilon).
func (s *approxSum) deltaAt(eps float64, rest func(eps float64) (float64, error)) (float64, error) {
	if s.leaf == nil {
		if rest == nil {
			return 0, nil
		}
		return rest(eps)
	}
	left := eps - s.eps
	if left < 0 {
		return 1, nil
	}
	d := 0.0
	if rest != nil {
		var err error
		if d, err = rest(left); err != nil {
			return 0, err
		}
	}
	return math.Min(1, d+s.delta), nil
}

// errNoRDP is the error of Config.RDP for a ledger with an ApproxDP part.
func (s *approxSum) errNoRDP() error {
	return &UnsupportedError{Accountant: "rdp", Sub: s.leaf, Reason: fmt.Sprintf("an (ε, δ) guarantee (ε = %g, δ = %g) has no RDP curve", s.eps, s.delta)}
}
