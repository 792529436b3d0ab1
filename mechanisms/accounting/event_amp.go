package accounting

import "fmt"

// AMP is approximate minima perturbation with gradient clipping ([RKW23]
// Algorithm 1): objective perturbation with ObjPert (whose L is the clip
// norm C) solved until ‖∇‖ ≤ Tau, then N(0, SigmaOut² I) added to the
// output. Relation: add/remove. RDP: Thm 4.1 (ampRDP).
type AMP struct {
	ObjPert  ObjectivePerturbation `json:"objpert"`
	Tau      float64               `json:"tau"`       // gradient-norm tolerance τ ≥ 0
	SigmaOut float64               `json:"sigma_out"` // output noise σ_out > 0
}

func init() {
	registerLeaf(AMP{ObjPert: ObjectivePerturbation{Sigma: 5, Lambda: 2, Beta: 0.5, L: 1.4}, Tau: 0.01, SigmaOut: 0.15})
	registerForm("amp", form{
		name: "amp", rank: 5, calibrated: "sigma",
		required: []string{"sigma", "lambda", "beta", "lipschitz", "tau", "sigma-out"},
		usage: `  amp      (objpert flags) --tau T --sigma-out S
                                              Algorithm 1 of Redberg et al. (Thm 4.1)
`,
		build: func(r *Request, c calibration) (Event, error) {
			return AMP{ObjPert: objPertOf(r, c), Tau: r.float("tau"), SigmaOut: r.float("sigma-out")}, nil
		},
	})
}

// Kind implements Event.
func (AMP) Kind() string { return "amp" }

func (AMP) isEvent() {}

// Validate checks the objective-perturbation part, Tau ≥ 0 and SigmaOut > 0.
func (e AMP) Validate() error {
	if err := e.ObjPert.Validate(); err != nil {
		return fmt.Errorf("amp: %w", err)
	}
	if !finite(e.Tau) || e.Tau < 0 {
		return fieldErr(e, "tau", e.Tau, "a finite value ≥ 0")
	}
	if !finite(e.SigmaOut) || e.SigmaOut <= 0 {
		return fieldErr(e, "sigma_out", e.SigmaOut, "a finite value > 0")
	}
	return nil
}

// MarshalJSON encodes the event with its "kind" (the nested objective
// perturbation without one).
func (e AMP) MarshalJSON() ([]byte, error) {
	type op ObjectivePerturbation
	return withKind(e.Kind(), struct {
		ObjPert  op      `json:"objpert"`
		Tau      float64 `json:"tau"`
		SigmaOut float64 `json:"sigma_out"`
	}{op(e.ObjPert), e.Tau, e.SigmaOut})
}

func (AMP) relation() string { return RelationAddRemove }

func (e AMP) rdp(rdpOptions) (rdpTerm, error) {
	return rdpTerm{at: func(a float64) float64 { return ampRDP(e, a) }}, nil
}
