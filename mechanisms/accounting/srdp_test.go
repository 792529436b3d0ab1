package accounting

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSRDPTable1: the noise-parametrised curves equal [HSS24] Table 1 in
// the paper's ε form (with the errata of preprocessing.md Appendix A) when
// σ is written through ε: Gaussian σ = Δ_f/ε, DP-GD σ = L√T/(εn), DP-SGD-samp
// σ = L√(cT)/(εn) with c = 1, DP-SGD-iter σ = 8L√(2 log n)/(ε√n); tolerance
// 1e-12 relative (a few roundings).
func TestSRDPTable1(t *testing.T) {
	const eps, tau, alpha = 0.7, 3.3, 5.5
	const L, mu, df, n, T = 1.7, 0.8, 0.6, 400, 25
	for _, c := range []struct {
		name      string
		s         SRDP
		srdp, rdp float64
	}{
		// Thm 9 (erratum 1): α L²τ²ε²/(2Δ_f²); RDP αε²/2.
		{"gaussian", SRDP{Mechanism: SRDPGaussian, Sigma: df / eps, Sensitivity: df, L12: L},
			alpha * L * L * tau * tau * eps * eps / (2 * df * df), alpha * eps * eps / 2},
		// Thm 10: Lτε/Δ_f (pure); RDP ε.
		{"laplace", SRDP{Mechanism: SRDPLaplace, Scale: df / eps, Sensitivity: df, L12: L}, math.NaN(), eps},
		// Thm 11: Lτε/Δ_Q; RDP ε.
		{"exponential", SRDP{Mechanism: SRDPExponential, Epsilon: eps, Sensitivity: df, L12: L}, L * tau * eps / df, eps},
		// Thm 12 (erratum 2): αμ²τ²ε²/(2L²); RDP 2αε².
		{"dp_gd", SRDP{Mechanism: SRDPDPGD, Sigma: L * math.Sqrt(T) / (eps * n), N: n, Lipschitz: L, MuX: mu, Steps: T},
			alpha * mu * mu * tau * tau * eps * eps / (2 * L * L), 2 * alpha * eps * eps},
		// Thm 13 (γ = 2.5): αμ²τ²ε²γ²/(2L²); RDP α²ε²/2 (display).
		{"dp_sgd_samp", SRDP{Mechanism: SRDPDPSGDSamp, Sigma: L * math.Sqrt(T) / (eps * n), N: n, Lipschitz: L, MuX: mu, Steps: T, Gamma: 2.5},
			alpha * mu * mu * tau * tau * eps * eps * 2.5 * 2.5 / (2 * L * L), alpha * alpha * eps * eps / 2},
		// Thm 14 / Table 1 (κ_τ = 7, erratum 4: × ε²):
		// ατ²μ²ε² n log(n−κ+2)/(2(n−κ+1)L² log n); RDP αε²/2.
		{"dp_sgd_iter paper", SRDP{Mechanism: SRDPDPSGDIter, Sigma: 8 * L * math.Sqrt(2*math.Log(n)) / (eps * math.Sqrt(n)), N: n, Lipschitz: L, MuX: mu, KappaTau: 7, Form: "paper"},
			alpha * tau * tau * mu * mu * eps * eps * n * math.Log(n-7+2) / (2 * (n - 7 + 1) * L * L * math.Log(n)), alpha * eps * eps / 2},
	} {
		if !math.IsNaN(c.srdp) {
			got := c.s.at(alpha, tau, MetricL12) // dp_sgd_iter at these values is outside Thm 14's domain: formula only
			if !relClose(got, c.srdp, 1e-12) {
				t.Errorf("%s: SRDP %.15g, Table 1 %.15g", c.name, got, c.srdp)
			}
		}
		if c.name == "dp_sgd_iter paper" {
			continue // Lemma H's domain excludes α = 5.5 here; the ε form is checked above
		}
		r, err := c.s.PaperRDP(alpha)
		if err != nil || !relClose(r, c.rdp, 1e-12) {
			t.Errorf("%s: RDP %.15g (%v), Table 1 %.15g", c.name, r, err, c.rdp)
		}
	}
	// Laplace: pure ε~(∞, τ) = Lτε/Δ_f, and the finite-order curve is
	// Mironov's Laplace divergence at shift Lτ/b, below it.
	s := SRDP{Mechanism: SRDPLaplace, Scale: df / eps, Sensitivity: df, L12: L}
	pure, _ := s.PureSRDP(tau, MetricL12)
	if want := L * tau * eps / df; !relClose(pure, want, 1e-12) || s.at(alpha, tau, MetricL12) > pure {
		t.Errorf("laplace: pure %g (want %g), finite %g", pure, want, s.at(alpha, tau, MetricL12))
	}
	// The safe DP-SGD-iter form (harmonic sum) is below the paper's.
	p := SRDP{Mechanism: SRDPDPSGDIter, Sigma: 30, N: 1000, Lipschitz: 1, MuX: 1, KappaTau: 10, Form: "paper"}
	sf := p
	sf.Form = "safe"
	if a, b := sf.at(2, 1, MetricL12), p.at(2, 1, MetricL12); !(a < b) || !relClose(a, 4*2*harmonic(991)/(991*900), 1e-12) {
		t.Errorf("dp_sgd_iter: safe %g, paper %g", a, b)
	}
	// The Frobenius curve exists for the Gaussian, Laplace and exponential
	// mechanisms with lf, and nowhere else.
	for _, k := range []SRDP{
		{Mechanism: SRDPGaussian, Sigma: 1, Sensitivity: 1, L12: 1},
		{Mechanism: SRDPDPGD, Sigma: 1, N: 10, Lipschitz: 1, Steps: 1},
	} {
		if _, err := k.At(2, 1, MetricFrobenius); err == nil || !strings.Contains(err.Error(), "no Frobenius curve") {
			t.Errorf("%s without lf: %v", k.Mechanism, err)
		}
	}
}

