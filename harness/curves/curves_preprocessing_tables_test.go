package curves

import (
	"math"
	"testing"
)

// TestHSS24Table1 evaluates Table 1 at α = 2, τ = 1, ε = 1, n = T = 1000,
// κ_τ = 10 (L = μ = Δ = 1), each value worked by hand from the table's
// formula: M_G αε²/2 = 1 and αL²τ²ε²/(2Δ²) = 1; M_L, M_E ε = 1 and Lτε/Δ = 1;
// A_GD 2αε² = 4 and αμ²τ²ε²/(2L²) = 1; A_SGD-samp α²ε²/2 = 2 and (γ = 1) 1;
// A_SGD-iter αε²/2 = 1 and α·n·log(n−κ+2)/(2(n−κ+1)·log n) =
// 1000·log 992/(991·log 1000) = 1.006730.
func TestHSS24Table1(t *testing.T) {
	want := map[string][2]float64{
		"gaussian": {1, 1}, "laplace": {1, 1}, "exponential": {1, 1},
		"dp-gd": {4, 1}, "sgd-samp": {2, 1}, "sgd-iter": {1, 1000 * math.Log(992) / (991 * math.Log(1000))},
	}
	for m, w := range want {
		p := func() CurveParams {
			return CurveParams{"alpha": 2, "tau": 1, "eps": 1, "n": 1000, "steps": 1000, "kappa_tau": 10}
		}
		rdp, srdp := curve(t, "hss24-table1-"+m+"-rdp", p()), curve(t, "hss24-table1-"+m+"-srdp", p())
		if math.Abs(rdp-w[0]) > 1e-9*w[0] || math.Abs(srdp-w[1]) > 1e-9*w[1] {
			t.Errorf("%s: RDP %v, SRDP %v; want %v, %v", m, rdp, srdp, w[0], w[1])
		}
	}
	// Table 3 at n = 1000, p = 100: mean 2/900; safe (2 + √(999/899))/899.
	if v := curve(t, "hss24-table3-mean", CurveParams{"n": 1000, "p": 100}); math.Abs(v-2.0/900) > 1e-15 {
		t.Errorf("mean Δ₂ = %v", v)
	}
	if v, w := curve(t, "hss24-table3-mean-safe", CurveParams{"n": 1000, "p": 100}), (2+math.Sqrt(999.0/899))/899; math.Abs(v-w) > 1e-15 {
		t.Errorf("safe mean Δ₂ = %v, want %v", v, w)
	}
}
