package accounting

import "math"

// The Poisson-subsampled Gaussian (one DP-SGD step, sampling rate q, noise
// multiplier σ) has RDP ε(α) = log(A_α)/(α − 1) with
//
//	A_α = E_{z∼N(0,σ²)}[(1 − q + q·exp((2z − 1)/(2σ²)))^α]
//
// Ref: [MTZ19] §3 (Eq. 3 and Thm 4 for add/remove neighbours); symbols:
// q = sampling rate, σ = noise multiplier, α = order.

// sgmRDP returns the per-step RDP at order α > 1. Integer orders use the
// exact binomial sum; fractional orders use dp_accounting's series of
// absolute values (exact = false; an upper bound) or numerical integration
// (exact = true). A curve evaluated at many orders uses one sgmSeries
// instead, which gives the same values with less work.
func sgmRDP(q, sigma, alpha float64, exact bool) float64 {
	return newSGMSeries(q, sigma, exact).rdp(alpha)
}

// sgmSeries evaluates the RDP of one sampled Gaussian (fixed q and σ) at
// many orders. The parts of the series' terms that depend on the index i
// but not on the order — log(e^{(i²−i)/(2σ²)} − 1) in the integer sum, the
// first tail's log Φ((z₀ − i)/σ) in the fractional one — are computed once
// per i and kept, so queries at orders up to α cost one evaluation of each
// per i in all rather than one per i and order. Every term is formed from
// the same operands in the same order as before the cache, so each value
// has the same bits. Not safe for concurrent use (nor is the curve that
// holds it).
type sgmSeries struct {
	q, sigma, logq, log1mq, inv2s2 float64
	exact                          bool
	// logExpm1s[i] = logExpm1((i² − i)/(2σ²)), filled up to the largest
	// integer order asked so far (indices 0 and 1 unused).
	logExpm1s []float64
	// z0 is where the fractional series splits the integral, σ² log(1/q − 1) + ½.
	z0 float64
	// lowTails[i] = logNdtr((z₀ − i)/σ), filled up to the longest
	// fractional series summed so far.
	lowTails []float64
}

func newSGMSeries(q, sigma float64, exact bool) *sgmSeries {
	s2 := sigma * sigma
	return &sgmSeries{
		q: q, sigma: sigma, exact: exact,
		logq: logPos(q), log1mq: math.Log1p(-q),
		inv2s2: 1 / (2 * s2),
		z0:     s2*math.Log(1/q-1) + 0.5,
	}
}

// rdp returns the per-step RDP at order α > 1 (see sgmRDP).
func (s *sgmSeries) rdp(alpha float64) float64 {
	q, sigma := s.q, s.sigma
	switch {
	case q == 0:
		return 0
	case sigma == 0 || math.IsInf(alpha, 1):
		return math.Inf(1)
	case q == 1:
		return gaussianRDP(sigma, alpha)
	}
	if alpha == math.Trunc(alpha) && alpha < 1<<30 {
		return log1pExp(s.logAm1Int(int(alpha))) / (alpha - 1)
	}
	if s.exact {
		return log1pExp(sgmLogAm1Exact(q, sigma, alpha)) / (alpha - 1)
	}
	return s.logAFracBound(alpha) / (alpha - 1)
}

// logAm1Int returns log(A_α − 1) for integer α ≥ 2 by the binomial sum
//
//	A_α = Σ_{i=0}^{α} C(α,i) (1−q)^{α−i} q^i exp((i² − i)/(2σ²))
//
// ([MTZ19] §3.2; [ACG+16] Eq. 3). Because Σ_i C(α,i)(1−q)^{α−i}q^i = 1 and
// the exponent vanishes at i = 0, 1,
//
//	A_α − 1 = Σ_{i=2}^{α} C(α,i) (1−q)^{α−i} q^i expm1((i² − i)/(2σ²)),
//
// a sum of positive terms: log A_α = log1p(A_α − 1) keeps full relative
// precision even when A_α − 1 ≈ q² is far below the float64 epsilon.
func (s *sgmSeries) logAm1Int(alpha int) float64 {
	if alpha < 2 {
		return math.Inf(-1)
	}
	for i := len(s.logExpm1s); i <= alpha; i++ {
		fi := float64(i)
		s.logExpm1s = append(s.logExpm1s, logExpm1((fi*fi-fi)*s.inv2s2))
	}
	logq, log1mq := s.logq, s.log1mq
	a := float64(alpha)
	// log C(α, 2), then updated by C(α,i+1) = C(α,i)(α−i)/(i+1).
	logCoef := math.Log(a*(a-1)) - ln2
	acc := math.Inf(-1)
	for i := 2; i <= alpha; i++ {
		if i > 2 {
			logCoef += math.Log((a - float64(i-1)) / float64(i))
		}
		fi := float64(i)
		t := logCoef + fi*logq + (a-fi)*log1mq + s.logExpm1s[i]
		acc = logAdd(acc, t)
	}
	return acc
}

