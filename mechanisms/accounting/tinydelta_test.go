package accounting

import (
	"math"
	"testing"
)

// tinyDeltas runs from a normal δ down to the smallest subnormal float64.
var tinyDeltas = []float64{1e-300, 1e-305, 0x1p-1022, 1e-310, 1e-315, 1e-320, 5e-324}

// logRef is log x by an independent route: math.Log2 goes through
// math.Frexp, which normalises subnormals (math.Log on amd64 does not).
func logRef(x float64) float64 { return math.Log2(x) * math.Ln2 }

func TestLogPos(t *testing.T) {
	for _, x := range append([]float64{1, 0.5, 1e-100, 3e-308}, tinyDeltas...) {
		if got, want := logPos(x), logRef(x); math.Abs(got-want) > 1e-15*math.Abs(want) {
			t.Errorf("logPos(%g) = %.17g, want %.17g", x, got, want)
		}
	}
	if v := logPos(0); !math.IsInf(v, -1) {
		t.Errorf("logPos(0) = %v, want -Inf", v)
	}
}

// TestTinyDeltaGaussianMpmath checks the RDP and exact accountants at δ
// down to the smallest subnormal against 50-digit mpmath values for 10
// Gaussian releases with σ = 2 (μ = √10/2): exact = the root ε of the
// Balle–Wang profile Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) = δ, rdp = min over
// continuous α of 1.25α + log(1 − 1/α) − (log δ + log α)/(α − 1), with δ
// the float64 value itself (mp.mpf(d)). On main the RDP value stayed at
// 60.7525 from δ = 1e-315 down (math.Log of a subnormal is −709.09 on
// amd64) and the exact one was 0.016 low at 5e-324 (issue 34 item 11).
func TestTinyDeltaGaussianMpmath(t *testing.T) {
	e := SelfComposed{Event: Gaussian{Sigma: 2, Sensitivity: 1}, Count: 10}
	for _, c := range []struct{ delta, exact, rdp float64 }{
		{1e-300, 59.690184244892754, 59.841801389162866},
		{1e-308, 60.471859529819635, 60.622029268817778},
		{2.2250738585072014e-308, 60.43813449607751, 60.588366043468415},
		{1e-310, 60.665675955722019, 60.815491586490459},
		{1e-315, 61.147480721839379, 61.296424134881257},
		{1e-320, 61.62545146090269, 61.773540763066843},
		{5e-324, 61.939443486705135, 62.086977645252475},
	} {
		for _, k := range []struct {
			kind string
			want float64
		}{{"rdp", c.rdp}, {"exact", c.exact}} {
			g, err := Config{Kind: k.kind}.Epsilon(e, c.delta)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(g.Epsilon-k.want) > 1e-12*k.want {
				t.Errorf("%s ε at δ = %g: %.17g, want %.17g (mpmath)", k.kind, c.delta, g.Epsilon, k.want)
			}
		}
	}
}

// TestTinyDeltaEveryKind checks every kind's example, under the RDP and
// exact accountants, from δ = 1e-300 down to the smallest subnormal: a
// smaller δ gives a strictly larger ε while ε is finite and positive
// (both conversions are strictly decreasing in δ), and the RDP ε is
// formula (1) of convert.go at its α* with log δ taken independently
// (logRef).
func TestTinyDeltaEveryKind(t *testing.T) {
	for _, k := range kinds() {
		for _, cfg := range []Config{{Kind: "rdp"}, {Kind: "exact"}} {
			prev := -1.0
			for _, d := range tinyDeltas {
				g, err := cfg.Epsilon(k.example, d)
				if err != nil {
					if _, ok := err.(*UnsupportedError); ok {
						break
					}
					t.Fatalf("%s %s δ = %g: %v", k.kind, cfg.Kind, d, err)
				}
				if math.IsNaN(g.Epsilon) {
					t.Fatalf("%s %s δ = %g: ε = NaN", k.kind, cfg.Kind, d)
				}
				if prev > 0 && !math.IsInf(prev, 1) && !(g.Epsilon > prev) {
					t.Errorf("%s %s: ε(%g) = %.17g, not above ε at the previous δ %.17g", k.kind, cfg.Kind, d, g.Epsilon, prev)
				}
				prev = g.Epsilon
				if cfg.Kind != "rdp" || !(g.Epsilon > 0) || math.IsInf(g.Epsilon, 1) {
					continue
				}
				r, err := cfg.RDP(k.example, g.Alpha)
				if err != nil {
					continue // an (ε, δ) part: no curve to check against
				}
				a := g.Alpha
				want := r + math.Log1p(-1/a) - (logRef(d)+math.Log(a))/(a-1)
				if math.Abs(g.Epsilon-want) > 1e-12*want {
					t.Errorf("%s rdp δ = %g: ε = %.17g, formula (1) at α* = %g gives %.17g", k.kind, d, g.Epsilon, a, want)
				}
			}
		}
	}
}

