package accounting

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFFTRoundTrip: inverse(forward(x)) = x and forward matches the direct
// DFT, for every power-of-two length from 4 to 1024 (1e-13 of ‖x‖).
func TestFFTRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for n := 4; n <= 1024; n *= 2 {
		x := make([]float64, n)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		p := planFFT(n)
		X := p.forward(x)
		for k := 0; k <= n/2; k++ {
			var want complex128
			for j, v := range x {
				s, c := math.Sincos(-2 * math.Pi * float64(j*k%n) / float64(n))
				want += complex(v*c, v*s)
			}
			if d := X[k] - want; math.Hypot(real(d), imag(d)) > 1e-12*float64(n) {
				t.Fatalf("n=%d: X[%d] = %v, want %v", n, k, X[k], want)
			}
		}
		back := p.inverse(X)
		for i := range x {
			if math.Abs(back[i]-x[i]) > 1e-13*float64(n) {
				t.Fatalf("n=%d: round trip x[%d] = %v, want %v", n, i, back[i], x[i])
			}
		}
	}
}

// TestFFTZeroPadded: forward of a short x (its zero padding implicit: the
// first stages are replaced by copies) equals, bit for bit, forward of the
// same x padded explicitly to the full length, also when written into a
// used buffer.
func TestFFTZeroPadded(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for n := 4; n <= 1<<12; n *= 2 {
		p := planFFT(n)
		for _, l := range []int{1, 2, 3, n / 16, n/16 + 1, n / 8, n/8 + 1, n/4 - 1, n / 2, n/2 + 3, n - 1} {
			if l < 1 || l > n {
				continue
			}
			x := make([]float64, n)
			for i := range l {
				x[i] = r.Float64()
			}
			dirty := make([]complex128, n/2+1)
			for k := range dirty {
				dirty[k] = complex(math.NaN(), 1)
			}
			short, full := p.forward(x[:l]), p.forward(x)
			reused := p.forwardInto(dirty, x[:l])
			for k := range full {
				if short[k] != full[k] || reused[k] != full[k] {
					t.Fatalf("n=%d len=%d: X[%d] = %v (into a used buffer %v), padded %v", n, l, k, short[k], reused[k], full[k])
				}
			}
		}
	}
}

// TestFFTStagePairs: the stages run in pairs (stagePair) give, bit for
// bit, what the radix-2 stages one by one give.
func TestFFTStagePairs(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for n := 4; n <= 1<<17; n *= 2 {
		p := planFFT(n)
		z := make([]complex128, p.m)
		for i := range z {
			z[i] = complex(r.NormFloat64(), r.NormFloat64())
		}
		ref := append([]complex128(nil), z...)
		p.stages(z, 1)
		for half := 1; half < p.m; half *= 2 {
			p.stage(ref, half)
		}
		for i := range z {
			if z[i] != ref[i] {
				t.Fatalf("n=%d: z[%d] = %v, stage by stage %v", n, i, z[i], ref[i])
			}
		}
	}
}

// TestFFTErrorBound: the error of a convolution by FFT, measured exactly
// against integer convolutions (vectors of integers below 2^12 convolve
// exactly in float64 and are then scaled to probability vectors), stays
// within the bound composeTilted charges: ε_F(‖a‖₂‖b‖₁ + ‖a‖₁‖b‖₂)(1+ε_F)
// + (3u + ε_F + u)·min(‖a‖₂, ‖b‖₂) in 2-norm, for lengths 2^6..2^16
// (2^6..2^14 under -short: the exact convolution at 2^16, 10⁹ products, is
// most of the test's time); the observed error is reported to show the
// bound's margin.
func TestFFTErrorBound(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(2, 2))
	maxLg := 16
	if testing.Short() {
		maxLg = 14
	}
	for lg := 6; lg <= maxLg; lg += 2 {
		n := 1 << lg
		la, lb := n/2-1, n/2
		ia, ib := make([]int64, la), make([]int64, lb)
		var sa, sb int64
		for i := range ia {
			ia[i] = r.Int64N(1 << 12)
			sa += ia[i]
		}
		for i := range ib {
			ib[i] = r.Int64N(1 << 12)
			sb += ib[i]
		}
		exact := make([]int64, la+lb-1)
		for i, u := range ia {
			for j, v := range ib {
				exact[i+j] += u * v
			}
		}
		a, b := make([]float64, la), make([]float64, lb)
		for i := range ia {
			a[i] = float64(ia[i]) / float64(sa)
		}
		for i := range ib {
			b[i] = float64(ib[i]) / float64(sb)
		}
		p := planFFT(n)
		A, B := p.forward(a), p.forward(b)
		for k := range A {
			A[k] *= B[k]
		}
		y := p.inverse(A)
		var e2, na, nb float64
		for i, v := range exact {
			d := y[i] - float64(v)/(float64(sa)*float64(sb))
			e2 += d * d
		}
		for _, v := range a {
			na += v * v
		}
		for _, v := range b {
			nb += v * v
		}
		na, nb = math.Sqrt(na), math.Sqrt(nb)
		ef := fftErrorBound(n)
		bound := ef*(na+nb)*(1+ef) + (4*unitRoundoff+ef)*math.Min(na, nb)
		if got := math.Sqrt(e2); got > bound {
			t.Errorf("n=%d: ‖error‖₂ = %.3g above the bound %.3g", n, got, bound)
		} else {
			t.Logf("n=%d: ‖error‖₂ = %.3g, bound %.3g (%.0f×)", n, got, bound, bound/got)
		}
	}
}