// maxFracTerms is dp_accounting's cap on the fractional-order series; an
// order whose series has not converged after it is excluded (+Inf).
const maxFracTerms = 1000

// logAFracBound returns log A_α for fractional α by the two-sided series
// of [MTZ19] §3.3 with the integral split at z₀ = σ² log(1/q − 1) + 1/2,
// summing the absolute values |C(α,i)| of the generalised binomial
// coefficients. This reproduces dp_accounting's _compute_log_a_frac
// (google/differential-privacy b5b0286, since commit 0b109e9): summing
// absolute values makes it an upper bound on A_α (exceeding the exact value
// by up to a few percent at α < 2; golden-vectors README quirk 1). The series
// stops when both partial terms decrease and are below e^{−30} of the total,
// and returns +Inf after 1000 terms (quirk 2) so that the order is excluded.
func (s *sgmSeries) logAFracBound(alpha float64) float64 {
	logq, log1mq, inv2s2, z0, sigma := s.logq, s.log1mq, s.inv2s2, s.z0, s.sigma
	logA0, logA1 := math.Inf(-1), math.Inf(-1)
	last0, last1 := math.Inf(-1), math.Inf(-1)
	logCoef := 0.0 // log|C(α, 0)|
	for i := 0; i < maxFracTerms; i++ {
		fi := float64(i)
		if i > 0 {
			logCoef += math.Log(math.Abs(alpha-fi+1) / fi)
		}
		if i == len(s.lowTails) {
			s.lowTails = append(s.lowTails, logNdtr((z0-fi)/sigma))
		}
		j := alpha - fi
		// log t0 + (i²−i)/(2σ²) + log(½ erfc((i − z0)/(√2σ)))
		s0 := logCoef + fi*logq + j*log1mq + (fi*fi-fi)*inv2s2 + s.lowTails[i]
		// log t1 + (j²−j)/(2σ²) + log(½ erfc((z0 − j)/(√2σ)))
		s1 := logCoef + j*logq + fi*log1mq + (j*j-j)*inv2s2 + logNdtr((j-z0)/sigma)
		logA0 = logAdd(logA0, s0)
		logA1 = logAdd(logA1, s1)
		total := logAdd(logA0, logA1)
		if s0 < last0 && s1 < last1 && math.Max(s0, s1) < total-30 {
			return total
		}
		last0, last1 = s0, s1
	}
	return math.Inf(1)
}

// Gauss–Legendre nodes and weights on [−1, 1], 16 points.
var glNodes = [8]float64{
	0.0950125098376374401853193, 0.2816035507792589132304605,
	0.4580167776572273863424194, 0.6178762444026437484466718,
	0.7554044083550030338951012, 0.8656312023878317438804679,
	0.9445750230732325760779884, 0.9894009349916499325961542,
}
var glWeights = [8]float64{
	0.1894506104550684962853967, 0.1826034150449235888667637,
	0.1691565193950025381893121, 0.1495959888165767320815017,
	0.1246289712555338720524763, 0.0951585116824927848099251,
	0.0622535239386478928628438, 0.0271524594117540948517806,
}