// TestTinyDeltaClosedForms checks the closed forms that take δ: finite at
// δ = 1e-320 and 5e-324 (log(c/δ) overflowed to +Inf there, or
// math.Log(δ) saturated at −709.09) and strictly decreasing in δ.
func TestTinyDeltaClosedForms(t *testing.T) {
	rgm := RGM{Eta: 0.01, Gamma: 0.001, D: 4, Sigma: 1, RRel: 0.001}
	op := ObjectivePerturbation{Sigma: 1, Lambda: 1, L: 1, Beta: 0.25}
	forms := map[string]func(d float64) (float64, error){
		"RGMCorollary1": func(d float64) (float64, error) { e, _, err := RGMCorollary1(rgm, 3, d); return e, err },
		"RGMEpsilonMironov": func(d float64) (float64, error) {
			e, _, err := RGMEpsilonMironov(rgm, 3, d)
			return e, err
		},
		"LemmaMEpsilon": func(d float64) (float64, error) {
			e, _, err := LemmaMEpsilon(Config{}, SelfComposed{Event: Gaussian{Sigma: 2, Sensitivity: 1}, Count: 10}, d)
			return e, err
		},
		"PTRTheorem7": func(d float64) (float64, error) { t, err := PTRTheorem7(1, 0.1, d, 1, 1); return t.EpsTotal, err },
		"PTRExactFactor": func(d float64) (float64, error) {
			_, e, _, err := PTRExactFactor(1, 0.1, d, 1, 1)
			return e, err
		},
		"Sheffet2019Epsilon": func(d float64) (float64, error) { return Sheffet2019Epsilon(10, 50, d), nil },
		"GaussMixTheorem1Epsilon": func(d float64) (float64, error) {
			e, _, err := GaussMixTheorem1Epsilon(10, 50, 5, d)
			return e, err
		},
		"KiferEpsilon":   func(d float64) (float64, error) { return KiferEpsilon(op, d) },
		"ObjPertEpsilon": func(d float64) (float64, error) { return ObjPertEpsilon(op, d) },
		"AnalyticGaussianSigma": func(d float64) (float64, error) {
			return AnalyticGaussianSigma(1, d)
		},
	}
	for name, f := range forms {
		prev := math.Inf(-1)
		for _, d := range tinyDeltas {
			v, err := f(d)
			if err != nil {
				t.Fatalf("%s(δ = %g): %v", name, d, err)
			}
			if name == "GaussMixTheorem1Epsilon" && d == 5e-324 {
				// Its RDP part is converted at δ/3, which is 0 here.
				if !math.IsInf(v, 1) {
					t.Errorf("%s(δ = %g) = %v, want +Inf (δ/3 underflows)", name, d, v)
				}
				continue
			}
			if math.IsInf(v, 0) || math.IsNaN(v) || !(v > prev) {
				t.Errorf("%s(δ = %g) = %v, want finite and above %v (the value at the previous, larger δ)", name, d, v, prev)
			}
			prev = v
		}
	}
}
