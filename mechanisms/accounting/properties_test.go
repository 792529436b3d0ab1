package accounting

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// gaussianCompositions are ledgers of Gaussian mechanisms: their exact δ(ε)
// is the μ-GDP profile with μ = √(Σ count (Δ/σ)²) ([DRS19] Cor. 3.3).
var gaussianCompositions = []struct {
	name string
	e    Event
	mu   float64
}{
	{"single σ=1", Gaussian{Sigma: 1, Sensitivity: 1}, 1},
	{"single σ=5", Gaussian{Sigma: 5, Sensitivity: 1}, 0.2},
	{"1000×σ=20", SelfComposed{Event: Gaussian{Sigma: 20, Sensitivity: 1}, Count: 1000}, math.Sqrt(1000) / 20},
	{"σ=2,3,6 and Δ=2", Composed{Events: []Event{
		Gaussian{Sigma: 2, Sensitivity: 1}, Gaussian{Sigma: 3, Sensitivity: 1}, Gaussian{Sigma: 12, Sensitivity: 2}}},
		math.Sqrt(1.0/4 + 1.0/9 + 1.0/36)},
	{"10×(σ=4, σ=8)", SelfComposed{Event: Composed{Events: []Event{
		Gaussian{Sigma: 4, Sensitivity: 1}, Gaussian{Sigma: 8, Sensitivity: 1}}}, Count: 10},
		math.Sqrt(10 * (1.0/16 + 1.0/64))},
}

// TestPLDGaussianOracle: the PLD ε of a composed Gaussian is never below the
// exact ε and exceeds it by at most the discretisation error, bounded here
// by (number of composed PLDs)·h + 1e-9 (each pessimistic PLD shifts the
// loss up by less than one interval h); δ likewise never falls below the
// exact δ. Covers single PLDs, FFT composition of different PLDs
// (Composed) and the FFT self-composition (selfCompose) directly.
func TestPLDGaussianOracle(t *testing.T) {
	t.Parallel()
	const h = 1e-4
	for _, tc := range gaussianCompositions {
		acc := newAcc(t, Config{Kind: "pld", Interval: h})
		if err := acc.Compose(tc.e, 1); err != nil {
			t.Fatal(err)
		}
		for _, delta := range []float64{1e-3, 1e-5, 1e-8} {
			exact, err := GaussianEpsilon(tc.mu, delta)
			if err != nil {
				t.Fatal(err)
			}
			g, err := acc.Epsilon(delta)
			if err != nil {
				t.Fatal(err)
			}
			if g.Epsilon < exact {
				t.Errorf("%s δ=%g: PLD ε = %.12g below the exact %.12g", tc.name, delta, g.Epsilon, exact)
			}
			if g.Epsilon > exact+3*h+1e-9 {
				t.Errorf("%s δ=%g: PLD ε = %.12g exceeds exact %.12g by more than 3h", tc.name, delta, g.Epsilon, exact)
			}
		}
		for _, eps := range []float64{0.1, 1, 3} {
			d, _ := acc.Delta(eps)
			if exact := GaussianDelta(tc.mu, eps); d < exact*(1-1e-12) {
				t.Errorf("%s ε=%g: PLD δ = %.12g below the exact %.12g", tc.name, eps, d, exact)
			}
		}
	}
	// FFT composition of one discretised Gaussian with itself T times (the
	// accountant merges Gaussians; composeTilted does not), at the tilt the
	// accountant would choose.
	for _, tc := range []struct {
		sigma float64
		T     int
	}{{5, 100}, {20, 1000}, {2, 10}} {
		l, err := sgmLoss(tc.sigma, 1, false, logMassTruncation).discretise(h, nil)
		if err != nil {
			t.Fatal(err)
		}
		terms := []leafTerm{{l, tc.T}}
		mu := math.Sqrt(float64(tc.T)) / tc.sigma
		for _, delta := range []float64{1e-4, 1e-6, 1e-12} {
			exact, _ := GaussianEpsilon(mu, delta)
			got, err := epsilonOfTerms(terms, delta, h, nil)
			if err != nil {
				t.Fatal(err)
			}
			// T-fold: the connect-the-dots PLD is dominated by the loss
			// shifted up by h, so the error is at most T·h; observed far
			// smaller.
			if got < exact || got > exact+float64(tc.T)*h {
				t.Errorf("σ=%g T=%d δ=%g: composed PLD ε = %.10g, exact %.10g", tc.sigma, tc.T, delta, got, exact)
			}
		}
	}
}

