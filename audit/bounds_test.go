package audit

import (
	"math"
	"math/rand/v2"
	"testing"
)

// binomialCDF is P[Bin(n, p) ≤ k] by summing the pmf in log space: an
// oracle independent of the incomplete beta function ClopperPearsonUpper
// inverts.
func binomialCDF(k, n int, p float64) float64 {
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	sum := 0.0
	for i := 0; i <= k; i++ {
		logPMF := lg(float64(n+1)) - lg(float64(i+1)) - lg(float64(n-i+1)) + float64(i)*math.Log(p) + float64(n-i)*math.Log1p(-p)
		sum += math.Exp(logPMF)
	}
	return sum
}

// TestClopperPearsonOracle checks the defining property of the one-sided
// upper bound, P[Bin(n, p̄) ≤ k] = level, against direct summation of the
// binomial pmf, down to 1e-7 tails (auditing.md §6), and the closed forms.
func TestClopperPearsonOracle(t *testing.T) {
	for _, c := range []struct {
		k, n  int
		level float64
	}{
		{1, 10, 0.025}, {5, 10, 0.025}, {9, 10, 0.025}, {3, 1000, 0.025}, {346, 25000, 0.025},
		{24000, 25000, 0.025}, {10, 100000, 1e-7}, {99990, 100000, 1e-7}, {1, 2, 0.4}, {500, 1000, 0.001},
	} {
		p, err := ClopperPearsonUpper(c.k, c.n, c.level)
		if err != nil {
			t.Fatal(err)
		}
		if got := binomialCDF(c.k, c.n, p); math.Abs(got-c.level) > 1e-6*c.level {
			t.Errorf("k = %d, n = %d: P[Bin(n, %.10g) ≤ k] = %.10g, want %g", c.k, c.n, p, got, c.level)
		}
		if q := float64(c.k) / float64(c.n); !(p > q) {
			t.Errorf("k = %d, n = %d: upper bound %v not above the estimate %v", c.k, c.n, p, q)
		}
	}
	// k = 0: (1 − p)ⁿ = level; auditing.md §7.4: n = 1000, level 0.025 gives 3.682e-3.
	p, _ := ClopperPearsonUpper(0, 1000, 0.025)
	if math.Abs(p-3.682e-3) > 5e-7 {
		t.Errorf("k = 0, n = 1000: %v, want 3.682e-3", p)
	}
	if p, _ := ClopperPearsonUpper(7, 7, 0.025); p != 1 {
		t.Errorf("k = n: %v, want 1", p)
	}
	for _, bad := range [][2]int{{-1, 5}, {6, 5}, {0, 0}} {
		if _, err := ClopperPearsonUpper(bad[0], bad[1], 0.025); err == nil {
			t.Errorf("k = %d, n = %d: no error", bad[0], bad[1])
		}
	}
	if _, err := ClopperPearsonUpper(1, 5, 1); err == nil {
		t.Error("level 1: no error")
	}
}

// TestEpsilonLowerBound checks the hypothesis-testing bound against its
// closed form and its limits.
func TestEpsilonLowerBound(t *testing.T) {
	// auditing.md §5 worked point (analytic σ, n = 5e4): ᾱ = 0.987, β̄ = 7.69e−3.
	want := math.Log((1 - 1e-5 - 0.987) / 7.69e-3)
	if got := EpsilonLowerBound(0.987, 7.69e-3, 1e-5); math.Abs(got-want) > 1e-12 {
		t.Errorf("worked point: %v, want %v", got, want)
	}
	// Symmetric in (α, β).
	if a, b := EpsilonLowerBound(0.2, 0.01, 1e-5), EpsilonLowerBound(0.01, 0.2, 1e-5); a != b {
		t.Errorf("not symmetric: %v vs %v", a, b)
	}
	// A useless test (α + β ≥ 1 − δ) gives 0; a perfect one +Inf.
	if got := EpsilonLowerBound(0.5, 0.5, 0); got != 0 {
		t.Errorf("coin-flip test: %v, want 0", got)
	}
	if got := EpsilonLowerBound(0, 0.5, 0); !math.IsInf(got, 1) {
		t.Errorf("zero false positives: %v, want +Inf", got)
	}
	// δ large enough voids the bound.
	if got := EpsilonLowerBound(0.01, 0.01, 0.99); got != 0 {
		t.Errorf("δ = 0.99: %v, want 0", got)
	}
}

// TestRandomizedResponseCoverage audits randomised response with a known
// ε = 1 (pure DP, δ = 0) many times: the lower bound must stay at or below 1
// in at least 95% of audits (auditing.md §7.4), and it must be informative.
func TestRandomizedResponseCoverage(t *testing.T) {
	const eps, n, audits = 1.0, 1000, 100
	pTrue := math.Exp(eps) / (1 + math.Exp(eps)) // P[report = truth]
	r := rand.New(rand.NewPCG(1, 2))
	draw := func(bit int) []float64 {
		s := make([]float64, n)
		for i := range s {
			v := bit
			if r.Float64() > pTrue {
				v = 1 - bit
			}
			s[i] = float64(v)
		}
		return s
	}
	above, sum := 0, 0.0
	for a := 0; a < audits; a++ {
		o, err := Evaluate(draw(0), draw(1), 0, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		sum += o.LowerBound
		if o.LowerBound > eps {
			above++
		}
	}
	if above > audits/20 {
		t.Errorf("lower bound above the true ε in %d of %d audits (> 5%%)", above, audits)
	}
	if mean := sum / audits; !(mean > 0.6) {
		t.Errorf("mean lower bound %.3f: the audit is too weak on randomised response (ε = 1)", mean)
	}
	t.Logf("randomised response ε = 1: %d/%d audits above ε, mean lower bound %.3f", above, audits, sum/audits)
}
