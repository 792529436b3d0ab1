package accounting

// Gaussian is the Gaussian mechanism M(D) = f(D) + N(0, Sigma² I) where the L2
// sensitivity ‖f(D) − f(D')‖₂ ≤ Sensitivity for neighbours D, D' under the
// relation of the ledger it is composed into (add/remove by default). Its
// noise multiplier is Sigma/Sensitivity. Sigma = 0 means no noise (ε = +Inf).
// RDP: gaussianRDP ([Mir17] Prop. 7); PLD: merged with the ledger's other
// Gaussians into one ([DRS19] Cor. 3.3); exact: μ-GDP with μ = Δ/σ.
type Gaussian struct {
	Sigma       float64 `json:"sigma"`       // noise standard deviation, ≥ 0
	Sensitivity float64 `json:"sensitivity"` // L2 sensitivity, > 0
}

func init() {
	registerLeaf(Gaussian{Sigma: 2, Sensitivity: 1.5})
	registerForm("gaussian", form{
		name: "gaussian", rank: 1, calibrated: "sigma",
		required: []string{"sigma"}, optional: []string{"sensitivity"},
		usage: "  gaussian --sigma S [--sensitivity C]        Gaussian mechanism, L2 sensitivity C (default 1)\n",
		build: func(r *Request, c calibration) (Event, error) {
			return Gaussian{Sigma: c.pick(r.float("sigma")), Sensitivity: r.float("sensitivity")}, nil
		},
	})
}

// Kind implements Event.
func (Gaussian) Kind() string { return "gaussian" }

func (Gaussian) isEvent() {}

// Validate checks Sigma ≥ 0 and Sensitivity > 0, both finite.
func (e Gaussian) Validate() error {
	if !finite(e.Sigma) || e.Sigma < 0 {
		return fieldErr(e, "sigma", e.Sigma, "a finite value ≥ 0")
	}
	if !finite(e.Sensitivity) || e.Sensitivity <= 0 {
		return fieldErr(e, "sensitivity", e.Sensitivity, "a finite value > 0 (use NoOp for a release that does not depend on the data)")
	}
	return nil
}

// MarshalJSON encodes the event with its "kind".
func (e Gaussian) MarshalJSON() ([]byte, error) {
	type plain Gaussian
	return withKind(e.Kind(), plain(e))
}

func (Gaussian) relation() string { return "" }

func (e Gaussian) rdp(rdpOptions) (rdpTerm, error) {
	m := e.Sigma / e.Sensitivity
	return rdpTerm{at: func(a float64) float64 { return gaussianRDP(m, a) }}, nil
}

func (e Gaussian) pld() pldTerm {
	if e.Sigma == 0 {
		return pldTerm{nonPrivate: true}
	}
	return pldTerm{gaussian: e.Sensitivity / e.Sigma}
}

func (e Gaussian) exact() exactTerm {
	if e.Sigma == 0 {
		return exactTerm{nonPrivate: true}
	}
	return exactTerm{gaussian: e.Sensitivity / e.Sigma}
}
