package accounting

import "math"

// Double-word ("double-double") arithmetic: a value hi + lo held as two
// float64 with |lo| ≤ ulp(hi)/2, about 106 bits ([JMP17]). The PLD
// accountant's precise spectra (pld_precise.go) use it where float64's
// rounding, amplified by the count of a self-composed part, would dominate
// the error bounds. The relative error of each operation is bounded by a
// few u² (u = 2^−53); the callers charge 64u² per operation, which covers
// every bound below with room to spare.

// dword is the double-word value hi + lo.
type dword struct{ hi, lo float64 }

// twoSum returns s = fl(a + b) and the exact error e = a + b − s
// (Knuth's TwoSum, [JMP17] Alg. 2).
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

// fastTwoSum is twoSum for |a| ≥ |b| (or a = 0) ([JMP17] Alg. 1).
func fastTwoSum(a, b float64) (s, e float64) {
	s = a + b
	return s, b - (s - a)
}

// twoProd returns p = fl(a·b) and the exact error a·b − p, by a fused
// multiply-add ([JMP17] Alg. 3).
func twoProd(a, b float64) (p, e float64) {
	p = a * b
	return p, math.FMA(a, b, -p)
}

// add returns x + y ([JMP17] Alg. 6, AccurateDWPlusDW: relative error
// ≤ 3u² + 13u³).
func (x dword) add(y dword) dword {
	sh, sl := twoSum(x.hi, y.hi)
	th, tl := twoSum(x.lo, y.lo)
	vh, vl := fastTwoSum(sh, sl+th)
	zh, zl := fastTwoSum(vh, tl+vl)
	return dword{zh, zl}
}

// neg returns −x.
func (x dword) neg() dword { return dword{-x.hi, -x.lo} }

// mul returns x·y ([JMP17] Alg. 12, DWTimesDW3: relative error ≤ 5u²).
func (x dword) mul(y dword) dword {
	ch, cl1 := twoProd(x.hi, y.hi)
	tl1 := math.FMA(x.hi, y.lo, x.lo*y.lo)
	cl2 := math.FMA(x.lo, y.hi, tl1)
	zh, zl := fastTwoSum(ch, cl1+cl2)
	return dword{zh, zl}
}

// mulF returns x·y for a float64 y ([JMP17] Alg. 9, DWTimesFP3: relative
// error ≤ 2u²).
func (x dword) mulF(y float64) dword {
	ch, cl1 := twoProd(x.hi, y)
	zh, zl := fastTwoSum(ch, math.FMA(x.lo, y, cl1))
	return dword{zh, zl}
}

// float returns hi + lo rounded to float64 (relative error ≤ u).
func (x dword) float() float64 { return x.hi + x.lo }

// cdword is a complex double-word value.
type cdword struct{ re, im dword }

// mul returns z·w. Each component is a sum of two products of
// double-words: its error is at most 8u² (|Re z Re w| + |Im z Im w|) (or
// the like), so |error| ≤ 16u²|z||w|.
func (z cdword) mul(w cdword) cdword {
	return cdword{
		re: z.re.mul(w.re).add(z.im.mul(w.im).neg()),
		im: z.re.mul(w.im).add(z.im.mul(w.re)),
	}
}

// add returns z + w (|error| ≤ 4u²(|z| + |w|)).
func (z cdword) add(w cdword) cdword { return cdword{z.re.add(w.re), z.im.add(w.im)} }

// complex returns z rounded to complex128 (each component to u).
func (z cdword) complex() complex128 { return complex(z.re.float(), z.im.float()) }

// pow returns z^k by binary powering: at most 2 log₂ k products, an error
// made at a squaring raised with the rest, so the relative error is at
// most 16u²·2k (cf. powComplex).
func (z cdword) pow(k int) cdword {
	acc := cdword{re: dword{1, 0}}
	for e := k; ; {
		if e&1 == 1 {
			acc = acc.mul(z)
		}
		e >>= 1
		if e == 0 {
			break
		}
		z = z.mul(z)
	}
	return acc
}

// twoPiDW is 2π as a double-word (6.283185307179586 + 2.4492935982947064e-16).
var twoPiDW = dword{6.283185307179586, 2.4492935982947064e-16}

// twiddleDW returns e^{−2πi m/n} (n a power of two ≥ 4) as a double-word,
// within 64u² of it: the angle is reduced exactly to ψ = 2π r/n ∈ [0, π/4]
// by the symmetries of the quadrants and octants (r/n is exact in
// float64), and cos ψ and sin ψ are summed from their Taylor series in
// double-word arithmetic until the terms fall below 2^−110 (ψ ≤ π/4: about
// 14 terms each, every term within a few u² relatively).
func twiddleDW(m int64, n int) cdword {
	nn := int64(n)
	r := ((m % nn) + nn) % nn
	quarter := nn / 4
	q, rem := r/quarter, r%quarter
	swap := false
	if 2*rem > quarter {
		rem, swap = quarter-rem, true
	}
	psi := twoPiDW.mulF(float64(rem) / float64(n))
	c, s := sinCosDW(psi)
	if swap {
		c, s = s, c
	}
	// e^{−iφ} with φ = q·π/2 + ψ (or q·π/2 + π/2 − ψ when swapped):
	// cos φ − i sin φ, rotated by −i per quadrant.
	z := cdword{re: c, im: s.neg()}
	for range q {
		z = cdword{re: z.im, im: z.re.neg()}
	}
	return z
}

// sinCosDW returns cos ψ and sin ψ for 0 ≤ ψ ≤ π/4 by their Taylor series.
func sinCosDW(psi dword) (c, s dword) {
	x2 := psi.mul(psi)
	c, s = dword{1, 0}, psi
	tc, ts := dword{1, 0}, psi
	for k := 1; k < 40; k++ {
		// tc_k = −tc_{k−1} x²/((2k−1)(2k)), ts_k = −ts_{k−1} x²/((2k)(2k+1)).
		tc = tc.mul(x2).divF(float64((2*k - 1) * (2 * k))).neg()
		ts = ts.mul(x2).divF(float64((2 * k) * (2*k + 1))).neg()
		c, s = c.add(tc), s.add(ts)
		if math.Abs(tc.hi) < 0x1p-110 && math.Abs(ts.hi) < 0x1p-110 {
			break
		}
	}
	return c, s
}

// divF returns x/y for a float64 y ≠ 0 ([JMP17] Alg. 15, DWDivFP3:
// relative error ≤ 3u²).
func (x dword) divF(y float64) dword {
	th := x.hi / y
	ph, pl := twoProd(th, y)
	dh := x.hi - ph
	tl := ((dh - pl) + x.lo) / y
	zh, zl := fastTwoSum(th, tl)
	return dword{zh, zl}
}
