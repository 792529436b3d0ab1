package accounting

import (
	"encoding/json"
	"fmt"
	"math"
)

// ReplaceByRemoveAdd reads an add/remove ledger for replace-one neighbours:
// replacing record x by x' is removing x, then adding x'. With P, Q, R the
// outputs on S, S∖{x} and S' = S∖{x} ∪ {x'}, [Mir17] Proposition 11 (the
// weak triangle inequality; Hölder with p = q = 2) gives
//
//	D_α(P‖R) ≤ (α − ½)/(α − 1)·D_{2α}(P‖Q) + D_{2α−1}(Q‖R),
//
// and the add/remove curve ε bounds both divergences (a removal and an
// addition are both add/remove neighbours), so the replace-one curve is
//
//	ε_rep(α) = (α − ½)/(α − 1)·ε(2α) + ε(2α − 1),   α > 1.
//
// It is valid for any add/remove ledger (the sampled Gaussian of DP-SGD
// included). For a Gaussian sum (add/remove sensitivity Δ, replace-one 2Δ)
// it is [(α − ½)/(α − 1)·2α + 2α − 1]·Δ²/(2σ²) against the exact
// α(2Δ)²/(2σ²): 12.5% above it at α = 2, 0.3% at α = 10. It lets a replace-one
// analysis ([HSS24] Theorem 2, whose pre-processing sensitivities are
// stated for replace-one neighbours) use a mechanism accounted for
// add/remove neighbours. RDP only: the PLD and exact accountants report it
// as unsupported.
type ReplaceByRemoveAdd struct {
	Event Event `json:"event"` // a ledger for add/remove neighbours
}

func init() {
	registerLeaf(ReplaceByRemoveAdd{Event: SelfComposed{Event: PoissonSampledGaussian{Q: 0.01, NoiseMultiplier: 1.1}, Count: 100}})
}

// Kind implements Event.
func (ReplaceByRemoveAdd) Kind() string { return "replace_by_remove_add" }

func (ReplaceByRemoveAdd) isEvent() {}

// Validate validates Event and checks that it is an add/remove ledger.
func (e ReplaceByRemoveAdd) Validate() error {
	if e.Event == nil {
		return fmt.Errorf("accounting: replace_by_remove_add: event is missing")
	}
	if err := Validate(e.Event); err != nil {
		return err
	}
	rel, err := LedgerRelation(e.Event)
	if err != nil {
		return err
	}
	if rel != RelationAddRemove {
		return fieldErr(e, "event", rel+" ledger", "an add/remove ledger")
	}
	return nil
}

// MarshalJSON encodes the event with its "kind".
func (e ReplaceByRemoveAdd) MarshalJSON() ([]byte, error) {
	type plain ReplaceByRemoveAdd
	return withKind(e.Kind(), plain(e))
}

func (ReplaceByRemoveAdd) decodeJSON(data []byte, path string) (Event, error) {
	var v struct {
		kindTag
		Event json.RawMessage `json:"event"`
	}
	if err := decodeStrict(data, &v); err != nil {
		return nil, decodeErr(path, "replace_by_remove_add", err)
	}
	sub, err := unmarshalEvent(v.Event, path+".event")
	if err != nil {
		return nil, err
	}
	return ReplaceByRemoveAdd{Event: sub}, nil
}

// relation implements leafEvent: its guarantee is for replace-one
// neighbours (LedgerRelation does not look inside: the add/remove leaves
// it wraps are what it converts).
func (ReplaceByRemoveAdd) relation() string { return RelationReplaceOne }

// rdp implements rdpEvent: ε_rep above, on the orders where the inner
// curve is defined at 2α.
func (e ReplaceByRemoveAdd) rdp(o rdpOptions) (rdpTerm, error) {
	c, err := wrappedCurve(e.Event, o, "an (ε, δ) guarantee inside replace_by_remove_add is not supported")
	if err != nil {
		return rdpTerm{}, err
	}
	if c.infinite {
		return rdpTerm{infinite: true}, nil
	}
	at := func(a float64) float64 {
		if !(a > 1) || 2*a >= c.sup {
			return math.Inf(1)
		}
		r1, r2 := c.atOrCeil(2*a), c.atOrCeil(2*a-1)
		if math.IsInf(r1, 1) || math.IsInf(r2, 1) {
			return math.Inf(1)
		}
		// [Mir17] Prop. 11 with p = q = 2.
		return (a-0.5)/(a-1)*r1 + r2
	}
	// The (α − ½)/(α − 1) factor falls in α: the bound need not be
	// monotone, so the order grid is not pruned.
	t := rdpTerm{at: at, costly: c.costly, nonMonotone: true, supLeaf: c.supLeaf}
	if !math.IsInf(c.sup, 1) {
		t.sup = c.sup / 2
	}
	return t, nil
}