// TestAccountantOrdering: for Gaussian compositions, the RDP ε ≥ the PLD ε
// ≥ the exact ε (RDP is loose; PLD is pessimistic but tight up to h).
func TestAccountantOrdering(t *testing.T) {
	for _, tc := range gaussianCompositions {
		accs := map[string]Accountant{}
		for _, k := range []string{"rdp", "pld", "exact"} {
			accs[k] = newAcc(t, Config{Kind: k})
			if err := accs[k].Compose(tc.e, 1); err != nil {
				t.Fatal(err)
			}
		}
		for _, delta := range []float64{1e-3, 1e-6, 1e-9} {
			r, _ := accs["rdp"].Epsilon(delta)
			p, _ := accs["pld"].Epsilon(delta)
			x, _ := accs["exact"].Epsilon(delta)
			if !(r.Epsilon >= p.Epsilon && p.Epsilon >= x.Epsilon) {
				t.Errorf("%s δ=%g: rdp %.9g, pld %.9g, exact %.9g not in decreasing order", tc.name, delta, r.Epsilon, p.Epsilon, x.Epsilon)
			}
		}
	}
}

// monotoneCases are ledgers every accountant that supports them must give
// ε non-increasing in δ and δ non-increasing in ε.
var monotoneCases = []Event{
	SelfComposed{Event: PoissonSampledGaussian{Q: 0.01, NoiseMultiplier: 1}, Count: 1000},
	SelfComposed{Event: Laplace{Scale: 3, Sensitivity: 1}, Count: 10},
	ObjectivePerturbation{Sigma: 8, Lambda: 10, Beta: 1, L: 1},
	Composed{Events: []Event{Gaussian{Sigma: 3, Sensitivity: 1}, SelfComposed{Event: PoissonSampledGaussian{Q: 0.1, NoiseMultiplier: 2}, Count: 50}}},
	RepeatAndSelect{Event: SelfComposed{Event: PoissonSampledGaussian{Q: 0.02, NoiseMultiplier: 1.5}, Count: 200}, Distribution: Logarithmic, Mean: 5},
	GaussMix{K: 57, Gamma: 500},
	SelfComposed{Event: RGM{Eta: 0.01, Gamma: 0.5, D: 10}, Count: 40},
	AMP{ObjPert: ObjectivePerturbation{Sigma: 5, Lambda: 2, Beta: 0.5, L: math.Sqrt2}, Tau: 0.01, SigmaOut: 0.15},
}

// TestMonotoneInDelta: ε(δ) is non-increasing in δ and δ(ε) non-increasing
// in ε, for every accountant and order set; δ(ε(δ)) ≤ δ up to 1e-6 (the
// two conversions invert each other on the same bound; 2·errorShare for the
// PLD, whose two queries are separate compositions). Under -short δ(ε) of
// the PLD is not asked at ε = 10 and 50 (each a composition truncated
// ever deeper for its tiny δ: 80% of the test's time).
func TestMonotoneInDelta(t *testing.T) {
	t.Parallel()
	deltas := []float64{1e-12, 1e-9, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 0.5}
	epsilons := []float64{0, 0.01, 0.1, 0.5, 1, 2, 5, 10, 50}
	for _, cfg := range []Config{{}, {Orders: "grid"}, {Orders: "opacus"}, {Orders: "integer"}, {Kind: "pld"}, {Kind: "exact"}} {
		es := epsilons
		if cfg.Kind == "pld" && testing.Short() {
			es = epsilons[:len(epsilons)-2]
		}
		for i, e := range monotoneCases {
			t.Run(fmt.Sprintf("%s-%s/%d-%s", cfg.kind(), cfg.Orders, i, e.Kind()), func(t *testing.T) {
				acc, _ := cfg.New()
				if acc.Check(e) != nil {
					t.Skip("unsupported by this accountant")
				}
				_ = acc.Compose(e, 1)
				prev := math.Inf(1)
				for _, d := range deltas {
					g, err := acc.Epsilon(d)
					if err != nil {
						t.Fatal(err)
					}
					if g.Epsilon > prev*(1+1e-12) {
						t.Errorf("ε(%g) = %.12g > ε at a smaller δ %.12g", d, g.Epsilon, prev)
					}
					prev = g.Epsilon
					if g.Epsilon > 0 && !math.IsInf(g.Epsilon, 1) {
						// PLD: ε(δ) and δ(ε) are each composed at their own
						// tilt and window, each bound carrying up to
						// errorShare of δ for its error terms.
						tol := 1e-6
						if cfg.Kind == "pld" {
							tol = 2 * errorShare
						}
						back, _ := acc.Delta(g.Epsilon)
						if back > d*(1+tol) {
							t.Errorf("δ(ε(%g)) = %g > δ", d, back)
						}
					}
				}
				prevD := 1.0
				for _, eps := range es {
					d, err := acc.Delta(eps)
					if err != nil {
						t.Fatal(err)
					}
					if d > prevD*(1+1e-12) {
						t.Errorf("δ(%g) = %.12g > δ at a smaller ε %.12g", eps, d, prevD)
					}
					prevD = d
				}
			})
		}
	}
}

