package accounting

import (
	"math"
	"sync"
)

// Composition of discretised PLDs with a rounding error that is bounded and
// charged to δ.
//
// The PLD of an adaptive composition is the convolution of its parts'
// PLDs ([KJPH21]; [DGK+22]), computed here as one product of FFTs. In plain
// floating point this has a noise floor: each output mass carries an
// absolute error of about n·u (u = 2^−53, n the number of composed parts),
// which swamps the masses that δ ≤ 1e-10 is made of at the top of the loss
// range. dplab composes *exponentially tilted* PLDs instead: with θ ≥ 0,
//
//	w_i = p_i e^{θ L_i} / Z(θ),    Z(θ) = Σ_i p_i e^{θ L_i},
//
// the tilt of a convolution is the convolution of the tilts, so the
// composition's masses are p_j = w_j Z_tot e^{−θ L_j} with Z_tot the product
// of the parts' Z(θ)^count. Choosing θ where the tilted composition is
// centred at the ε being asked for (the saddle point of the Chernoff bound,
// the PLD twin of the optimal RDP order α* = θ + 1) puts the masses that
// make up δ(ε) where the FFT is accurate, and the factor e^{−θ L_j} shrinks
// the FFT's error above ε exponentially. The error of the tilted vector is
// bounded in 2-norm (fftErrorBound, error propagation below) and its effect
// on δ(ε) by Cauchy–Schwarz:
//
//	|δ̂(ε) − δ(ε)| ≤ E₂ · √(Σ_{L_j>ε} (1 − e^{ε−L_j}) Z_tot² e^{−2θ L_j}),
//
// which deltaUpper adds. The masses themselves are never clamped.

// The tilted mass allowed outside the composition's window on each side
// wraps around in the cyclic convolution; it is charged as an error (in
// 1-norm, weighted by the largest untilting factor above ε) and, above the
// window, as mass at +∞. It is chosen per composition (initialTail) as
// errorShare·1e-4 of the tilted weight that makes up δ near the saddle point,
// ρ ≈ f_θ(ε)/(θ(θ+1)) with f_θ(ε) ≈ 1/(√(2π) sd) the tilted density there,
// within [minTail, maxTail], and tightened by the callers when the charge
// still exceeds errorShare of δ; the window stays as short as the tilted
// tails allow (the tilted composition of a rarely sampled mechanism is a
// Poisson-like pile of bumps whose tail at 1e-20 is twice as long as at
// 1e-9).
const (
	minTail = 1e-20
	maxTail = 1e-8
)

// leafTerm is a discretised leaf with its multiplicity in the ledger.
type leafTerm struct {
	leaf  *pldLeaf
	count int
}

// tiltedTerm is a leaf tilted by θ: w sums to 1.
type tiltedTerm struct {
	lower int
	w     []float64
	logZ  float64 // log Σ_i p_i e^{θ L_i} over the finite losses
	norm1 float64 // a bound on ‖w‖₁ = Σ w_i (1 up to rounding)
	norm2 float64 // ‖w‖₂
	count int
	mean  float64 // tilted mean of the grid index
	sd    float64 // tilted standard deviation of the grid index
}

// tilt returns the leaf tilted by θ. The exponents log p_i + θL_i are
// bounded from above through p_i's binary exponent (within ln 2 of the
// logarithm), so that w_i = p_i e^{θL_i − top} ≤ 1 needs no logarithm (and
// is exact to about u|θL_i|, as the tilt of the log masses was); a mass
// whose e^{θL_i − top} would overflow (p_i below about e^{−700}) is taken
// through its logarithm.
func tilt(t leafTerm, theta float64) tiltedTerm {
	p := t.leaf
	w := make([]float64, len(p.probs))
	top := math.Inf(-1)
	th := theta * p.h
	base := theta * p.loss(0)
	for i, v := range p.probs {
		if v > 0 {
			_, e := math.Frexp(v)
			top = max(top, float64(e)*ln2+base+th*float64(i))
		}
	}
	var sum, m1 float64
	for i, v := range p.probs {
		x := 0.0
		switch a := base + th*float64(i) - top; {
		case !(v > 0):
		case a < 700:
			x = v * math.Exp(a)
		default:
			x = math.Exp(math.Log(v) + a)
		}
		w[i] = x
		sum += x
		m1 += x * float64(i)
	}
	mean := m1 / sum
	var l1, sq, v float64
	inv := 1 / sum
	for i := range w {
		w[i] *= inv
		l1 += w[i]
		sq += w[i] * w[i]
		d := float64(i) - mean
		v += w[i] * d * d
	}
	// (The sum of len(w) non-negative terms is exact to a relative
	// (len(w) − 1)u.)
	l1 *= 1 + float64(len(w))*unitRoundoff
	return tiltedTerm{lower: p.lower, w: w, logZ: top + math.Log(sum), norm1: l1, norm2: math.Sqrt(sq), count: t.count,
		mean: float64(p.lower) + mean, sd: math.Sqrt(v)}
}

// tilts memoises the tilted parts of one query by θ (a query composes at a
// few tilts, and probes a window at each before composing).
type tilts map[float64][]tiltedTerm

