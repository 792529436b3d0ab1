package accounting

import "fmt"

// ObjectivePerturbation is objective perturbation for a convex generalised
// linear model: θ^P = argmin Σ ℓ(θ; z) + (Lambda/2)‖θ‖² + bᵀθ with
// b ~ N(0, Sigma² I), solved exactly, where ℓ(θ; z) = f(xᵀθ; y) with
// f” ≤ Beta, ‖∇ℓ‖₂ ≤ L and ‖x‖ ≤ 1, and Lambda > Beta. Relation: add/remove.
// RDP: [RKW23] Thm 3.2 (objPertRDP); tight privacy profile: Thm 3.1
// (corrected form, see ObjPertDelta), which the exact accountant uses; PLD:
// objPertLoss.
type ObjectivePerturbation struct {
	Sigma  float64 `json:"sigma"`  // objective noise σ > 0
	Lambda float64 `json:"lambda"` // ridge λ > Beta
	Beta   float64 `json:"beta"`   // smoothness β ≥ 0
	L      float64 `json:"l"`      // Lipschitz bound (or clip norm) L > 0
}

func init() {
	registerLeaf(ObjectivePerturbation{Sigma: 5, Lambda: 20, Beta: 1, L: 1})
	registerForm("objective_perturbation", form{
		name: "objpert", rank: 4, calibrated: "sigma",
		required: []string{"sigma", "lambda", "beta", "lipschitz"},
		usage: `  objpert  --sigma S --lambda L --beta B --lipschitz L
                                              objective perturbation (Redberg et al. Thm 3.2)
`,
		build: func(r *Request, c calibration) (Event, error) { return objPertOf(r, c), nil },
	})
}

// objPertOf is the objective perturbation of the objpert and amp forms.
func objPertOf(r *Request, c calibration) ObjectivePerturbation {
	return ObjectivePerturbation{Sigma: c.pick(r.float("sigma")), Lambda: r.float("lambda"), Beta: r.float("beta"), L: r.float("lipschitz")}
}

// Kind implements Event.
func (ObjectivePerturbation) Kind() string { return "objective_perturbation" }

func (ObjectivePerturbation) isEvent() {}

// Validate checks Sigma > 0, L > 0, Beta ≥ 0 and Lambda > Beta, all finite.
func (e ObjectivePerturbation) Validate() error {
	if err := e.checkNoise(); err != nil {
		return err
	}
	if !finite(e.Lambda) || e.Lambda <= e.Beta {
		return fieldErr(e, "lambda", e.Lambda, fmt.Sprintf("a finite value > beta = %v (Thm 3.2 needs λ > β)", e.Beta))
	}
	return nil
}

// checkNoise checks what every analysis of the event needs: finite σ > 0,
// L > 0 and β ≥ 0 (λ's condition differs between them).
func (e ObjectivePerturbation) checkNoise() error {
	switch {
	case !finite(e.Sigma) || e.Sigma <= 0:
		return fieldErr(e, "sigma", e.Sigma, "a finite value > 0")
	case !finite(e.L) || e.L <= 0:
		return fieldErr(e, "l", e.L, "a finite Lipschitz bound > 0")
	case !finite(e.Beta) || e.Beta < 0:
		return fieldErr(e, "beta", e.Beta, "a finite smoothness ≥ 0")
	}
	return nil
}

// MarshalJSON encodes the event with its "kind".
func (e ObjectivePerturbation) MarshalJSON() ([]byte, error) {
	type plain ObjectivePerturbation
	return withKind(e.Kind(), plain(e))
}

func (ObjectivePerturbation) relation() string { return RelationAddRemove }

func (e ObjectivePerturbation) rdp(rdpOptions) (rdpTerm, error) {
	return rdpTerm{at: func(a float64) float64 { return objPertRDP(e, a) }}, nil
}

func (e ObjectivePerturbation) pld() pldTerm {
	return pldTerm{part: &pldPart{
		key:       e,
		loss:      func(_ bool, logMass float64) *lossDist { return objPertLoss(e, logMass) },
		symmetric: true,
		name:      fmt.Sprintf("objpert(%+v)", e),
	}}
}

func (e ObjectivePerturbation) exact() exactTerm { return exactTerm{objPert: &e} }
