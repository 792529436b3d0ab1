package report

import (
	"math"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/results"
)

// binomTail is P(X ≥ k) for X ~ Binomial(n, p), summed term by term.
func binomTail(k, n int, p float64) float64 {
	var s float64
	for i := k; i <= n; i++ {
		lc, _ := math.Lgamma(float64(n + 1))
		a, _ := math.Lgamma(float64(i + 1))
		b, _ := math.Lgamma(float64(n - i + 1))
		s += math.Exp(lc - a - b + float64(i)*math.Log(p) + float64(n-i)*math.Log1p(-p))
	}
	return s
}

// bisect finds p in (0, 1) with f(p) = y for an increasing f.
func bisect(f func(float64) float64, y float64) float64 {
	lo, hi := 0.0, 1.0
	for range 200 {
		m := (lo + hi) / 2
		if f(m) < y {
			lo = m
		} else {
			hi = m
		}
	}
	return (lo + hi) / 2
}

// TestClopperPearson checks the exact binomial interval against its
// definition [CP34], solved here by bisection on the binomial tail: the
// lower end is the p with P(X ≥ k) = 2.5%, the upper the p with
// P(X ≥ k + 1) = 97.5%; and against the closed forms of k = n (lower 0.025^(1/n)) and
// k = 0 (upper 1 − 0.025^(1/n)).
func TestClopperPearson(t *testing.T) {
	for _, tc := range []struct{ k, n int }{{10, 10}, {0, 10}, {5, 10}, {40, 40}, {49, 50}, {1, 3}, {5, 6}, {0, 1}} {
		lo, hi := clopperPearson(tc.k, tc.n)
		wlo, whi := 0.0, 1.0
		if tc.k > 0 {
			wlo = bisect(func(p float64) float64 { return binomTail(tc.k, tc.n, p) }, 0.025)
		}
		if tc.k < tc.n {
			whi = bisect(func(p float64) float64 { return binomTail(tc.k+1, tc.n, p) }, 1-0.025)
		}
		if math.Abs(lo-wlo) > 1e-9 || math.Abs(hi-whi) > 1e-9 {
			t.Errorf("%d of %d: [%.12g, %.12g], want [%.12g, %.12g]", tc.k, tc.n, lo, hi, wlo, whi)
		}
	}
	if lo, _ := clopperPearson(40, 40); math.Abs(lo-math.Pow(0.025, 1.0/40)) > 1e-12 {
		t.Errorf("40 of 40: lower %v, want 0.025^(1/40) = %v", lo, math.Pow(0.025, 1.0/40))
	}
	if _, hi := clopperPearson(0, 10); math.Abs(hi-(1-math.Pow(0.025, 0.1))) > 1e-12 {
		t.Errorf("0 of 10: upper %v, want %v", hi, 1-math.Pow(0.025, 0.1))
	}
	if lo, hi := clopperPearson(0, 0); lo != 0 || hi != 1 {
		t.Errorf("no trials: [%v, %v], want [0, 1]", lo, hi)
	}
}

// TestProportionOf: a 0/1 indicator's summary gives k of n; a summary of
// values that are not all 0 or 1 gives none, even when their sum is a
// whole number inside [0, n] ({0, 0.5, 0.5, 1} sums to 2 like {0, 0, 1,
// 1}: Σx² tells them apart).
func TestProportionOf(t *testing.T) {
	tests := []struct {
		xs    []float64
		k     int // −1: no proportion
		whyIn string
	}{
		{[]float64{1, 1, 0}, 2, ""},
		{[]float64{0, 0, 0, 0}, 0, ""},
		{[]float64{1}, 1, ""},
		{[]float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 10, ""},
		{[]float64{0, 0.5, 0.5, 1}, -1, "not a 0/1 indicator"},
		{[]float64{0.5, 0.5}, -1, "not a 0/1 indicator"},
		{[]float64{2, 0}, -1, "not a 0/1 indicator"},
		{[]float64{1, math.NaN()}, -1, "not a number"},
	}
	for _, tc := range tests {
		g := proportionOf(results.Summarize(tc.xs, results.CIAuto), "bot", "")
		switch {
		case tc.k < 0 && (g.count != nil || !strings.Contains(g.why, tc.whyIn)):
			t.Errorf("%v: count %v, why %q; want none, %q", tc.xs, g.count, g.why, tc.whyIn)
		case tc.k >= 0 && (g.count == nil || *g.count != tc.k || g.n != len(tc.xs) || g.mean != float64(tc.k)/float64(len(tc.xs)) || g.why != ""):
			t.Errorf("%v: %+v, want %d of %d", tc.xs, g, tc.k, len(tc.xs))
		}
	}
}

