package accounting

import (
	"math"
	"math/cmplx"

	"gonum.org/v1/gonum/dsp/fourier"
)

// pmf is a pessimistic discretised privacy-loss distribution (PLD): mass
// probs[i] at the loss (lower + i)·h and mass inf at +∞. δ computed from it
// upper-bounds the δ of the mechanism it was built from ([DGK+22] Thm 3.1 for
// connect-the-dots; rounding and truncation only move mass to larger
// losses).
type pmf struct {
	h     float64
	lower int
	probs []float64
	inf   float64
}

// identityPMF is the PLD of a mechanism that reveals nothing.
func identityPMF(h float64) *pmf { return &pmf{h: h, probs: []float64{1}} }

// isIdentity reports whether p is the identity PLD.
func (p *pmf) isIdentity() bool {
	return p.inf == 0 && p.lower == 0 && len(p.probs) == 1 && p.probs[0] == 1
}

// tailTruncation is the probability mass that composition may move to +∞
// when it truncates the grid (dp_accounting's default, 1e-15).
const tailTruncation = 1e-15

// delta returns δ(ε) = inf + Σ_{loss > ε} (1 − e^{ε − loss}) p(loss).
func (p *pmf) delta(eps float64) float64 {
	d := p.inf
	for i := len(p.probs) - 1; i >= 0; i-- {
		loss := float64(p.lower+i) * p.h
		if loss <= eps {
			break
		}
		d += -math.Expm1(eps-loss) * p.probs[i]
	}
	return math.Min(d, 1)
}

// epsilon returns the smallest ε ≥ 0 with delta(ε) ≤ δ (+Inf when the mass
// at +∞ exceeds δ), by dp_accounting's _get_epsilon_for_delta: scanning
// losses from the top, δ(ε) = M_u − e^ε M_l on the interval where the sums
// M_u = inf + Σ p and M_l = Σ p e^{−loss} over losses > ε are constant.
func (p *pmf) epsilon(delta float64) float64 {
	if p.inf > delta {
		return math.Inf(1)
	}
	up, low := p.inf, 0.0
	for i := len(p.probs) - 1; i >= 0; i-- {
		loss := float64(p.lower+i) * p.h
		if up > delta && low > 0 && math.Log((up-delta)/low) >= loss {
			break
		}
		up += p.probs[i]
		low += math.Exp(-loss) * p.probs[i]
		if up >= delta && low == 0 {
			return math.Max(0, loss)
		}
	}
	if up <= low+delta {
		return 0
	}
	return math.Max(0, math.Log((up-delta)/low))
}

// nextFastLen returns the smallest n ≥ m of the form 2^a 3^b 5^c whose
// factorisation fits gonum's FFTPACK port (factors 4, 2, 3, 5 in a table of
// 13: ⌊a/2⌋ + (a mod 2) + b + c ≤ 13; larger factor counts panic there).
func nextFastLen(m int) int {
	if m <= 1 {
		return 1
	}
	best := math.MaxInt
	for p5, c := 1, 0; p5 < 2*m; p5, c = p5*5, c+1 {
		for p35, b := p5, c; p35 < 2*m; p35, b = p35*3, b+1 {
			n, a := p35, 0
			for n < m {
				n *= 2
				a++
			}
			if a/2+a%2+b <= 13 && n < best {
				best = n
			}
		}
	}
	return best
}

// fftPower returns the cyclic n-fold self-convolution of x (zero-padded to
// length size): IFFT(FFT(x)^n). Coefficients are raised to the n-th power
// in polar form, exp(n log|c|) e^{i n arg c}.
func fftPower(x []float64, size, n int) []float64 {
	ft := fourier.NewFFT(size)
	buf := make([]float64, size)
	copy(buf, x)
	coef := ft.Coefficients(nil, buf)
	fn := float64(n)
	for i, c := range coef {
		r := cmplx.Abs(c)
		if r == 0 {
			continue
		}
		m := math.Exp(fn * math.Log(r))
		if m < 1e-300 {
			coef[i] = 0
			continue
		}
		th := math.Mod(fn*cmplx.Phase(c), 2*math.Pi)
		s, co := math.Sincos(th)
		coef[i] = complex(m*co, m*s)
	}
	out := ft.Sequence(nil, coef)
	inv := 1 / float64(size)
	for i := range out {
		out[i] *= inv
	}
	return out
}

// fftConvolve returns the linear convolution of a and b by FFT.
func fftConvolve(a, b []float64) []float64 {
	n := len(a) + len(b) - 1
	size := nextFastLen(n)
	ft := fourier.NewFFT(size)
	pa := make([]float64, size)
	copy(pa, a)
	ca := ft.Coefficients(nil, pa)
	pb := make([]float64, size)
	copy(pb, b)
	cb := ft.Coefficients(nil, pb)
	for i := range ca {
		ca[i] *= cb[i]
	}
	out := ft.Sequence(nil, ca)[:n]
	inv := 1 / float64(size)
	for i := range out {
		out[i] *= inv
	}
	return out
}

// clampNonNegative sets the tiny negative values that FFT round-off leaves
// in a probability vector to 0 (a negative mass would lower δ).
func clampNonNegative(x []float64) {
	for i, v := range x {
		if v < 0 {
			x[i] = 0
		}
	}
}