// of returns the terms tilted by θ (zero counts dropped).
func (c tilts) of(terms []leafTerm, theta float64) []tiltedTerm {
	if tt, ok := c[theta]; ok {
		return tt
	}
	tt := make([]tiltedTerm, 0, len(terms))
	for _, t := range terms {
		if t.count > 0 {
			tt = append(tt, tilt(t, theta))
		}
	}
	if c != nil {
		c[theta] = tt
	}
	return tt
}

// composedPLD is a composition at tilt θ: masses p_j = y_j e^{logZ − θ L_j}
// at the losses L_j = (lower + j)·h of its window, plus mass at +∞.
type composedPLD struct {
	h      float64
	theta  float64
	lower  int
	y      []float64 // tilted masses (rounding may leave them slightly negative); nil when spec holds them
	spec   *spectrum // the tilted masses as their kept Fourier coefficients (pld_spectral.go), or nil
	logZ   float64
	err2   float64 // bound on the 2-norm error of y from FFT rounding
	err1   float64 // bound on the 1-norm error of y from the tails wrapped into the window
	inf    float64 // mass at +∞ of the parts (exact)
	tailHi float64 // bound on the mass above the window, charged at +∞
	relErr float64 // relative error of the parts' masses, compounded
}

func (c *composedPLD) loss(j int) float64 { return float64(c.lower+j) * c.h }

// size returns the number of grid points of the window.
func (c *composedPLD) size() int {
	if c.spec != nil {
		return c.spec.n
	}
	return len(c.y)
}

// initialTail returns the tail mass for the window of a composition at
// tilt θ: errorShare·1e-4 of ρ ≈ 1/(√(2π) sd θ(θ+1)), the tilted weight of the
// masses above ε near the saddle point (sd the tilted composition's
// standard deviation in loss units), within [minTail, maxTail]. Where the
// tilted composition is lumpy (a rarely sampled mechanism) ρ is smaller;
// the callers check the charge and tighten it. It starts 1e-4 below the
// share it needs: a smaller tail lengthens the window only logarithmically
// (or finds at once, cheaply, that it does not fit), while a composition
// that must be redone costs a whole window of the query's work budget.
func initialTail(tt []tiltedTerm, theta, h float64) float64 {
	if theta == 0 {
		return maxTail
	}
	var v float64
	for _, t := range tt {
		sd := t.sd * h
		v += float64(t.count) * sd * sd
	}
	rho := 1 / (math.Sqrt(2*math.Pi) * math.Sqrt(v) * theta * (theta + 1))
	return math.Min(maxTail, math.Max(minTail, 1e-4*errorShare*rho))
}

// composeTilted composes the terms at tilt θ ≥ 0 (tilted through cache,
// which may be nil), on a window that leaves
// tilted mass at most tau outside on each side. It returns a *SizeError
// when the window needs more than limit (≤ maxPLDPoints) points.
func composeTilted(terms []leafTerm, cache tilts, theta, tau, h float64, limit int, sub Event) (*composedPLD, error) {
	return composeHeld(terms, cache, theta, tau, h, limit, sub, heldAuto)
}

// held chooses how a composition holds its masses: by its kept Fourier
// coefficients when they are few (heldAuto), or always one way (the tests
// compare the two).
type held int

const (
	heldAuto held = iota
	heldDense
	heldSpectral
	// heldPrecise is heldAuto with the kept coefficients of a spectral
	// composition computed precisely (pld_precise.go), and a dense one's
	// product bounded frequency by frequency too (productBound).
	heldPrecise
)