// TestGaussianSRDPProbe checks the Gaussian mechanism's SRDP against the
// exact Rényi divergence of its two outputs on random pairs of datasets.
// The query is the mean f(S) = (1/n)Σxᵢ of rows in R^d, released with
// N(0, σ²I): L12 = 1/n, LF = 1/√n (preprocessing.md §4.3). For pairs with
// d₁₂(S, S') ≤ τ (resp. ‖S − S'‖_F ≤ τ_F) the divergence
// D_α(N(f(S), σ²I) ‖ N(f(S'), σ²I)) — computed here by numerical
// integration of (1/(α−1))·log ∫ p^α q^{1−α} along the direction of the
// mean difference, independently of the closed form — must not exceed
// SRDP.At(α, τ, metric); and the aligned pairs (every row moved by τ/n,
// resp. τ_F/√n, in one direction) reach it.
func TestGaussianSRDPProbe(t *testing.T) {
	const n, d, sigma = 12, 3, 0.3
	s := SRDP{Mechanism: SRDPGaussian, Sigma: sigma, Sensitivity: 2.0 / n, L12: 1.0 / n, LF: 1 / math.Sqrt(n)}
	rng := rand.New(rand.NewPCG(3, 3))
	mean := func(rows [][]float64) []float64 {
		m := make([]float64, d)
		for _, r := range rows {
			for j := range m {
				m[j] += r[j] / n
			}
		}
		return m
	}
	divergence := func(alpha float64, a, b []float64) float64 {
		// 1-D along a − b: N(‖a−b‖, σ²) vs N(0, σ²), trapezoid on ±12σ.
		dist := 0.0
		for j := range a {
			dist += (a[j] - b[j]) * (a[j] - b[j])
		}
		dist = math.Sqrt(dist)
		lo, hi, m := -12*sigma, dist+12*sigma, 200000
		h := (hi - lo) / float64(m)
		sum := 0.0
		for i := 0; i <= m; i++ {
			x := lo + h*float64(i)
			lp := -(x - dist) * (x - dist) / (2 * sigma * sigma)
			lq := -x * x / (2 * sigma * sigma)
			w := 1.0
			if i == 0 || i == m {
				w = 0.5
			}
			sum += w * math.Exp(alpha*lp+(1-alpha)*lq)
		}
		return math.Log(sum*h/(sigma*math.Sqrt(2*math.Pi))) / (alpha - 1)
	}
	for trial := 0; trial < 40; trial++ {
		alpha := 1.2 + 6*rng.Float64()
		tau := 0.05 + 0.5*rng.Float64()
		metric := MetricL12
		if trial%2 == 1 {
			metric = MetricFrobenius
		}
		S := make([][]float64, n)
		T := make([][]float64, n)
		moves := make([]float64, n)
		total := 0.0
		for i := range S {
			S[i] = make([]float64, d)
			for j := range S[i] {
				S[i][j] = rng.NormFloat64() / 2
			}
			moves[i] = rng.ExpFloat64()
			if metric == MetricFrobenius {
				total += moves[i] * moves[i]
			} else {
				total += moves[i]
			}
		}
		if metric == MetricFrobenius {
			total = math.Sqrt(total)
		}
		aligned := trial%4 >= 2
		dir := []float64{1, 0, 0}
		for i := range S {
			T[i] = make([]float64, d)
			r := moves[i] / total * tau // distance exactly τ in the metric
			if aligned {
				r = tau / float64(n) // L12: Σ = τ
				if metric == MetricFrobenius {
					r = tau / math.Sqrt(n) // Frobenius: √(Σ r²) = τ
				}
			} else {
				dir = []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
				l := math.Hypot(math.Hypot(dir[0], dir[1]), dir[2])
				for j := range dir {
					dir[j] /= l
				}
			}
			for j := range T[i] {
				T[i][j] = S[i][j] + r*dir[j]
			}
		}
		got := divergence(alpha, mean(S), mean(T))
		bound, err := s.At(alpha, tau, metric)
		if err != nil {
			t.Fatal(err)
		}
		if got > bound*(1+1e-6) {
			t.Errorf("trial %d (%s): D_α = %.9g > SRDP %.9g", trial, metric, got, bound)
		}
		if aligned && !relClose(got, bound, 1e-6) {
			t.Errorf("trial %d (%s, aligned): D_α = %.9g, SRDP %.9g: should be attained", trial, metric, got, bound)
		}
	}
}

