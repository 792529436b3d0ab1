package accounting

import (
	"fmt"
	"math"
)

// Privacy loss distributions of single mechanisms and their pessimistic
// connect-the-dots discretisation.
//
// A mechanism with a dominating pair (P, Q) has the privacy loss
// L = log(dP/dQ), distributed under P; its hockey-stick divergence is
//
//	δ(ε) = E_P[(1 − e^{ε−L})₊].
//
// Connect-the-dots ([DGK+22] Alg. 1 with equal gaps) puts the P-mass of L
// on the grid losses i·h: a loss L in [a, b] = [i h, (i+1) h] is split
// between a and b with weights
//
//	w_b(L) = (1 − e^{a−L}) / (1 − e^{−h}),    w_a(L) = (e^{b−L} − 1) / (e^h − 1),
//
// which keep its P-mass (w_a + w_b = 1) and its Q-mass
// (w_a e^{−a} + w_b e^{−b} = e^{−L}). The discretised δ then equals the
// true δ at every grid loss and lies above it in between (it is a
// pessimistic PLD: [DGK+22] Thm 3.1). dp_accounting obtains the same
// masses from second differences of δ at the grid losses; those differences
// cancel catastrophically at fine grids (negative masses, clamped to 0
// before this rewrite: 0.4% of spurious mass at h = 1e-5). Here each mass
// is an integral of a non-negative integrand, w_b(L(x))·p(x) and
// w_a(L(x))·p(x), over the noise variable x, by 3-point Gauss–Legendre
// quadrature on panels no wider than a sixteenth of the length on which the
// density and the loss vary: every mass keeps its relative precision
// (leafRelError bounds it; TestLeafQuadrature checks).

// leafRelError bounds the relative error of the P- and Q-mass the
// quadrature assigns to each grid interval (3-point Gauss–Legendre on
// panels ≤ scale/16, 2-point on panels ≤ scale/256: either rule's error
// term is below 1e-13 of the panel's mass; rounding adds a few ulps). TestLeafQuadrature measures it against
// panels a quarter as wide. Where inside its interval a mass is split is
// exact only to the loss's rounding, which lossUp makes pessimistic.
const leafRelError = 1e-12

// lossAtom is a point mass of the privacy loss. An exact atom's loss is
// used as given; any other is raised by lossUp (it was computed with
// rounding).
type lossAtom struct {
	loss, mass float64
	exact      bool
}

// lossDist is the distribution of the privacy loss under P: a continuous
// part, L = loss(x) with x of P-density dens on [xLo, xHi] and loss strictly
// monotone there (xAt its inverse on the loss range), point masses at finite
// losses, and the mass at +∞.
type lossDist struct {
	xLo, xHi float64
	dens     func(x float64) float64
	loss     func(x float64) float64
	xAt      func(eps float64) float64
	panel    float64 // widest quadrature panel in x
	// node, if set, returns dens(x) and loss(x) together (sharing their
	// transcendentals) and a bound on the loss's absolute rounding error
	// (discretise raises the loss by the larger of it and lossUp's margin).
	node func(x float64) (dens, loss, lossErr float64)
	// anchor, if set, evaluates the nodes of an interval from values its
	// end at a grid loss b has (set(b) after xAt(b)), where it can (ok).
	anchor interface {
		set(g float64)
		eval(x float64) (dens, loss, lossErr float64, ok bool)
	}
	atoms []lossAtom
	inf   float64
	// optimistic (tests only) puts each interval's mass and each exact
	// atom at its lower grid loss and drops the inexact atoms: a PLD below
	// the true one, for lower bounds.
	optimistic bool
}

// pldLeaf is a discretised privacy loss distribution: mass probs[i] ≥ 0 at
// the loss (lower+i)·h and mass inf at +∞.
type pldLeaf struct {
	h     float64
	lower int
	probs []float64
	inf   float64
}

// loss returns the loss of probs[i].
func (p *pldLeaf) loss(i int) float64 { return float64(p.lower+i) * p.h }

// mass returns the total mass of p (1 up to leafRelError), summed with
// Neumaier's compensation.
func (p *pldLeaf) mass() float64 {
	s, comp := p.inf, 0.0
	for _, v := range p.probs {
		s, comp = neumaierAdd(s, comp, v)
	}
	return s + comp
}

// neumaierAdd adds x to the compensated sum (s, comp) by Neumaier's
// improvement of Kahan summation ([ORO05] Sum2): s is the running float
// sum and comp collects each addition's exact rounding error; the sum is
// s + comp.
func neumaierAdd(s, comp, x float64) (float64, float64) {
	t := s + x
	if math.Abs(s) >= math.Abs(x) {
		comp += (s - t) + x
	} else {
		comp += (x - t) + s
	}
	return t, comp
}