// composeHeld is composeTilted with the representation chosen by how.
func composeHeld(terms []leafTerm, cache tilts, theta, tau, h float64, limit int, sub Event, how held) (*composedPLD, error) {
	out := &composedPLD{h: h, theta: theta}
	tt := cache.of(terms, theta)
	logFinite := 0.0 // log Π (1 − inf_i)^count
	nTot := 0
	for _, t := range terms {
		if t.count == 0 {
			continue
		}
		logFinite += float64(t.count) * math.Log1p(-t.leaf.inf)
		nTot += t.count
	}
	out.inf = -math.Expm1(logFinite)
	// Each mass of each part is exact to a relative leafRelError; tilting
	// and folding add a few ulps. Compounded over nTot parts.
	out.relErr = float64(nTot)*(leafRelError+8*unitRoundoff) + 1e-12
	if len(tt) == 0 {
		out.y = []float64{1}
		out.logZ = 0
		return out, nil
	}
	for _, t := range tt {
		out.logZ += float64(t.count) * t.logZ
	}
	if len(tt) == 1 && tt[0].count == 1 {
		out.lower, out.y = tt[0].lower, tt[0].w
		return out, nil
	}
	lo, hi, tauLo, tauHi := chernoffWindow(tt, tau)
	n := 4
	for n < hi-lo+1 {
		n *= 2
	}
	if n > min(limit, maxPLDPoints) {
		return nil, &SizeError{Sub: sub, Points: hi - lo + 1, Limit: min(limit, maxPLDPoints), Interval: h,
			Coarsest: h * float64(hi-lo+1) / float64(min(limit, maxPLDPoints)) * 1.05}
	}
	plan := planFor(n)
	ef := fftErrorBound(n)
	// Fold each tilted part into length n (position = index − lower mod n)
	// and transform.
	spectra := make([][]complex128, len(tt))
	bounds := make([]partBound, len(tt))
	off := 0
	s1, minNorm := 0.0, math.Inf(1)
	for i, t := range tt {
		buf, l1, l2 := t.w, t.norm1, t.norm2
		if len(buf) > n {
			buf = make([]float64, n)
			for i, v := range t.w {
				buf[i%n] += v
			}
			// Folding adds up to ⌈len/n⌉ masses per entry: the sum keeps
			// to that many roundings, the 2-norm is the folded one's.
			l1 *= 1 + float64(len(t.w)/n+1)*unitRoundoff
			sq := 0.0
			for _, v := range buf {
				sq += v * v
			}
			l2 = math.Sqrt(sq) * (1 + float64(n)*unitRoundoff)
		}
		spectra[i] = plan.forwardInto(spectrumBuffer(plan.m+1), buf)
		off += t.count * t.lower
		s1 += float64(t.count) * l2
		minNorm = math.Min(minNorm, l2)
		bounds[i] = newPartBound(t.count, coefficientError(n, l1, l2), l1)
	}
	out.lower = lo
	// Error of the product of spectra, two bounds (the smaller is used).
	// Normwise (see the file comment of fft.go for ε_F): with
	// ĉ_i = c_i + e_i, ‖e_i‖₂ ≤ ε_F √n ‖w_i‖₂ and |c_i| ≤ 1,
	// |Π ĉ_i^{n_i} − Π c_i^{n_i}| ≤ G Σ n_i |e_i|, G = Π (1 + max|e_i|)^{n_i};
	// the polar powers and products add a relative (π+1)u per unit of count
	// plus 3u per product, and u absolutely. Divided by √n (Parseval:
	// ‖y‖₂ ≤ min_i ‖w_i‖₂), eSpec bounds the 2-norm error of the
	// composition the product transforms. Frequency by frequency
	// (productBound): every coefficient's error is at most E_i (fft.go,
	// coefficientError), and raising it to the power n_i multiplies it by
	// n_i max(|ĉ_i|, |c_i|)^{n_i−1}, which is small wherever the
	// composition's spectrum is: for a long composition that is all but a
	// few frequencies, and this bound is then smaller by orders of
	// magnitude. The inverse transform adds ε_F of its input and u of its
	// output.
	g := math.Exp(ef * math.Sqrt(float64(n)) * s1)
	rho := (math.Pi+1)*unitRoundoff*float64(nTot) + 3*unitRoundoff*float64(len(tt))
	eSpec := g*ef*s1 + rho*minNorm + unitRoundoff
	out.err1 = tauLo + tauHi
	pb := productBound{parts: bounds, rho: rho}
	var ks []int
	tauC := dropShare * eSpec
	if how != heldDense {
		ks = keptFrequencies(spectra, tt, tauC, g)
	}
	if ks != nil && (how == heldSpectral || len(ks)*sparseRatio <= n) {
		// Few coefficients matter: evaluate from them (pld_spectral.go),
		// charging the dropped ones (each ≤ τ_c = dropShare·eSpec, and
		// within productBound.dropped of the exact one).
		c := make([]complex128, len(ks))
		var sq float64
		if how == heldPrecise {
			sq = pb.multiplyPrecise(plan, spectra, tt, ks, c)
		} else {
			sq = pb.multiply(spectra, tt, ks, c, true)
		}
		wDrop := float64(n)
		for _, k := range ks {
			wDrop -= freqWeight(k, n)
		}
		dd := pb.dropped(tt, tauC)
		fine := math.Sqrt((sq+wDrop*dd*dd)/float64(n)) * (1 + float64(n)*unitRoundoff)
		out.spec = newSpectrum(plan, (((lo-off)%n)+n)%n, ks, c, theta, h)
		out.err2 = math.Min(eSpec, fine) + tauC
		for _, sp := range spectra {
			releaseSpectrumBuffer(sp)
		}
	} else {
		// The frequency-by-frequency bound costs a tenth of a dense
		// composition: it is taken once the query found the rounding to
		// matter (heldPrecise).
		acc := spectra[0]
		eProd := eSpec
		if sq := pb.multiply(spectra, tt, nil, acc, how == heldPrecise); how == heldPrecise {
			eProd = math.Min(eSpec, math.Sqrt(sq/float64(n))*(1+float64(n)*unitRoundoff))
		}
		cyc := plan.inverse(acc)
		out.y = make([]float64, n)
		for j := range out.y {
			out.y[j] = cyc[(((lo+j-off)%n)+n)%n]
		}
		// (‖Ĉ‖₂/√n ≤ ‖C‖₂/√n + eProd ≤ minNorm + eProd.)
		out.err2 = eProd + (ef+unitRoundoff)*(minNorm+eProd)
	}
	// The tilted mass above the window is ≤ tauHi; its untilted mass is at
	// most tauHi·Z e^{−θ L} at the window's top loss.
	out.tailHi = tauHi * math.Exp(out.logZ-theta*out.loss(out.size()-1))
	return out, nil
}

