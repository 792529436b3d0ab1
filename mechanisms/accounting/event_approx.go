package accounting

// ApproxDP is a release whose (Epsilon, Delta)-DP guarantee the accountants
// take as given, for the two cases no RDP curve or privacy loss distribution
// describes:
//
//   - a bound proved outside the RDP/PLD framework, such as the objective
//     perturbation condition of [KST12] (the Algorithm 6 baseline of
//     [LSS+25]);
//   - with Epsilon = 0, the probability Delta of a bad event of the
//     mechanism's own data-independent randomness outside of which the rest
//     of the ledger's guarantee holds: a private lower bound that fails when
//     a Gaussian draw exceeds a threshold ([LSS+25] App. D, eq. (49): "z ≥ τ"
//     with probability ≤ δ/3), or a Laplace test that passes falsely
//     ([LSS+25] Alg. 4, line 5).
//
// Accountants compose it by basic composition ([DR14] Thm 3.16): ε's add and
// δ's add. The RDP accountant converts the rest of the ledger at δ − ΣDelta
// and adds ΣEpsilon; the PLD and exact accountants do not support it. It
// cannot be repeated a random number of times (inside RepeatAndSelect). Its
// neighbouring relation is the ledger's.
type ApproxDP struct {
	Epsilon float64 `json:"epsilon"` // ε ≥ 0 of the guarantee
	Delta   float64 `json:"delta"`   // δ ∈ [0, 1) of the guarantee (the failure probability when Epsilon = 0)
}

func init() { registerLeaf(ApproxDP{Epsilon: 0.5, Delta: 1e-6}) }

// Kind implements Event.
func (ApproxDP) Kind() string { return "approx_dp" }

func (ApproxDP) isEvent() {}

func (ApproxDP) relation() string { return "" }

// rdp implements rdpEvent: no curve, an (ε, δ) guarantee composed basically
// with the rest of the ledger (approxSum).
func (e ApproxDP) rdp(rdpOptions) (rdpTerm, error) { return rdpTerm{basic: &e}, nil }

// Validate checks a finite Epsilon ≥ 0 and Delta ∈ [0, 1).
func (e ApproxDP) Validate() error {
	if !finite(e.Epsilon) || e.Epsilon < 0 {
		return fieldErr(e, "epsilon", e.Epsilon, "a finite value ≥ 0")
	}
	if !(e.Delta >= 0 && e.Delta < 1) {
		return fieldErr(e, "delta", e.Delta, "a value in [0, 1)")
	}
	return nil
}

// MarshalJSON encodes the event with its "kind".
func (e ApproxDP) MarshalJSON() ([]byte, error) {
	type plain ApproxDP
	return withKind(e.Kind(), plain(e))
}

// approxInSelect returns an *UnsupportedError naming an ApproxDP event that
// sits inside a RepeatAndSelect (a wrapper): the number of runs is random
// and unbounded, so the failure probabilities of the runs have no finite
// union bound.
func approxInSelect(e Event) error {
	return walk(e, 1, true, func(l Event, _ float64, wrapped bool) error {
		if _, ok := l.(ApproxDP); ok && wrapped {
			return &UnsupportedError{Sub: l, Reason: "an (ε, δ) guarantee cannot be repeated a random number of times (RepeatAndSelect)"}
		}
		return nil
	})
}
