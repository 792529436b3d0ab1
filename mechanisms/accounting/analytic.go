package accounting

import (
	"fmt"
	"math"
)

// Tight privacy profiles of the Gaussian mechanism.

// GaussianDelta returns the exact δ(ε) of a μ-GDP mechanism, i.e. of the
// Gaussian mechanism with sensitivity/σ = μ (and of any adaptive composition
// of Gaussian mechanisms with μ = √(Σ μ_i²)):
//
//	δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ)
//
// Ref: [BW18] Thm 8 (analytic Gaussian mechanism); composition: [DRS19]
// Cor. 3.3 (μ-GDP composes to √(Σμ_i²)-GDP) and Cor. 2.13 (its profile).
// Both terms are evaluated in log space (gaussianDeltaParts), so δ keeps
// its relative precision down to the smallest normal float64, and its
// logarithm (gaussianLogDelta) below; for μ < smallMu their ratio is
// computed as one integral (millsIntegral), not as a difference of
// logarithms.
func GaussianDelta(mu, eps float64) float64 {
	la, x := gaussianDeltaParts(mu, eps)
	return math.Exp(la) * -math.Expm1(x)
}

// gaussianLogDelta returns log GaussianDelta(μ, ε), with full relative
// precision also where δ is subnormal or underflows (see invertProfile).
func gaussianLogDelta(mu, eps float64) float64 {
	la, x := gaussianDeltaParts(mu, eps)
	return la + log1mExp(x)
}

// gaussianDeltaParts returns la and x ≤ 0 with GaussianDelta(μ, ε) =
// e^{la}·(1 − e^x) (la = x = −Inf for δ = 0).
func gaussianDeltaParts(mu, eps float64) (la, x float64) {
	zero := math.Inf(-1)
	switch {
	case mu == 0:
		if eps >= 0 {
			return zero, zero
		}
		return 0, eps
	case math.IsInf(mu, 1):
		return 0, zero
	}
	la = logNdtr(mu/2 - eps/mu)
	if mu < smallMu {
		// δ = Φ(a)·(1 − e^{ε − I}), I = log Φ(a) − log Φ(b) = ∫_b^a φ/Φ,
		// with a − b = μ: the difference of the two logarithms, each
		// exact to about 1e-14 absolutely, left δ with a relative error
		// that grew as μ shrank (1e-8 at μ = 2.5e-7, 1e-2 at μ = 1e-12,
		// in both directions); the integral of the inverse Mills ratio
		// over the short interval keeps its relative precision.
		x = eps - millsIntegral(-mu/2-eps/mu, mu)
		if !(x < 0) {
			return zero, zero
		}
		return la, x
	}
	lb := eps + logNdtr(-mu/2-eps/mu)
	if lb >= la {
		return zero, zero
	}
	return la, lb - la
}

// smallMu is the μ below which GaussianDelta integrates the inverse Mills
// ratio instead of subtracting logarithms. Against 60-digit values
// (mpmath) at ε = kμ + μ²/2, k ≤ 8, the integral's relative error stays
// below 5e-13 for μ ≤ 0.3 while the difference's reaches 8e-11 at
// μ = 1e-3 and grows as μ shrinks; on [b, b + μ] a 5-point Gauss–Legendre
// rule is exact to rounding for such μ (its error is O(μ¹⁰) times a
// tenth derivative of φ/Φ).
const smallMu = 0.1

// Gauss–Legendre 5-point rule on [−1, 1].
var gl5Nodes = [5]float64{-0.9061798459386639927976269, -0.5384693101056830910363144, 0, 0.5384693101056830910363144, 0.9061798459386639927976269}
var gl5Weights = [5]float64{0.2369268850561890875142640, 0.4786286704993664680412915, 0.5688888888888888888888889, 0.4786286704993664680412915, 0.2369268850561890875142640}