// spectrumBuffers holds the transforms' work buffers by length, for reuse
// by the next composition of that length (a composition's spectra are
// dropped once its kept coefficients are copied out).
var spectrumBuffers sync.Map // int → *sync.Pool

// spectrumBuffer returns a buffer of length n (any contents).
func spectrumBuffer(n int) []complex128 {
	if p, ok := spectrumBuffers.Load(n); ok {
		if b, ok := p.(*sync.Pool).Get().(*[]complex128); ok {
			return *b
		}
	}
	return make([]complex128, n)
}

// releaseSpectrumBuffer hands b back for reuse.
func releaseSpectrumBuffer(b []complex128) {
	p, _ := spectrumBuffers.LoadOrStore(len(b), &sync.Pool{})
	p.(*sync.Pool).Put(&b)
}

// dropShare is τ_c, the largest dropped coefficient, over the FFT's 2-norm
// error bound: dropping moves the bound by that share only.
const dropShare = 1e-6

// sparseRatio: a composition is evaluated from its spectrum when at most
// one coefficient in sparseRatio is kept (a query evaluates δ some fifty
// times, each a few operations per kept coefficient, against the inverse
// transform and a walk over the window of the dense path).
const sparseRatio = 64

// keptFrequencies returns the frequencies k ∈ [0, n/2] at which the
// product Π ĉ_i^{n_i} of the parts' computed spectra may exceed τ_c in
// modulus, ascending: a frequency is dropped when some part has
// |ĉ_i|² ≤ (τ_c/2)^{2/n_i}, since then |fl(ĉ_i^{n_i})| ≤ τ_c/2·(1 + 5n_i u)
// (the rounding of |ĉ_i|², of the threshold and of the powers) and the
// other parts' factors are at most G ≤ 1.5 (|c_j| ≤ 1 plus their error;
// see composeTilted). It returns nil when G > 1.5.
func keptFrequencies(spectra [][]complex128, tt []tiltedTerm, tauC, g float64) []int {
	if !(g <= 1.5) || !(tauC > 0) {
		return nil
	}
	thr := dropThresholds(tt, tauC)
	var ks []int
	for k := range spectra[0] {
		keep := true
		for i, c := range spectra {
			if real(c[k])*real(c[k])+imag(c[k])*imag(c[k]) <= thr[i] {
				keep = false
				break
			}
		}
		if keep {
			ks = append(ks, k)
		}
	}
	return ks
}

// dropThresholds returns, per part, the squared modulus (τ_c/2)^{2/n_i} at
// or below which keptFrequencies drops a frequency.
func dropThresholds(tt []tiltedTerm, tauC float64) []float64 {
	thr := make([]float64, len(tt))
	for i, t := range tt {
		thr[i] = math.Exp(2 * math.Log(tauC/2) / float64(t.count))
	}
	return thr
}

// powUp returns an upper bound on m^n for m ≥ 0 and an integer n ≥ 0:
// math.Pow, whose repeated squaring for the integer part of the exponent
// carries a relative error of up to about (n + 2)u, raised by that.
func powUp(m, n float64) float64 { return math.Pow(m, n) * (1 + 4*(n+2)*unitRoundoff) }

// tinyAbs bounds the absolute error that underflow adds to a computed
// power or product of spectra (each complex product loses at most a few
// 2^−1074 to underflow, and a power takes fewer than 2·64 products).
const tinyAbs = 0x1p-1000

// partBound bounds what one part's computed spectrum ĉ contributes to the
// error of a product of powers of spectra: with |ĉ_k − c_k| ≤ e at every
// frequency and m = max(|ĉ_k|, |c_k|),
//
//	|ĉ_k^n − c_k^n| ≤ n e m^{n−1}   (mean value theorem on z ↦ z^n).
//
// Where a = |ĉ_k| ≥ n e (t = n e/a ≤ 1; a computed to 2u): m ≤ a + e, so
// m^n ≤ a^n e^t ≤ a^n (1 + (e−1)t) =: M and n e m^{n−1} ≤ t m^n ≤ t M, with
// a^n taken from the computed power (relative rounding ≤ rho, powComplex).
// Elsewhere m < (n+1)e and m ≤ |c| + e ≤ ‖w‖₁ + e: the constants fbM, fbD.
type partBound struct {
	count    int
	ne       float64 // n·e
	rho      float64 // relative error of |fl(ĉ^n)| against |ĉ|^n, with |·|'s rounding
	fbM, fbD float64
	e, l1    float64
}

// newPartBound returns the bound for a part composed count times whose
// coefficients are exact to e and whose masses sum to at most l1.
func newPartBound(count int, e, l1 float64) partBound {
	n := float64(count)
	// (The rounding of |ĉ| that decides t > 1 moves the first by up to 6u.)
	m := math.Min((n+1)*e, l1+e) * (1 + 8*unitRoundoff)
	return partBound{
		count: count, ne: n * e * (1 + 4*unitRoundoff), e: e, l1: l1,
		rho: (math.Pi+1)*unitRoundoff*n + 8*unitRoundoff,
		fbM: powUp(m, n), fbD: n * e * powUp(m, n-1) * (1 + 2*unitRoundoff),
	}
}

