package accounting

import (
	"fmt"
	"math"
)

// RGMRule names how RGMCalibrate chooses the relative Gaussian mechanism's
// noise for a target RDP guarantee (α, ε) of one release.
type RGMRule string

// The rules of rgm.md §2.4 and §5.5.
const (
	// RGMTheoremV2 solves Theorem 1 of v2 exactly at α, d term included:
	//
	//	γ = αη² / (2Kε − αdη²(2+η)²(1+η)²),   K = 1 − η(α−1)(2+η)
	//
	// feasible iff ε > αdη²(2+η)²(1+η)²/(2K). The release then spends
	// exactly ε at α (never more).
	RGMTheoremV2 RGMRule = "theorem_v2"
	// RGMTheoremV1 solves the v1 formula, γ = αη²/(2K(ε − αdη²(2+η)²/2)):
	// the v1 bound is not valid near its order limit (rgm.md §2.3); the
	// event is flagged V1 and accounted by the v1 formula only on request.
	RGMTheoremV1 RGMRule = "theorem_v1"
	// RGMNeglectD drops the d term, γ = αη²/(2Kε), as both versions'
	// Appendix C say the experiments do. The release spends more than ε
	// at α (by αdη²(2+η)²(1+η)²/(2K) under v2); the event says how much.
	RGMNeglectD RGMRule = "neglect_d"
	// RGMLocal is §4.2's local-sensitivity choice, γ = αη²/(2ε) and
	// σ² = γη⁻²R_rel² = αR_rel²/(2ε): Eq. (6) gives ε/K plus the d term.
	RGMLocal RGMRule = "local"
	// RGMCodeStdLinear is the authors' code (HadrienHx/RGM 953a431,
	// noisers.py UnboundedNoiser; rgm.md §5.5): noise standard deviation
	// √(α/ε)·(η‖g‖ + R_rel), i.e. Form std_linear with √γ = η√(α/ε) and
	// σ = R_rel√(α/ε). It has between 2 and 4 times the variance of
	// RGMLocal; its accounted RDP is Theorem 1's with γ = η²α/ε.
	RGMCodeStdLinear RGMRule = "std_linear"
)

// rgmRules lists the rules in documentation order.
var rgmRules = []RGMRule{RGMTheoremV2, RGMNeglectD, RGMLocal, RGMCodeStdLinear, RGMTheoremV1}

// ParseRGMRule returns the rule called s.
func ParseRGMRule(s string) (RGMRule, error) {
	for _, r := range rgmRules {
		if string(r) == s {
			return r, nil
		}
	}
	return "", fmt.Errorf("accounting: unknown RGM rule %q (want theorem_v2, neglect_d, local, std_linear or theorem_v1)", s)
}

// RGMTarget is what RGMCalibrate solves for: one release of a query with
// (Eta, RRel)-relative sensitivity in dimension D, at the RDP target
// (Alpha, Epsilon), by Rule.
type RGMTarget struct {
	Eta, RRel      float64
	D              int
	Alpha, Epsilon float64
	Rule           RGMRule
}

// rgmK returns K = 1 − η(α−1)(2+η) ([HMB23] Thm 1's denominator).
func rgmK(eta, alpha float64) float64 { return 1 - eta*(alpha-1)*(2+eta) }

