package curves

import (
	"math"
	"testing"
)

// TestHSS24GaussianCurves: the pre-processed Gaussian curves give
// preprocessing.md §2.8's all-modes table and §3.1's Figure 2 samples (the
// report prints 4, resp. 2, decimals: absolute tolerance half a unit), the
// paper's g = p group variant (group_size_offset = 0), and the pointwise
// minimum ("best", converted by the RDP accountant) is below every analysis.
func TestHSS24GaussianCurves(t *testing.T) {
	for _, c := range []struct {
		name string
		p    CurveParams
		want float64
		tol  float64
	}{
		{"hss24-gaussian-standalone", CurveParams{"delta": 1e-3}, 4.2169, 5e-5},
		{"hss24-gaussian-quantization-paper", CurveParams{"eta": 0.1, "p": 10, "delta": 1e-3}, 23.7908, 5e-5},
		{"hss24-gaussian-quantization-exact-factor", CurveParams{"eta": 0.1, "p": 10, "delta": 1e-3}, 10.9537, 5e-5},
		{"hss24-gaussian-quantization-tight-pq", CurveParams{"eta": 0.1, "p": 10, "delta": 1e-3}, 9.4338, 5e-5},
		{"hss24-gaussian-quantization-frobenius", CurveParams{"eta": 0.1, "p": 10, "delta": 1e-3}, 5.7585, 5e-5},
		{"hss24-gaussian-quantization-group", CurveParams{"eta": 0.1, "p": 10, "delta": 1e-3}, 101.3861, 5e-5},
		{"hss24-gaussian-quantization-group", CurveParams{"eta": 0.1, "p": 10, "delta": 1e-3, "group_size_offset": 0}, 87.17, 5e-3},
		{"hss24-gaussian-quantization-paper", CurveParams{"eta": 0.5, "p": 20, "delta": 1e-3}, 1167.24, 5e-3},
		{"hss24-gaussian-dedup-tight-pq", CurveParams{"p": 5, "delta": 1e-3}, 40.3015, 5e-5},
		{"hss24-gaussian-dedup-frobenius", CurveParams{"p": 5, "delta": 1e-3}, 17.2643, 5e-5},
		{"hss24-gaussian-mean-imputation-paper", CurveParams{"p": 900, "n": 1000, "delta": 1e-3}, 3754.4408, 5e-5},
		{"hss24-gaussian-mean-imputation-frobenius", CurveParams{"p": 900, "n": 1000, "delta": 1e-3}, 7.2271, 5e-5},
		{"hss24-gaussian-mean-imputation-paper", CurveParams{"p": 95, "n": 100, "delta": 1e-3}, 16690.44, 5e-3},
		{"hss24-gaussian-pca-rank-paper", CurveParams{"n": 1000, "delta_min": 0.5, "delta": 1e-3, "constant": 1}, 6687.2575, 5e-5},
		{"hss24-gaussian-pca-rank-paper", CurveParams{"n": 5000, "delta_min": 0.1, "delta": 1e-3}, 171922.44, 5e-3},
		{"hss24-gaussian-pca-rank-tight-pq", CurveParams{"n": 1000, "delta_min": 0.5, "delta": 1e-3, "constant": 1}, 406.5737, 5e-5},
		{"hss24-gaussian-pca-rank-frobenius", CurveParams{"n": 1000, "delta_min": 0.5, "delta": 1e-3, "constant": 1}, 8.0917, 5e-5},
		{"hss24-gaussian-pca-rank-group", CurveParams{"n": 200, "delta_min": 0.5, "delta": 1e-3}, 20743.4, 5e-2},
	} {
		if got := curve(t, c.name, c.p); math.Abs(got-c.want) > c.tol {
			t.Errorf("%s%v = %.5f, want %g", c.name, c.p, got, c.want)
		}
	}
	p := CurveParams{"eta": 0.1, "p": 10, "delta": 1e-3, "conversion": 1}
	best := curve(t, "hss24-gaussian-quantization-best", p)
	for _, a := range []string{"exact-factor", "tight-pq", "tight-pq-min", "frobenius", "group"} {
		if v := curve(t, "hss24-gaussian-quantization-"+a, p); best > v*(1+1e-12) {
			t.Errorf("best %.6f > %s %.6f", best, a, v)
		}
	}
	// Safe mean imputation (erratum 18): Δ₂ = (2 + √((n−1)/(n−p−1)))/(n−p−1),
	// written out here; Theorem 2 sees only τ = pΔ₂, so the curve equals the
	// quantization curve with η = that Δ₂ at the same p.
	d2 := (2 + math.Sqrt(99.0/49)) / 49
	for _, a := range []string{"tight-pq", "exact-factor"} {
		got := curve(t, "hss24-gaussian-mean-imputation-"+a, CurveParams{"p": 50, "n": 100, "safe": 1, "delta": 1e-3})
		want := curve(t, "hss24-gaussian-quantization-"+a, CurveParams{"p": 50, "eta": d2, "delta": 1e-3})
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("safe mean imputation %s: %.9g, want %.9g", a, got, want)
		}
	}
	// The panel (b) crossover through the curves: group beats the paper's
	// SRDP analysis first at p = 91 (n = 100), for g = p and g = p + 1.
	for _, off := range []float64{0, 1} {
		cross := 0
		for k := 2; k < 100 && cross == 0; k++ {
			q := CurveParams{"p": float64(k), "n": 100, "delta": 1e-3, "group_size_offset": off}
			if k > 10 && curve(t, "hss24-gaussian-mean-imputation-group", q) < curve(t, "hss24-gaussian-mean-imputation-paper", q) {
				cross = k
			}
		}
		if cross != 91 {
			t.Errorf("group_size_offset %g: crossover at p = %d, want 91", off, cross)
		}
	}
	for _, bad := range []struct {
		name string
		p    CurveParams
	}{
		{"hss24-gaussian-mean-imputation-paper", CurveParams{"p": 100, "n": 100, "delta": 1e-3}},
		{"hss24-gaussian-pca-rank-paper", CurveParams{"n": 100, "delta_min": 0.5, "delta": 1e-3}},
		{"hss24-gaussian-dedup-paper", CurveParams{"p": 2.5, "delta": 1e-3}},
		{"hss24-gaussian-dedup-paper", CurveParams{"p": 2, "delta": 1e-3, "conversion": 2}},
		{"hss24-gaussian-dedup-group", CurveParams{"p": 2, "delta": 1e-3, "group_size_offset": 0.5}},
	} {
		if _, err := curveRegistry[bad.name].fn(bad.p); err == nil {
			t.Errorf("%s%v: no error", bad.name, bad.p)
		}
	}
}