// SizeError is returned when a privacy loss distribution needs more grid
// points than the PLD accountant allows at the requested interval. It
// names the interval that would fit.
type SizeError struct {
	Sub      Event   // the event whose PLD is too large
	Points   int     // points needed (0: not known, the composition's tail did not fit; math.MaxInt32: at least that many)
	Limit    int     // the limit it exceeds
	Interval float64 // the requested interval h
	Coarsest float64 // an interval at which it would fit (+Inf: none, the losses are not finite)
}

func (e *SizeError) Error() string {
	kind := "the ledger"
	if e.Sub != nil {
		kind = "event " + e.Sub.Kind()
	}
	if !finite(e.Coarsest) {
		return fmt.Sprintf("accounting: the pld accountant cannot evaluate %s: its privacy losses are not finite in float64 (too little noise to discretise at any interval); use the rdp accountant", kind)
	}
	if e.Points >= math.MaxInt32 {
		return fmt.Sprintf("accounting: the pld accountant cannot evaluate %s at interval %g: it needs more than %d grid points (limit %d); use a coarser interval (%.2g or more) or the rdp accountant",
			kind, e.Interval, math.MaxInt32, e.Limit, roundUp2(e.Coarsest))
	}
	if e.Points == 0 {
		return fmt.Sprintf("accounting: the pld accountant cannot certify %s at interval %g: its composition's tail does not fit %d grid points; use a coarser interval (%.2g or more) or the rdp accountant",
			kind, e.Interval, e.Limit, roundUp2(e.Coarsest))
	}
	return fmt.Sprintf("accounting: the pld accountant cannot evaluate %s at interval %g: it needs %d grid points (limit %d); use a coarser interval (%.2g or more) or the rdp accountant",
		kind, e.Interval, e.Points, e.Limit, roundUp2(e.Coarsest))
}

// roundUp2 rounds x > 0 up to two significant digits, so that a suggested
// interval fits.
func roundUp2(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x))-1)
	return math.Ceil(x/p) * p
}

// Work limits, so that one evaluation stays under 2 s on a laptop core
// whatever the parameters (`dplab account`'s flag ranges): a composition's
// FFT window holds at most maxPLDPoints points (a transform pair of that
// length takes about 0.2 s), one mechanism's discretisation at most
// maxLeafPoints (its quadrature costs about 0.25 µs a point), and one
// query composes at most pldWorkBudget points in all. A finer grid is a
// *SizeError naming an interval that fits, not minutes of work or an
// out-of-memory.
const (
	maxPLDPoints  = 1 << 22
	maxLeafPoints = 1 << 21
	pldWorkBudget = 2 << 22
)

// Gauss–Legendre 2-point rule on [−1, 1].
var gl2Nodes = [2]float64{-0.5773502691896257645091488, 0.5773502691896257645091488}
var gl2Weights = [2]float64{1, 1}

// Gauss–Legendre 3-point rule on [−1, 1].
var gl3Nodes = [3]float64{-0.7745966692414833770358531, 0, 0.7745966692414833770358531}
var gl3Weights = [3]float64{0.5555555555555555555555556, 0.8888888888888888888888889, 0.5555555555555555555555556}

// grid returns the grid indices [lo, hi] that hold d's finite losses on the
// grid of step h, or a *SizeError (naming sub) when they are more than
// maxLeafPoints.
func (d *lossDist) grid(h float64, sub Event) (lo, hi int, err error) {
	l1, l2 := d.loss(d.xLo), d.loss(d.xHi)
	lossMin, lossMax := math.Min(l1, l2), math.Max(l1, l2)
	for _, a := range d.atoms {
		lossMin, lossMax = math.Min(lossMin, a.loss), math.Max(lossMax, a.loss)
	}
	loF, hiF := math.Floor(lossMin/h), math.Ceil(lossUp(lossMax)/h)
	if !finite(loF) || !finite(hiF) || hiF-loF+1 > maxLeafPoints {
		// Losses that are infinite or NaN at the truncation points (σ² or
		// 1/σ² out of float64's range) fit no grid: Coarsest is +Inf.
		pts, coarsest := math.MaxInt32, math.Inf(1)
		if finite(hiF - loF) {
			pts = int(math.Min(hiF-loF+1, math.MaxInt32))
			coarsest = (lossMax - lossMin) / (maxLeafPoints - 2)
		}
		return 0, 0, &SizeError{Sub: sub, Points: pts, Limit: maxLeafPoints, Interval: h, Coarsest: coarsest}
	}
	return int(loF), int(hiF), nil
}

