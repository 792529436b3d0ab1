package accounting

import (
	"math"
)

// Evaluation of a composition from its spectrum, without the inverse
// transform.
//
// The spectrum of a composition of many parts is usually negligible at all
// but a few hundred of its n/2 + 1 frequencies (|ĉ_k|^count underflows for
// a smooth part: for DP-SGD at q = 256/45000, T = 1758, h = 1e-4, 225 of
// 262 145 coefficients exceed 1e-6 of the FFT's own error bound).
// composeTilted then keeps those coefficients only (dropping the others is
// charged: each dropped computed coefficient is at most τ_c, so they move
// the composition by at most τ_c in 2-norm — Parseval, with the inverse
// transform's 1/n — which is added to the 2-norm error bound err2), and
// the sums over the masses above ε that δ(ε) needs are taken by Parseval's
// identity instead of by an inverse transform and a scan of the window:
// with y_j = cyc_{(j+d) mod n} the window's tilted masses (cyc the cyclic
// composition the product of spectra transforms, C_k its coefficients),
//
//	Σ_{j ≥ j₀} y_j g_j = (1/n) Σ_{k=0}^{n−1} C_k conj(G_k),   G_k = Σ_{j ≥ j₀} g_j ω^{(j+d)k},  ω = e^{−2πi/n},
//
// where, above ε, g_j = s_j(1 − e^{ε−L_j}) = a₁ r₁^{j−j₀} − a₂ r₂^{j−j₀} is a
// difference of two geometric sequences (a₁ = s_{j₀} = Z e^{−θ L_{j₀}},
// r₁ = e^{−θh}, a₂ = a₁ e^{ε−L_{j₀}}, r₂ = e^{−(θ+1)h}), so that each G_k
// has the closed form
//
//	G_k = a₁ U₁,k − a₂ U₂,k,   U_{i,k} = (ω^{(j₀+d)k} − r_i^N ω^{dk}) / (1 − r_i ω^k),   N = n − j₀.
//
// C and g are real, so the sum runs over k = 0..n/2 with weight 2 on the
// pairs (k, n − k). A query then costs a few operations per kept
// coefficient; epsilonUpper finds its crossing by bisection instead of a
// walk over the window. The errors are bounded as for the dense path
// (composedPLD.deltaParts): the transform's 2-norm error err2 through
// Cauchy–Schwarz, with ‖g‖₂² ≤ Σ s_j² (1 − e^{ε−L_j}) in closed form
// (squareSum), and the wrapped tails; the evaluation's own rounding
// (spectralSum, and the rounding of a₁ and a₂) replaces that of the dense
// sums.

// spectrum is a composition held as its kept Fourier coefficients.
type spectrum struct {
	plan *fftPlan
	n    int
	d    int          // y_j = cyc_{(j+d) mod n}
	k    []int        // kept frequencies, ascending, in [0, n/2]
	c    []complex128 // their computed coefficients Ĉ_k
	// Per kept frequency, for the two ratios r (index 0: r₁ = e^{−θh},
	// index 1: r₂ = e^{−(θ+1)h}): inv = 1/(1 − r ω^k) (NaN at k = 0 when
	// r = 1) and invAbs an upper bound on its modulus; rot = ω^{dk}.
	inv    [2][]complex128
	invAbs [2][]float64
	rot    []complex128
	r      [2]float64 // r₁, r₂
	a      [2]float64 // θh and (θ+1)h as rounded: r = e^{−a}
	wc     []float64  // w_k |Ĉ_k| (w = 1 at k = 0 and n/2, else 2)
}

