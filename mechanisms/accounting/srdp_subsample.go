package accounting

import (
	"fmt"
	"math"
)

// SRDPSubsampled returns [HSS24] Lemma 2's SRDP bound (amplification by
// subsampling, weak version) for a mechanism A with SRDP curve srdp run on
// B = batch rows drawn uniformly with replacement from n, at order α and
// distance τ, minimised over the integer k:
//
//	ε'(α, τ) = min_{1/B ≤ k ≤ (n−1)/B}  2(1 − (kB−1)/n)^B ε(α, τ/k) + 2(1 − (1 − (kB−1)/n)^B) ε(α, τ)
//
// and the minimising k. The lemma needs ε(α, τ) ≤ 1/(α − 1) (Lemma B, weak
// convexity, with c = 1); it is checked at τ and at every τ/k used, and
// violating it is an error. For B = 1 the bracket is Remark 1's
// (1/k²)(1 − (k−1)/n) + (k−1)/n factor for a curve quadratic in τ.
func SRDPSubsampled(srdp func(alpha, tau float64) (float64, error), alpha, tau float64, n, batch int) (eps float64, k int, err error) {
	switch {
	case srdp == nil:
		return 0, 0, fmt.Errorf("accounting: Lemma 2: the SRDP curve is missing")
	case !(alpha > 1) || math.IsInf(alpha, 1):
		return 0, 0, fmt.Errorf("accounting: Lemma 2: order α = %v, want a finite value > 1", alpha)
	case !finite(tau) || tau < 0:
		return 0, 0, fmt.Errorf("accounting: Lemma 2: τ = %v, want a finite distance ≥ 0", tau)
	case batch < 1:
		return 0, 0, fmt.Errorf("accounting: Lemma 2: batch B = %d, want ≥ 1", batch)
	case n < batch+1:
		return 0, 0, fmt.Errorf("accounting: Lemma 2: n = %d, want ≥ B + 1 = %d (k ranges over 1/B ≤ k ≤ (n−1)/B)", n, batch+1)
	}
	limit := 1 / (alpha - 1)
	full, err := srdp(alpha, tau)
	if err != nil {
		return 0, 0, err
	}
	if !(full <= limit) {
		return 0, 0, fmt.Errorf("accounting: Lemma 2: ε(α = %g, τ = %g) = %g exceeds 1/(α − 1) = %g: the lemma does not apply", alpha, tau, full, limit)
	}
	b, nf := float64(batch), float64(n)
	best, bestK := math.Inf(1), 0
	for kk := 1; kk*batch <= n-1; kk++ { // 1/B ≤ k holds for every integer k ≥ 1
		part, err := srdp(alpha, tau/float64(kk))
		if err != nil {
			return 0, 0, err
		}
		if !(part <= limit) {
			return 0, 0, fmt.Errorf("accounting: Lemma 2: ε(α = %g, τ/k = %g) = %g exceeds 1/(α − 1) = %g: the lemma does not apply", alpha, tau/float64(kk), part, limit)
		}
		w := math.Pow(1-(float64(kk)*b-1)/nf, b)
		v := 2*w*part + 2*(1-w)*full
		if v < best {
			best, bestK = v, kk
		}
	}
	return best, bestK, nil
}