// RGMCalibrate returns the relative Gaussian mechanism's noise for one
// release at t's RDP target, by t.Rule, as an RGM event (Gamma, Sigma, RRel
// and Form set; Sigma is the smallest baseline noise Theorem 1 allows at
// t.Alpha, σ² = γη⁻²(1 − η(α−1))R_rel², except for RGMLocal's §4.2 choice and
// the code's std_linear form). Under RGMTheoremV2 the event's v2 bound at
// t.Alpha is ≤ t.Epsilon (checked); the other rules reproduce the papers'
// and the code's choices, and their events may spend more (the accountant
// says how much). An unreachable target is an *InfeasibleError whose Floor
// is the smallest RDP ε any γ reaches at α (the d term: "ε ≥ 2αη²d").
//
// Ref: [HMB23] Thm 1 (v2, and v1 for RGMTheoremV1), §4.2 Eq. (6), App. C;
// rgm.md §2.4 (the solve) and §5.5 (the code).
func RGMCalibrate(t RGMTarget) (RGM, error) {
	eta, a, eps, d := t.Eta, t.Alpha, t.Epsilon, float64(t.D)
	switch {
	case !finite(eta) || eta <= 0:
		return RGM{}, fmt.Errorf("accounting: rgm calibration: η = %v, want a finite value > 0", eta)
	case !finite(t.RRel) || t.RRel < 0:
		return RGM{}, fmt.Errorf("accounting: rgm calibration: R_rel = %v, want a finite value ≥ 0", t.RRel)
	case t.D < 1:
		return RGM{}, fmt.Errorf("accounting: rgm calibration: d = %d, want ≥ 1", t.D)
	case !finite(a) || a <= 1:
		return RGM{}, fmt.Errorf("accounting: rgm calibration: α = %v, want a finite order > 1", a)
	case !finite(eps) || eps <= 0:
		return RGM{}, fmt.Errorf("accounting: rgm calibration: ε = %v, want a finite value > 0", eps)
	}
	if t.Rule == RGMTheoremV1 && eta > 1 {
		return RGM{}, fmt.Errorf("accounting: rgm calibration: η = %g > 1, which the v1 theorem excludes", eta)
	}
	k := rgmK(eta, a)
	if !(k > 0) {
		// No γ gives a finite bound at this order: (α−1)η(2+η) ≥ 1.
		return RGM{}, &InfeasibleError{Target: Target{Epsilon: eps}, Floor: math.Inf(1), X: math.Inf(1), Order: a}
	}
	e := RGM{Eta: eta, D: t.D, RRel: t.RRel}
	// σ² = γη⁻²(1 − η(α−1))R_rel²: the least baseline noise Theorem 1
	// allows at α (rgm.md §2.4 step 4), raised by a relative 1e-12 so that
	// rounding cannot move the order from which it holds above α.
	minSigma := func(g float64) float64 {
		return math.Sqrt(g*(1-eta*(a-1))) * t.RRel / eta * (1 + 1e-12)
	}
	switch t.Rule {
	case RGMTheoremV2:
		dterm := a * d * eta * eta * (2 + eta) * (2 + eta) * (1 + eta) * (1 + eta)
		den := 2*k*eps - dterm
		if !(den > 0) {
			return RGM{}, &InfeasibleError{Target: Target{Epsilon: eps}, Floor: dterm / (2 * k), X: math.Inf(1), Order: a}
		}
		e.Gamma = a * eta * eta / den
		e.Sigma = minSigma(e.Gamma)
		// Rounding may leave the bound a few ulps above ε: raise γ (and
		// with it σ) until it is not.
		for i := 0; i < 64 && !(rgmBestRDP(e, a) <= eps); i++ {
			e.Gamma *= 1 + 1e-15*float64(int(1)<<min(i, 40))
			e.Sigma = minSigma(e.Gamma)
		}
		if !(rgmBestRDP(e, a) <= eps) {
			return RGM{}, fmt.Errorf("accounting: rgm calibration did not meet ε = %g at α = %g (η = %g, d = %d)", eps, a, eta, t.D)
		}
	case RGMTheoremV1:
		dterm := a * d * eta * eta * (2 + eta) * (2 + eta) / 2
		if !(eps > dterm) {
			return RGM{}, &InfeasibleError{Target: Target{Epsilon: eps}, Floor: dterm, X: math.Inf(1), Order: a}
		}
		e.V1 = true
		e.Gamma = a * eta * eta / (2 * k * (eps - dterm))
		e.Sigma = minSigma(e.Gamma)
	case RGMNeglectD:
		e.Gamma = a * eta * eta / (2 * k * eps)
		e.Sigma = minSigma(e.Gamma)
	case RGMLocal:
		e.Gamma = a * eta * eta / (2 * eps)
		e.Sigma = math.Sqrt(a/(2*eps)) * t.RRel * (1 + 1e-12)
	case RGMCodeStdLinear:
		e.Form = RGMStdLinear
		c := math.Sqrt(a / eps)
		e.Gamma = eta * eta * a / eps
		// σ ≥ √γ·R_rel/η = cR_rel is the std_linear condition: the same
		// 1e-12 margin against rounding.
		e.Sigma = c * t.RRel * (1 + 1e-12)
	default:
		return RGM{}, fmt.Errorf("accounting: unknown RGM rule %q", t.Rule)
	}
	if lo := rgmMinOrder(e); lo > minOrderWanted(t.Rule, a) {
		return RGM{}, fmt.Errorf("accounting: rgm calibration: the baseline noise holds only from order %g, want %g", lo, minOrderWanted(t.Rule, a))
	}
	if err := e.Validate(); err != nil {
		return RGM{}, err
	}
	return e, nil
}

// minOrderWanted is the order from which a rule's σ makes Theorem 1 apply:
// α for the minimal σ², 1 for §4.2's and the code's choices.
func minOrderWanted(r RGMRule, alpha float64) float64 {
	switch r {
	case RGMLocal, RGMCodeStdLinear:
		return 1
	}
	return alpha
}