// TestHSS24Table2Curves: every Table 2 cell at α = 11, ε = 1, p = 10,
// η = 0.1, n = 1000, δ_min = 0.5 (preprocessing.md §2.8; exact arithmetic,
// 1e-6 relative), including A_SGD-iter's printed formula.
func TestHSS24Table2Curves(t *testing.T) {
	p := CurveParams{"alpha": 11, "p": 10, "eta": 0.1, "n": 1000, "delta_min": 0.5}
	want := map[string]float64{
		"gaussian-dedup": 1166.55, "gaussian-quantization": 23.1, "gaussian-mean-imputation": 11.554714, "gaussian-pca-rank": 6887.958,
		"dp-gd-dedup": 1201.2, "dp-gd-quantization": 57.75, "dp-gd-mean-imputation": 46.204714, "dp-gd-pca-rank": 6922.608,
		"laplace-dedup": 11, "laplace-quantization": 2, "laplace-mean-imputation": 1.020202, "laplace-pca-rank": 25.4,
		"exponential-dedup": 11, "exponential-quantization": 2, "exponential-mean-imputation": 1.020202, "exponential-pca-rank": 25.4,
		"sgd-samp-pca-rank": 7130.508,
		"sgd-iter-dedup":    1232.543968, "sgd-iter-quantization": 24.304440, "sgd-iter-mean-imputation": 12.104981,
	}
	for cell, w := range want {
		q := CurveParams{}
		for k, v := range p {
			q[k] = v
		}
		if got := curve(t, "hss24-table2-"+cell, q); math.Abs(got-w) > 1e-6*w {
			t.Errorf("%s = %.9g, want %.9g", cell, got, w)
		}
	}
	if _, ok := Lookup("hss24-table2-sgd-samp-dedup"); ok {
		t.Error("a '–' cell of Table 2 is registered")
	}
	if _, err := curveRegistry["hss24-table2-gaussian-dedup"].fn(CurveParams{"alpha": 5, "p": 10}); err == nil {
		t.Error("α = 5 accepted (Table 2 holds for α ≥ 11)")
	}
}

