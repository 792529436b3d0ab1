package accounting

import (
	"encoding/json"
	"fmt"
	"math"
)

// Parallel is the parallel composition of mechanisms that each read one
// part of a partition of the data: the nodes of a distributed algorithm
// under local DP, each releasing only from its own records (Parts[i] is the
// whole ledger of node i, e.g. SelfComposed{RGM, T}). Neighbours differ in
// one record, hence in one part; the other parts' releases keep their
// conditional laws given the transcript so far even when each round depends
// on all earlier rounds, so by adaptive composition the ledger's RDP at
// every order is the largest part's ([Mir17] Prop. 1 applied round by
// round; [McS09] for the (ε, δ) form).
//
// It assumes the partition is fixed and public, a record's part does not
// depend on the other records (each node protects its own data set, as in
// [HMB23] §6), and the parts' events share one neighbouring relation:
// Relation, when set, fixes it (for parts whose events adopt the ledger's,
// such as Gaussian releases whose sensitivity was computed for replace-one
// neighbours); "" adopts the parts'.
// The RDP accountant evaluates it (the pointwise maximum of the parts'
// curves); parts holding (ε, δ) guarantees (ApproxDP) are not supported.
type Parallel struct {
	Parts    []Event `json:"parts"`
	Relation string  `json:"relation,omitempty"` // "", or a Relation* constant
}

// NewParallel returns a Parallel event holding a copy of parts.
func NewParallel(parts ...Event) Parallel {
	return Parallel{Parts: append([]Event(nil), parts...)}
}

func init() {
	registerLeaf(Parallel{Parts: []Event{
		SelfComposed{Event: Gaussian{Sigma: 2, Sensitivity: 1}, Count: 3},
		Gaussian{Sigma: 1, Sensitivity: 1},
	}, Relation: RelationReplaceOne})
}

// Kind implements Event.
func (Parallel) Kind() string { return "parallel" }

func (Parallel) isEvent() {}

// Validate checks that there is at least one part, validates each, and
// checks Relation.
func (e Parallel) Validate() error {
	switch e.Relation {
	case "", RelationAddRemove, RelationZeroOut, RelationReplaceOne:
	default:
		return fieldErr(e, "relation", e.Relation, "empty, add_remove, zero_out or replace_one")
	}
	if len(e.Parts) == 0 {
		return fmt.Errorf("accounting: parallel: parts is empty")
	}
	for i, p := range e.Parts {
		if p == nil {
			return fmt.Errorf("accounting: parallel: parts[%d] is missing", i)
		}
		if err := Validate(p); err != nil {
			return fmt.Errorf("parallel: parts[%d]: %w", i, err)
		}
	}
	return nil
}

// MarshalJSON encodes the event with its "kind".
func (e Parallel) MarshalJSON() ([]byte, error) {
	type plain Parallel
	return withKind(e.Kind(), plain(e))
}

func (Parallel) decodeJSON(data []byte, path string) (Event, error) {
	var v struct {
		kindTag
		Parts    []json.RawMessage `json:"parts"`
		Relation string            `json:"relation"`
	}
	if err := decodeStrict(data, &v); err != nil {
		return nil, decodeErr(path, "parallel", err)
	}
	parts := make([]Event, len(v.Parts))
	for i, raw := range v.Parts {
		p, err := unmarshalEvent(raw, fmt.Sprintf("%s.parts[%d]", path, i))
		if err != nil {
			return nil, err
		}
		parts[i] = p
	}
	return Parallel{Parts: parts, Relation: v.Relation}, nil
}

// relation implements leafEvent: Relation, or "" to let the parts' leaves
// fix it.
func (e Parallel) relation() string { return e.Relation }

// wrapped exposes the parts to deep walks (relations, assumptions).
func (e Parallel) wrapped() Event { return Composed{Events: e.Parts} }

// rdp implements rdpEvent: the pointwise maximum of the parts' RDP curves,
// on the intersection of their order domains.
func (e Parallel) rdp(o rdpOptions) (rdpTerm, error) {
	curves := make([]*curve, 0, len(e.Parts))
	t := rdpTerm{sup: math.Inf(1)}
	for _, p := range e.Parts {
		c, err := newCurve(p, o)
		if err != nil {
			return rdpTerm{}, err
		}
		if c.approx.leaf != nil {
			return rdpTerm{}, &UnsupportedError{Accountant: "rdp", Sub: c.approx.leaf, Reason: "parallel composition of (ε, δ) guarantees is not implemented"}
		}
		if c.infinite {
			return rdpTerm{infinite: true}, nil
		}
		if c.sup < t.sup {
			t.sup, t.supLeaf = c.sup, c.supLeaf
		}
		t.costly = t.costly || c.costly
		t.nonMonotone = t.nonMonotone || !c.monotone
		curves = append(curves, c)
	}
	if math.IsInf(t.sup, 1) {
		t.sup = 0
	}
	t.at = func(a float64) float64 {
		m := 0.0
		for _, c := range curves {
			m = math.Max(m, c.at(a))
		}
		return m
	}
	return t, nil
}
