package accounting

// PureDP is a release whose guarantee is pure Epsilon-DP (δ = 0) and nothing
// finer: the exponential mechanism P(w) ∝ exp(Q(w, S)·ε/(2Δ_Q)) with a score
// of sensitivity Δ_Q is ε-DP ([HSS24] Thm 11, Table 1 row M_E), and so is any
// mechanism proved ε-DP without an RDP curve. Its relation is the ledger's
// (the sensitivity behind ε was computed for it).
//
// RDP: ε at every order. Pure ε-DP is a bound on the max-divergence D_∞, and
// D_α ≤ D_∞ for every α because D_α is non-decreasing in α ([vEH14] Thm 3).
// (The Laplace event is not a substitute: its exact curve, [Mir17] Prop. 6,
// is below ε at finite orders and holds for Laplace noise only.) The PLD and
// exact accountants do not evaluate it.
type PureDP struct {
	Epsilon float64 `json:"epsilon"` // ε ≥ 0 of the pure guarantee; +Inf is not allowed (use NonPrivate)
}

func init() { registerLeaf(PureDP{Epsilon: 0.5}) }

// Kind implements Event.
func (PureDP) Kind() string { return "pure_dp" }

func (PureDP) isEvent() {}

// Validate checks a finite Epsilon ≥ 0.
func (e PureDP) Validate() error {
	if !finite(e.Epsilon) || e.Epsilon < 0 {
		return fieldErr(e, "epsilon", e.Epsilon, "a finite value ≥ 0")
	}
	return nil
}

// MarshalJSON encodes the event with its "kind".
func (e PureDP) MarshalJSON() ([]byte, error) {
	type plain PureDP
	return withKind(e.Kind(), plain(e))
}

func (PureDP) relation() string { return "" }

// rdp implements rdpEvent: ε at every order ([vEH14] Thm 3: D_α ≤ D_∞).
func (e PureDP) rdp(rdpOptions) (rdpTerm, error) {
	eps := e.Epsilon
	return rdpTerm{at: func(float64) float64 { return eps }}, nil
}