// newSpectrum prepares the kept coefficients c (at frequencies ks) of a
// composition at tilt θ on grid h for evaluation.
func newSpectrum(plan *fftPlan, d int, ks []int, c []complex128, theta, h float64) *spectrum {
	n := plan.n
	s := &spectrum{plan: plan, n: n, d: d, k: ks, c: c, rot: make([]complex128, len(ks)), wc: make([]float64, len(ks))}
	s.a = [2]float64{theta * h, (theta + 1) * h}
	for i := range s.r {
		s.r[i] = math.Exp(-s.a[i])
		s.inv[i] = make([]complex128, len(ks))
		s.invAbs[i] = make([]float64, len(ks))
	}
	for j, k := range ks {
		w := 2.0
		if k == 0 || 2*k == n {
			w = 1
		}
		s.wc[j] = w * absC(c[j])
		s.rot[j] = s.twiddle(int64(d) * int64(k))
		// 1 − r ω^k = (1 − r) + 2r sin²(φ/2) + i r sin φ, φ = 2πk/n, with
		// both sines taken at arguments in [0, π/2] (relative error ≤ 9u
		// in each component).
		half := math.Sin(math.Pi * float64(k) / float64(n))
		kk := k
		if 4*k > n {
			kk = n/2 - k
		}
		sphi := math.Sin(2 * math.Pi * float64(kk) / float64(n))
		for i, r := range s.r {
			den := complex(-math.Expm1(-s.a[i])+2*r*half*half, r*sphi)
			m2 := real(den)*real(den) + imag(den)*imag(den)
			if m2 == 0 {
				s.inv[i][j] = complex(math.NaN(), 0)
				continue
			}
			inv := complex(real(den)/m2, -imag(den)/m2)
			s.inv[i][j] = inv
			s.invAbs[i][j] = absC(inv) * (1 + 40*unitRoundoff)
		}
	}
	return s
}

// twiddle returns ω^t = e^{−2πit/n} from the plan's table (exact symmetry:
// the error of the table's entry, ≤ 8u).
func (s *spectrum) twiddle(t int64) complex128 {
	m := int64(s.plan.m)
	t %= int64(s.n)
	if t < m {
		return s.plan.tw[m+t]
	}
	return -s.plan.tw[t]
}

func absC(z complex128) float64 { return math.Hypot(real(z), imag(z)) }