// millsIntegral returns ∫_b^{b+w} φ(x)/Φ(x) dx = log Φ(b + w) − log Φ(b)
// for a small width w, by the 5-point Gauss–Legendre rule; φ/Φ is
// evaluated as exp(log φ − log Φ), finite for any b.
func millsIntegral(b, w float64) float64 {
	var sum float64
	for j, t := range gl5Nodes {
		x := b + w*(t+1)/2
		sum += gl5Weights[j] * math.Exp(-0.5*x*x-lnSqrt2Pi-logNdtr(x))
	}
	return sum * w / 2
}

// invertDecreasing returns the smallest x ≥ lo with f(x) ≤ target for a
// non-increasing f, by doubling from start and bisection to relative
// precision 1e-15; the returned x satisfies f(x) ≤ target. It returns +Inf
// when no x up to 2^60·start works. A NaN value of f counts as above the
// target (not certified).
func invertDecreasing(f func(float64) float64, target, lo, start float64) float64 {
	if f(lo) <= target {
		return lo
	}
	hi := start
	for !(f(hi) <= target) {
		lo = hi
		hi *= 2
		if hi > start*math.Exp2(60) {
			return math.Inf(1)
		}
	}
	for i := 0; i < 200 && hi-lo > 1e-15*hi; i++ {
		m := 0.5 * (lo + hi)
		if m <= lo || m >= hi {
			break
		}
		if f(m) <= target {
			hi = m
		} else {
			lo = m
		}
	}
	return hi
}

// invertProfile returns the smallest x ≥ 0 at which a non-increasing
// privacy profile, given as δ(x) (lin) and log δ(x) (lg), is ≤ delta
// (invertDecreasing). A subnormal delta is compared in log space: a
// subnormal δ(x) is rounded to a multiple of 2^−1074, which may fall below
// the target while the true δ(x) is above it (at δ = 5e-324 the exact
// accountant's ε was 0.016 too small); a normal one as δ itself.
func invertProfile(lin, lg func(float64) float64, delta float64) float64 {
	if delta >= minNormal {
		return invertDecreasing(lin, delta, 0, 1)
	}
	return invertDecreasing(lg, logPos(delta), 0, 1)
}

// GaussianEpsilon returns the smallest ε ≥ 0 with GaussianDelta(μ, ε) ≤ δ
// (to relative precision 1e-15, rounded up; invertProfile).
func GaussianEpsilon(mu, delta float64) (float64, error) {
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if !(mu >= 0) {
		return 0, fmt.Errorf("accounting: μ = %v, want ≥ 0", mu)
	}
	if delta == 0 {
		if mu == 0 {
			return 0, nil
		}
		return math.Inf(1), nil
	}
	return invertProfile(func(e float64) float64 { return GaussianDelta(mu, e) },
		func(e float64) float64 { return gaussianLogDelta(mu, e) }, delta), nil
}

// AnalyticGaussianEpsilon returns the tight ε of the Gaussian mechanism with
// noise multiplier sigma (σ/Δ) at δ ([BW18] Thm 8; dp_accounting's
// get_epsilon_gaussian).
func AnalyticGaussianEpsilon(sigma, delta float64) (float64, error) {
	if !(sigma > 0) || math.IsInf(sigma, 1) {
		return 0, fmt.Errorf("accounting: σ = %v, want a finite value > 0", sigma)
	}
	return GaussianEpsilon(1/sigma, delta)
}

// AnalyticGaussianSigma returns the smallest noise multiplier σ/Δ whose
// Gaussian mechanism is (ε, δ)-DP ([BW18] Alg. 1 computed by root finding;
// dp_accounting's get_sigma_gaussian), to relative precision 1e-15, rounded
// up.
func AnalyticGaussianSigma(epsilon, delta float64) (float64, error) {
	if err := (Target{epsilon, delta}).Validate(); err != nil {
		return 0, err
	}
	if delta == 0 {
		return math.Inf(1), nil
	}
	s := invertProfile(func(s float64) float64 { return GaussianDelta(1/s, epsilon) },
		func(s float64) float64 { return gaussianLogDelta(1/s, epsilon) }, delta)
	return s, nil
}