// discretise returns the pessimistic connect-the-dots PLD of d on the grid
// of step h, or a *SizeError when it needs more than maxLeafPoints points.
func (d *lossDist) discretise(h float64, sub Event) (*pldLeaf, error) {
	lo, hi, err := d.grid(h, sub)
	if err != nil {
		return nil, err
	}
	l1, l2 := d.loss(d.xLo), d.loss(d.xHi)
	cMin, cMax := math.Min(l1, l2), math.Max(l1, l2)
	p := &pldLeaf{h: h, lower: lo, probs: make([]float64, hi-lo+1), inf: d.inf}
	// The split weights use the interval's width as rounded, b − a, so that
	// they sum to 1 to rounding (h itself differs from b − a by u·|b|).
	// split adds the mass m at loss L ∈ [a, b] = [i h, (i+1) h] to the two
	// grid points.
	split := func(i int, L, m float64) {
		a, b := float64(i)*h, float64(i+1)*h
		L = math.Min(math.Max(L, a), b)
		p.probs[i-lo] += m * math.Expm1(b-L) / math.Expm1(b-a)
		p.probs[i+1-lo] += m * -math.Expm1(a-L) / -math.Expm1(a-b)
	}
	// The continuous part, interval by interval; adjacent intervals share
	// their x end points, so the quadrature covers [xLo, xHi] exactly once.
	iLo, iHi := int(math.Floor(cMin/h)), int(math.Ceil(cMax/h))
	xMin, xMax := min(d.xLo, d.xHi), max(d.xLo, d.xHi)
	// xOf returns the x at which the loss is eps, and whether it had to
	// be clamped into [xMin, xMax]: a loss next to a saturated end of the
	// range inverts to ±Inf (the sampled Gaussian's add direction at
	// q = 1 − 1e-16, whose loss tends to −log(1 − q) as x → −∞:
	// xAt(36.7367) is −Inf), which made the quadrature's panel count
	// infinite and the query hang. A NaN is clamped too.
	xOf := func(eps float64) (float64, bool) {
		switch eps {
		case l1:
			return d.xLo, false
		case l2:
			return d.xHi, false
		}
		x := d.xAt(eps)
		if !(x >= xMin) {
			return xMin, true
		}
		if !(x <= xMax) {
			return xMax, true
		}
		return x, false
	}
	xPrev, _ := xOf(cMin)
	var width, em1h, em1mh float64
	var small bool
	// quad integrates the density over [xa, xb], whose losses lie in
	// [i h, (i+1) h], onto grid points i and i + 1 (anchored: through
	// d.anchor, set to the interval's end). With spill, [xa, xb] reaches
	// past the x of loss (i+1) h (an end xOf clamped): a node whose loss
	// is above the interval goes to the grid point at or above its loss
	// instead of being held at (i+1) h, which would understate it.
	quad := func(i int, xa, xb float64, anchored, spill bool) {
		panels := math.Ceil((xb - xa) / d.panel)
		w := (xb - xa) / panels
		var wa, wb float64
		ga, gb := float64(i)*h, float64(i+1)*h
		if gb-ga != width {
			// The rounded width takes a few values only.
			width = gb - ga
			small = width <= expm1PolyMax
			em1h, em1mh = expm1Near(width, small), -expm1Near(-width, small)
		}
		// Narrow panels (a sixteenth of the widest, the usual case at fine
		// grids) take the 2-point rule: its error term, w⁵ f⁽⁴⁾/4320, is
		// then below 1e-13 of the panel's mass too.
		nodes, weights := gl3Nodes[:], gl3Weights[:]
		if w <= d.panel/16 {
			nodes, weights = gl2Nodes[:], gl2Weights[:]
		}
		for k := 0.0; k < panels; k++ {
			c := xa + (k+0.5)*w
			for j, t := range nodes {
				xn := c + t*w/2
				var dens, loss, lossErr float64
				ok := false
				if anchored {
					dens, loss, lossErr, ok = d.anchor.eval(xn)
				}
				switch {
				case ok:
				case d.node != nil:
					dens, loss, lossErr = d.node(xn)
				default:
					dens = d.dens(xn)
				}
				f := dens * weights[j] * w / 2
				if f == 0 {
					continue
				}
				if d.optimistic {
					wa += f
					continue
				}
				if !ok && d.node == nil {
					loss = d.loss(xn)
				}
				L := max(lossUp(loss), loss+lossErr)
				if L < ga {
					L = ga
				} else if L > gb {
					if spill {
						p.probs[min(int(math.Ceil(L/h)), hi)-lo] += f
						continue
					}
					L = gb
				}
				// The smaller weight, that of the farther end point, is
				// computed (one expm1, a few ulps), the other as its
				// complement (at least about ½, so a few ulps too).
				if L-ga <= gb-L {
					v := -expm1Near(ga-L, small) / em1mh
					wb += f * v
					wa += f * (1 - v)
				} else {
					v := expm1Near(gb-L, small) / em1h
					wa += f * v
					wb += f * (1 - v)
				}
			}
		}
		p.probs[i-lo] += wa
		p.probs[i+1-lo] += wb
	}
	for i := iLo; i < iHi; i++ {
		a, b := max(float64(i)*h, cMin), min(float64(i+1)*h, cMax)
		if !(a < b) {
			continue
		}
		x, clamped := xOf(b)
		if d.anchor != nil {
			d.anchor.set(b)
		}
		xa, xb := min(xPrev, x), max(xPrev, x)
		xPrev = x
		if !(xa < xb) {
			continue
		}
		quad(i, xa, xb, d.anchor != nil, clamped)
	}
	if cMin == cMax && d.xLo != d.xHi {
		// Every loss of the continuous part rounds to one value (a noise so
		// large that the loss varies below its ulp, e.g. the sampled
		// Gaussian at σ ≥ 1e17): the loop above has no interval, and
		// skipped the whole mass (the leaf summed to 1e-22). It all lies
		// in the grid interval that holds that loss, raised as the nodes'
		// losses are (spill: a node raised past it goes higher still).
		i := min(max(int(math.Floor(lossUp(cMax)/h)), lo), hi-1)
		if len(p.probs) == 1 {
			// One grid point: quad needs two; p.probs gains a second one
			// above, with no mass but a valid index.
			p.probs = append(p.probs, 0)
			i = lo
		}
		quad(i, xMin, xMax, false, true)
	}
	for _, at := range d.atoms {
		if at.mass == 0 || (d.optimistic && !at.exact) {
			continue
		}
		L := at.loss
		if !at.exact {
			L = lossUp(L)
		}
		i := int(math.Floor(L / h))
		if i >= hi {
			i = hi - 1
		}
		if i < lo {
			i = lo
		}
		if len(p.probs) == 1 {
			p.probs[0] += at.mass
			continue
		}
		if d.optimistic {
			p.probs[i-lo] += at.mass // at the grid loss at or below L
			continue
		}
		split(i, L, at.mass)
	}
	if !d.optimistic {
		// The masses, the one at +∞ included, sum to 1 up to the
		// quadrature's and the tails' errors: a NaN or a lost part (as
		// once at noise levels where the losses round to one value) is a
		// bug to report, not a PLD to compose.
		sum := p.inf
		for _, m := range p.probs {
			sum += m
		}
		if !(math.Abs(sum-1) <= 1e-9) {
			return nil, fmt.Errorf("accounting: internal error: the discretised privacy loss distribution of %v sums to %v, not 1", sub, sum)
		}
	}
	return p, nil
}

