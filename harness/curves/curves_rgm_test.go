package curves

import (
	"math"
	"testing"
)

// TestRGMCounterexampleCurves: the curves behind the v1-vs-v2 table give
// rgm.md §2.3's rows (exact D_α by Lemma 2, the v1 and v2 bounds; the table
// prints 3 decimals, so absolute tolerance 6e-4), and v1 is below the exact
// divergence exactly in the three rows the report marks as violated.
func TestRGMCounterexampleCurves(t *testing.T) {
	for _, row := range []struct {
		eta, alpha, gamma, d float64
		exact, v1, v2        float64
		violated             bool
	}{
		{0.1, 5.2, 0.01, 5, 22.829, 22.607, 27.913, true},
		{0.01, 40, 1e-3, 22, 9.468, 9.433, 10.094, true},
		{0.3, 2.3, 0.05, 3, 21.933, 21.740, 47.048, true},
		{0.1, 2, 0.01, 22, 1.762, 2.236, 2.752, false},
	} {
		p := func() CurveParams {
			return CurveParams{"eta": row.eta, "alpha": row.alpha, "gamma": row.gamma, "d": row.d}
		}
		ex, v1, v2 := curve(t, "rgm-exact-divergence", p()), curve(t, "rgm-rdp-v1", p()), curve(t, "rgm-rdp", p())
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"exact", ex, row.exact}, {"v1", v1, row.v1}, {"v2", v2, row.v2}} {
			if math.Abs(c.got-c.want) > 6e-4 {
				t.Errorf("%+v: %s = %.5f, table %.3f", row, c.name, c.got, c.want)
			}
		}
		if (v1 < ex) != row.violated || v2 < ex {
			t.Errorf("%+v: v1 %.4f, v2 %.4f, exact %.4f", row, v1, v2, ex)
		}
	}
}

// TestRGMCorollaryCurves: the worked example of Corollary 1 (η = 1e-3,
// d = 10, δ = 1e-8, γ = 100η²): closed form 0.87015 (v2) / 0.86927 (v1),
// numeric optimum 0.6507 / 0.6505 (rgm.md §2.6), and the accountant's
// conversion is below both.
func TestRGMCorollaryCurves(t *testing.T) {
	for _, c := range []struct {
		v1              float64
		closed, numeric float64
	}{{0, 0.87015, 0.6507}, {1, 0.86927, 0.6505}} {
		p := func() CurveParams { return CurveParams{"eta": 1e-3, "gamma": 1e-4, "d": 10, "delta": 1e-8, "v1": c.v1} }
		cf, num, acc := curve(t, "rgm-corollary1", p()), curve(t, "rgm-epsilon-numeric", p()), curve(t, "rgm-epsilon", p())
		if math.Abs(cf-c.closed) > 5e-6 || math.Abs(num-c.numeric) > 5e-5 || !(acc < num) {
			t.Errorf("v1 = %g: closed %.6f (want %.5f), numeric %.5f (want %.4f), accountant %.5f", c.v1, cf, c.closed, num, c.numeric, acc)
		}
	}
	// A point whose condition fails is undefined, not a number.
	if _, err := curveRegistry["rgm-corollary1"].fn(CurveParams{"eta": 0.3, "gamma": 10, "d": 1, "delta": 1e-12}); err == nil {
		t.Error("Corollary 1 outside its condition returned a value")
	}
}

// TestRGMBoundOverExact: on the first counterexample case the v2 bound
// stays above the exact divergence over the whole order domain while the v1
// bound falls below it near the limit (ratio < 1 at α = 5.2, as the table).
func TestRGMBoundOverExact(t *testing.T) {
	minV1, minV2 := math.Inf(1), math.Inf(1)
	for a := 1.05; a < 5.76; a += 0.01 {
		p := func(v1 float64) CurveParams {
			return CurveParams{"eta": 0.1, "gamma": 0.01, "d": 5, "alpha": a, "v1": v1}
		}
		minV1 = math.Min(minV1, curve(t, "rgm-bound-over-exact", p(1)))
		minV2 = math.Min(minV2, curve(t, "rgm-bound-over-exact", p(0)))
	}
	at52 := curve(t, "rgm-bound-over-exact", CurveParams{"eta": 0.1, "gamma": 0.01, "d": 5, "alpha": 5.2, "v1": 1})
	if !(minV2 >= 1) || !(minV1 < 1) || math.Abs(at52-22.607/22.829) > 1e-4 {
		t.Errorf("min ratio v1 %.5f (want < 1), v2 %.5f (want ≥ 1); v1 at α = 5.2: %.5f", minV1, minV2, at52)
	}
}

// TestRGMOrthogonalCurve: the quantity [HMB23] §5.2 bounds by 2d, computed
// from the balanced orthogonal rows, equals its closed form a⁴/(a²/d + μ)²
// maximised over the scales a (d² at μ = 0: above 2d for every d > 2, the
// paper's bound dropping a square).
func TestRGMOrthogonalCurve(t *testing.T) {
	for _, d := range []float64{1, 2, 3, 5, 22} {
		for _, mu := range []float64{0, 1e-3} {
			want := 0.0
			for k := 0; k < int(d); k++ {
				a2 := math.Pow(10, 2*float64(k%5-2))
				want = math.Max(want, a2*a2/((a2/d+mu)*(a2/d+mu)))
			}
			got := curve(t, "rgm-orthogonal", CurveParams{"d": d, "mu": mu})
			if math.Abs(got-want) > 1e-9*want {
				t.Errorf("d = %g, μ = %g: %v, closed form %v", d, mu, got, want)
			}
			if mu == 0 && math.Abs(got-d*d) > 1e-9*d*d {
				t.Errorf("d = %g: %v, want d² = %v", d, got, d*d)
			}
		}
	}
	if _, err := rgmOrthogonal(CurveParams{"d": 2.5}); err == nil {
		t.Error("d = 2.5 accepted")
	}
}
