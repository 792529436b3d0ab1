package accounting

// RGM is the relative Gaussian mechanism ([HMB23] Def. 3) on a query R with
// (Eta, RRel)-relative L2 sensitivity ([HMB23] Def. 2: for neighbours x ~ y,
// ‖R(x) − R(y)‖² ≤ η²‖R(x)‖² + R_rel²), releasing R(x) + N(0, v(x)·I_D) with
// one variance v for every coordinate:
//
//	Form "" (the paper, Eq. (4)):  v = Gamma·‖R(x)‖² + Sigma²
//	Form "std_linear" (the authors' code, rgm.md §5.5):  v = (√Gamma·‖R(x)‖ + Sigma)²
//
// Relation: replace-one (the paper's neighbours keep n, [HMB23] v2 App. B.4).
// RDP: Theorem 1 of v2 (rgmRDP) for α ∈ (1, 1 + 1/(η(2+η))); V1 selects the
// v1 formula, which is not a valid bound near its order limit (rgm.md §2.3)
// and exists only as a labelled variant.
//
// Theorem 1 needs σ² ≥ γη⁻²(1 − η(α−1))R_rel², which holds from the order
// α₀ = 1 + (1 − σ²η²/(γR_rel²))/η on. A query with (η, R_rel)-relative
// sensitivity has (η', R_rel) for every η' ≥ η too, and the RDP at α is the
// least bound over them (rgmBestRDP): below α₀ it is the bound at the η'
// from which the condition holds at α, never above the bound at α₀ (the
// Rényi divergence is non-decreasing in α, [vEH14] Thm 3), and it is
// non-decreasing in η. RRel = 0 (a purely relative query) needs no baseline
// noise. For the std_linear form the same bound holds at every order when
// Sigma ≥ √Gamma·RRel/η' (derivation in rgmMinOrder's comment).
type RGM struct {
	Eta   float64 `json:"eta"`             // relative sensitivity η > 0 (≤ 1 for V1)
	Gamma float64 `json:"gamma"`           // γ > 0
	D     int     `json:"d"`               // output dimension ≥ 1
	V1    bool    `json:"v1"`              // use the (invalid near its limit) v1 bound
	Sigma float64 `json:"sigma,omitempty"` // baseline noise σ ≥ 0 (a std: v = … + σ², or … + σ inside the std)
	RRel  float64 `json:"r_rel,omitempty"` // absolute part R_rel ≥ 0 of the relative sensitivity
	Form  string  `json:"form,omitempty"`  // "" (variance form, Eq. (4)) or "std_linear"
}

// RGMStdLinear is RGM.Form for the authors' code's noise, whose standard
// deviation (not variance) is linear in ‖R(x)‖.
const RGMStdLinear = "std_linear"

func init() {
	registerLeaf(RGM{Eta: 0.01, Gamma: 1, D: 10, V1: true, Sigma: 0.5, RRel: 0.001})
	registerForm("rgm", rgmForm())
}

// Kind implements Event.
func (RGM) Kind() string { return "rgm" }

func (RGM) isEvent() {}

// Validate checks Eta > 0 (≤ 1 for V1), Gamma > 0, D ≥ 1, Sigma ≥ 0,
// RRel ≥ 0 and Form.
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
	if !finite(e.Sigma) || e.Sigma < 0 {
		return fieldErr(e, "sigma", e.Sigma, "a finite value ≥ 0")
	}
	if !finite(e.RRel) || e.RRel < 0 {
		return fieldErr(e, "r_rel", e.RRel, "a finite value ≥ 0")
	}
	if e.Form != "" && e.Form != RGMStdLinear {
		return fieldErr(e, "form", e.Form, `"" (variance form) or "std_linear"`)
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
	return rdpTerm{sup: rgmSup(e), at: func(a float64) float64 { return rgmBestRDP(e, a) }}, nil
}