// spectralSum returns, for the window's masses at j ≥ j₀ (j₀ < n),
//
//	v₁ − v₂ = Σ_{j ≥ j₀} ŷ_j (a₁ r₁^{j−j₀} − a₂ r₂^{j−j₀})
//
// for the kept coefficients (ŷ their inverse transform; v₁ the a₁ part,
// v₂ the a₂ part), and errB, a bound on the evaluation's rounding other
// than that of a₁ and a₂ (the caller adds η(|v₁| + |v₂| + errB), η their
// relative error):
//
//   - each U: the numerator's twiddles carry 8u, its product and
//     difference 2u, r^N = e^{−aN} a relative (2aN + 1)u from the rounding
//     of a and of aN; 1/(1 − rω^k) carries ≤ 32u (components to 9u, squared
//     modulus to 20u, quotients) and the product 3u. So
//     |ΔU| ≤ |1/(1 − rω^k)|·(48u(1 + r^N) + (2aN + 1)u r^N). At k = 0 the
//     closed form is the real S_N(r) = (1 − r^N)/(1 − r), taken as
//     expm1(−aN)/expm1(−a) (relative error ≤ 8u; N exactly when r = 1).
//     Summed: rnd = (1/n) Σ_k w_k |Ĉ_k| (a₁|ΔU₁| + a₂|ΔU₂|);
//   - each term w_k Re(Ĉ_k conj(a U)), given U: 4u of |Ĉ_k| a|U|, summed
//     over k: 4u·mag, mag = (1/n) Σ_k w_k |Ĉ_k| (a₁|U₁| + a₂|U₂|);
//   - the sums, compensated (Neumaier's, [ORO05] Sum2): u|v_i| +
//     γ_K² mag, γ_K = Ku/(1 − Ku).
//
// A lumpy composition's terms cancel to many orders (mag/|v₁ − v₂| up to
// 1e7 at tiny q): plain summation would charge Ku·mag.
func (s *spectrum) spectralSum(j0 int, a1, a2 float64) (v1, v2, errB float64) {
	N := s.n - j0
	fN := float64(N)
	var rN, eN [2]float64
	for i := range s.r {
		rN[i] = math.Exp(-s.a[i] * fN)
		eN[i] = 48*unitRoundoff*(1+rN[i]) + (2*s.a[i]*fN+1)*unitRoundoff*rN[i]
	}
	amp := [2]float64{a1, a2}
	var sum, comp [2]float64
	var mag, rnd float64
	for j, k := range s.k {
		z := s.twiddle((int64(j0) + int64(s.d)) * int64(k))
		w := 2.0
		if k == 0 || 2*k == s.n {
			w = 1
		}
		cm := s.wc[j]
		for i := range s.r {
			if amp[i] == 0 {
				continue
			}
			var u complex128
			var um, ue float64
			if k == 0 {
				// ω^0 = 1 exactly: the real geometric sum.
				if s.a[i] == 0 {
					u, um = complex(fN, 0), fN
				} else {
					v := math.Expm1(-s.a[i]*fN) / math.Expm1(-s.a[i])
					u, um, ue = complex(v, 0), v, 8*unitRoundoff*v
				}
			} else {
				u = (z - complex(rN[i], 0)*s.rot[j]) * s.inv[i][j]
				ue = s.invAbs[i][j] * eN[i]
				um = absC(u) + ue
			}
			g := complex(amp[i], 0) * u
			x := w * (real(s.c[j])*real(g) + imag(s.c[j])*imag(g))
			sum[i], comp[i] = neumaierAdd(sum[i], comp[i], x)
			mag += cm * amp[i] * um
			rnd += cm * amp[i] * ue
		}
	}
	inv := 1 / float64(s.n)
	v1, v2 = (sum[0]+comp[0])*inv, (sum[1]+comp[1])*inv
	mag *= inv * (1 + 4*unitRoundoff)
	rnd *= inv * (1 + 4*unitRoundoff)
	gK := float64(len(s.k)) * unitRoundoff
	gK /= 1 - gK
	errB = (rnd + 4*unitRoundoff*mag + unitRoundoff*(math.Abs(v1)+math.Abs(v2)) + gK*gK*mag) * (1 + 8*unitRoundoff)
	return v1, v2, errB
}

// geometricSum returns an upper bound on S_N(e^{−a}) = Σ_{i<N} e^{−ai}
// (a ≥ 0 as rounded, the bound allowing for its rounding): expm1(−aN)/expm1(−a),
// relative error ≤ 7u.
func geometricSum(a float64, N int) float64 {
	if a == 0 || N == 0 {
		return float64(N)
	}
	return math.Expm1(-a*float64(N)) / math.Expm1(-a) * (1 + 8*unitRoundoff)
}

// squareSum returns an upper bound on Σ_{j ≥ j₀} s_j² (1 − e^{ε−L_j}) =
// a₁² Σ_{i<N} x^i (1 − c e^{−ih}), x = e^{−2θh}, c = e^{ε−L_{j₀}} (1 − c is
// oneMinusC): a₁² ((1 − c) S_N(x) + c Δ) with Δ = Σ_{i<N} x^i (1 − e^{−ih}) ≤
// min(S_N(x), x(1 − e^{−h})/((1 − x)(1 − x e^{−h}))) (the infinite sum, for x < 1).
func (s *spectrum) squareSum(N int, a1, oneMinusC, c, h float64) float64 {
	x2 := 2 * s.a[0]
	sx := geometricSum(x2, N)
	delta := sx
	if x2 > 0 {
		em := -math.Expm1(-h)
		inf := math.Exp(-x2) * em / (-math.Expm1(-x2) * -math.Expm1(-x2-h)) * (1 + 16*unitRoundoff)
		delta = math.Min(delta, inf)
	}
	return a1 * a1 * (oneMinusC*sx + c*delta) * (1 + 16*unitRoundoff)
}