// RGMCorollary1 returns the closed-form (ε, δ) guarantee of count adaptive
// RGM releases ([HMB23] Corollary 1, App. A.5; v1 when e.V1):
//
//	ε = χ + 2√(χ log(1/δ)),
//	χ = count·(η²/γ + η²(2+η)²(1+η)²d)        (v2)
//	χ = count·(η²/γ + η²(2+η)²d/2)            (v1)
//
// (count = 1 is the corollary; composition multiplies the RDP bound
// αχ/count used by its proof, [Mir17] Prop. 1). It also reports whether the
// corollary's condition holds: its order α = 1 + √(log(1/δ)/χ) must satisfy
// α ≤ 1 + 1/(2η(2+η)), i.e. log(1/δ) ≤ χ/(4η²(2+η)²) (for count = 1, v2:
// 1/(4γ(2+η)²) + (1+η)²d/4 ≥ log(1/δ); v1: 1/(4γ(2+η)²) + d/8 ≥ log(1/δ)).
// When it does not hold the value is not a guarantee. v2's last display has
// a typo (χ + 2√χ log(1/δ)); the statement's form is used (rgm.md §2.6).
// The corollary assumes Theorem 1 holds at that order (Sigma, RRel: see RGM).
func RGMCorollary1(e RGM, count int, delta float64) (eps float64, ok bool, err error) {
	if err := e.Validate(); err != nil {
		return 0, false, err
	}
	if count < 1 {
		return 0, false, fmt.Errorf("accounting: rgm corollary 1: count = %d, want ≥ 1", count)
	}
	if !(delta > 0 && delta < 1) {
		return 0, false, fmt.Errorf("accounting: rgm corollary 1: δ = %v, want a value in (0, 1)", delta)
	}
	eta, g, d := e.Eta, e.Gamma, float64(e.D)
	l := logRatio(1, delta)
	var chi float64
	if e.V1 {
		chi = eta*eta/g + eta*eta*(2+eta)*(2+eta)*d/2
	} else {
		chi = eta*eta/g + eta*eta*(2+eta)*(2+eta)*(1+eta)*(1+eta)*d
	}
	chi *= float64(count)
	a := 1 + math.Sqrt(l/chi)
	ok = a <= 1+1/(2*eta*(2+eta)) && a >= rgmMinOrder(e)
	return chi + 2*math.Sqrt(chi*l), ok, nil
}

// RGMEpsilonMironov returns min over α of ε_RDP(α) + log(1/δ)/(α − 1), the
// conversion the paper optimises numerically for better guarantees than
// Corollary 1 ([HMB23] App. A.5, "numerically optimizing the bound";
// [Mir17] Prop. 3), for count adaptive releases of e (RDP count·ε(α)), and
// the order that attains it. The accountant's own conversion ([BBG+20]
// Thm 21) is tighter; this one reproduces the paper's numbers.
func RGMEpsilonMironov(e RGM, count int, delta float64) (eps, alpha float64, err error) {
	if err := e.Validate(); err != nil {
		return 0, 0, err
	}
	if count < 1 {
		return 0, 0, fmt.Errorf("accounting: rgm: count = %d, want ≥ 1", count)
	}
	if !(delta > 0 && delta < 1) {
		return 0, 0, fmt.Errorf("accounting: rgm: δ = %v, want a value in (0, 1)", delta)
	}
	l := logRatio(1, delta)
	f := func(a float64) float64 {
		return float64(count)*rgmBestRDP(e, a) + l/(a-1)
	}
	sup := rgmSup(e)
	// The objective is +Inf at the domain's ends and unimodal in between
	// (a convex mean term over K plus a convex l/(α−1)): a coarse log-spaced
	// scan brackets the minimum, Brent refines it.
	const n = 400
	best, bestA := math.Inf(1), 0.0
	idx := 0
	span := sup - 1
	at := func(i int) float64 { return 1 + span*math.Pow(1e-9, 1-float64(i)/float64(n)) }
	for i := 1; i < n; i++ {
		if v := f(at(i)); v < best {
			best, bestA, idx = v, at(i), i
		}
	}
	if math.IsInf(best, 1) {
		return math.Inf(1), 0, nil
	}
	x, fx := Minimize(f, at(idx-1), at(min(idx+1, n-1)), 1e-12)
	if fx < best {
		best, bestA = fx, x
	}
	return best, bestA, nil
}

// RenyiIsotropicGaussians returns the exact Rényi divergence of order α > 1
// between two isotropic Gaussians in dimension d whose means are at squared
// distance m2 and whose per-coordinate variances are s1sq and s2sq:
//
//	D_α(N(μ₁, s₁²I_d) ‖ N(μ₂, s₂²I_d))
//	  = α m2/(2 s_α²) + d [log(s₂/s₁) + log(s₂²/s_α²)/(2(α − 1))],
//	s_α² = α s₂² + (1 − α) s₁²
//
// and +Inf when s_α² ≤ 0 (the integral diverges). It is the oracle against
// which the RGM bounds are tested and the "exact" column of the v1-vs-v2
// counterexample table.
//
// Ref: [HMB23] Lemma 2 (v1 Eq. (11), v2 Eq. (13)).
func RenyiIsotropicGaussians(alpha, m2, s1sq, s2sq float64, d int) float64 {
	sa := alpha*s2sq + (1-alpha)*s1sq
	if sa <= 0 {
		return math.Inf(1)
	}
	return alpha*m2/(2*sa) + float64(d)*(0.5*math.Log(s2sq/s1sq)+math.Log(s2sq/sa)/(2*(alpha-1)))
}
