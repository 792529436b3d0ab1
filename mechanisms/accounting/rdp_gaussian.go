package accounting

import "math"

// gaussianRDP returns the RDP of the Gaussian mechanism with noise multiplier
// m = σ/Δ at order α:
//
//	ε(α) = α / (2 m²)
//
// Ref: [Mir17] Prop. 7 (symbols: σ/Δ = m, α = order). m = 0 gives +Inf.
func gaussianRDP(m, alpha float64) float64 {
	if m == 0 {
		return math.Inf(1)
	}
	return alpha / (2 * m * m)
}

// laplaceRDP returns the RDP of the Laplace mechanism that is ε₀-DP
// (ε₀ = Δ₁/b) at order α ≥ 1:
//
//	ε(α) = ε₀ + log(1 + (α−1)(exp((1−2α)ε₀) − 1)/(2α−1)) / (α−1),   α > 1
//	ε(1) = ε₀ + exp(−ε₀) − 1                                          (KL, the α → 1 limit)
//
// Ref: [Mir17] Prop. 6, exactly tight. For 1 < α ≤ 1.1 log1p(x)/(α−1) is
// evaluated by its Taylor series in x (as dp_accounting does) because
// log1p(c(α−1))/(α−1) loses digits there.
func laplaceRDP(eps0, alpha float64) float64 {
	switch {
	case math.IsInf(eps0, 1):
		return math.Inf(1)
	case alpha == 1:
		return eps0 + math.Expm1(-eps0)
	case alpha <= 1.1:
		c := math.Expm1(eps0*(1-2*alpha)) / (2*alpha - 1)
		v := -c * (alpha - 1) // log(1 + c·x)/x = c·Σ_{k≥1} v^{k−1}/k with 0 ≤ v ≤ 0.1
		sum, p := 0.0, 1.0
		for k := 1; k < 60; k++ {
			sum += p / float64(k)
			p *= v
		}
		return eps0 + c*sum
	}
	return eps0 + math.Log1p((alpha-1)*math.Expm1(eps0*(1-2*alpha))/(2*alpha-1))/(alpha-1)
}
