package accounting

import (
	"fmt"
	"math"
)

// Laplace is the Laplace mechanism M(D) = f(D) + Lap(Scale)^d (i.i.d. per
// coordinate, density exp(−|x|/Scale)/(2·Scale)) where the L1 sensitivity
// ‖f(D) − f(D')‖₁ ≤ Sensitivity under the ledger's relation. It is
// (Sensitivity/Scale)-DP. Scale = 0 means no noise (ε = +Inf). RDP:
// laplaceRDP ([Mir17] Prop. 6); PLD: laplaceLoss.
type Laplace struct {
	Scale       float64 `json:"scale"`       // Laplace scale b, ≥ 0
	Sensitivity float64 `json:"sensitivity"` // L1 sensitivity, > 0
}

func init() {
	registerLeaf(Laplace{Scale: 3, Sensitivity: 1})
	registerForm("laplace", form{
		name: "laplace", rank: 2, calibrated: "scale",
		required: []string{"scale"}, optional: []string{"sensitivity"},
		usage: "  laplace  --scale B [--sensitivity C]        Laplace mechanism, L1 sensitivity C (default 1)\n",
		build: func(r *Request, c calibration) (Event, error) {
			return Laplace{Scale: c.pick(r.float("scale")), Sensitivity: r.float("sensitivity")}, nil
		},
	})
}

// Kind implements Event.
func (Laplace) Kind() string { return "laplace" }

func (Laplace) isEvent() {}

// Validate checks Scale ≥ 0 and Sensitivity > 0, both finite.
func (e Laplace) Validate() error {
	if !finite(e.Scale) || e.Scale < 0 {
		return fieldErr(e, "scale", e.Scale, "a finite value ≥ 0")
	}
	if !finite(e.Sensitivity) || e.Sensitivity <= 0 {
		return fieldErr(e, "sensitivity", e.Sensitivity, "a finite value > 0 (use NoOp for a release that does not depend on the data)")
	}
	return nil
}

// MarshalJSON encodes the event with its "kind".
func (e Laplace) MarshalJSON() ([]byte, error) {
	type plain Laplace
	return withKind(e.Kind(), plain(e))
}

func (Laplace) relation() string { return "" }

func (e Laplace) rdp(rdpOptions) (rdpTerm, error) {
	return rdpTerm{at: func(a float64) float64 {
		if e.Scale == 0 {
			return math.Inf(1)
		}
		return laplaceRDP(e.Sensitivity/e.Scale, a)
	}}, nil
}

// laplaceKey identifies a Laplace PLD: it depends on ε₀ = Δ₁/b only.
type laplaceKey struct{ eps0 float64 }

func (e Laplace) pld() pldTerm {
	if e.Scale == 0 {
		return pldTerm{nonPrivate: true}
	}
	eps0 := e.Sensitivity / e.Scale
	return pldTerm{part: &pldPart{
		key:       laplaceKey{eps0},
		loss:      func(bool, float64) *lossDist { return laplaceLoss(eps0) },
		symmetric: true,
		name:      fmt.Sprintf("laplace(ε₀=%g)", eps0),
	}}
}