// selfConvolveBounds returns a window [lo, hi] (in grid steps of the n-fold
// sum) outside which the n-fold convolution of probs has mass at most tail,
// by the Chernoff bound P[S ≥ s] ≤ e^{−ts} E[e^{tX}]^n at the orders
// t = ±j/len(probs), j = 1..20 (dp_accounting's
// compute_self_convolve_bounds).
func selfConvolveBounds(probs []float64, n int, tail float64) (lo, hi int) {
	L := len(probs)
	lo, hi = 0, (L-1)*n
	if tail == 0 {
		return lo, hi
	}
	// E[e^{tX}] at t = ±j/L for j = 1..20: powers of e^{±i/L} accumulated
	// term by term (no overflow: i/L ≤ 1, j ≤ 20).
	var mgfPos, mgfNeg [21]float64
	for i, p := range probs {
		if p == 0 {
			continue
		}
		u := math.Exp(float64(i) / float64(L))
		wp, wn := p, p
		for j := 1; j <= 20; j++ {
			wp *= u
			wn /= u
			mgfPos[j] += wp
			mgfNeg[j] += wn
		}
	}
	fn := float64(n)
	c := math.Log(2 / tail)
	for j := 1; j <= 20; j++ {
		t := float64(j) / float64(L)
		if b := (fn*math.Log(mgfPos[j]) + c) / t; finite(b) {
			hi = min(hi, int(math.Ceil(b)))
		}
		if b := (fn*math.Log(mgfNeg[j]) + c) / -t; finite(b) {
			lo = max(lo, int(math.Floor(b)))
		}
	}
	return lo, hi
}

// selfCompose returns the PLD of n-fold adaptive composition of p: the
// n-fold convolution on the Chernoff window, computed by FFT, with the mass
// outside the window (≤ tailTruncation) charged to +∞ (dp_accounting's
// DensePLDPmf.self_compose).
func (p *pmf) selfCompose(n int) *pmf {
	if n == 1 {
		return p
	}
	lo, hi := selfConvolveBounds(p.probs, n, tailTruncation)
	return p.selfComposeOn(n, lo, hi)
}

// selfComposeOn is selfCompose on a given Chernoff window [lo, hi].
func (p *pmf) selfComposeOn(n, lo, hi int) *pmf {
	if n == 1 {
		return p
	}
	outLen := hi - lo + 1
	size := nextFastLen(max(outLen, len(p.probs)))
	conv := fftPower(p.probs, size, n)
	out := make([]float64, outLen)
	for k := range out {
		out[k] = conv[((k+lo)%size+size)%size]
	}
	clampNonNegative(out)
	inf := tailTruncation - math.Expm1(float64(n)*math.Log1p(-p.inf))
	return &pmf{h: p.h, lower: p.lower*n + lo, probs: out, inf: math.Min(inf, 1)}
}

// compose returns the PLD of the adaptive composition of p and q (linear
// convolution by FFT), truncating each tail to mass ≤ tailTruncation/2: the
// lower tail's mass moves to the first kept loss, the upper tail's to +∞
// (dp_accounting's DensePLDPmf.compose with _truncate_tails).
func (p *pmf) compose(q *pmf) *pmf {
	if p.isIdentity() {
		return q
	}
	if q.isIdentity() {
		return p
	}
	probs := fftConvolve(p.probs, q.probs)
	clampNonNegative(probs)
	inf := p.inf + q.inf - p.inf*q.inf
	// truncate tails
	half := tailTruncation / 2
	left, s := 0, 0.0
	for left < len(probs) && s+probs[left] <= half {
		s += probs[left]
		left++
	}
	right, r := len(probs), 0.0
	for right > left+1 && r+probs[right-1] <= half {
		r += probs[right-1]
		right--
	}
	kept := append([]float64(nil), probs[left:right]...)
	kept[0] += s
	return &pmf{h: p.h, lower: p.lower + q.lower + left, probs: kept, inf: math.Min(inf+r, 1)}
}

// connectDots returns the pessimistic connect-the-dots PLD whose support is
// the grid losses i·h, i = lo..hi, plus +∞, from the mechanism's δ(ε) at
// those losses ([DGK+22] Alg. 1 with equal gaps, as dp_accounting's
// create_pmf_pessimistic_connect_dots_fixed_gap): with d = h,
//
//	p_lo = 1 − δ_lo + (δ_{lo+1} − δ_lo)/(e^d − 1)
//	p_i  = ((δ_{i+1} − δ_i) − e^d (δ_i − δ_{i−1}))/(e^d − 1)
//	p_hi = (δ_hi − δ_{hi−1})/(e^{−d} − 1),        mass at +∞ = δ_hi.
//
// deltas are first made non-increasing (running minimum) and negative
// masses (round-off) are set to 0.
func connectDots(h float64, lo, hi int, deltaAt func(eps float64) float64) *pmf {
	n := hi - lo + 1
	deltas := make([]float64, n)
	for i := range deltas {
		d := math.Max(0, math.Min(1, deltaAt(float64(lo+i)*h)))
		if i > 0 && d > deltas[i-1] {
			d = deltas[i-1]
		}
		deltas[i] = d
	}
	if n == 1 {
		return &pmf{h: h, lower: lo, probs: []float64{1 - deltas[0]}, inf: deltas[0]}
	}
	em1 := math.Expm1(h)
	ed := math.Exp(h)
	probs := make([]float64, n)
	probs[0] = 1 - deltas[0] + (deltas[1]-deltas[0])/em1
	for i := 1; i < n-1; i++ {
		probs[i] = ((deltas[i+1] - deltas[i]) - ed*(deltas[i]-deltas[i-1])) / em1
	}
	probs[n-1] = (deltas[n-1] - deltas[n-2]) / math.Expm1(-h)
	clampNonNegative(probs)
	return &pmf{h: h, lower: lo, probs: probs, inf: deltas[n-1]}
}