// TestProportionClaims runs proportion claims end to end on claimsSpec's
// cells with a ⊥-like indicator "bot" on Lin: AdaSSP has {1, 1, 1} at ε =
// 0.5 and {1, 0, 1} at ε = 2. Per ε, 3 of 3 ([0.2924, 1]) holds "≥ 0.25"
// and 2 of 3 ([0.0943, 0.9916]) ties; pooled over ε, 5 of 6 ([0.3588,
// 0.9958]) holds. A pool with a point not run (Lin2 at ε = 0.5 is
// infeasible) is not run, naming that ε; a key whose values are not 0 or
// 1 is not run, saying so.
func TestProportionClaims(t *testing.T) {
	src := claimsSpec + `
[[claim]]
id = "per-eps"
quote = "⊥ at least a quarter of the time"
where = "§1"
check = "value"
quantity = "proportion:bot"
dataset = "Lin"
mechanism = "AdaSSP"
min = 0.25

[[claim]]
id = "pooled"
quote = "⊥ at least a quarter of the time, over ε"
where = "§1"
check = "value"
quantity = "proportion:bot"
dataset = "Lin"
mechanism = "AdaSSP"
pool = "epsilon"
min = 0.25

[[claim]]
id = "pooled-lin2"
quote = "q"
where = "§1"
check = "value"
quantity = "proportion:bot"
dataset = "Lin2"
mechanism = "AdaSSP"
pool = "epsilon"
min = 0.25

[[claim]]
id = "not-indicator"
quote = "q"
where = "§1"
check = "value"
quantity = "proportion:eta"
dataset = "Lin"
mechanism = "AdaSSP"
max = 1
`
	s := spectest.MustParse(t, src)
	if err := Check(s); err != nil {
		t.Fatal(err)
	}
	recs := claimsRecords(t, s)
	bot := map[float64][]float64{0.5: {1, 1, 1}, 2: {1, 0, 1}}
	for i := range recs {
		r := &recs[i]
		if r.Label == "AdaSSP" && r.Status == results.StatusOK {
			if r.Diagnostics == nil {
				r.Diagnostics = map[string]results.Float{}
			}
			r.Diagnostics["bot"] = results.Float(bot[float64(r.Epsilon)][r.Trial])
			r.Diagnostics["eta"] = 0.5
		}
	}
	c, _ := renderClaims(t, s, recs)
	near := func(x, y float64) bool { return math.Abs(x-y) < 5e-5 }
	per := c.Claims[0]
	if per.Summary != "holds at 1 of 2 points (the others tie)" || len(per.Points) != 2 {
		t.Fatalf("per ε: %s %+v", per.Summary, per.Points)
	}
	if p := per.Points[1]; p.Point != "ε = 2" || *p.A.Count != 2 || p.A.N != 3 || !near(float64(p.Low), 0.0943) || !near(float64(p.High), 0.9916) || !math.IsNaN(float64(p.A.Half)) {
		t.Errorf("ε = 2: %+v, a %+v", p, p.A)
	}
	pooled := c.Claims[1]
	if pooled.Verdict != Holds || len(pooled.Points) != 1 {
		t.Fatalf("pooled: %s %+v", pooled.Summary, pooled.Points)
	}
	if p := pooled.Points[0]; p.Point != "Lin, ε = 0.5, 2" || *p.A.Count != 5 || p.A.N != 6 || !near(float64(p.Low), 0.3588) || !near(float64(p.High), 0.9958) {
		t.Errorf("pooled point %+v, a %+v", p, p.A)
	}
	// The generated docs' verdict tables say how many trials (Measured).
	if m := pooled.Measured(); m != "5 of 6 = 0.8333 [0.3588, 0.9958]" {
		t.Errorf("pooled: measured %q", m)
	}
	if l := c.Claims[2]; l.Verdict != NotRun || l.Points[0].Why != "ε = 0.5: infeasible (smallest ε 4.26)" {
		t.Errorf("pooled Lin2: %s, %+v", l.Summary, l.Points)
	}
	if n := c.Claims[3]; n.Verdict != NotRun || !strings.Contains(n.Why, "diagnostic eta is not a 0/1 indicator") {
		t.Errorf("not an indicator: %s %q", n.Summary, n.Why)
	}
}