// expm1Fast returns e^x − 1: e^x − 1 by the assembly exponential where
// that is as accurate (x > 0.7: relative error ≤ 3u), math.Expm1 (≤ u)
// below.
func expm1Fast(x float64) float64 {
	if x > 0.7 {
		return math.Exp(x) - 1
	}
	return math.Expm1(x)
}

// log1pFast returns log(1 + x): log of the rounded 1 + x by the assembly
// logarithm where that is as accurate (x ≥ 1: absolute error
// ≤ u(1 + |log(1 + x)|)), math.Log1p below.
func log1pFast(x float64) float64 {
	if x >= 1 {
		return math.Log(1 + x)
	}
	return math.Log1p(x)
}

// expm1PolyMax bounds the arguments expm1Near evaluates by its polynomial.
const expm1PolyMax = 0x1p-6

// expm1Near returns e^z − 1, by expm1Poly when small (|z| ≤ 2^−6) and by
// math.Expm1 otherwise. It is the split weights' expm1, whose arguments
// lie within one grid interval.
func expm1Near(z float64, small bool) float64 {
	if !small {
		return math.Expm1(z)
	}
	return expm1Poly(z)
}

// lossUp returns L raised by 4 ulps of max(1, |L|): more than the rounding
// error of the loss functions above, so the computed loss is never below
// the true one and splitting a mass by it stays pessimistic. (At h = 1e-5
// and |L| = 20 the rounding would otherwise move 2e-10 of a mass between
// its two grid points, in either direction.)
func lossUp(L float64) float64 { return L + 4*unitRoundoff*max(1, math.Abs(L)) }

// normTail returns Φ(z), the standard normal mass below z.
func normTail(z float64) float64 { return math.Exp(logNdtr(z)) }

// truncationZ returns z > 0 with Φ(−z) = e^{logMass}/2: the noise is
// truncated to ±z standard deviations.
func truncationZ(logMass float64) float64 { return -ndtri(0.5 * math.Exp(logMass)) }

// gaussianDensity returns the N(mu, s²) density at x.
func gaussianDensity(x, mu, s float64) float64 {
	t := (x - mu) / s
	return math.Exp(-0.5*t*t-lnSqrt2Pi) / s
}

