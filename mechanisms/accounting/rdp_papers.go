package accounting

import (
	"fmt"
	"math"
)

// Closed-form RDP curves of the four papers dplab reproduces. Each function
// returns the bound at one order and +Inf outside the curve's order domain.

// objPertC0 returns c₀ = −log(1 − β/λ) > 0, the Jacobian term of objective
// perturbation ([RKW23] Thm 3.2; finite because λ > β).
func objPertC0(e ObjectivePerturbation) float64 { return -math.Log1p(-e.Beta / e.Lambda) }

// log2Phi returns log(2Φ(t)) = log1p(erf(t/√2)) for t ≥ 0 (in [0, log 2];
// accurate as t → 0 where log(2Φ(t)) ≈ t·√(2/π)).
func log2Phi(t float64) float64 { return math.Log1p(math.Erf(t / math.Sqrt2)) }

// ObjPertRDP returns the RDP of objective perturbation for GLMs at order
// α ≥ 1:
//
//	ε(α) = −log(1 − β/λ) + α L²/(2σ²) + log(2Φ((α−1) L/σ)) / (α−1),   α > 1
//	ε(1) = −log(1 − β/λ) + L²/σ² + log(2Φ(L/σ))
//
// Ref: [RKW23] Thm 3.2, in the closed form of objpert.md §2.3 (the
// half-normal MGF E[e^{t|X|}] = 2 e^{t²s²/2} Φ(ts), X ∼ N(0, s²), with
// s = L/σ, t = α − 1). Paper (App. C, last display): "+ L/(2σ²) + E[…]";
// corrected: L²/(2σ²) and (1/(α−1))·log E[…] because Thm 3.2's statement and
// its derivation have them. The α = 1 value is the theorem's KL bound, which
// is not the α → 1⁺ limit c₀ + L²/(2σ²) + (L/σ)√(2/π) of the α > 1 form;
// accountants only use α > 1.
func ObjPertRDP(e ObjectivePerturbation, alpha float64) (float64, error) {
	if err := e.Validate(); err != nil {
		return 0, err
	}
	if !(alpha >= 1) {
		return 0, &DomainError{Sub: e, Alpha: alpha, Lo: 1, Hi: math.Inf(1)}
	}
	s := e.L / e.Sigma
	if alpha == 1 {
		return objPertC0(e) + s*s + log2Phi(s), nil
	}
	return objPertRDP(e, alpha), nil
}

func objPertRDP(e ObjectivePerturbation, alpha float64) float64 {
	s := e.L / e.Sigma
	return objPertC0(e) + alpha*s*s/2 + log2Phi((alpha-1)*s)/(alpha-1)
}

// ampRDP returns the RDP of Algorithm 1 (approximate minima perturbation
// with gradient clipping) at α > 1:
//
//	ε(α) = ε_OP(α; L := C, σ, β, λ) + α (2τ/λ)² / (2 σ_out²)
//
// Ref: [RKW23] Thm 4.1 (Thm F.1 without clipping); the last term is the
// Gaussian mechanism with sensitivity 2τ/λ and noise σ_out composed with
// objective perturbation (objpert.md §2.5). C = e.ObjPert.L.
func ampRDP(e AMP, alpha float64) float64 {
	d := 2 * e.Tau / e.ObjPert.Lambda
	return objPertRDP(e.ObjPert, alpha) + alpha*d*d/(2*e.SigmaOut*e.SigmaOut)
}

// gaussMixRDP returns the GaussMix RDP φ(α; k, γ) for 1 < α < γ (+Inf for
// α ≥ γ):
//
//	φ(α; k, γ) = kα/(2(α−1))·log(1 − 1/γ) − k/(2(α−1))·log(1 − α/γ)
//
// Ref: [LSS+25] Lemma 1, Eq. (4) (symbols: k sketch rows, γ = (σ² + λ̄_min)/C_X²).
// The bracket αlog(1−1/γ) − log(1−α/γ) = Σ_{m≥2} (α^m − α)/(m γ^m) is a sum of
// positive terms; it is summed as a series when α/γ ≤ 1/2 (where the direct
// form cancels), and directly otherwise.
func gaussMixRDP(k int, gamma, alpha float64) float64 {
	if alpha >= gamma {
		return math.Inf(1)
	}
	var bracket float64
	if r := alpha / gamma; r <= 0.5 {
		// (α^m − α)/γ^m = r^m·(1 − α^{1−m}) with r = α/γ.
		la := math.Log(alpha)
		rm := r
		for m := 2; m < 200; m++ {
			rm *= r
			t := rm * -math.Expm1(-float64(m-1)*la) / float64(m)
			bracket += t
			if t <= 1e-17*bracket {
				break
			}
		}
	} else {
		bracket = alpha*math.Log1p(-1/gamma) - math.Log1p(-alpha/gamma)
	}
	return float64(k) * bracket / (2 * (alpha - 1))
}

// gaussMixSup returns the supremum of GaussMix's order domain (γ).
func gaussMixSup(e GaussMix) float64 { return e.Gamma }