// at returns M ≥ max(|ĉ|, |c|)^n and D ≥ |ĉ^n − c^n| at a frequency where
// the computed coefficient is v and its computed power p.
func (b *partBound) at(v, p complex128) (M, D float64) {
	a2 := real(v)*real(v) + imag(v)*imag(v)
	if !(a2 >= b.ne*b.ne) {
		return b.fbM, b.fbD // t > 1 (no root needed to see it)
	}
	t := b.ne / math.Sqrt(a2) * (1 + 4*unitRoundoff)
	if !(t <= 1) {
		return b.fbM, b.fbD
	}
	M = (absHigh(p)*(1+b.rho) + tinyAbs) * (1 + (math.E-1)*t)
	return M, t * M
}

// absHigh returns |z| up to 2u relative, never below it by more than that:
// where the squares may underflow, |Re z| + |Im z|.
func absHigh(z complex128) float64 {
	if a := math.Sqrt(real(z)*real(z) + imag(z)*imag(z)); a > 0x1p-500 {
		return a
	}
	return math.Abs(real(z)) + math.Abs(imag(z))
}

// productBound bounds, frequency by frequency, the error of the computed
// product of powers of the parts' spectra, Π fl(ĉ_i^{n_i}), against the
// exact Π c_i^{n_i}: with M_i and D_i of each part (partBound.at),
//
//	|Π ĉ_i^{n_i} − Π c_i^{n_i}| ≤ Σ_i D_i Π_{j≠i} M_j
//
// (telescoping), plus the powers' and products' rounding, rho Π M_j, and
// underflow, tinyAbs.
type productBound struct {
	parts []partBound
	rho   float64
}

// productErr accumulates productBound's sum over the parts: after parts
// 1..m, prod = Π M_i and sumD = Σ_i D_i Π_{j≠i} M_j.
type productErr struct{ prod, sumD float64 }

// add takes in one more part's M and D.
func (e *productErr) add(M, D float64) {
	e.sumD = e.sumD*M + D*e.prod
	e.prod *= M
}

// bound returns the bound on the product's error: sumD plus the rounding
// rho of the powers and products, relative to prod, and underflow.
func (e *productErr) bound(rho float64) float64 { return e.sumD + rho*e.prod + tinyAbs }

// freqWeight returns the weight of frequency k ∈ [0, n/2] in Parseval's
// identity for a real sequence of length n: 1 at 0 and n/2, else 2 (k and
// n − k).
func freqWeight(k, n int) float64 {
	if k == 0 || 2*k == n {
		return 1
	}
	return 2
}

// multiply writes the product Π ĉ_i^{n_i} of the parts' spectra at the
// frequencies ks (all of them, in place of out = spectra[0], when ks is
// nil) to out and, with bound, returns Σ_k w_k Δ_k² with Δ_k the bound on
// its error (w_k = freqWeight).
func (pb *productBound) multiply(spectra [][]complex128, tt []tiltedTerm, ks []int, out []complex128, bound bool) (sq float64) {
	n := 2 * (len(spectra[0]) - 1)
	if !bound && ks == nil {
		// The plain product, part by part (the tight loops of the
		// unbounded dense path).
		for i, t := range tt {
			for k, v := range spectra[i] {
				spectra[i][k] = powComplex(v, t.count)
			}
			if i > 0 {
				for k := range out {
					out[k] *= spectra[i][k]
				}
			}
		}
		return 0
	}
	visit := func(j, k int) {
		var c complex128
		e := productErr{prod: 1}
		for i, t := range tt {
			v := spectra[i][k]
			p := powComplex(v, t.count)
			if bound {
				e.add(pb.parts[i].at(v, p))
			}
			if i == 0 {
				c = p
			} else {
				c *= p
			}
		}
		out[j] = c
		if bound {
			d := e.bound(pb.rho)
			sq += freqWeight(k, n) * d * d
		}
	}
	if ks == nil {
		for k := range out {
			visit(k, k)
		}
	}
	for j, k := range ks {
		visit(j, k)
	}
	return sq
}

// dropped returns a bound on the error Δ_k (as multiply's) at a frequency
// keptFrequencies dropped at τ_c: some part j has a computed |ĉ_j|² at most
// its threshold thr_j (dropThresholds), so max(|ĉ_j|, |c_j|) ≤
// √thr_j (1 + 8u) + e_j (the rounding of the squares and the root), and
// every other part's is at most ‖w_i‖₁ + e_i; the largest over j.
func (pb *productBound) dropped(tt []tiltedTerm, tauC float64) float64 {
	thr := dropThresholds(tt, tauC)
	worst := 0.0
	for j := range tt {
		e := productErr{prod: 1}
		for i, t := range tt {
			b := &pb.parts[i]
			n := float64(t.count)
			m := b.l1 + b.e
			if i == j {
				m = math.Sqrt(thr[j])*(1+8*unitRoundoff) + b.e
			}
			e.add(powUp(m, n), n*b.e*powUp(m, n-1)*(1+2*unitRoundoff))
		}
		worst = math.Max(worst, e.bound(pb.rho))
	}
	return worst
}

