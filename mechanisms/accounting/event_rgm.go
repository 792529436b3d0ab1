package accounting

// RGM is the relative Gaussian mechanism ([HMB23]): R(x) + N(0, (Gamma·‖R(x)‖²
// + σ²) I_D) for a query with (Eta, R_rel)-relative L2 sensitivity and
// σ² ≥ Gamma·Eta⁻²·(1 − Eta(α−1))·R_rel². Relation: replace-one. RDP:
// Theorem 1 of v2 (rgmRDP; V1 selects the v1 formula, which is not a valid
// bound near its order limit; labelled variant only), for
// α ∈ (1, 1 + 1/(η(2+η))).
type RGM struct {
	Eta   float64 `json:"eta"`   // relative sensitivity η > 0 (≤ 1 for V1)
	Gamma float64 `json:"gamma"` // γ > 0
	D     int     `json:"d"`     // output dimension ≥ 1
	V1    bool    `json:"v1"`    // use the (invalid near its limit) v1 bound
}

func init() { registerLeaf(RGM{Eta: 0.01, Gamma: 1, D: 10, V1: true}) }

// Kind implements Event.
func (RGM) Kind() string { return "rgm" }

func (RGM) isEvent() {}

// Validate checks Eta > 0 (≤ 1 for V1), Gamma > 0 and D ≥ 1.
func (e RGM) Validate() error {
	if !finite(e.Eta) || e.Eta <= 0 || (e.V1 && e.Eta > 1) {
		want := "a finite value > 0"
		if e.V1 {
			want = "in (0, 1] (the v1 theorem needs η ≤ 1)"
		}
		return fieldErr(e, "eta", e.Eta, want)
	}
	if !finite(e.Gamma) || e.Gamma <= 0 {
		return fieldErr(e, "gamma", e.Gamma, "a finite value > 0")
	}
	if e.D < 1 {
		return fieldErr(e, "d", e.D, "≥ 1")
	}
	return nil
}

// MarshalJSON encodes the event with its "kind".
func (e RGM) MarshalJSON() ([]byte, error) {
	type plain RGM
	return withKind(e.Kind(), plain(e))
}

func (RGM) relation() string { return RelationReplaceOne }

func (e RGM) rdp(rdpOptions) (rdpTerm, error) {
	return rdpTerm{sup: rgmSup(e), at: func(a float64) float64 { return rgmRDP(e, a) }}, nil
}