// sgmRemoveDelta is the closed form of the sampled Gaussian's δ(ε) in the
// remove direction (an oracle independent of the quadrature): with
// x* = −½ − σ² log(1 + (e^ε − 1)/q),
//
//	δ(ε) = q Φ((x*+1)/σ) − (e^ε − 1 + q) Φ(x*/σ)
//
// ([KJPH21]; dp_accounting's hockey-stick divergence of the pair).
func sgmRemoveDelta(sigma, q, eps float64) float64 {
	x := -0.5 - sigma*sigma*math.Log(1+math.Expm1(eps)/q)
	phi := func(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
	return q*phi((x+1)/sigma) - (math.Expm1(eps)+q)*phi(x/sigma)
}

// leafDelta returns δ(ε) of a discretised leaf by direct summation.
func leafDelta(l *pldLeaf, eps float64) float64 {
	d := l.inf
	for i, p := range l.probs {
		if L := l.loss(i); L > eps {
			d += -math.Expm1(eps-L) * p
		}
	}
	return d
}

// TestLeafQuadrature: each discretised mass is non-negative and within
// leafRelError of the same mass computed with panels a quarter as wide;
// the masses sum to 1 (1e-12); and the discretised δ equals the true δ at
// grid losses (connect-the-dots is exact there; 1e-9 relative, the oracle's
// own cancellation) and is never below it between them — for sampled
// Gaussians (both directions, q from 1e-4 to 1), Laplace and objective
// perturbation, at h = 1e-4 and 1e-5 (under -short at 1e-4 only: the
// 1e-5 grids, ten times the points, took most of its time).
func TestLeafQuadrature(t *testing.T) {
	t.Parallel()
	intervals := []float64{1e-4, 1e-5}
	if testing.Short() {
		intervals = intervals[:1]
	}
	type tc struct {
		name  string
		d     func() *lossDist
		delta func(eps float64) float64 // nil: no closed form here
	}
	cases := []tc{
		{"gaussian σ=1", func() *lossDist { return sgmLoss(1, 1, false, logMassTruncation) }, func(e float64) float64 { return GaussianDelta(1, e) }},
		{"gaussian σ=0.3", func() *lossDist { return sgmLoss(0.3, 1, false, logMassTruncation) }, func(e float64) float64 { return GaussianDelta(1/0.3, e) }},
		{"sgm q=0.01 σ=1 remove", func() *lossDist { return sgmLoss(1, 0.01, false, logMassTruncation) }, func(e float64) float64 { return sgmRemoveDelta(1, 0.01, e) }},
		{"sgm q=1e-4 σ=0.8 remove", func() *lossDist { return sgmLoss(0.8, 1e-4, false, logMassTruncation) }, func(e float64) float64 { return sgmRemoveDelta(0.8, 1e-4, e) }},
		{"sgm q=0.3 σ=2 add", func() *lossDist { return sgmLoss(2, 0.3, true, logMassTruncation) }, nil},
		{"laplace ε₀=0.7", func() *lossDist { return laplaceLoss(0.7) }, nil},
		{"objpert", func() *lossDist {
			return objPertLoss(ObjectivePerturbation{Sigma: 5, Lambda: 20, Beta: 1, L: 1}, logMassTruncation)
		}, func(e float64) float64 {
			return objPertDelta(ObjectivePerturbation{Sigma: 5, Lambda: 20, Beta: 1, L: 1}, e)
		}},
	}
	for _, c := range cases {
		for _, h := range intervals {
			d := c.d()
			l, err := d.discretise(h, nil)
			if _, big := err.(*SizeError); big && h < 1e-4 {
				continue // σ = 0.3 needs 7.6M points at 1e-5
			}
			if err != nil {
				t.Fatal(err)
			}
			fine := c.d()
			fine.panel /= 4
			lf, err := fine.discretise(h, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Quadrature nodes at other x split their mass at other losses,
			// exact to the loss's rounding: 16 ulps of |L| per interval h.
			worst := 0.0
			for i, p := range l.probs {
				if p < 0 {
					t.Fatalf("%s h=%g: negative mass %v at %d", c.name, h, p, i)
				}
				if lf.probs[i] > 1e-300 {
					tol := leafRelError + 16*unitRoundoff*math.Max(1, math.Abs(l.loss(i)))/h
					worst = math.Max(worst, math.Abs(p-lf.probs[i])/lf.probs[i]/tol)
				}
			}
			if worst > 1 {
				t.Errorf("%s h=%g: mass relative error %.3g× the tolerance", c.name, h, worst)
			}
			if m := l.mass(); math.Abs(m-1) > 1e-12 {
				t.Errorf("%s h=%g: total mass %.15g", c.name, h, m)
			}
			if c.delta == nil {
				continue
			}
			for _, k := range []float64{0, 1, 7, 50, 333} {
				eps := float64(int(k*1e-3/h)) * h // a grid loss
				want := c.delta(eps)
				if want < 1e-12 {
					continue
				}
				if got := leafDelta(l, eps); math.Abs(got-want) > 1e-9*want {
					t.Errorf("%s h=%g: δ(%g) = %.12g, closed form %.12g", c.name, h, eps, got, want)
				}
				mid := eps + h/2
				if got, want := leafDelta(l, mid), c.delta(mid); got < want*(1-1e-9) {
					t.Errorf("%s h=%g: δ(%g) = %.12g below the true %.12g (not pessimistic)", c.name, h, mid, got, want)
				}
			}
		}
	}
}

// TestComposedQueries: on a composition, epsilonUpper and deltaUpper
// invert each other (ε(δ(ε)) ≤ ε + 1e-9, δ(ε(δ)) ≤ δ), and deltaUpper is
// the direct sum over the untilted masses plus a non-negative error term
// (below 1e-4 of it: the wrapped tails are charged about 1e-6).
func TestComposedQueries(t *testing.T) {
	const h = 1e-3
	l, err := sgmLoss(1, 0.05, false, logMassTruncation).discretise(h, nil)
	if err != nil {
		t.Fatal(err)
	}
	terms := []leafTerm{{l, 100}}
	cm := compress(terms)
	for _, eps := range []float64{0.5, 1, 2, 4} {
		th := cm.saddleTilt(eps)
		c, err := composeTilted(terms, nil, th, initialTail(tilts{}.of(terms, th), th, h), h, maxPLDPoints, nil)
		if err != nil {
			t.Fatal(err)
		}
		d := c.deltaUpper(eps)
		direct := c.inf
		for j, y := range windowMasses(c) {
			if L := c.loss(j); L > eps {
				direct += y * c.untilt(j) * -math.Expm1(eps-L)
			}
		}
		if d < direct || d > direct*(1+1e-4)+1e-300 {
			t.Errorf("ε=%g: δ_U = %.12g, direct sum %.12g", eps, d, direct)
		}
		e, inside, _, _ := c.epsilonUpper(d)
		if !inside || e > eps+1e-9 {
			t.Errorf("ε=%g: ε(δ(ε)) = %.12g (inside the window: %v)", eps, e, inside)
		}
		if back := c.deltaUpper(e); back > d*(1+1e-9) {
			t.Errorf("ε=%g: δ(ε(δ)) = %.12g > δ = %.12g", eps, back, d)
		}
	}
}

// windowMasses returns a composition's tilted masses on its window (for a
// composition held as a spectrum, the inverse transform of its kept
// coefficients).
func windowMasses(c *composedPLD) []float64 {
	if c.spec == nil {
		return c.y
	}
	s := c.spec
	X := make([]complex128, s.n/2+1)
	for j, k := range s.k {
		X[k] = s.c[j]
	}
	cyc := s.plan.inverse(X)
	y := make([]float64, s.n)
	for j := range y {
		y[j] = cyc[(j+s.d)%s.n]
	}
	return y
}

// TestPLDLargeEpsilon: at ε above 709 e^ε overflows float64; the PLD keeps
// its sums relative to the loss being scanned. A single Gaussian is exact at
// the grid losses, so the PLD ε is within one interval above the exact ε
// ([BW18]) — before the fix, σ = 0.03 gave 880.4 (the top of the grid) for
// the exact 696.78, and δ(800) = 1.
func TestPLDLargeEpsilon(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ sigma, h float64 }{{0.03, 1e-3}, {0.01, 0.006}} {
		e := Gaussian{Sigma: tc.sigma, Sensitivity: 1}
		cfg := Config{Kind: "pld", Interval: tc.h}
		g, err := cfg.Epsilon(e, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		exact, err := GaussianEpsilon(1/tc.sigma, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		if g.Epsilon < exact || g.Epsilon > exact+tc.h {
			t.Errorf("σ=%g h=%g: PLD ε = %.10g, exact %.10g", tc.sigma, tc.h, g.Epsilon, exact)
		}
		d, err := cfg.Delta(e, exact+50)
		if err != nil {
			t.Fatal(err)
		}
		if want := GaussianDelta(1/tc.sigma, exact+50); d < want || d > want*(1+1e-6)+1e-300 {
			t.Errorf("σ=%g h=%g: PLD δ(%g) = %.10g, exact %.10g", tc.sigma, tc.h, exact+50, d, want)
		}
	}
}