// powComplex returns v^k by binary powering. Each complex product has
// relative error ≤ √2·γ₂ < 3u, and an error made at a squaring is raised
// with the rest, so the result's relative error is at most 3(k−1)u (below
// the (π+1)·k·u that composeTilted charges); products that underflow lose
// at most tinyAbs absolutely.
func powComplex(v complex128, k int) complex128 {
	acc := complex(1, 0)
	for e := k; ; {
		if e&1 == 1 {
			acc *= v
		}
		e >>= 1
		if e == 0 {
			break
		}
		v *= v
	}
	return acc
}

// chernoffWindow returns the grid window [lo, hi] of the composition of the
// tilted terms outside which each side holds tilted mass at most tauLo,
// tauHi ≤ tau, by the Chernoff bound
//
//	P[S ≥ s] ≤ exp(Σ_i n_i log M_i(t) − t s),  t > 0  (and t < 0 below),
//
// with M_i(t) = E[e^{t X_i}] bounded above over blocks of each part (every
// mass of a block moved to the block's end that makes e^{tX} largest), on a
// geometric grid of t around 1/sd(S). The window is clipped to the support.
func chernoffWindow(tt []tiltedTerm, tau float64) (lo, hi int, tauLo, tauHi float64) {
	// The masses of each part as fine blocks of bs ≈ sd/32 bins (each
	// block's mass moved to the block's end that makes e^{tX} largest; at
	// most 2^16 blocks), in coarse groups of 256 consecutive blocks that
	// carry the log of their largest block mass and each block's mass
	// relative to it; indices relative to the part's mean.
	type coarse struct {
		logMax      float64   // log of the largest block mass
		kLo         float64   // the first block's lowest index
		rel         []float64 // block masses over the largest
		first, last int       // the first and last blocks with mass
		lastEnd     float64   // the last block's highest index (a short final block ends early)
	}
	type part struct {
		bs     float64
		groups []coarse
	}
	const groupLen = 256
	parts := make([]part, len(tt))
	var meanS, varS float64
	supLo, supHi := 0, 0
	for i, t := range tt {
		nc := float64(t.count)
		meanS += nc * t.mean
		varS += nc * t.sd * t.sd
		supLo += t.count * t.lower
		supHi += t.count * (t.lower + len(t.w) - 1)
		bs := max(1, int(t.sd/32), len(t.w)>>16)
		base := float64(t.lower) - t.mean
		parts[i].bs = float64(bs)
		for s := 0; s < len(t.w); s += groupLen * bs {
			g := coarse{kLo: base + float64(s)}
			mx := 0.0
			for b := s; b < min(s+groupLen*bs, len(t.w)); b += bs {
				m := 0.0
				for _, v := range t.w[b:min(b+bs, len(t.w))] {
					m += v
				}
				g.rel = append(g.rel, m)
				mx = max(mx, m)
			}
			if !(mx > 0) {
				continue
			}
			g.first = -1
			for j := range g.rel {
				g.rel[j] /= mx
				if g.rel[j] > 0 {
					if g.first < 0 {
						g.first = j
					}
					g.last = j
				}
			}
			g.lastEnd = base + float64(min(s+(g.last+1)*bs, len(t.w))-1)
			g.logMax = math.Log(mx)
			parts[i].groups = append(parts[i].groups, g)
		}
	}
	sdS := math.Sqrt(varS)
	lo, hi = supLo, supHi
	if sdS == 0 {
		// Every part is one point mass (tilted masses elsewhere underflowed
		// to exactly 0): so is the composition.
		m := int(math.Round(meanS))
		return m, m, 0, 0
	}
	if supHi-supLo < 4 {
		return lo, hi, 0, 0
	}
	logTau := math.Log(tau)
	// An upper bound on K(t) − t·meanS. Per group, the block masses sit at
	// x_j = kLo + j·bs (t < 0) or x_j = kLo + j·bs + bs − 1 (t > 0; the
	// part's short final block at its own end, taken apart), so
	// Σ_j rel_j e^{t x_j} = e^{t x_ref} Σ_j rel_j w^{|j − j_ref|} with
	// w = e^{−|t| bs} and j_ref the group's first (t < 0) or last (t > 0)
	// block with mass: a polynomial in w ≤ 1 by Horner's rule, whose terms
	// are positive (rounding ≤ 2·256u), whose w^k carries ≤ 256(|t|bs + 2)u,
	// and whose underflows lose at most 256 times the smallest float; the
	// sum is raised by those. A group whose bound (blocks)·e^{logMax + t·x_ref}
	// is below e^{−50} of the largest is counted by that bound.
	cgf := func(t float64) float64 {
		k := 0.0
		for i, p := range parts {
			w := math.Exp(-math.Abs(t) * p.bs)
			infl := 1 + (groupLen*(math.Abs(t)*p.bs+2)+2*groupLen+4)*unitRoundoff
			ub := func(g *coarse) float64 {
				if t < 0 {
					return g.logMax + t*(g.kLo+float64(g.first)*p.bs)
				}
				return g.logMax + t*g.lastEnd
			}
			top := math.Inf(-1)
			for gi := range p.groups {
				top = max(top, ub(&p.groups[gi]))
			}
			s := 0.0
			for gi := range p.groups {
				g := &p.groups[gi]
				u := ub(g)
				if u < top-50 {
					s += float64(g.last-g.first+1) * math.Exp(u-top)
					continue
				}
				acc := 0.0
				switch regular := g.kLo + float64(g.last+1)*p.bs - 1; {
				case t < 0:
					for j := g.last; j >= g.first; j-- {
						acc = acc*w + g.rel[j]
					}
				case g.lastEnd == regular:
					for _, r := range g.rel[g.first : g.last+1] {
						acc = acc*w + r
					}
				default:
					// The short final block at its end; the others end
					// bs apart, the last of them at regular − bs.
					for _, r := range g.rel[g.first:g.last] {
						acc = acc*w + r
					}
					s += math.Exp(g.logMax+t*(regular-p.bs)-top) * acc * infl
					acc = g.rel[g.last]
				}
				s += math.Exp(u-top)*acc*infl + groupLen*math.SmallestNonzeroFloat64
			}
			k += float64(tt[i].count) * (top + math.Log(s))
		}
		return k
	}
	// The bound (K(t) − log τ)/t is unimodal in t > 0 (its derivative's
	// numerator tK'(t) − K(t) + log τ grows, as tK”(t) ≥ 0), so the best t
	// of the grid is found by walking from 1/sd towards the better
	// neighbour while the bound improves (any t gives a valid bound).
	bound := func(j int, sign float64) float64 {
		t := sign * math.Ldexp(1, j) / sdS
		if b := sign * (cgf(t) - logTau) / t; !math.IsNaN(b) {
			return b
		}
		return math.Inf(1)
	}
	best := func(sign float64) float64 {
		j, b := 0, bound(0, sign)
		step := 1
		if up := bound(1, sign); up < b {
			j, b = 1, up
		} else if down := bound(-1, sign); down < b {
			j, b, step = -1, down, -1
		} else {
			return b
		}
		for j+step >= -8 && j+step <= 12 {
			next := bound(j+step, sign)
			if !(next < b) {
				break
			}
			j, b = j+step, next
		}
		return b
	}
	bestHi, bestLo := best(1), -best(-1)
	// (A bound on the tail beyond the mean can only cut the support on
	// that side; anything else, from a NaN, is ignored.)
	if h := meanS + bestHi; h < float64(hi) && h >= meanS {
		hi = int(math.Ceil(h))
		tauHi = tau
	}
	if l := meanS + bestLo; l > float64(lo) && l <= meanS {
		lo = int(math.Floor(l))
		tauLo = tau
	}
	return lo, hi, tauLo, tauHi
}