// TestDPSGDSRDP tests the derived SRDP of DP-SGD (dpSGDSRDP) on its two
// ingredients and its special case:
//   - per step, clipped per-example logistic-loss gradients of two
//     index-aligned datasets differ in sum by at most μ_x·d₁₂ with
//     μ_x = 1 + R/4 (‖x‖ ≤ 1, ‖θ‖ ≤ R; preprocessing.md §4.5), on random
//     θ, batches (any subset: Poisson may pick all rows) and moves;
//   - with that shift, N(sum, z²C²I) vs N(sum', z²C²I) diverge by
//     α(μ_x τ)²/(2z²C²) at most ([Mir17] Prop. 7), i.e. the formula;
//   - with the batch the whole dataset and the sum divided by n, it is
//     A_GD's SRDP with σ = zC/n ([HSS24] Thm 12).
func TestDPSGDSRDP(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const d, R, clip = 4, 1.0, 0.3
	muX := 1 + R/4
	grad := func(theta, x []float64, y float64) []float64 {
		m := 0.0
		for j := range x {
			m += theta[j] * x[j]
		}
		s := 1 / (1 + math.Exp(y*m)) // σ(−y θ·x)
		g := make([]float64, d)
		norm := 0.0
		for j := range x {
			g[j] = -y * x[j] * s
			norm += g[j] * g[j]
		}
		if norm = math.Sqrt(norm); norm > clip {
			for j := range g {
				g[j] *= clip / norm
			}
		}
		return g
	}
	unit := func(scale float64) []float64 {
		v := make([]float64, d)
		l := 0.0
		for j := range v {
			v[j] = rng.NormFloat64()
			l += v[j] * v[j]
		}
		for j := range v {
			v[j] *= scale / math.Sqrt(l)
		}
		return v
	}
	worst := 0.0
	for trial := 0; trial < 2000; trial++ {
		theta := unit(R * rng.Float64())
		b := 1 + rng.IntN(20)
		diff := make([]float64, d)
		tau := 0.0
		for i := 0; i < b; i++ {
			x := unit(rng.Float64())
			xp := make([]float64, d)
			mv := unit(0.3 * rng.Float64())
			for j := range xp {
				xp[j] = x[j] + mv[j]
			}
			if l := math.Sqrt(dot(xp, xp)); l > 1 {
				for j := range xp {
					xp[j] /= l
				}
			}
			dd := make([]float64, d)
			for j := range dd {
				dd[j] = x[j] - xp[j]
			}
			tau += math.Sqrt(dot(dd, dd))
			y := 1.0
			if rng.IntN(2) == 0 {
				y = -1
			}
			g, gp := grad(theta, x, y), grad(theta, xp, y)
			for j := range diff {
				diff[j] += g[j] - gp[j]
			}
		}
		if tau == 0 {
			continue
		}
		ratio := math.Sqrt(dot(diff, diff)) / tau
		worst = math.Max(worst, ratio)
		if ratio > muX*(1+1e-12) {
			t.Fatalf("trial %d: clipped-sum shift %g·τ exceeds μ_x τ = %g·τ", trial, ratio, muX)
		}
		z, alpha := 0.5+3*rng.Float64(), 1.1+10*rng.Float64()
		shift := math.Sqrt(dot(diff, diff))
		exact := alpha * shift * shift / (2 * z * z * clip * clip)
		if bound := dpSGDSRDP(alpha, tau, muX, z, clip, 1); exact > bound*(1+1e-12) {
			t.Fatalf("trial %d: divergence %g > SRDP %g", trial, exact, bound)
		}
	}
	t.Logf("largest observed shift/τ: %.4f (μ_x = %g)", worst, muX)
	// B = n, sum/n: A_GD with σ = zC/n.
	const n, T, z, tau, alpha = 50, 7, 1.3, 2.0, 3.0
	sgd := SRDP{Mechanism: SRDPDPSGD, NoiseMultiplier: z, Clip: clip, MuX: muX, Steps: T, Q: 1}
	gd := SRDP{Mechanism: SRDPDPGD, Sigma: z * clip / n, N: n, Lipschitz: clip, MuX: muX, Steps: T}
	if a, b := sgd.at(alpha, tau, MetricL12), gd.at(alpha, tau, MetricL12); !relClose(a, b, 1e-12) {
		t.Errorf("DP-SGD with q = 1: %g, A_GD: %g", a, b)
	}
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// TestSRDPSubsampledRemark1: for B = 1 and a curve quadratic in τ,
// ε(α, τ) = cτ², Lemma 2's bound is 2cτ²·min_k[(1/k²)(1 − (k−1)/n) + (k−1)/n]
// ([HSS24] Remark 1; direct minimisation over k here as the oracle), which
// is at most Remark 1's closed bound at k = √(2n − 3), 4cτ²√... in its ε
// form 2μ²τ²ε²n^{3/2}α/(L²T); and the lemma refuses curves above 1/(α − 1).
func TestSRDPSubsampledRemark1(t *testing.T) {
	for _, c := range []struct {
		n          int
		c, tau, al float64
	}{{100, 1e-4, 5, 2}, {1000, 1e-6, 20, 4}, {37, 3e-3, 1, 1.5}} {
		curve := func(alpha, tau float64) (float64, error) { return c.c * tau * tau, nil }
		got, k, err := SRDPSubsampled(curve, c.al, c.tau, c.n, 1)
		if err != nil {
			t.Fatal(err)
		}
		best := math.Inf(1)
		for kk := 1; kk <= c.n-1; kk++ {
			kf := float64(kk)
			best = math.Min(best, 2*c.c*c.tau*c.tau*((1/(kf*kf))*(1-(kf-1)/float64(c.n))+(kf-1)/float64(c.n)))
		}
		if !relClose(got, best, 1e-12) || k < 1 {
			t.Errorf("%+v: %g at k = %d, oracle %g", c, got, k, best)
		}
		// Remark 1's closed bound: the bracket at k = √(2n − 3) is ≤ 2/√n.
		if got > 2*c.c*c.tau*c.tau*2/math.Sqrt(float64(c.n)) {
			t.Errorf("%+v: %g above Remark 1's O(1/√n) bound", c, got)
		}
	}
	big := func(alpha, tau float64) (float64, error) { return 2, nil }
	if _, _, err := SRDPSubsampled(big, 2, 1, 100, 1); err == nil || !strings.Contains(err.Error(), "exceeds 1/(α − 1)") {
		t.Errorf("condition: %v", err)
	}
	if _, _, err := SRDPSubsampled(big, 2, 1, 5, 5); err == nil {
		t.Error("n < B + 1 accepted")
	}
}

// TestSRDPValidate: each kind's fields, errors naming the field.
func TestSRDPValidate(t *testing.T) {
	for _, c := range []struct {
		s    SRDP
		want string
	}{
		{SRDP{Mechanism: "gauss"}, `mechanism = "gauss"`},
		{SRDP{Mechanism: SRDPGaussian, Sensitivity: 1}, "l12 is required"},
		{SRDP{Mechanism: SRDPGaussian, Sensitivity: 1, L12: 1, Sigma: -1}, "sigma = -1"},
		{SRDP{Mechanism: SRDPGaussian, Sensitivity: 1, L12: 1, N: 5}, "n does not apply"},
		{SRDP{Mechanism: SRDPDPGD, N: 10, Lipschitz: 1}, "steps is required"},
		{SRDP{Mechanism: SRDPDPSGDSamp, N: 10, Lipschitz: 1, Steps: 1, Gamma: 0.5}, "gamma = 0.5"},
		{SRDP{Mechanism: SRDPDPSGD, Clip: 1, Steps: 1, Q: 2}, "q = 2"},
		{SRDP{Mechanism: SRDPDPSGDIter, N: 10, Lipschitz: 1, KappaTau: 11}, "kappa_tau = 11"},
		{SRDP{Mechanism: SRDPDPSGDIter, N: 10, Lipschitz: 1, Form: "tight"}, `form = tight`},
		{SRDP{Mechanism: SRDPExponential, Sensitivity: 1, L12: 1}, "epsilon is required"},
		{SRDP{Mechanism: SRDPLaplace, Sensitivity: 1, L12: math.Inf(1)}, "l12 = +Inf"},
	} {
		if err := c.s.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.s, err, c.want)
		}
	}
	s := SRDP{Mechanism: SRDPGaussian, Sigma: 1, Sensitivity: 1, L12: 1}
	for _, bad := range []struct{ alpha, tau float64 }{{1, 1}, {math.NaN(), 1}, {2, -1}, {2, math.Inf(1)}} {
		if _, err := s.At(bad.alpha, bad.tau, MetricL12); err == nil {
			t.Errorf("At(%g, %g) accepted", bad.alpha, bad.tau)
		}
	}
	if _, err := s.At(2, 1, "l1"); err == nil {
		t.Error("metric l1 accepted")
	}
	// L12 uses min(L12, LF): an LF-Lipschitz map is LF-Lipschitz in d₁₂.
	s.L12, s.LF = 1, 0.5
	if v, _ := s.At(2, 1, MetricL12); !relClose(v, 2*0.25/2, 1e-15) {
		t.Errorf("L12 with a smaller LF: %g", v)
	}
	for _, k := range []SRDP{{Mechanism: SRDPDPSGDSamp, N: 10, Lipschitz: 1, Steps: 1, Gamma: 1}, {Mechanism: SRDPDPSGDIter, N: 10, Lipschitz: 1}} {
		if _, err := k.Event(); err == nil {
			t.Errorf("%s has an event", k.Mechanism)
		}
	}
}