// TestRefinementNeverWorse: the continuous refinement ("default") never
// reports a larger ε or δ than the grid it starts from.
func TestRefinementNeverWorse(t *testing.T) {
	for _, e := range monotoneCases {
		for _, delta := range []float64{1e-10, 1e-5, 1e-2} {
			g, _ := Config{Orders: "grid"}.Epsilon(e, delta)
			r, _ := Config{}.Epsilon(e, delta)
			if r.Epsilon > g.Epsilon {
				t.Errorf("%s δ=%g: refined ε %.12g > grid ε %.12g", e.Kind(), delta, r.Epsilon, g.Epsilon)
			}
		}
		for _, eps := range []float64{0.1, 1, 4} {
			g, _ := Config{Orders: "grid"}.Delta(e, eps)
			r, _ := Config{}.Delta(e, eps)
			if r > g {
				t.Errorf("%s ε=%g: refined δ %.12g > grid δ %.12g", e.Kind(), eps, r, g)
			}
		}
	}
}

// TestRGMBoundAgainstExactDivergence: the Theorem 1 v2 bound is at least the
// exact Rényi divergence between RGM's outputs on random admissible pairs
// (rgm.md §2.3): ‖R(x) − R(y)‖² ≤ η² min(‖R(x)‖², ‖R(y)‖²) + R_rel² and
// σ² ≥ γη⁻²(1 − η(α−1))R_rel², in both directions. It also reproduces the
// deterministic rows of rgm.md §2.3 where the v1 bound is violated.
func TestRGMBoundAgainstExactDivergence(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 20000; trial++ {
		e := RGM{Eta: math.Exp(r.Float64()*math.Log(0.5/1e-4)) * 1e-4, Gamma: math.Exp(r.Float64()*math.Log(1e4)) * 1e-3, D: 1 + r.IntN(30)}
		sup := rgmSup(e)
		alpha := 1 + (sup-1)*r.Float64()*0.999
		if alpha <= 1 {
			continue
		}
		d := e.D
		ry := make([]float64, d)
		ny := 0.0
		scale := math.Exp(r.Float64()*math.Log(100)) * 0.1
		for i := range ry {
			ry[i] = r.NormFloat64() * scale
			ny += ry[i] * ry[i]
		}
		rrel := 0.0
		if r.IntN(2) == 1 {
			rrel = r.Float64() * math.Sqrt(ny)
		}
		// R(x) = R(y) + t u, shrunk until the pair is admissible.
		u := make([]float64, d)
		nu := 0.0
		for i := range u {
			u[i] = r.NormFloat64()
			nu += u[i] * u[i]
		}
		tt := math.Sqrt(e.Eta*e.Eta*ny+rrel*rrel) / math.Sqrt(nu) * (0.5 + r.Float64())
		var nx, m2 float64
		for k := 0; k < 200; k++ {
			nx, m2 = 0, 0
			for i := range u {
				xi := ry[i] + tt*u[i]
				nx += xi * xi
				m2 += tt * u[i] * tt * u[i]
			}
			if m2 <= e.Eta*e.Eta*math.Min(nx, ny)+rrel*rrel {
				break
			}
			tt *= 0.9
		}
		sigma2 := e.Gamma / (e.Eta * e.Eta) * (1 - e.Eta*(alpha-1)) * rrel * rrel * (1 + r.Float64())
		if sigma2 == 0 {
			sigma2 = 1e-12 * (1 + r.Float64())
		}
		s1, s2 := e.Gamma*nx+sigma2, e.Gamma*ny+sigma2
		bound := rgmRDP(e, alpha)
		for _, dv := range []float64{RenyiIsotropicGaussians(alpha, m2, s1, s2, d), RenyiIsotropicGaussians(alpha, m2, s2, s1, d)} {
			if dv > bound*(1+1e-12) {
				t.Fatalf("%+v α=%g: exact D = %.12g exceeds the v2 bound %.12g", e, alpha, dv, bound)
			}
		}
	}
	// rgm.md §2.3 table: R_rel = 0, σ² = 1e-12, R(x) = (1+η)e₁, R(y) = e₁.
	for _, row := range []struct {
		eta, alpha, gamma float64
		d                 int
		exact, v1, v2     float64
		violated          bool
	}{
		{0.1, 5.2, 0.01, 5, 22.829, 22.607, 27.913, true},
		{0.01, 40, 1e-3, 22, 9.468, 9.433, 10.094, true},
		{0.3, 2.3, 0.05, 3, 21.933, 21.740, 47.048, true},
		{0.1, 2, 0.01, 22, 1.762, 2.236, 2.752, false},
	} {
		nx, ny := (1+row.eta)*(1+row.eta), 1.0
		ex := RenyiIsotropicGaussians(row.alpha, row.eta*row.eta, row.gamma*nx+1e-12, row.gamma*ny+1e-12, row.d)
		v1 := rgmRDP(RGM{Eta: row.eta, Gamma: row.gamma, D: row.d, V1: true}, row.alpha)
		v2 := rgmRDP(RGM{Eta: row.eta, Gamma: row.gamma, D: row.d}, row.alpha)
		// the table prints 3 decimals: absolute tolerance 6e-4
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"exact", ex, row.exact}, {"v1", v1, row.v1}, {"v2", v2, row.v2}} {
			if math.Abs(c.got-c.want) > 6e-4 {
				t.Errorf("row %+v: %s = %.5f, table %.3f", row, c.name, c.got, c.want)
			}
		}
		if (v1 < ex) != row.violated || v2 < ex {
			t.Errorf("row %+v: v1 %.4f v2 %.4f exact %.4f", row, v1, v2, ex)
		}
	}
}