// untilt returns the untilted mass factor Z e^{−θ L_j} of window index j.
func (c *composedPLD) untilt(j int) float64 {
	return math.Exp(c.logZ - c.theta*c.loss(j))
}

// downward walks the window's masses from the top loss down while visit
// returns true, passing each index j with its untilting factor
// s_j = Z e^{−θ L_j}, which follows a geometric recurrence recomputed
// exactly every 256 steps (relative error ≤ 512u, part of relErr; a steep
// tilt, θh > 1, recomputes every step).
func (c *composedPLD) downward(visit func(j int, s float64) bool) {
	r := math.Exp(c.theta * c.h)
	exact := c.theta*c.h > 1
	var s float64
	for j := len(c.y) - 1; j >= 0; j-- {
		if exact || (len(c.y)-1-j)%256 == 0 {
			s = c.untilt(j)
		} else {
			s *= r
		}
		if !visit(j, s) {
			return
		}
	}
}

// deltaParts returns, at ε, the discretised δ̂(ε) of the window's masses
// (the mass at +∞ excluded) and the bounds on its errors: from the FFT's
// rounding (2-norm bound through Cauchy–Schwarz, plus the rounding of the
// sum itself) and from the wrapped tails (1-norm bound times the largest
// untilting factor above ε, that of the lowest loss above it as θ ≥ 0).
// Below the window the mass not represented there (1 minus everything
// above) is put at the window's lowest loss, pessimistically.
func (c *composedPLD) deltaParts(eps float64) (dhat, eRound, eAlias float64) {
	if c.spec != nil {
		return c.spectralParts(eps)
	}
	var e2, rnd, sTop, in, sq float64
	all := true
	c.downward(func(j int, s float64) bool {
		L := c.loss(j)
		if L <= eps {
			all = false
			return false
		}
		f := -math.Expm1(eps - L)
		p := c.y[j] * s
		dhat += p * f
		e2 += s * s * f
		rnd += math.Abs(p)
		sTop = s
		in += p
		sq += s * s
		return true
	})
	eRound = c.err2*math.Sqrt(e2) + 4*unitRoundoff*rnd
	eAlias = c.err1 * sTop
	if all && len(c.y) > 0 {
		// ε is below the window: the mass not in it sits at loss(0) or below.
		below := math.Max(0, 1-c.inf-in) + c.err2*math.Sqrt(sq) + c.err1*sTop
		dhat += below * -math.Expm1(eps-c.loss(0))
	}
	return dhat, eRound, eAlias
}

