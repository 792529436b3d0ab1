package accounting

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// SampleRuns draws the number of runs K of e's distribution, with the
// parametrisation the accountant analyses (so the runs actually made match
// the ledger):
//
//	Poisson:      P[K = k] = e^{−μ} μ^k / k!,                         k ≥ 0
//	TNB(η, γ):    P[K = k] = (1−γ)^k / (γ^{−η} − 1) · Π_{ℓ<k} (ℓ+η)/(ℓ+1),  k ≥ 1
//	Geometric:    TNB with η = 1: P[K = k] = γ(1−γ)^{k−1},             k ≥ 1
//	Logarithmic:  TNB limit η → 0: P[K = k] = (1−γ)^k / (k·log(1/γ)),   k ≥ 1
//
// with γ solved from E[K] = Mean (tnbGamma). The TNB is sampled as a
// Gamma–Poisson mixture (negative binomial with η "successes" and failure
// probability 1−γ) conditioned on K ≥ 1; the logarithmic law by inversion.
//
// Ref: [PS22] Definition 1 and §3 (Poisson). e must be valid (Validate).
func (e RepeatAndSelect) SampleRuns(r *rand.Rand) int {
	switch e.Distribution {
	case Poisson:
		return int(distuv.Poisson{Lambda: e.Mean, Src: r}.Rand())
	case Geometric:
		gamma := tnbGamma(1, e.Mean)
		if gamma >= 1 {
			return 1
		}
		// Inversion: K = ⌈log U / log(1−γ)⌉, U ∈ (0, 1].
		return max(1, int(math.Ceil(math.Log(1-r.Float64())/math.Log1p(-gamma))))
	case Logarithmic:
		gamma := tnbGamma(0, e.Mean)
		u := r.Float64() * math.Log(1/gamma)
		// Σ_{k≥1} (1−γ)^k / k = log(1/γ): walk the cumulative sum.
		p, cum := 1.0, 0.0
		for k := 1; ; k++ {
			p *= 1 - gamma
			cum += p / float64(k)
			if u <= cum || p == 0 {
				return k
			}
		}
	case TruncatedNegativeBinomial:
		gamma := tnbGamma(e.Shape, e.Mean)
		g := distuv.Gamma{Alpha: e.Shape, Beta: gamma / (1 - gamma), Src: r}
		for {
			lambda := g.Rand()
			if k := int(distuv.Poisson{Lambda: lambda, Src: r}.Rand()); k >= 1 {
				return k
			}
		}
	}
	panic("accounting: SampleRuns of an unknown distribution")
}
