package accounting

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPTRProbabilities: the failure probability of Algorithm 1 (PTRFailure,
// "algorithm1") against a Monte Carlo of its test J + Lap(1/ε) ≤ log(2/δ)/ε
// (10⁵ draws at a fixed seed, 4 standard errors), Proposition 8's γ in its
// printed form, and the pass bound e^ε δ/4 of an unsafe dataset's
// neighbour (J = 1).
func TestPTRProbabilities(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	lap := func(b float64) float64 {
		return -b * math.Copysign(1, rng.Float64()-0.5) * math.Log(1-2*math.Abs(rng.Float64()-0.5))
	}
	for _, c := range []struct {
		deltaK, beta, eps, delta float64
		n                        int
	}{{0.3, 0.1, 1, 1e-2, 1000}, {0.2, 0.1, 0.5, 0.05, 500}, {0.15, 0.1, 2, 1e-3, 300}} {
		paper, alg, err := PTRFailure(c.deltaK, c.beta, c.n, c.eps, c.delta)
		if err != nil {
			t.Fatal(err)
		}
		j, _ := PTRDistance(c.deltaK, c.beta, c.n)
		if want := math.Exp(-(c.deltaK-c.beta)*float64(c.n)*c.eps/12.2) / (2 * c.delta); !relClose(paper, math.Min(1, want), 1e-12) {
			t.Errorf("%+v: Prop. 8 γ = %g, want %g", c, paper, want)
		}
		const draws = 100000
		fail := 0
		thr := math.Log(2/c.delta) / c.eps
		for i := 0; i < draws; i++ {
			if j+lap(1/c.eps) <= thr {
				fail++
			}
		}
		mc := float64(fail) / draws
		if se := math.Sqrt(alg * (1 - alg) / draws); math.Abs(mc-alg) > 4*se+1e-12 {
			t.Errorf("%+v: failure %g, Monte Carlo %g (se %g)", c, alg, mc, se)
		}
	}
	for _, c := range []struct{ eps, delta float64 }{{0.01, 1e-5}, {1, 1e-6}, {0.1, 0.3}} {
		got, err := PTRPassBound(c.eps, c.delta)
		if want := math.Exp(c.eps) * c.delta / 4; err != nil || !relClose(got, want, 1e-12) {
			t.Errorf("%+v: pass bound %g, want e^ε δ/4 = %g", c, got, want)
		}
	}
	if _, err := PTRDistance(0.3, 0.1, 100); err == nil {
		t.Error("n = 100 accepted (12.2 needs n ≥ 101)")
	}
	if _, err := PTRTheorem7(0.1, 0.5, 1, 1, 1); err == nil {
		t.Error("δ = 1 accepted")
	}
}

// TestPTREvent: the ledger of Algorithm 1 with the honest pipeline (DP-GD
// with Algorithm 1's σ = 2L√T/(εn), PCA rank reduction with Proposition
// 5's exact Δ₂ at δ_min = β, n = 1000) is evaluated by the RDP accountant;
// where Theorem 7 applies with α* ≥ 11, its ε is below the theorem's
// ε^ + ε (the theorem keeps a 4× larger SRDP term and the 1.05 factor); at
// a query δ below the test's pass bound there is no guarantee.
func TestPTREvent(t *testing.T) {
	const n, T, delta = 1000, 1, 1e-5
	for _, c := range []struct{ eps, beta float64 }{{0.01, 0.5}, {0.01, 1}, {0.02, 1}} {
		th, err := PTRTheorem7(c.eps, c.beta, delta, 1, 1)
		if err != nil || !th.Condition || !th.Alpha11 {
			t.Fatalf("%+v: %+v, %v", c, th, err)
		}
		sigma := 2 * math.Sqrt(T) / (c.eps * n)
		pipe := Preprocessed{
			Event:    Gaussian{Sigma: sigma, Sensitivity: 2.0 / n},
			SRDP:     &SRDP{Mechanism: SRDPDPGD, Sigma: sigma, N: n, Lipschitz: 1, MuX: 1, Steps: T},
			DeltaInf: n, Delta2: pcaDelta2(n, c.beta), N: n,
		}
		ev, err := PTREvent(c.eps, delta, pipe)
		if err != nil {
			t.Fatal(err)
		}
		g, err := (Config{}).Epsilon(ev, delta)
		if err != nil {
			t.Fatal(err)
		}
		if !(g.Epsilon < th.EpsTotal) || !(g.Epsilon > c.eps) {
			t.Errorf("%+v: PTR ledger ε = %.4f, Theorem 7 %.4f", c, g.Epsilon, th.EpsTotal)
		}
		t.Logf("ε = %g, β = %g: PTR ledger %.4f, Theorem 7 %.4f", c.eps, c.beta, g.Epsilon, th.EpsTotal)
		df, _ := PTRPassBound(c.eps, delta)
		if g, err := (Config{}).Epsilon(ev, df); err != nil || !math.IsInf(g.Epsilon, 1) {
			t.Errorf("query δ = δ_f: %v, %v, want +Inf", g.Epsilon, err)
		}
	}
}