// firstAbove returns the smallest window index j with loss(j) > ε (n when
// there is none).
func (c *composedPLD) firstAbove(eps float64) int {
	n := c.size()
	switch {
	case !(eps < c.loss(n-1)):
		return n
	case eps < c.loss(0):
		return 0
	}
	j := int(math.Floor(eps/c.h)) - c.lower + 1
	j = min(max(j, 1), n-1)
	for j > 0 && c.loss(j-1) > eps {
		j--
	}
	for j < n && c.loss(j) <= eps {
		j++
	}
	return j
}

// spectralParts is deltaParts for a composition held as a spectrum (same
// definitions; the rounding bound is the FFT's 2-norm bound through
// Cauchy–Schwarz plus the evaluation's own, spectralSum).
func (c *composedPLD) spectralParts(eps float64) (dhat, eRound, eAlias float64) {
	s := c.spec
	j0 := c.firstAbove(eps)
	if j0 == s.n {
		return 0, 0, 0
	}
	L0 := c.loss(j0)
	// a₁ = Z e^{−θ L₀} and a₂ = a₁ e^{ε−L₀}: the exponents' rounding
	// (relative u on each product and sum) moves them by η.
	x1, x2 := c.logZ-c.theta*L0, eps-L0
	a1 := math.Exp(x1)
	cc := math.Exp(x2)
	a2 := a1 * cc
	eta := (2*math.Abs(x1) + 2*math.Abs(c.theta*L0) + 2*math.Abs(x2) + 2*math.Abs(L0) + 8) * unitRoundoff
	v1, v2, errB := s.spectralSum(j0, a1, a2)
	N := s.n - j0
	v := s.squareSum(N, a1*(1+eta), -math.Expm1(x2), cc, c.h)
	eRound = (c.err2*math.Sqrt(v) + errB + eta*(math.Abs(v1)+math.Abs(v2)+errB)) * (1 + 4*unitRoundoff)
	eAlias = c.err1 * a1 * (1 + eta)
	dhat = v1 - v2
	eRound += unitRoundoff * math.Abs(dhat)
	if j0 == 0 {
		// ε is below the window: the mass not in it sits at loss(0) or
		// below (as deltaParts).
		in, _, errIn := s.spectralSum(0, a1, 0)
		sq := a1 * a1 * (1 + 2*eta) * geometricSum(2*s.a[0], s.n)
		inErr := c.err2*math.Sqrt(sq) + errIn + eta*(math.Abs(in)+errIn)
		below := math.Max(0, 1-c.inf-in) + inErr + c.err1*a1*(1+eta)
		dhat += below * -math.Expm1(eps-c.loss(0))
	}
	return dhat, eRound, eAlias
}

// spectralEpsilon is epsilonUpper for a composition held as a spectrum: a
// bisection over the grid losses for an interval [L_{k−1}, L_k] whose top
// is certified (δ_U(L_k) ≤ δ) and whose bottom is not, then over ε inside
// it. Every ε it returns is certified where it stands (δ_U is evaluated
// there, with its error bounds); when δ_U is not monotone (rounding) it
// may be another crossing than the highest, which is still a valid bound.
func (c *composedPLD) spectralEpsilon(delta float64) (eps float64, inside bool, eRound, eAlias float64) {
	base := c.inf + c.tailHi
	if base > delta {
		return math.Inf(1), true, 0, 0
	}
	du := c.deltaUpper // through deltaParts, this composition's spectralParts
	n := c.size()
	at := func(j int) float64 { return math.Max(0, c.loss(j)) }
	// The window's top loss is certified: nothing finite lies above it.
	good := n - 1
	if du(at(0)) <= delta {
		eps, inside = at(0), c.loss(0) <= 0
		_, eRound, eAlias = c.spectralParts(eps)
		return eps, inside, eRound, eAlias
	}
	bad := 0
	for good-bad > 1 {
		mid := int(uint(good+bad) >> 1)
		if du(at(mid)) <= delta {
			good = mid
		} else {
			bad = mid
		}
	}
	eps = bisectCertified(at(bad), at(good), func(e float64) bool { return du(e) <= delta })
	_, eRound, eAlias = c.spectralParts(eps)
	return eps, true, eRound, eAlias
}