// sgmLoss returns the privacy loss distribution of the Poisson-subsampled
// Gaussian mechanism (sensitivity 1, noise multiplier σ, rate q ∈ (0, 1];
// q = 1 is the Gaussian mechanism) in one direction of the add/remove
// relation ([KJPH21]; dp_accounting privacy_loss_mechanism.py, b5b0286):
//
//	remove: P = (1−q) N(0, σ²) + q N(−1, σ²), Q = N(0, σ²),
//	        L(x) = log(1 − q + q e^{ℓ(x)}),  ℓ(x) = (−½ − x)/σ²
//	add:    P = N(0, σ²), Q = (1−q) N(0, σ²) + q N(1, σ²),
//	        L(x) = −log(1 − q + q e^{−ℓ(x)}), ℓ(x) = (½ − x)/σ²
//
// The noise is truncated where each Gaussian has mass e^{logMass}/2 in a
// tail: the tail of high losses goes to +∞ (remove; add with q = 1) or, as
// the loss is bounded by −log(1 − q), to that bound (add, q < 1); the tail
// of low losses is put at the lowest loss kept. Both moves raise the loss,
// so the discretisation stays pessimistic.
func sgmLoss(sigma, q float64, add bool, logMass float64) *lossDist {
	s2 := sigma * sigma
	z := truncationZ(logMass)
	logq, log1mq := math.Log(q), math.Log1p(-q)
	dens0 := func(x float64) float64 { return gaussianDensity(x, 0, sigma) }
	// The density varies on the scale σ/z in the tails it is truncated at,
	// the loss's exponential term on the scale σ².
	d := &lossDist{panel: math.Min(sigma/math.Max(1, z), s2) / 16}
	if !add {
		// P = (1−q)N(0,σ²) + qN(−1,σ²): each component's tails at ±zσ
		// (only N(−1,σ²)'s when q = 1).
		d.xLo, d.xHi = -z*sigma-1, z*sigma
		if q == 1 {
			d.xHi = z*sigma - 1
		}
		d.dens = func(x float64) float64 {
			if q == 1 {
				return gaussianDensity(x, -1, sigma)
			}
			return (1-q)*dens0(x) + q*gaussianDensity(x, -1, sigma)
		}
		d.loss = func(x float64) float64 { return logAdd(log1mq, logq+(-0.5-x)/s2) }
		anc := &sgmAnchor{sigma: sigma, s2: s2, q: q}
		if q < 1 {
			d.node = sgmNode(sigma, q, false, d.dens, d.loss)
			d.anchor = anc
		}
		d.xAt = func(eps float64) float64 {
			l0 := eps
			switch {
			case q < 1 && math.Abs(eps) < 700:
				anc.set(eps)
				l0 = anc.l0 // log(1 + (e^ε − 1)/q)
			case q < 1 && eps >= 0:
				l0 = logAdd(0, logExpm1Signed(eps)-logq) // log(1 + (e^ε − 1)/q)
			case q < 1:
				l0 = log1mExp(logExpm1Signed(eps) - logq) // log(1 − (1 − e^ε)/q)
			}
			return -0.5 - s2*l0
		}
		d.inf = (1-q)*normTail(-z-1/sigma) + q*normTail(-z)
		below := (1-q)*normTail(-z) + q*normTail(-z-1/sigma) // P-mass of x > xHi
		if q == 1 {
			below = normTail(-z)
		}
		d.atoms = []lossAtom{{d.loss(d.xHi), below, false}}
		return d
	}
	// P = N(0, σ²): its tails at ±zσ.
	d.xLo, d.xHi = -z*sigma, z*sigma
	d.dens = dens0
	d.loss = func(x float64) float64 { return -logAdd(log1mq, logq-(0.5-x)/s2) }
	anc := &sgmAnchor{sigma: sigma, s2: s2, q: q, add: true}
	if q < 1 {
		d.node = sgmNode(sigma, q, true, d.dens, d.loss)
		d.anchor = anc
	}
	d.xAt = func(eps float64) float64 {
		// e^{−ℓ} = 1 + (e^{−ε} − 1)/q
		var l0 float64
		if math.Abs(eps) < 700 {
			anc.set(eps)
			l0 = -anc.l0
		} else if eps > 0 {
			l0 = -log1mExp(logExpm1Signed(-eps) - logq)
		} else {
			l0 = -logAdd(0, logExpm1Signed(-eps)-logq)
		}
		return 0.5 - s2*l0
	}
	top := normTail(-z) // P-mass of x < xLo
	if q < 1 {
		d.atoms = append(d.atoms, lossAtom{-log1mq, top, false})
	} else {
		d.inf = top
	}
	d.atoms = append(d.atoms, lossAtom{d.loss(d.xHi), normTail(-z), false})
	return d
}