// deltaUpper returns an upper bound on δ(ε) of the composition: the
// discretised δ̂(ε) plus the bounds on its errors, inflated by the parts'
// relative error, plus the mass at +∞ and above the window.
func (c *composedPLD) deltaUpper(eps float64) float64 {
	d, eR, eA := c.deltaParts(eps)
	v := c.inf + c.tailHi + math.Max(0, d+eR+eA)*(1+c.relErr)
	if math.IsNaN(v) {
		return 1
	}
	return math.Min(1, v)
}

// epsilonUpper returns the smallest ε ≥ 0 with deltaUpper(ε) ≤ δ (+Inf when
// the mass at +∞ exceeds δ), whether it lies inside the window (when it
// does not, it is the window's lowest loss: still a valid bound), and the
// two error bounds there, as deltaParts would (rounding, wrapped tails). On the
// interval [L_{k−1}, L_k] between two grid losses the sums over the masses
// above ε are fixed and deltaUpper is continuous and decreasing in ε:
//
//	δ_U(ε) = base + (A − e^{ε−L_k} B + E₂ √(C − e^{ε−L_k} D) + E₁ s_k)(1 + rel)
//
// with the suffix sums A = Σ p_j, B = Σ p_j e^{L_k−L_j}, C = Σ s_j²,
// D = Σ s_j² e^{L_k−L_j} over j ≥ k (s_j the untilting factors,
// p_j = y_j s_j), B and D kept relative to L_k so that nothing overflows
// at large ε (B_k = B_{k+1} e^{−h} + p_k: a relative drift of 2u a step,
// allowed for with the rounding). The scan walks down from the top loss to
// the first interval whose lower end is not certified, and bisects there.
func (c *composedPLD) epsilonUpper(delta float64) (eps float64, inside bool, eRound, eAlias float64) {
	if c.spec != nil {
		return c.spectralEpsilon(delta)
	}
	base := c.inf + c.tailHi
	if base > delta {
		return math.Inf(1), true, 0, 0
	}
	var A, B, C, D, R, sTop, Lk float64
	steps := 0.0
	emh := math.Exp(-c.h)
	// du bounds δ_U from above over every ε whose e^{ε−L_k} lies in
	// [gLo, gHi] (each term taken at the end of the range that makes it
	// largest), so that the rounding of g itself can never certify too
	// small an ε.
	du := func(gLo, gHi float64) float64 {
		drift := 2 * unitRoundoff * (steps + 2)
		gB := gLo * B
		if B < 0 {
			gB = gHi * B
		}
		v := A - gB + c.err2*math.Sqrt(math.Max(0, C-gLo*D)+drift*gHi*D+4*unitRoundoff*C) +
			c.err1*sTop + 4*unitRoundoff*R + drift*gHi*math.Abs(B)
		return base + math.Max(0, v)*(1+c.relErr)
	}
	// at returns du at ε (e^{ε−L_k} to within 2u).
	at := func(eps float64) float64 {
		g := math.Exp(eps - Lk)
		return du(g*(1-2*unitRoundoff), g*(1+2*unitRoundoff))
	}
	// parts sets the error bounds at ε (sums over the masses above it).
	parts := func(eps float64) {
		g := math.Exp(eps - Lk)
		eRound = c.err2*math.Sqrt(math.Max(0, C-g*D)) + 4*unitRoundoff*R
		eAlias = c.err1 * sTop
	}
	inside = true
	c.downward(func(k int, s float64) bool {
		L := c.loss(k)
		if L <= 0 {
			// The previous step certified its lower end, max(0, L_k) = 0.
			parts(0)
			return false
		}
		if steps > 0 {
			B *= emh
			D *= emh
		}
		p := c.y[k] * s
		A += p
		B += p
		C += s * s
		D += s * s
		R += math.Abs(p)
		sTop, Lk = s, L
		steps++
		if k == 0 {
			// Not crossed inside the window: its lowest loss is certified
			// (by the previous step); lower ε would need the mass below it.
			eps, inside = L, false
			parts(L)
			return false
		}
		// Test the interval's lower end, max(0, L_{k−1}): with
		// e^{L_{k−1} − L_k} = e^{−h(1+η)}, |η| ≤ 4u·max(1, |L|)/h from the
		// rounding of the two losses.
		lo := math.Max(0, c.loss(k-1))
		var d float64
		if lo == 0 {
			d = at(0)
		} else {
			w := 8 * unitRoundoff * math.Max(1, math.Abs(L))
			d = du(emh*(1-w), emh*(1+w))
		}
		if d <= delta && !math.IsNaN(d) {
			return true
		}
		// The crossing is in [lo, L]: bisect (NaN, from an overflowed
		// factor, counts as not certified).
		eps = bisectCertified(lo, L, func(e float64) bool { return at(e) <= delta })
		parts(eps)
		return false
	})
	return eps, inside, eRound, eAlias
}

// bisectCertified returns a certified ε in [lo, hi] (certified(hi) holds,
// certified(lo) does not) within 1e-13 relative of the crossing, by
// bisection: the upper end of the final bracket.
func bisectCertified(lo, hi float64, certified func(float64) bool) float64 {
	for it := 0; it < 200 && hi-lo > 1e-13*math.Max(1, math.Abs(hi)); it++ {
		mid := 0.5 * (lo + hi)
		if certified(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}