// rgmSup returns the supremum of the RGM order domain,
// 1 + 1/(η(2+η)) ([HMB23] Thm 1: (α−1)η(2+η) < 1).
func rgmSup(e RGM) float64 { return 1 + 1/(e.Eta*(2+e.Eta)) }

// rgmRDP returns the RGM RDP bound at order α ∈ (1, 1 + 1/(η(2+η))):
//
//	v2: ε = (αη²/(2γ)) · (1 + γ d (2+η)² (1+η)²) / (1 − η(α−1)(2+η))
//	v1: ε = (αη²/(2γ)) · [1/(1 − η(α−1)(2+η)) + γ d (2+η)²]
//
// Ref: [HMB23] Thm 1, Eq. (5) (v2); the v1 form is Thm 1 of
// the first version, whose log-term simplification drops the factor
// 1/(1 + α(r−1)) and is violated near the order limit (rgm.md §2.3), so it
// is only a labelled variant. Symbols: η relative sensitivity, γ noise scale,
// d = D output dimension.
func rgmRDP(e RGM, alpha float64) float64 {
	eta, g, d := e.Eta, e.Gamma, float64(e.D)
	k := 1 - eta*(alpha-1)*(2+eta)
	if !(k > 0) {
		return math.Inf(1)
	}
	if e.V1 {
		return (alpha * eta * eta / (2 * g)) * (1/k + g*d*(2+eta)*(2+eta))
	}
	return (alpha * eta * eta / (2 * g)) * (1 + g*d*(2+eta)*(2+eta)*(1+eta)*(1+eta)) / k
}

// rgmMinOrder returns the smallest order from which Theorem 1 applies to e
// ([HMB23] Thm 1 needs σ² ≥ γη⁻²(1 − η(α−1))R_rel², which holds for
// α ≥ α₀ = 1 + (1 − σ²η²/(γR_rel²))/η), 1 when it holds at every order
// (R_rel = 0, or σ²η² ≥ γR_rel²), and +Inf when no order of the domain
// qualifies.
//
// The std_linear form v = (a‖R(x)‖ + b)², a = √γ, gets the same bound at
// every order when b ≥ aR_rel/η (derived for dplab; the property test
// TestRGMStdLinearAgainstExactDivergence checks it against Lemma 2): with
// s = a‖R‖ + b and ‖R(x) − R(y)‖ ≤ η‖R(y)‖ + R_rel,
//
//	s(x) ≤ a‖R(y)‖ + a(η‖R(y)‖ + R_rel) + b ≤ (1+η)s(y),
//
// so the variance ratio r lies in [(1+η)⁻², (1+η)²] as in Lemma 1 and the
// log term of the proof is bounded as in Theorem 1; and (a/η)‖R(x) − R(y)‖ ≤
// s(y), so αs(y)² + (1−α)s(x)² ≥ (1 − (α−1)η(2+η))s(y)² ≥ K(a/η)²‖R(x) −
// R(y)‖² with K = 1 − η(α−1)(2+η), which bounds the mean term by
// αη²/(2γK), Theorem 1's. With b < aR_rel/η it returns +Inf (no guarantee).
func rgmMinOrder(e RGM) float64 {
	if e.RRel == 0 {
		return 1
	}
	if e.Form == RGMStdLinear {
		if e.Sigma >= math.Sqrt(e.Gamma)*e.RRel/e.Eta {
			return 1
		}
		return math.Inf(1)
	}
	ratio := e.Sigma * e.Sigma * e.Eta * e.Eta / (e.Gamma * e.RRel * e.RRel)
	if ratio >= 1 {
		return 1
	}
	a0 := 1 + (1-ratio)/e.Eta
	if a0 >= rgmSup(e) {
		return math.Inf(1)
	}
	return a0
}

// RGMEpsilon returns the RGM RDP bound at order α (Theorem 1 of v2, or v1
// when e.V1), with a *DomainError outside 1 < α < 1 + 1/(η(2+η)). Below the
// order from which Theorem 1's baseline-noise condition holds it returns the
// bound at that order (RDP is non-decreasing in α); +Inf when the condition
// holds at no order.
func RGMEpsilon(e RGM, alpha float64) (float64, error) {
	if err := e.Validate(); err != nil {
		return 0, err
	}
	if !(alpha > 1 && alpha < rgmSup(e)) {
		return 0, &DomainError{Sub: e, Alpha: alpha, Lo: 1, Hi: rgmSup(e)}
	}
	lo := rgmMinOrder(e)
	if math.IsInf(lo, 1) {
		return math.Inf(1), nil
	}
	return rgmRDP(e, math.Max(alpha, lo)), nil
}

// GaussMixRDP returns φ(α; k, γ) of Lemma 1 with a *DomainError outside
// 1 < α < γ.
func GaussMixRDP(e GaussMix, alpha float64) (float64, error) {
	if err := e.Validate(); err != nil {
		return 0, err
	}
	if !(alpha > 1 && alpha < e.Gamma) {
		return 0, &DomainError{Sub: e, Alpha: alpha, Lo: 1, Hi: e.Gamma}
	}
	return gaussMixRDP(e.K, e.Gamma, alpha), nil
}

// errf formats an accounting error.
func errf(format string, args ...any) error { return fmt.Errorf("accounting: "+format, args...) }
