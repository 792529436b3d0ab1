package accounting

import (
	"fmt"
	"math"
)

// ApproxDP is a release whose (Epsilon, Delta)-DP guarantee the accountants
// take as given, for the two cases no RDP curve or privacy loss distribution
// describes:
//
//   - a bound proved outside the RDP/PLD framework, such as the objective
//     perturbation condition of [KST12] (the Algorithm 6 baseline of
//     [LSS+25]);
//   - with Epsilon = 0, the probability Delta of a bad event of the
//     mechanism's own data-independent randomness outside of which the rest
//     of the ledger's guarantee holds: a private lower bound that fails when
//     a Gaussian draw exceeds a threshold ([LSS+25] App. D, eq. (49): "z ≥ τ"
//     with probability ≤ δ/3), or a Laplace test that passes falsely
//     ([LSS+25] Alg. 4, line 5).
//
// Accountants compose it by basic composition ([DR14] Thm 3.16): ε's add and
// δ's add. The RDP accountant converts the rest of the ledger at δ − ΣDelta
// and adds ΣEpsilon; the PLD and exact accountants do not support it. It
// cannot be repeated a random number of times (inside RepeatAndSelect). Its
// neighbouring relation is the ledger's.
type ApproxDP struct {
	Epsilon float64 `json:"epsilon"` // ε ≥ 0 of the guarantee
	Delta   float64 `json:"delta"`   // δ ∈ [0, 1) of the guarantee (the failure probability when Epsilon = 0)
}

// Kind implements Event.
func (ApproxDP) Kind() string { return "approx_dp" }

func (ApproxDP) isEvent() {}

// Validate checks a finite Epsilon ≥ 0 and Delta ∈ [0, 1).
func (e ApproxDP) Validate() error {
	if !finite(e.Epsilon) || e.Epsilon < 0 {
		return fieldErr(e, "epsilon", e.Epsilon, "a finite value ≥ 0")
	}
	if !(e.Delta >= 0 && e.Delta < 1) {
		return fieldErr(e, "delta", e.Delta, "a value in [0, 1)")
	}
	return nil
}

// MarshalJSON encodes the event with its "kind".
func (e ApproxDP) MarshalJSON() ([]byte, error) {
	type plain ApproxDP
	return withKind(e.Kind(), plain(e))
}

// approxInSelect returns an *UnsupportedError naming an ApproxDP event that
// sits inside a RepeatAndSelect: the number of runs is random and unbounded,
// so the failure probabilities of the runs have no finite union bound.
func approxInSelect(e Event) error {
	var walk func(e Event, inSelect bool) error
	walk = func(e Event, inSelect bool) error {
		switch e := e.(type) {
		case SelfComposed:
			return walk(e.Event, inSelect)
		case Composed:
			for _, s := range e.Events {
				if err := walk(s, inSelect); err != nil {
					return err
				}
			}
		case RepeatAndSelect:
			return walk(e.Event, true)
		case ApproxDP:
			if inSelect {
				return &UnsupportedError{Sub: e, Reason: "an (ε, δ) guarantee cannot be repeated a random number of times (RepeatAndSelect)"}
			}
		}
		return nil
	}
	return walk(e, false)
}

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
