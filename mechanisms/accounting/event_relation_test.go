package accounting

import (
	"errors"
	"math"
	"testing"
)

// TestWithRelation: the wrapper's ε is the inner ledger's (Gaussian closed
// form α·Δ²/(2σ²) per release), its relation is the one it fixes, and a
// fixed relation inside that disagrees is refused by name.
func TestWithRelation(t *testing.T) {
	inner := SelfComposed{Event: Gaussian{Sigma: 2, Sensitivity: 0.5}, Count: 4}
	w := WithRelation{Event: inner, Relation: RelationReplaceOne}
	for _, a := range []float64{2, 8} {
		got, err := Config{}.RDP(w, a)
		want := 4 * a * 0.25 / (2 * 4)
		if err != nil || math.Abs(got-want) > 1e-12 {
			t.Errorf("α = %g: RDP %v (%v), want %v", a, got, err, want)
		}
	}
	if rel, err := LedgerRelation(w); err != nil || rel != RelationReplaceOne {
		t.Errorf("relation %q, %v", rel, err)
	}
	var u *UnsupportedError
	if _, err := LedgerRelation(WithRelation{Event: GaussMix{K: 10, Gamma: 5}, Relation: RelationReplaceOne}); !errors.As(err, &u) {
		t.Errorf("zero-out GaussMix under replace-one: %v, want an *UnsupportedError", err)
	}
	if err := (WithRelation{Event: inner, Relation: "bogus"}).Validate(); err == nil {
		t.Error("a bogus relation validated")
	}
}