// sgmNode returns the quadrature node function of the sampled Gaussian
// (q < 1) in one direction. With ℓ = (−½ − x)/σ² (remove) or (x − ½)/σ²
// (add: minus sgmLoss's ℓ) and t = q·expm1(ℓ):
//
//	remove: dens = φ_σ(x)·(1 + t),  L = log1p(t)      (φ_σ(x+1) = φ_σ(x) e^{ℓ})
//	add:    dens = φ_σ(x),          L = −log1p(t)
//
// three transcendentals where dens and loss take five (remove), e^ℓ − 1
// and log(1 + t) standing in for expm1 and log1p where they are as
// accurate (ℓ > 0.7, t ≥ 1). For q ≤ ½, 1 + t ≥ 1 − q ≥ ½ is exact to 3u
// relative, and L to u(4|ℓ| + 8 + |L|) for t ≥ 0 (ℓ is exact to 4u|ℓ|,
// three roundings and σ²'s; e^ℓ − 1 passes a relative error
// ≤ 4u(1 + |ℓ|) + 3u; t/(1 + t) ≤ 1; the logarithm adds u(1 + |L|)) and to
// 13u|L| for t < 0 (expm1 to 5u, |t|/(1 + t) ≤ 2|t| ≤ 2|L|); lossErr
// returns that.
// Elsewhere (q > ½, or exponents x²/2σ² + |ℓ| > 100, which only small σ
// reaches) the separate forms dens and loss are used, whose loss is exact
// to u(5|ℓ| + 2|log q| + |log(1 − q)| + 2|L| + 4) (logAdd of the rounded
// logarithms).
func sgmNode(sigma, q float64, add bool, dens, loss func(float64) float64) func(x float64) (float64, float64, float64) {
	s2 := sigma * sigma
	logq, log1mq := math.Log(q), math.Log1p(-q)
	return func(x float64) (float64, float64, float64) {
		l := (-0.5 - x) / s2
		if add {
			l = (x - 0.5) / s2
		}
		g := x * x / (2 * s2)
		if math.IsNaN(g) {
			// x² and σ² both overflow (σ ≳ 1e154): the same ratio, scaled.
			g = (x / sigma) * (x / sigma) / 2
		}
		if q > 0.5 || g+math.Abs(l) > 100 {
			L := loss(x)
			return dens(x), L, unitRoundoff * (5*math.Abs(l) + 2*math.Abs(logq) + math.Abs(log1mq) + 2*math.Abs(L) + 4)
		}
		t := q * expm1Fast(l)
		L := log1pFast(t)
		errL := 13 * unitRoundoff * math.Abs(L)
		if t >= 0 {
			errL = unitRoundoff * (4*math.Abs(l) + 8 + math.Abs(L))
		}
		phi := math.Exp(-g-lnSqrt2Pi) / sigma
		if add {
			return phi, -L, errL
		}
		return phi * (1 + t), L, errL
	}
}

// sgmAnchor evaluates the sampled Gaussian's quadrature nodes (q ≤ ½)
// from the end of their interval at the grid loss g. With ℓ(x) as in
// sgmNode (ℓ = (−½ − x)/σ² remove, (x − ½)/σ² add), the end has
// t_g = expm1(±g) (+ remove, − add) and ℓ₀ = log1p(t_g/q), the ℓ at which
// the loss is g (xAt computes both, from one grid loss to the next by a
// recurrence, next, exact every anchorSteps steps: the interval ends xAt
// returns are then exact to about 16u|ℓ₀|σ², which moves no node across a
// grid loss and a mass by far less than leafRelError); with
// r = (q + t_g)/(1 + t_g) and
// Δ = ℓ(x) − ℓ₀, exactly
//
//	remove: L(x) = g + log1p(ζ) + log1p(r′ expm1(Δ)),   dens = φ_σ(x) e^{L(x)}
//	add:    L(x) = g − log1p(ζ) − log1p(r′ expm1(Δ)),   dens = φ_σ(x)
//
// where ζ and r′ − r come from the rounding of t_g and ℓ₀ (|ζ| ≤ ζ_b, the
// relative |r′ − r|/r ≤ ρ_r, set by set). Inside an interval |Δ| is at most
// the change of ℓ across it, below 2^−6 wherever the interval is narrow in x
// (every interval at fine grids but the few where the loss is flat), and
// then expm1 and log1p are short Taylor polynomials (expm1Poly, log1pPoly:
// each within 3u of the function): one exponential per node (φ_σ) instead
// of three transcendentals. eval's lossErr adds the bounds: ζ_b, the
// polynomials' 3u, Δ's rounding e_Δ = u(4|ℓ| + |ℓ₀| + |Δ|) through
// expm1 (factor e^{|Δ|} ≤ 1.02) and r, ρ_r r|expm1 Δ|, and u|L| for the
// final sum. Elsewhere (|Δ| or |r expm1 Δ| above 2^−6, large exponents, g
// beyond ±700, ℓ₀ near its singularity) it declines and sgmNode serves.
type sgmAnchor struct {
	sigma, s2, q float64
	add          bool
	// Set by set(g):
	g, tg, l0  float64
	r, eg      float64 // r and e^{±g} = 1 + t_g
	et, el     float64 // bounds on ε_e and ε_l (see finish)
	zeta, rhoR float64 // ζ_b, ρ_r
	steps      int     // steps taken by recurrence since t_g, ℓ₀ were computed
	valid, has bool
}