// TestObjPertProfileIntegration: the corrected Thm 3.1 profile equals
// E[1 − e^{ε̂ − Y}]₊ with Y = |N(0, s²)|, ε̂ = ε − c₀ − s²/2, and the
// hockey-stick divergence of the explicit dominating pair, both integrated
// numerically (composite Simpson with 2e5 intervals on the smooth part,
// 40 standard deviations long; tolerance 1e-9 relative), and the §2.12
// table of objpert.md (7 significant digits: rtol 1e-6).
func TestObjPertProfileIntegration(t *testing.T) {
	cases := []struct{ sigma, beta, lambda, l, eps, table float64 }{
		{5, 1, 20, 1, 0.1, 1.181759e-01},
		{5, 1, 20, 1, 0.5, 2.151031e-03},
		{5, 1, 20, 1, 1.0, 1.311890e-07},
		{10, 1, 5, 1, 0.5, 1.939847e-04},
		{10, 1, 5, 1, 1.0, 1.458826e-16},
		{8, 1, 10, 1, 0.5, 6.597396e-05},
		{1, 0.25, 1, 1, 0.2, 0},   // ε̂ < 0 branch
		{3, 0.25, 1, 2, 0.4, 0},   // golden pub-objpert_rdp-006 branch
		{0.5, 0.1, 2, 1, 12, 0},   // large ε
		{50, 0.5, 1, 1.4, 0.8, 0}, // large σ
	}
	for _, c := range cases {
		e := ObjectivePerturbation{Sigma: c.sigma, Lambda: c.lambda, Beta: c.beta, L: c.l}
		s := c.l / c.sigma
		eh := c.eps - objPertC0(e) - s*s/2
		f := func(y float64) float64 { // 2φ_s(y)(1 − e^{ε̂ − y})
			return 2 * math.Exp(-y*y/(2*s*s)-lnSqrt2Pi) / s * -math.Expm1(eh-y)
		}
		a := math.Max(eh, 0)
		b := a + 40*s
		n := 200000
		hh := (b - a) / float64(n)
		sum := f(a) + f(b)
		for i := 1; i < n; i++ {
			w := 2.0
			if i%2 == 1 {
				w = 4
			}
			sum += w * f(a+float64(i)*hh)
		}
		integral := sum * hh / 3
		// Second oracle: the hockey-stick divergence ∫[P − e^ε Q]₊ of the
		// dominating pair of [RKW23] Lemmas D.4/D.6 — P = |N(0, σ²)| and
		// Q(x) = e^{−c₀} 2φ_σ(x + L) on x ≥ 0 (its remaining mass sits at −∞
		// and adds nothing) — on x > x*, where P > e^ε Q.
		sg := c.sigma
		pdf := func(x float64) float64 { return 2 * math.Exp(-x*x/(2*sg*sg)-lnSqrt2Pi) / sg }
		hs := func(x float64) float64 {
			return pdf(x) - math.Exp(c.eps-objPertC0(e))*pdf(x+c.l)
		}
		xs := math.Max(0, eh*sg*sg/c.l)
		b2 := xs + 40*sg
		h2 := (b2 - xs) / float64(n)
		sum2 := hs(xs) + hs(b2)
		for i := 1; i < n; i++ {
			w := 2.0
			if i%2 == 1 {
				w = 4
			}
			sum2 += w * hs(xs+float64(i)*h2)
		}
		hockey := sum2 * h2 / 3
		got, err := ObjPertDelta(e, c.eps)
		if err != nil {
			t.Fatal(err)
		}
		if !closeRel(got, integral, 1e-9) {
			t.Errorf("%+v: Thm 3.1 δ = %.12g, integral %.12g", c, got, integral)
		}
		if !closeRel(got, hockey, 1e-9) {
			t.Errorf("%+v: Thm 3.1 δ = %.12g, hockey-stick integral %.12g", c, got, hockey)
		}
		if c.table != 0 && !closeRel(got, c.table, 1e-6) {
			t.Errorf("%+v: δ = %.7g, objpert.md table %.7g", c, got, c.table)
		}
	}
}

