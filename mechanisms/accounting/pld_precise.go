package accounting

import "math"

// Precise spectra: the kept coefficients of a composition (pld_spectral.go)
// computed to about 2^−100 instead of the FFT's 2ε_F ≈ 700u.
//
// A part composed n times carries its spectrum's error into the composition
// multiplied by n (|ĉ^n − c^n| ≤ n e max(|ĉ|, |c|)^{n−1}, partBound), and
// the powering's own rounding grows as n too. For a rarely sampled
// mechanism over many steps (q = 1e-5, σ = 1, T = 10^5) the composition's
// relative error, n·(2ε_F + (π+1)u) ≈ 10^−8, is what the rounding bound
// charges to δ, and the tilt cannot shrink it: the tilted composition is a
// compound-Poisson pile, whose upper tail does not let the tilt grow to the
// saddle point of ε without a window longer than 2^22 points, so at ε the
// tilted masses are 10^−5 of their peak and the error, spread over the
// window, is not. The precise coefficients remove the factor: each part's
// tilted masses are split into a core, the shortest run of grid points
// around the largest mass that holds all but preciseTail of them (at most
// maxCore points), and the rest; the rest is transformed by the FFT as
// usual (its error 2ε_F times its mass, coefficientError), the core's
// transform is summed at the kept frequencies in double-word arithmetic
// (dword.go) with double-word twiddles, and the powers and the product are
// taken in double-word arithmetic too, rounded to float64 once at the end.
// The error bound then is n·(2ε_F·preciseTail + O(c u²)) + u relative: at
// n = 10^5, about 10^−12.

// preciseTail is the largest mass (of 1) a precise part leaves outside its
// core, and maxCore the longest core, in grid points.
const (
	preciseTail = 1e-5
	maxCore     = 2048
)

// preciseCoefficients returns the transform of w (length ≤ n, not folded) at
// the frequencies ks as double-words, with a bound on every coefficient's
// error, or nil when w is longer than n (a folded part keeps its FFT
// coefficients).
func preciseCoefficients(plan *fftPlan, w []float64, ks []int) ([]cdword, float64) {
	n := plan.n
	if len(w) > n || len(w) == 0 {
		return nil, 0
	}
	// The core: from the largest mass, grow towards the larger neighbour
	// while more than preciseTail lies outside.
	total := 0.0
	top := 0
	for i, v := range w {
		total += v
		if v > w[top] {
			top = i
		}
	}
	lo, hi := top, top+1
	inside := w[top]
	for total-inside > preciseTail*total && hi-lo < maxCore {
		switch {
		case lo == 0 && hi == len(w):
		case lo == 0 || (hi < len(w) && w[hi] >= w[lo-1]):
			inside += w[hi]
			hi++
			continue
		default:
			lo--
			inside += w[lo]
			continue
		}
		break
	}
	// The rest, transformed as usual.
	rest := spectrumBuffer(plan.m + 1)
	defer releaseSpectrumBuffer(rest)
	tail := make([]float64, len(w))
	copy(tail, w)
	var l1Tail, sqTail, l1Core float64
	for i := range tail {
		if i >= lo && i < hi {
			l1Core += tail[i]
			tail[i] = 0
			continue
		}
		l1Tail += tail[i]
		sqTail += tail[i] * tail[i]
	}
	l1Tail *= 1 + float64(len(w))*unitRoundoff
	l1Core *= 1 + float64(len(w))*unitRoundoff
	rest = plan.forwardInto(rest, tail)
	eTail := coefficientError(n, l1Tail, math.Sqrt(sqTail)*(1+float64(len(w))*unitRoundoff))
	// The core, by Horner's rule from its last point:
	// Σ_i w_{lo+i} ω^{(lo+i)k} = ω^{lo·k} Σ_i w_{lo+i} z^i, z = ω^k. The
	// twiddles are within 64u² each, and z's error reaches z^i multiplied
	// by i ≤ c; each step's product and sum add 20u² of a partial sum of at
	// most the core's mass (|z| = 1).
	c := float64(hi - lo)
	u2 := unitRoundoff * unitRoundoff
	eCore := (100*c+100)*u2*l1Core + 8*u2*(l1Core+l1Tail+eTail)
	out := make([]cdword, len(ks))
	for j, k := range ks {
		z := twiddleDW(int64(k), n)
		var acc cdword
		for i := hi - 1; i >= lo; i-- {
			acc = acc.mul(z)
			acc.re = acc.re.add(dword{w[i], 0})
		}
		acc = acc.mul(twiddleDW(int64(lo)*int64(k), n))
		r := rest[k]
		out[j] = acc.add(cdword{dword{real(r), 0}, dword{imag(r), 0}})
	}
	return out, eTail + eCore
}

// multiplyPrecise is multiply at the kept frequencies ks with the parts'
// coefficients from preciseCoefficients where it gives them (exact to
// their bounds e, powered and multiplied in double-word arithmetic), and
// from spectra elsewhere. pb's bounds for the precise parts are replaced
// by ones with their e and the double-word rounding.
func (pb *productBound) multiplyPrecise(plan *fftPlan, spectra [][]complex128, tt []tiltedTerm, ks []int, out []complex128) (sq float64) {
	n := plan.n
	u2 := unitRoundoff * unitRoundoff
	prec := make([][]cdword, len(tt))
	parts := append([]partBound(nil), pb.parts...)
	nTot := 0
	for i, t := range tt {
		nTot += t.count
		cs, e := preciseCoefficients(plan, t.w, ks)
		if cs == nil {
			continue
		}
		prec[i] = cs
		parts[i] = newPartBound(t.count, e, t.norm1)
		// |fl(p)| against |v|^n: the power's 32u²·n, the final rounding's u
		// and the modulus's 2u.
		parts[i].rho = 4*unitRoundoff + 64*u2*float64(t.count)
	}
	// The product of double-word powers, rounded once: u, and 32u² per
	// product and per unit of count for the double-word powers.
	rho := pb.rho
	allPrecise := true
	for i := range tt {
		allPrecise = allPrecise && prec[i] != nil
	}
	if allPrecise {
		rho = 2*unitRoundoff + 64*u2*float64(nTot+len(tt))
	}
	for j, k := range ks {
		var c cdword
		e := productErr{prod: 1}
		for i, t := range tt {
			var v complex128
			var p cdword
			if prec[i] != nil {
				p = prec[i][j].pow(t.count)
				v = prec[i][j].complex()
			} else {
				v = spectra[i][k]
				pc := powComplex(v, t.count)
				p = cdword{dword{real(pc), 0}, dword{imag(pc), 0}}
			}
			e.add(parts[i].at(v, p.complex()))
			if i == 0 {
				c = p
			} else {
				c = c.mul(p)
			}
		}
		out[j] = c.complex()
		d := e.bound(rho)
		sq += freqWeight(k, n) * d * d
	}
	return sq
}
