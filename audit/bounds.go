package audit

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"
)

// ClopperPearsonUpper returns the one-sided Clopper–Pearson upper confidence
// bound on a binomial rate after k successes in n trials: the p with
// P[Bin(n, p) ≤ k] = level, i.e. the (1 − level) quantile of Beta(k + 1,
// n − k) ([CP34]; auditing.md §1). It is 1 when k = n, and
// 1 − level^{1/n} when k = 0. The rate lies below it with probability at
// least 1 − level.
func ClopperPearsonUpper(k, n int, level float64) (float64, error) {
	if n <= 0 || k < 0 || k > n {
		return 0, fmt.Errorf("audit: Clopper–Pearson needs 0 ≤ k ≤ n, n > 0; got k = %d, n = %d", k, n)
	}
	if !(level > 0 && level < 1) {
		return 0, fmt.Errorf("audit: Clopper–Pearson level %v outside (0, 1)", level)
	}
	if k == n {
		return 1, nil
	}
	if k == 0 {
		// P[Bin(n, p) = 0] = (1 − p)ⁿ = level.
		return -math.Expm1(math.Log(level) / float64(n)), nil
	}
	// I_p(k+1, n−k) = P[Bin(n, p) ≥ k+1] is increasing in p; find where it
	// reaches 1 − level, by bisection (auditing.md §1: BetaInv by bisection
	// on the regularised incomplete beta function).
	a, b := float64(k+1), float64(n-k)
	target := 1 - level
	lo, hi := 0.0, 1.0
	for i := 0; i < 200 && hi-lo > 1e-15*hi; i++ {
		mid := lo + (hi-lo)/2
		if mathext.RegIncBeta(a, b, mid) < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil // the upper end: conservative
}

// EpsilonLowerBound returns the ε lower bound implied by a test with
// false-positive rate at most alpha and false-negative rate at most beta
// against an (ε, δ)-DP mechanism: the DP inequality on the test's event and
// its complement, in both directions, gives α + e^ε β ≥ 1 − δ and
// β + e^ε α ≥ 1 − δ, so ε ≥ max(log((1−δ−β)/α), log((1−δ−α)/β)), floored at
// 0 ([JUO20] Thm 1; [NST+21] Eq. 4; auditing.md §1). Both terms fall as
// alpha and beta grow, so upper confidence bounds give a lower bound.
func EpsilonLowerBound(alpha, beta, delta float64) float64 {
	eps := 0.0
	if v := logRatio(1-delta-beta, alpha); v > eps {
		eps = v
	}
	if v := logRatio(1-delta-alpha, beta); v > eps {
		eps = v
	}
	return eps
}

// logRatio is log(num/den), −Inf when num ≤ 0 and +Inf when den = 0 < num.
func logRatio(num, den float64) float64 {
	if !(num > 0) {
		return math.Inf(-1)
	}
	if den <= 0 {
		return math.Inf(1)
	}
	return math.Log(num) - math.Log(den)
}
