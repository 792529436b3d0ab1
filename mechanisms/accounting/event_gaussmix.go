package accounting

// GaussMix is the Gaussian mixing mechanism ([LSS+25]): M(X) = S X + σ ξ
// with S ~ N(0, I_{k×n}) secret and ξ ~ N(0, I_{k×d}), for K sketch rows and
// Gamma = (σ² + λ̄_min)/C_X² > 1 (row bound C_X, λ̄_min a lower bound on
// λ_min(XᵀX)). Relation: zero-out (one row replaced by 0). RDP: Lemma 1
// (gaussMixRDP), for α ∈ (1, Gamma).
type GaussMix struct {
	K     int     `json:"k"`     // sketch size k ≥ 1
	Gamma float64 `json:"gamma"` // γ > 1
}

func init() {
	registerLeaf(GaussMix{K: 57, Gamma: 1000})
	registerForm("gaussmix", form{
		name: "gaussmix", rank: 6, calibrated: "gamma", required: []string{"k", "gamma"},
		usage: "  gaussmix --k K --gamma G                    Gaussian mixing (Lev et al. Lemma 1)\n",
		build: func(r *Request, c calibration) (Event, error) {
			return GaussMix{K: r.int("k"), Gamma: c.pick(r.float("gamma"))}, nil
		},
	})
}

// Kind implements Event.
func (GaussMix) Kind() string { return "gaussmix" }

func (GaussMix) isEvent() {}

// Validate checks K ≥ 1 and a finite Gamma > 1.
func (e GaussMix) Validate() error {
	if e.K < 1 {
		return fieldErr(e, "k", e.K, "≥ 1")
	}
	if !finite(e.Gamma) || e.Gamma <= 1 {
		return fieldErr(e, "gamma", e.Gamma, "a finite value > 1 (Lemma 1 needs γ > 1)")
	}
	return nil
}

// MarshalJSON encodes the event with its "kind".
func (e GaussMix) MarshalJSON() ([]byte, error) {
	type plain GaussMix
	return withKind(e.Kind(), plain(e))
}

func (GaussMix) relation() string { return RelationZeroOut }

func (e GaussMix) rdp(rdpOptions) (rdpTerm, error) {
	return rdpTerm{sup: gaussMixSup(e), at: func(a float64) float64 { return gaussMixRDP(e.K, e.Gamma, a) }}, nil
}