// sgmLogGm1 returns log G with G = (1 + x)^α − 1 − αx ≥ 0 and
// x = q(e^u − 1), the integrand factor of sgmLogAm1Exact, in log space
// for every u (x itself overflows for u ≳ 700).
func sgmLogG(q, logq, log1mq, alpha, u float64) float64 {
	if u < 700 {
		x := q * math.Expm1(u)
		if x == 0 {
			return math.Inf(-1)
		}
		if alpha*math.Abs(x) < 0.5 {
			// G = Σ_{k≥2} C(α,k) x^k; the ratio of successive terms is
			// below 1/3 in absolute value, so the sum is well conditioned.
			c := alpha * (alpha - 1) / 2
			t := c * x * x
			sum := t
			for k := 2; k < 80; k++ {
				t *= (alpha - float64(k)) / float64(k+1) * x
				sum += t
				if math.Abs(t) < 1e-17*math.Abs(sum) {
					break
				}
			}
			if sum <= 0 {
				return math.Inf(-1)
			}
			return math.Log(sum)
		}
		la := alpha * math.Log1p(x)
		if la < 700 {
			g := math.Expm1(la) - alpha*x
			if g <= 0 {
				return math.Inf(-1)
			}
			return math.Log(g)
		}
	}
	// log(1 + x) = log(1 − q + q e^u); G = e^{la}(1 − e^{−la} − αx e^{−la}).
	la := alpha * logAdd(log1mq, logq+u)
	logAx := math.Log(alpha) + logq + logExpm1(u)
	r := logAdd(-la, logAx-la)
	if r >= 0 {
		return math.Inf(-1)
	}
	return la + log1mExp(r)
}

// maxQuadPanels bounds the work of sgmLogAm1Exact ((α + 80σ)/σ panels).
const maxQuadPanels = 1 << 22

// sgmLogAm1Exact returns log(A_α − 1) for any real α > 1 by numerical
// integration of the definition. With w(z) = e^{(2z−1)/(2σ²)} − 1 we have
// E[w] = 0 under z ∼ N(0, σ²), hence
//
//	A_α − 1 = E[(1 + q w)^α − 1 − α q w],
//
// whose integrand is ≥ 0 (convexity of t ↦ t^α), so nothing cancels even
// for tiny q. The integrand is a superposition of Gaussian bumps of width σ
// located in [0, α], so the line is cut into panels of width σ on
// [−40σ, max(α,1) + 40σ]; panels whose integrand is below e^{−60} of the
// largest are skipped and the others are integrated by 16-point
// Gauss–Legendre in log space (relative error ≲ 1e-13). Beyond
// maxQuadPanels panels it returns +Inf, which excludes the order.
func sgmLogAm1Exact(q, sigma, alpha float64) float64 {
	logq, log1mq := logPos(q), math.Log1p(-q)
	s2 := sigma * sigma
	logNorm := -math.Log(sigma) - lnSqrt2Pi
	h := func(z float64) float64 {
		return -z*z/(2*s2) + logNorm + sgmLogG(q, logq, log1mq, alpha, (2*z-1)/(2*s2))
	}
	lo := -40 * sigma
	hi := math.Max(alpha, 1) + 40*sigma
	if (hi-lo)/sigma > maxQuadPanels {
		return math.Inf(1) // too many panels: no finite value (the order is excluded)
	}
	n := int(math.Ceil((hi - lo) / sigma))
	// Scan each panel at its ends and midpoint.
	peak := make([]float64, n)
	hmax := math.Inf(-1)
	prev := h(lo)
	for p := 0; p < n; p++ {
		a := lo + float64(p)*sigma
		mid, end := h(a+sigma/2), h(a+sigma)
		peak[p] = math.Max(prev, math.Max(mid, end))
		hmax = math.Max(hmax, peak[p])
		prev = end
	}
	if math.IsInf(hmax, -1) {
		return math.Inf(-1)
	}
	sum := 0.0
	for p := 0; p < n; p++ {
		if peak[p] < hmax-60 {
			continue
		}
		c := lo + (float64(p)+0.5)*sigma
		for k := range glNodes {
			d := glNodes[k] * sigma / 2
			sum += glWeights[k] * (math.Exp(h(c-d)-hmax) + math.Exp(h(c+d)-hmax))
		}
	}
	return hmax + math.Log(sum*sigma/2)
}