func (a *sgmAnchor) set(g float64) {
	if a.has && g == a.g {
		return
	}
	if a.has && a.valid && a.steps < anchorSteps && g > a.g && g-a.g <= 0x1p-10 && a.next(g) {
		return
	}
	a.g, a.has, a.steps = g, true, 0
	if a.add {
		a.tg = expm1Fast(-g)
	} else {
		a.tg = expm1Fast(g)
	}
	y := a.tg / a.q
	a.l0 = log1pFast(y)
	a.eg = 1 + a.tg
	// ℓ₀ = log(1 + y) + e₁ with |e₁| ≤ u(1 + |ℓ₀|), y = t_g/q (1 + u): so
	// q e^{ℓ₀} = (q + t_g)(1 + ε_l), |ε_l| ≤ u(|y|/(1 + y) + 1 + |ℓ₀|); t_g
	// is within 3u of expm1(±g), so 1 + t_g = e^{±g}(1 + ε_e),
	// |ε_e| ≤ 3u|t_g|/(1 + t_g).
	a.el = unitRoundoff * (math.Abs(y)/(1+y) + 1 + math.Abs(a.l0)) * 1.01
	a.et = 3 * unitRoundoff * math.Abs(a.tg) / a.eg * 1.01
	a.finish()
	a.valid = a.valid && 1+y >= 0x1p-10
}

// anchorSteps is the number of grid steps set takes by recurrence before
// it computes t_g and ℓ₀ afresh.
const anchorSteps = 16

// next moves the anchor up to the loss g (a step of at most 2^−10) by
// recurrence, reporting whether it could: e^{±g} = e^{±g′}(1 + m) with
// m = expm1(±(g − g′)) (expm1Near; g − g′ rounded to u|g − g′|), so
// t_g = t_g′ + (1 + t_g′)m, and q + t_g = (q + t_g′)(1 + m/r′), so
// ℓ₀ = ℓ₀′ + log1p(m/r′) (log1pPoly6, |m/r′| ≤ 2^−10). The bounds grow by
// the step's roundings: ε_e by 4u(|t_g| + |(1 + t_g′)m|)/(1 + t_g) + u|g − g′|,
// ε_l by the relative rounding of q + t_g, |m/r′|(7u + u|t_g′|/(q + t_g′))
// (the quotient, the sum, the polynomial) and u|ℓ₀| (the sum).
func (a *sgmAnchor) next(g float64) bool {
	d := g - a.g
	if a.add {
		d = -d
	}
	m := expm1Near(d, true)
	arg := m / a.r
	if !(math.Abs(arg) <= 0x1p-10) {
		return false
	}
	em := a.eg * m
	tg := a.tg + em
	qt := a.q + tg
	if !(qt > 0) {
		return false
	}
	a.el += (2*unitRoundoff*(math.Abs(tg)+math.Abs(em))/qt +
		math.Abs(arg)*(7*unitRoundoff+unitRoundoff*math.Abs(a.tg)/(a.q+a.tg))) * 1.01
	a.l0 += log1pPoly6(arg)
	a.el += unitRoundoff * math.Abs(a.l0)
	a.tg = tg
	a.eg = 1 + tg
	a.et += (4*unitRoundoff*(math.Abs(tg)+math.Abs(em))/a.eg + unitRoundoff*math.Abs(d)) * 1.01
	a.g = g
	a.steps++
	a.finish()
	return true
}

// finish sets r and the bounds eval uses from t_g, ε_e and ε_l: with
// q e^{ℓ₀} = (q + t_g)(1 + ε_l) and 1 + t_g = e^{±g}(1 + ε_e),
// 1 − q + q e^{ℓ₀} = e^{±g}(1 + ζ), |ζ| ≤ ε_e + r|ε_l|(1 + ε_e), and the r
// of the exact identity is within ρ_r = 2|ε_l| + 4u of r, relatively.
func (a *sgmAnchor) finish() {
	a.r = (a.q + a.tg) / a.eg
	a.zeta = (a.et + a.r*a.el*(1+a.et)) * 1.01
	a.rhoR = 2*a.el + 4*unitRoundoff
	a.valid = a.q <= 0.5 && math.Abs(a.g) < 700 && a.r >= 0
}

