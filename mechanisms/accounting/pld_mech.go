package accounting

import "math"

// Pessimistic connect-the-dots PLDs of single mechanisms, for the two
// directions of the add/remove relation. For an additive noise mechanism
// with noise density μ and Poisson sampling rate q ([DGK+22]; dp_accounting
// privacy_loss_mechanism.py, b5b0286):
//
//	remove: upper μ_u(x) = (1−q) μ(x) + q μ(x+Δ), lower μ_l(x) = μ(x)
//	add:    upper μ_u(x) = μ(x),  lower μ_l(x) = (1−q) μ(x) + q μ(x−Δ)
//
// and δ(ε) = μ_u(X ≤ x*) − e^ε μ_l(X ≤ x*), x* the point where the (non-
// increasing) privacy loss log(μ_u/μ_l) equals ε.

// logMassTruncation is the log of the noise mass beyond the truncation
// points (dp_accounting's log_mass_truncation_bound, −50); it is charged to
// +∞ by the connect-the-dots construction.
const logMassTruncation = -50

// pldPair is the PLD of a mechanism in the remove and add directions (the
// same pmf when symmetric).
type pldPair struct{ remove, add *pmf }

// gaussianPLD returns the PLD of the Gaussian mechanism with noise
// multiplier σ (sensitivity 1) subsampled at rate q ∈ (0, 1], on grid h.
// A nil pmf means the grid would exceed maxPLDPoints.
func gaussianPLD(sigma, q, h float64) pldPair {
	if q == 1 {
		rem := gaussianPMF(sigma, q, h, false)
		return pldPair{rem, rem}
	}
	var p pldPair
	both(func() { p.remove = gaussianPMF(sigma, q, h, false) }, func() { p.add = gaussianPMF(sigma, q, h, true) })
	return p
}

func gaussianPMF(sigma, q, h float64, add bool) *pmf {
	s2 := sigma * sigma
	logq, log1mq := math.Log(q), math.Log1p(-q)
	// Truncation: the noise CDF equals e^{−50}/2 at lowerX.
	lowerX := sigma * ndtri(0.5*math.Exp(logMassTruncation))
	upperX := -lowerX
	if add {
		upperX++
	} else {
		lowerX--
	}
	// loss(x) and δ(ε) for this direction.
	var loss func(x float64) float64
	var deltaAt func(eps float64) float64
	if !add {
		loss = func(x float64) float64 {
			l0 := (-0.5 - x) / s2
			if q == 1 {
				return l0
			}
			return logAdd(log1mq, logq+l0) // log(1 − q + q e^{l0})
		}
		deltaAt = func(eps float64) float64 {
			if q < 1 && eps <= log1mq {
				return -math.Expm1(eps)
			}
			// l0 = log(1 + (e^ε − 1)/q); x* = −1/2 − σ² l0
			l0 := eps
			switch {
			case q < 1 && eps >= 0:
				l0 = logAdd(0, logExpm1Signed(eps)-logq)
			case q < 1:
				l0 = log1mExp(logExpm1Signed(eps) - logq)
			}
			x := -0.5 - s2*l0
			// δ = q Φ((x+1)/σ) − (e^ε − 1 + q) Φ(x/σ)
			a := logq + logNdtr((x+1)/sigma)
			if q == 1 {
				a = logNdtr((x + 1) / sigma)
			}
			b := logEpsMinus(eps, log1mq, q) + logNdtr(x/sigma)
			if b >= a {
				return 0
			}
			return math.Exp(a) * -math.Expm1(b-a)
		}
	} else {
		loss = func(x float64) float64 {
			l0 := (0.5 - x) / s2
			return -logAdd(log1mq, logq-l0) // −log(1 − q + q e^{−l0})
		}
		deltaAt = func(eps float64) float64 {
			if eps >= -log1mq {
				return 0
			}
			// l0 = −log(1 + (e^{−ε} − 1)/q); x* = 1/2 − σ² l0
			var l0 float64
			if eps > 0 {
				l0 = -log1mExp(logExpm1Signed(-eps) - logq)
			} else {
				l0 = -logAdd(0, logExpm1Signed(-eps)-logq)
			}
			x := 0.5 - s2*l0
			// δ = (1 − e^ε(1−q)) Φ(x/σ) − q e^ε Φ((x−1)/σ)
			a := log1mExp(eps+log1mq) + logNdtr(x/sigma)
			b := logq + eps + logNdtr((x-1)/sigma)
			if b >= a {
				return 0
			}
			return math.Exp(a) * -math.Expm1(b-a)
		}
	}
	lo, hi, ok := gridBounds(loss(upperX), loss(lowerX), h)
	if !ok {
		return nil
	}
	return connectDots(h, lo, hi, deltaAt)
}

// gridBounds returns the grid indices ⌊lo/h⌋ and ⌈hi/h⌉, and false when
// they are not finite or span more than maxPLDPoints.
func gridBounds(lo, hi, h float64) (int, int, bool) {
	a, b := math.Floor(lo/h), math.Ceil(hi/h)
	if !finite(a) || !finite(b) || b-a+1 > maxPLDPoints || b < a {
		return 0, 0, false
	}
	return int(a), int(b), true
}

// logExpm1Signed returns log|e^x − 1|.
func logExpm1Signed(x float64) float64 {
	if x >= 0 {
		return logExpm1(x)
	}
	return log1mExp(x)
}

// logEpsMinus returns log(e^ε − (1 − q)) for ε > log(1 − q) (log(e^ε − 0)
// = ε when q = 1).
func logEpsMinus(eps, log1mq, q float64) float64 {
	if q == 1 {
		return eps
	}
	return eps + log1mExp(log1mq-eps)
}

// laplacePLD returns the PLD of the Laplace mechanism that is ε₀-DP
// (ε₀ = Δ₁/b); both directions coincide. Its profile is
//
//	δ(ε) = 1 − e^ε (ε ≤ −ε₀),  1 − e^{(ε−ε₀)/2} (|ε| ≤ ε₀),  0 (ε ≥ ε₀)
//
// (hockey-stick divergence of Lap(0, b) and Lap(Δ, b); dp_accounting's
// LaplacePrivacyLoss), discretised on [⌊−ε₀/h⌋, ⌈ε₀/h⌉].
func laplacePLD(eps0, h float64) pldPair {
	deltaAt := func(eps float64) float64 {
		switch {
		case eps >= eps0:
			return 0
		case eps <= -eps0:
			return -math.Expm1(eps)
		}
		return -math.Expm1((eps - eps0) / 2)
	}
	lo, hi, ok := gridBounds(-eps0, eps0, h)
	if !ok {
		return pldPair{}
	}
	p := connectDots(h, lo, hi, deltaAt)
	return pldPair{p, p}
}

// objPertPLD returns the PLD dominating objective perturbation in both
// directions: the privacy loss ω = c₀ + s²/2 + |N(0, s²)| ([RKW23] Lemma D.3,
// inequality D.4, Lemma D.7), whose profile is ObjPertDelta, discretised on
// [⌊(c₀ + s²/2)/h⌋, ⌈(c₀ + s²/2 + z s)/h⌉] with 2Φ(−z) = e^{−50}.
func objPertPLD(e ObjectivePerturbation, h float64) pldPair {
	s := e.L / e.Sigma
	c := objPertC0(e) + s*s/2
	z := -ndtri(0.5 * math.Exp(logMassTruncation))
	lo, hi, ok := gridBounds(c, c+z*s, h)
	if !ok {
		return pldPair{}
	}
	p := connectDots(h, lo, hi, func(eps float64) float64 { return objPertDelta(e, eps) })
	return pldPair{p, p}
}