// TestHSS24PTRAndInversionCurves: Theorem 7's example (ε = 0.01, β = 0.1,
// δ = 1e-5: ε^ 12.7257, α* 3.71, condition holds; ε = 0.05: it fails), the
// PTR ledger below the theorem, Proposition 8, the inversion table's
// δ_min = 0.5 column and DP-GD alone (5 decimals), the accountant's
// inversion needing less noise than Lemma M's, and Lemma 2.
func TestHSS24PTRAndInversionCurves(t *testing.T) {
	th := CurveParams{"eps": 0.01, "beta": 0.1, "delta": 1e-5}
	if v := curve(t, "hss24-thm7-eps-hat", th); math.Abs(v-12.7257) > 5e-5 {
		t.Errorf("ε^ = %.5f, want 12.7257", v)
	}
	if v := curve(t, "hss24-thm7-alpha-star", th); math.Abs(v-3.71) > 5e-3 {
		t.Errorf("α* = %.3f, want 3.71", v)
	}
	if curve(t, "hss24-thm7-condition", th) != 1 || curve(t, "hss24-thm7-condition", CurveParams{"eps": 0.05, "beta": 0.1, "delta": 1e-5}) != 0 {
		t.Error("Theorem 7's condition")
	}
	one := CurveParams{"eps": 0.01, "beta": 1, "delta": 1e-5}
	if led, tot := curve(t, "hss24-ptr-ledger-epsilon", one), curve(t, "hss24-thm7-eps-total", one); !(led < tot) {
		t.Errorf("PTR ledger %.4f ≥ Theorem 7 %.4f", led, tot)
	}
	if ef, tot := curve(t, "hss24-thm7-exact-factor-total", one), curve(t, "hss24-thm7-eps-total", one); !(ef < tot) {
		t.Errorf("exact factor %.4f ≥ Theorem 7 %.4f", ef, tot)
	}
	pf := CurveParams{"delta_k": 0.3, "beta": 0.1, "n": 10000, "eps": 0.1, "delta": 1e-5}
	if v, want := curve(t, "hss24-prop8-failure", pf), math.Exp(-0.2*10000*0.1/12.2)/(2e-5); math.Abs(v-want) > 1e-12*want {
		t.Errorf("Prop. 8 γ = %g, want %g", v, want)
	}
	for i, target := range []float64{0.5, 1, 2, 5, 10} {
		q := CurveParams{"eps_total": target, "delta": 1e-5, "delta_min": 0.5}
		if v, w := curve(t, "hss24-inversion-pca-dpgd-paper", q), []float64{0.00291, 0.00575, 0.01128, 0.02358, 0.03575}[i]; math.Abs(v-w) > 5e-6 {
			t.Errorf("inversion δ_min = 0.5, ε_total = %g: %.6f, want %.5f", target, v, w)
		}
		q = CurveParams{"eps_total": target, "delta": 1e-5}
		if v, w := curve(t, "hss24-inversion-dpgd-none", q), []float64{0.05155, 0.10203, 0.20006, 0.47414, 0.88044}[i]; math.Abs(v-w) > 5e-6 {
			t.Errorf("inversion, no pre-processing, ε_total = %g: %.6f, want %.5f", target, v, w)
		}
	}
	q := CurveParams{"eps_total": 1, "delta": 1e-5, "delta_min": 0.2}
	lm := curve(t, "hss24-inversion-pca-dpgd-best", q)
	q["conversion"] = 1
	if acc := curve(t, "hss24-inversion-pca-dpgd-best", q); !(acc >= lm) {
		t.Errorf("accountant's base ε %.6f < Lemma M's %.6f", acc, lm)
	}
	if paper := curve(t, "hss24-inversion-pca-dpgd-paper", CurveParams{"eps_total": 1, "delta": 1e-5, "delta_min": 0.2}); !(lm > paper) {
		t.Errorf("best analysis base ε %.6f ≤ paper's %.6f", lm, paper)
	}
	// Lemma 2 with B = 1: 2cτ²·min_k[(1/k²)(1 − (k−1)/n) + (k−1)/n], c = α/2.
	l2 := curve(t, "hss24-lemma2-gaussian", CurveParams{"alpha": 2, "tau": 0.5, "n": 100, "b": 1, "eps": 0.5})
	best := math.Inf(1)
	for k := 1.0; k <= 99; k++ {
		best = math.Min(best, 2*(2*0.25/2)*0.25*((1/(k*k))*(1-(k-1)/100)+(k-1)/100))
	}
	if math.Abs(l2-best) > 1e-12 {
		t.Errorf("Lemma 2 = %g, want %g", l2, best)
	}
}
