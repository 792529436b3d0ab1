package accounting

import (
	"encoding/json"
	"fmt"
	"math"
)

// WithRelation fixes the neighbouring relation of a ledger whose leaves
// adopt the ledger's (Gaussian and Laplace releases take their sensitivity
// as an input): Event's sensitivities were computed for Relation's
// neighbours, e.g. DP-GD's averaged gradient moving by 2L/n when one record
// is replaced ([HSS24] Thm 12). Its RDP is Event's; relations fixed inside
// Event must agree with Relation (LedgerRelation checks it).
type WithRelation struct {
	Event    Event  `json:"event"`
	Relation string `json:"relation"` // a Relation* constant
}

func init() {
	registerLeaf(WithRelation{Event: SelfComposed{Event: Gaussian{Sigma: 3, Sensitivity: 0.02}, Count: 10}, Relation: RelationReplaceOne})
}

// Kind implements Event.
func (WithRelation) Kind() string { return "with_relation" }

func (WithRelation) isEvent() {}

// Validate checks Relation and validates Event.
func (e WithRelation) Validate() error {
	switch e.Relation {
	case RelationAddRemove, RelationZeroOut, RelationReplaceOne:
	default:
		return fieldErr(e, "relation", e.Relation, "add_remove, zero_out or replace_one")
	}
	if e.Event == nil {
		return fmt.Errorf("accounting: with_relation: event is missing")
	}
	return Validate(e.Event)
}

// MarshalJSON encodes the event with its "kind".
func (e WithRelation) MarshalJSON() ([]byte, error) {
	type plain WithRelation
	return withKind(e.Kind(), plain(e))
}

func (WithRelation) decodeJSON(data []byte, path string) (Event, error) {
	var v struct {
		kindTag
		Event    json.RawMessage `json:"event"`
		Relation string          `json:"relation"`
	}
	if err := decodeStrict(data, &v); err != nil {
		return nil, decodeErr(path, "with_relation", err)
	}
	sub, err := unmarshalEvent(v.Event, path+".event")
	if err != nil {
		return nil, err
	}
	return WithRelation{Event: sub, Relation: v.Relation}, nil
}

func (e WithRelation) relation() string { return e.Relation }

// wrapped exposes Event to deep walks (relations, assumptions).
func (e WithRelation) wrapped() Event { return e.Event }

// rdp implements rdpEvent: Event's RDP curve.
func (e WithRelation) rdp(o rdpOptions) (rdpTerm, error) {
	c, err := wrappedCurve(e.Event, o, "an (ε, δ) guarantee inside with_relation is not supported")
	if err != nil {
		return rdpTerm{}, err
	}
	if c.infinite {
		return rdpTerm{infinite: true}, nil
	}
	t := rdpTerm{at: c.at, costly: c.costly, nonMonotone: !c.monotone, supLeaf: c.supLeaf}
	if !math.IsInf(c.sup, 1) {
		t.sup = c.sup
	}
	return t, nil
}
