package accounting

import "math"

// Numerical helpers in log space. Every function here is exact in exact
// arithmetic and chosen so that float64 keeps full relative precision where
// the accountants need it (tiny sampling rates, huge orders, tiny δ).

const (
	ln2       = math.Ln2
	lnSqrt2Pi = 0.91893853320467274178032973640561763986139747363778 // log(√(2π))
)

// minNormal is the smallest normal float64, 2^−1022.
const minNormal = 0x1p-1022

// logPos returns log x for x ≥ 0, correct for subnormal x (below 2^−1022,
// such as δ = 1e-320). Go's math.Log on amd64 and s390x (assembly) reads a
// subnormal's exponent field as if the number were normal and returns about
// −709.09 for every x < 2^−1022 (log(1e-320) = −736.83, not −709.09;
// golang/go#56600), which made the RDP conversion's −log(δ)/(α − 1)
// too small. A subnormal is scaled by 2^64 first (exactly).
func logPos(x float64) float64 {
	if x > 0 && x < minNormal {
		return math.Log(x*0x1p64) - 64*ln2
	}
	return math.Log(x)
}

// logRatio returns log(c/x) for c ≥ 1 and x ∈ (0, 1]: math.Log(c/x) where
// x is normal and c/x finite, else log c − log x (c/x overflows to +Inf for
// x below c/MaxFloat64, and logPos is right for a subnormal x).
func logRatio(c, x float64) float64 {
	if r := c / x; x >= minNormal && !math.IsInf(r, 1) {
		return math.Log(r)
	}
	return math.Log(c) - logPos(x)
}

// logAdd returns log(exp(a) + exp(b)).
func logAdd(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// log1mExp returns log(1 − exp(x)) for x ≤ 0, accurately for x near 0 and
// for very negative x (Mächler 2012, "Accurately computing log(1 − exp(−|a|))").
func log1mExp(x float64) float64 {
	if x > -ln2 {
		return math.Log(-math.Expm1(x))
	}
	return math.Log1p(-math.Exp(x))
}

// log1pExp returns log(1 + exp(x)) without overflow.
func log1pExp(x float64) float64 {
	if x > 35 {
		return x + math.Exp(-x)
	}
	return math.Log1p(math.Exp(x))
}

// logExpm1 returns log(exp(x) − 1) for x > 0.
func logExpm1(x float64) float64 {
	if x < 1 {
		return math.Log(math.Expm1(x))
	}
	return x + math.Log1p(-math.Exp(-x))
}

// logNdtr returns log Φ(x), the log of the standard normal CDF, with full
// relative precision for every x (including x ≪ 0, where Φ underflows).
//
//	x ≥ −30: log(erfc(−x/√2)/2); for x > 0 via log1p(−erfc(x/√2)/2)
//	x < −30: the asymptotic series Φ(x) = φ(x)/|x|·(1 − 1/x² + 3/x⁴ − …)
//
// (Abramowitz & Stegun 26.2.12; the series error at x = −30 with eight terms
// is below 1e-20.)
func logNdtr(x float64) float64 {
	switch {
	case x > 0:
		return math.Log1p(-0.5 * math.Erfc(x/math.Sqrt2))
	case x >= -30:
		return math.Log(0.5 * math.Erfc(-x/math.Sqrt2))
	}
	x2 := x * x
	term, sum := 1.0, 1.0
	for k := 1; k <= 8; k++ {
		term *= -float64(2*k-1) / x2
		sum += term
	}
	return -0.5*x2 - lnSqrt2Pi - math.Log(-x) + math.Log(sum)
}

// ndtri returns Φ⁻¹(p) for p ∈ (0, 1): Newton's method on log Φ(z) = log p
// (accurate for p down to the smallest float64), started from the tail
// asymptote z ≈ −√(−2 log p) or from 0.
func ndtri(p float64) float64 {
	if p == 0.5 {
		return 0
	}
	if p > 0.5 {
		return -ndtri(1 - p)
	}
	lp := logPos(p)
	z := 0.0
	if p < 0.1 {
		z = -math.Sqrt(-2 * lp)
	}
	for i := 0; i < 100; i++ {
		lf := logNdtr(z)
		// d/dz log Φ(z) = φ(z)/Φ(z)
		g := math.Exp(-0.5*z*z - lnSqrt2Pi - lf)
		step := (lf - lp) / g
		z -= step
		if math.Abs(step) < 1e-15*math.Max(1, math.Abs(z)) {
			break
		}
	}
	return z
}
