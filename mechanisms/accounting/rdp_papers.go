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

// rgmBestRDP returns the RDP bound of e at order α: the least Theorem 1
// bound over the relative sensitivities (η', R_rel) with η' ≥ η, which the
// query has too (Eq. (3) of [HMB23] Def. 2 with η' ≥ η follows from it with
// η), so each is valid for e; the least is non-decreasing in η, as the
// mechanism's privacy is (more sensitive queries are admissible).
//
// At η' Theorem 1 gives bound (5) at order α when α < 1 + 1/(η'(2+η')) and
// its baseline noise σ² ≥ γη'⁻²(1 − η'(α−1))R_rel² holds, i.e. with
// c = σ²/(γR_rel²):
//
//	cη'² + (α−1)η' ≥ 1   ⇔   η' ≥ η₁(α) = 2/((α−1) + √((α−1)² + 4c)),
//
// and, RDP being non-decreasing in α ([vEH14] Thm 3), at α any order
// α' ≥ α where it applies. (5) increases in η' and in α', so the least is
// either (5) at (max(η, η₁(α)), α), or (5) at (η', α₀(η')) for some
// η' ∈ [η, η₁(α)), α₀(η') > α being the order from which the baseline noise
// holds at η' (rgmMinOrder). The latter, h(x) = (5) at (x, α₀(x)), is
// strictly decreasing in x wherever finite: with p = 1 + x, u = cx² and
// D = u(p+1) − p = K at α₀,
//
//	h(x) = x(p − u)(1 + γd(2+x)²(1+x)²)/(2γD),
//	x·d log h/dx = 1 + xN'/N − u(2p² − ux)/(D(p − u)),   N = 1 + γd(2+x)²(1+x)²,
//
// where u(2p² − ux)/(D(p − u)) ≥ 2p − x/p (u ≥ p/(p+1) where D > 0, u ≤ 1,
// D ≤ 1) and xN'/N ≤ 2x(2x+3)/((x+1)(x+2)), and 2p − x/p − 1 − 2x(2x+3)/((x+1)(x+2))
// = (2x³ + 2x² − x + 2)/((x+1)(x+2)) > 0. So the least is at
// η' = max(η, η₁(α)), order α; the rule this replaces (η' = η, and below α₀(η)
// the bound at α₀(η)) is h(η) ≥ h(η₁(α)) there, and gave no bound (+Inf) for
// η with α₀(η) beyond the order limit, though larger η' give one (issue 34:
// ε +Inf at η = 0.00914, 15.63 at 0.0100, 3.28 at 0.0115, 4.31 at 0.02).
//
// The std_linear form's bound (rgmMinOrder) holds at every order when
// σ ≥ √γR_rel/η': the least is at η' = max(η, √γR_rel/σ). The v1 formula
// is not a bound (rgm.md §2.3) and its labelled variant keeps the rule at η.
func rgmBestRDP(e RGM, alpha float64) float64 {
	x := e.Eta
	switch {
	case e.V1:
		lo := rgmMinOrder(e)
		if math.IsInf(lo, 1) {
			return math.Inf(1)
		}
		return rgmRDP(e, math.Max(alpha, lo))
	case e.RRel == 0:
	case e.Sigma == 0:
		return math.Inf(1)
	case e.Form == RGMStdLinear:
		x = math.Max(x, math.Sqrt(e.Gamma)*e.RRel/e.Sigma)
	default:
		c := e.Sigma * e.Sigma / (e.Gamma * e.RRel * e.RRel)
		am1 := alpha - 1
		x1 := 2 / (am1 + math.Sqrt(am1*am1+4*c))
		// Rounding may leave x1 a few ulps below the root: raise it until
		// the baseline-noise condition holds in floating point.
		for i := 0; i < 8 && c*x1*x1+am1*x1 < 1; i++ {
			x1 = math.Nextafter(x1, math.Inf(1))
		}
		x = math.Max(x, x1)
	}
	e.Eta = x
	return rgmRDP(e, alpha)
}

// RGMEpsilon returns the RGM RDP bound at order α (Theorem 1 of v2 at the
// best admissible η' ≥ η, rgmBestRDP; v1 when e.V1), with a *DomainError
// outside 1 < α < 1 + 1/(η(2+η)); +Inf where no admissible η' gives a bound
// at α.
func RGMEpsilon(e RGM, alpha float64) (float64, error) {
	if err := e.Validate(); err != nil {
		return 0, err
	}
	if !(alpha > 1 && alpha < rgmSup(e)) {
		return 0, &DomainError{Sub: e, Alpha: alpha, Lo: 1, Hi: rgmSup(e)}
	}
	return rgmBestRDP(e, alpha), nil
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