// TestPureDPEvent: PureDP's RDP is ε at every order and composes.
func TestPureDPEvent(t *testing.T) {
	for _, a := range []float64{1.01, 2, 50, 1e6} {
		if r, err := (Config{}).RDP(SelfComposed{Event: PureDP{Epsilon: 0.4}, Count: 3}, a); err != nil || !relClose(r, 1.2, 1e-15) {
			t.Errorf("RDP(%g) = %g, %v", a, r, err)
		}
	}
	if err := (PureDP{Epsilon: math.Inf(1)}).Validate(); err == nil {
		t.Error("ε = +Inf accepted")
	}
}

// TestLaplaceRDPSuperadditive: the Laplace SRDP at finite orders (and the
// Laplace group bound) use ε_L(‖Δ‖₁/b; α) for a d-dimensional shift Δ,
// which holds when ε_L(·; α) is superadditive — ε_L(x + y) ≥ ε_L(x) + ε_L(y),
// so that the coordinate-wise sum Σᵢ ε_L(|Δᵢ|/b) of the i.i.d. noise is
// largest when the shift sits on one coordinate (the Laplace event assumes
// the same). Checked on random points and orders.
func TestLaplaceRDPSuperadditive(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	for i := 0; i < 20000; i++ {
		alpha := 1 + math.Pow(10, -2+5*rng.Float64())
		x, y := 6*rng.Float64(), 6*rng.Float64()
		if l, r := laplaceRDP(x+y, alpha), laplaceRDP(x, alpha)+laplaceRDP(y, alpha); l < r-1e-12*math.Max(1, r) {
			t.Fatalf("α = %g: ε_L(%g + %g) = %.15g < %.15g", alpha, x, y, l, r)
		}
	}
}
