package accounting

import (
	"fmt"
	"math"
)

// (ε, δ) guarantees of the Gaussian mixing mechanism beyond its RDP curve
// ([LSS+25] Lev et al., arXiv:2505.24603).

// Sheffet2019Epsilon returns the earlier (ε, δ) bound for GaussMix that
// [LSS+25] improves on:
//
//	ε = 2√(2k log(4/δ))/γ + 2 log(4/δ)/γ
//
// Ref: [She19] Thm 2, as restated in [LSS+25] §3 (gaussmix.md §3.4).
func Sheffet2019Epsilon(k int, gamma, delta float64) float64 {
	l := logRatio(4, delta)
	return 2*math.Sqrt(2*float64(k)*l)/gamma + 2*l/gamma
}

// GaussMixEpsilon returns the (ε, δ) guarantee of plain GaussMix from Lemma 1
// converted by [CKS20] Prop. 12 and minimised over continuous α ∈ (1, γ)
// (gaussmix.md §3.6 P1), with the minimising order α*; it is
// Config{}.Epsilon(GaussMix{K: k, Gamma: gamma}, δ).
func GaussMixEpsilon(k int, gamma, delta float64) (eps, alpha float64, err error) {
	g, err := Config{}.Epsilon(GaussMix{K: k, Gamma: gamma}, delta)
	return g.Epsilon, g.Alpha, err
}

// GaussMixTheorem1Epsilon returns the ε of Algorithm 1 (ModifiedGaussMix)
// at δ, with the order α* of its RDP part:
//
//	ε̃ = √(2 log(3.75/δ))/η + min_{1<α<γ} φ(α; k, γ) + [log(3/δ) + (α−1) log(1 − 1/α) − log α]/(α − 1)
//
// Ref: [LSS+25] Thm 1, Eq. (5): the Gaussian release of λ_min with noise η
// (the classical Gaussian bound at δ/3), Lemma 1's curve converted at δ/3
// ([CKS20] Prop. 12), and failure probability δ/3, composed basically. The
// minimum over α is the RDP accountant's continuous search (Config{}).
// Theorem 1 assumes γ > 5/2. Symbols: k sketch rows, γ = GaussMix γ, η the
// λ_min noise scale (η = γ/√k in the paper; the authors' code uses γC²/√k,
// gaussmix.md §4.5).
func GaussMixTheorem1Epsilon(k int, gamma, eta, delta float64) (eps, alpha float64, err error) {
	if !(gamma > 2.5) || !finite(gamma) {
		return 0, 0, fmt.Errorf("accounting: GaussMix Theorem 1: γ = %v, want > 5/2", gamma)
	}
	if !(eta > 0) || !finite(eta) {
		return 0, 0, fmt.Errorf("accounting: GaussMix Theorem 1: η = %v, want > 0", eta)
	}
	if !(delta > 0 && delta < 1) {
		return 0, 0, fmt.Errorf("accounting: GaussMix Theorem 1: δ = %v, want a value in (0, 1)", delta)
	}
	// A subnormal δ/3 rounded down (3·d3 is exact there): rounding to
	// nearest could raise it by 2^−1075, 7e-4 of δ/3 at δ = 1e-320 (δ/3
	// is 0 at the smallest subnormal: ε = +Inf).
	d3 := delta / 3
	if d3 < minNormal && 3*d3 > delta {
		d3 = math.Nextafter(d3, 0)
	}
	e, a, err := GaussMixEpsilon(k, gamma, d3)
	if err != nil {
		return 0, 0, err
	}
	return math.Sqrt(2*logRatio(3.75, delta))/eta + e, a, nil
}