// TestObjPertNoiseless: objective perturbation whose noise is negligible
// against its sensitivity (L/σ ≥ 1.3e154, so (L/σ)² overflows) certifies no
// ε: the exact accountant reported ε = 1 at δ = 1e-5 (its profile was NaN,
// which the inversion read as met). It must be +Inf, as the RDP accountant
// says, and δ(ε) must be 1 at any finite ε.
func TestObjPertNoiseless(t *testing.T) {
	for _, e := range []ObjectivePerturbation{
		{Sigma: 1e-300, Lambda: 2, Beta: 1, L: 1},
		{Sigma: 1, Lambda: 2, Beta: 1, L: 1e300},
	} {
		got, err := ObjPertEpsilon(e, 1e-5)
		if err != nil || !math.IsInf(got, 1) {
			t.Errorf("%+v: ε = %v, %v; want +Inf", e, got, err)
		}
		g, err := Config{Kind: "exact"}.Epsilon(e, 1e-5)
		if err != nil || !math.IsInf(g.Epsilon, 1) {
			t.Errorf("%+v: exact accountant ε = %v, %v; want +Inf", e, g.Epsilon, err)
		}
		if d, err := ObjPertDelta(e, 50); err != nil || d != 1 {
			t.Errorf("%+v: δ(50) = %v, %v; want 1", e, d, err)
		}
	}
}

// TestGaussianDeltaSmallMu: δ(ε) of μ-GDP for small μ against
// δ = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) evaluated in 60-digit arithmetic
// (mpmath 1.3.0, mp.dps = 60, mp.ncdf), to 1e-12 relative. Subtracting the
// two terms' logarithms lost precision as μ shrank: relative errors of
// 1.4e-8 at μ = 2.5e-7, 2.3e-5 at μ = 1e-10 and 1.4e-2 at μ = 1e-12, all
// below the true δ (at σ/Δ = 1e12 and the δ of ε = 6e-12 the exact
// accountant reported ε = 5.99787e-12, 3.6e-4 too small).
func TestGaussianDeltaSmallMu(t *testing.T) {
	for _, c := range []struct{ mu, eps, want float64 }{
		{2.5e-7, 1e-6, 1.7863155012589312e-12},
		{2.5e-7, 1.2e-6, 3.8331013385905707e-14},
		{1e-8, 4e-8, 7.1452585753108369e-14},
		{1e-10, 5e-10, 5.3461655351693528e-18},
		{1e-5, 4.5e-5, 6.9422766555892821e-12},
		{1e-12, 6e-12, 1.5635697959756531e-22},
		{0.001, 0.004, 7.1595624349382469e-9},
		{1, 3, 0.0015371853694009548},
	} {
		if got := GaussianDelta(c.mu, c.eps); !closeRel(got, c.want, 1e-12) {
			t.Errorf("μ = %g, ε = %g: δ = %.17g, want %.17g (relative error %.2g)", c.mu, c.eps, got, c.want, got/c.want-1)
		}
	}
}