func (a *sgmAnchor) eval(x float64) (dens, loss, lossErr float64, ok bool) {
	if !a.valid {
		return 0, 0, 0, false
	}
	l := (-0.5 - x) / a.s2
	if a.add {
		l = (x - 0.5) / a.s2
	}
	gx := x * x / (2 * a.s2)
	delta := l - a.l0
	const lim = 0x1p-6
	if math.Abs(delta) > lim || gx+math.Abs(l) > 100 {
		return 0, 0, 0, false
	}
	short := math.Abs(delta) <= 0x1p-10
	var em float64
	if short {
		em = expm1Poly5(delta)
	} else {
		em = expm1Poly(delta)
	}
	z := a.r * em
	if math.Abs(z) > lim {
		return 0, 0, 0, false
	}
	var lp float64
	if short { // |z| ≤ |expm1 Δ| ≤ 2^−10 (r ≤ 1)
		lp = log1pPoly6(z)
	} else {
		lp = log1pPoly(z)
	}
	L := a.g + lp
	if a.add {
		L = a.g - lp
	}
	eD := unitRoundoff * (4*math.Abs(l) + math.Abs(a.l0) + math.Abs(delta))
	emErr := 3*unitRoundoff*math.Abs(em) + 1.02*eD
	zErr := a.rhoR*math.Abs(z) + a.r*emErr + unitRoundoff*math.Abs(z)
	lossErr = 1.01 * (a.zeta + 3*unitRoundoff*math.Abs(lp) + 1.02*zErr + unitRoundoff*math.Abs(L))
	phi := math.Exp(-gx-lnSqrt2Pi) / a.sigma
	if a.add {
		return phi, L, lossErr, true
	}
	return phi * a.eg * (1 + z), L, lossErr, true
}

// expm1Poly returns e^y − 1 for |y| ≤ 2^−6 by its Taylor polynomial of
// degree 8 (the remainder is below 1e-20 |y|; Horner's rule adds at most
// 3u relative).
func expm1Poly(y float64) float64 {
	const (
		c2 = 1.0 / 2
		c3 = 1.0 / 6
		c4 = 1.0 / 24
		c5 = 1.0 / 120
		c6 = 1.0 / 720
		c7 = 1.0 / 5040
		c8 = 1.0 / 40320
	)
	return y * (1 + y*(c2+y*(c3+y*(c4+y*(c5+y*(c6+y*(c7+y*c8)))))))
}

// expm1Poly5 is expm1Poly for |y| ≤ 2^−10, of degree 5 (remainder below
// 2e-18 |y|).
func expm1Poly5(y float64) float64 {
	return y * (1 + y*(1.0/2+y*(1.0/6+y*(1.0/24+y*(1.0/120)))))
}

// log1pPoly6 is log1pPoly for |z| ≤ 2^−10, of degree 6 (remainder below
// 2e-19 |z|).
func log1pPoly6(z float64) float64 {
	return z * (1 + z*(-1.0/2+z*(1.0/3+z*(-1.0/4+z*(1.0/5+z*(-1.0/6))))))
}

// log1pPoly returns log(1 + z) for |z| ≤ 2^−6 by its Taylor polynomial of
// degree 10 (the remainder is below 1e-19 |z|; Horner's rule adds at most
// 3u relative).
func log1pPoly(z float64) float64 {
	return z * (1 + z*(-1.0/2+z*(1.0/3+z*(-1.0/4+z*(1.0/5+z*(-1.0/6+z*(1.0/7+z*(-1.0/8+z*(1.0/9+z*(-1.0/10))))))))))
}

// laplaceLoss returns the privacy loss distribution of the Laplace
// mechanism that is ε₀-DP (ε₀ = Δ₁/b), the same in both directions: with
// P = Lap(0, 1) and Q = Lap(ε₀, 1), L = ε₀ on x ≤ 0 (mass ½), −ε₀ on x ≥ ε₀
// (mass e^{−ε₀}/2) and ε₀ − 2x in between (dp_accounting's
// LaplacePrivacyLoss).
func laplaceLoss(eps0 float64) *lossDist {
	return &lossDist{
		xLo: 0, xHi: eps0,
		dens:  func(x float64) float64 { return 0.5 * math.Exp(-x) },
		loss:  func(x float64) float64 { return eps0 - 2*x },
		xAt:   func(eps float64) float64 { return (eps0 - eps) / 2 },
		panel: math.Min(1, eps0) / 16,
		atoms: []lossAtom{{eps0, 0.5, true}, {-eps0, 0.5 * math.Exp(-eps0), true}},
	}
}

// objPertLoss returns the privacy loss distribution dominating objective
// perturbation in both directions: ω = c₀ + s²/2 + |N(0, s²)|, s = L/σ
// ([RKW23] Lemma D.3, inequality D.4, Lemma D.7; its δ(ε) is
// ObjPertDelta), truncated where the half-normal has mass e^{logMass}
// beyond (that tail goes to +∞).
func objPertLoss(e ObjectivePerturbation, logMass float64) *lossDist {
	s := e.L / e.Sigma
	c := objPertC0(e) + s*s/2
	z := -ndtri(0.5 * math.Exp(logMass))
	return &lossDist{
		xLo: 0, xHi: z * s,
		dens:  func(x float64) float64 { return 2 * gaussianDensity(x, 0, s) },
		loss:  func(x float64) float64 { return c + x },
		xAt:   func(eps float64) float64 { return eps - c },
		panel: s / math.Max(1, z) / 16,
		inf:   2 * normTail(-z),
	}
}

// logExpm1Signed returns log|e^x − 1|.
func logExpm1Signed(x float64) float64 {
	if x >= 0 {
		return logExpm1(x)
	}
	return log1mExp(x)
}
