package accounting

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"sort"
	"testing"
)

// goldenSHA256 pins testdata/golden-vectors.json (copied unchanged from
// shared/reference/golden-vectors.json; provenance in testdata/README.md).
const goldenSHA256 = "3a337e61bc7e31377686ee1f51b595dad04463e2e55f7ff33626ef3488bd06c1"

type goldenFile struct {
	NCases int          `json:"n_cases"`
	Cases  []goldenCase `json:"cases"`
}

type goldenCase struct {
	ID        string             `json:"id"`
	Kind      string             `json:"kind"`
	Inputs    map[string]any     `json:"inputs"`
	Outputs   map[string]any     `json:"outputs"`
	Primary   []string           `json:"primary_outputs"`
	Rtol      float64            `json:"rtol"`
	Overrides map[string]float64 `json:"rtol_overrides"`
}

// num decodes a JSON number or one of the strings "inf", "-inf", "nan".
func num(t testing.TB, v any) float64 {
	t.Helper()
	switch v := v.(type) {
	case float64:
		return v
	case string:
		switch v {
		case "inf":
			return math.Inf(1)
		case "-inf":
			return math.Inf(-1)
		case "nan":
			return math.NaN()
		}
	}
	t.Fatalf("not a number: %v", v)
	return 0
}

func (c goldenCase) in(t testing.TB, k string) float64 {
	v, ok := c.Inputs[k]
	if !ok {
		t.Fatalf("%s: missing input %q", c.ID, k)
	}
	return num(t, v)
}

func (c goldenCase) tol(name string) (float64, bool) {
	if r, ok := c.Overrides[name]; ok {
		return r, true
	}
	for _, p := range c.Primary {
		if p == name {
			return c.Rtol, true
		}
	}
	return 0, false
}

// closeRel reports whether got is within rtol of want (relative to |want|;
// rtol 0 means exact equality; infinities must match exactly).
func closeRel(got, want, rtol float64) bool {
	if math.IsInf(want, 0) || math.IsInf(got, 0) || rtol == 0 {
		return got == want
	}
	return math.Abs(got-want) <= rtol*math.Abs(want)
}

func loadGolden(t testing.TB) goldenFile {
	t.Helper()
	data, err := os.ReadFile("testdata/golden-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != goldenSHA256 {
		t.Fatalf("testdata/golden-vectors.json changed: sha256 %s, want %s", got, goldenSHA256)
	}
	var f goldenFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) != f.NCases || f.NCases != 68 {
		t.Fatalf("got %d cases (n_cases %d), want 68", len(f.Cases), f.NCases)
	}
	return f
}

// goldenCompute evaluates one case with dplab and returns the outputs it
// computes, by output name (scalars, or lists for *_probe_orders).
type goldenCompute func(t *testing.T, c goldenCase) map[string]any

var goldenKinds = map[string]goldenCompute{
	"rdp_gaussian_eps":        goldenRDPGaussian,
	"rdp_sgm_eps":             goldenRDPSGM,
	"pld_sgm_eps":             goldenPLDSGM,
	"rdp_sgm_sigma":           goldenRDPSGMSigma,
	"repeat_select_eps":       goldenRepeatSelect,
	"analytic_gaussian_eps":   goldenAnalyticEps,
	"analytic_gaussian_sigma": goldenAnalyticSigma,
	"gaussmix_eps":            goldenGaussMixEps,
	"gaussmix_sigma_full":     goldenGaussMixSigma,
	"objpert_rdp":             goldenObjPert,
	"ps_poisson_tuning_rdp":   goldenPSTuning,
	"rgm_calibration":         goldenRGM,
}

// TestGoldenVectors asserts every case's primary outputs of
// testdata/golden-vectors.json, and the secondary outputs it also computes,
// within the case's stated relative tolerance (rtol, or the output's
// rtol_overrides entry; 0 means exact), computing each with the order set the
// case names.
func TestGoldenVectors(t *testing.T) {
	f := loadGolden(t)
	for _, c := range f.Cases {
		t.Run(c.ID, func(t *testing.T) {
			t.Parallel()
			compute, ok := goldenKinds[c.Kind]
			if !ok {
				t.Fatalf("no computation for kind %q", c.Kind)
			}
			got := compute(t, c)
			for _, p := range c.Primary {
				if _, ok := got[p]; !ok {
					t.Errorf("primary output %q not computed", p)
				}
			}
			names := make([]string, 0, len(got))
			for n := range got {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, name := range names {
				rtol, ok := c.tol(name)
				if !ok {
					t.Fatalf("computed output %q has no tolerance in the case", name)
				}
				want, ok := c.Outputs[name]
				if !ok {
					t.Fatalf("case has no output %q", name)
				}
				checkGolden(t, name, got[name], want, rtol)
			}
		})
	}
}

func checkGolden(t *testing.T, name string, got, want any, rtol float64) {
	t.Helper()
	if ws, ok := want.([]any); ok {
		gs := got.([]float64)
		if len(gs) != len(ws) {
			t.Errorf("%s: %d values, want %d", name, len(gs), len(ws))
			return
		}
		for i := range ws {
			w := num(t, ws[i])
			if !closeRel(gs[i], w, rtol) {
				t.Errorf("%s[%d] = %.17g, want %.17g (rtol %g, rel err %.3g)", name, i, gs[i], w, rtol, math.Abs(gs[i]-w)/math.Abs(w))
			}
		}
		return
	}
	g, w := got.(float64), num(t, want)
	if !closeRel(g, w, rtol) {
		t.Errorf("%s = %.17g, want %.17g (rtol %g, rel err %.3g)", name, g, w, rtol, math.Abs(g-w)/math.Abs(w))
	}
}

func mustEps(t *testing.T, cfg Config, e Event, delta float64) Guarantee {
	t.Helper()
	g, err := cfg.Epsilon(e, delta)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// The order sets the cases name: dp_accounting's DEFAULT_RDP_ORDERS ("grid"),
// integers 2..256, and the continuous refinement ("default"), each with the
// dp_accounting-compatible or the exact fractional-order sampled Gaussian.
var (
	cfgGrid      = Config{Orders: "grid"}
	cfgInt256    = Config{Orders: "integer"}
	cfgDefault   = Config{}
	cfgGridExact = Config{Orders: "grid", SGM: "exact"}
	cfgContExact = Config{SGM: "exact"}
)

func goldenRDPGaussian(t *testing.T, c goldenCase) map[string]any {
	e := SelfComposed{Event: Gaussian{Sigma: c.in(t, "sigma"), Sensitivity: 1}, Count: int(c.in(t, "T"))}
	delta := c.in(t, "delta")
	g := mustEps(t, cfgGrid, e, delta)
	r := mustEps(t, cfgDefault, e, delta)
	return map[string]any{
		"epsilon": g.Epsilon, "optimal_order": g.Alpha,
		"epsilon_continuous_alpha": r.Epsilon, "alpha_continuous": r.Alpha,
	}
}

func sgmEvent(t *testing.T, c goldenCase, steps string) Event {
	return SelfComposed{Event: PoissonSampledGaussian{Q: c.in(t, "q"), NoiseMultiplier: c.in(t, "sigma")}, Count: int(c.in(t, steps))}
}

func goldenRDPSGM(t *testing.T, c goldenCase) map[string]any {
	e := sgmEvent(t, c, "T")
	delta := c.in(t, "delta")
	out := map[string]any{}
	g := mustEps(t, cfgGrid, e, delta)
	out["epsilon"], out["optimal_order"] = g.Epsilon, g.Alpha
	g = mustEps(t, cfgInt256, e, delta)
	out["epsilon_int_orders_2_256"], out["optimal_order_int_orders_2_256"] = g.Epsilon, g.Alpha
	g = mustEps(t, cfgDefault, e, delta)
	out["epsilon_continuous_alpha"], out["alpha_continuous"] = g.Epsilon, g.Alpha
	g = mustEps(t, cfgGridExact, e, delta)
	out["epsilon_default_orders_exact_rdp"], out["optimal_order_default_orders_exact_rdp"] = g.Epsilon, g.Alpha
	g = mustEps(t, cfgContExact, e, delta)
	out["epsilon_continuous_alpha_exact_rdp"], out["alpha_continuous_exact_rdp"] = g.Epsilon, g.Alpha
	var probes, exact []float64
	for _, a := range c.Outputs["rdp_probe_orders"].([]any) {
		r, err := cfgGrid.RDP(e, num(t, a))
		if err != nil {
			t.Fatal(err)
		}
		probes = append(probes, r)
		r, err = cfgGridExact.RDP(e, num(t, a))
		if err != nil {
			t.Fatal(err)
		}
		exact = append(exact, r)
	}
	out["rdp_at_probe_orders"], out["rdp_at_probe_orders_exact"] = probes, exact
	return out
}

func goldenPLDSGM(t *testing.T, c goldenCase) map[string]any {
	e := sgmEvent(t, c, "T")
	g := mustEps(t, Config{Kind: "pld", Interval: c.in(t, "value_discretization_interval")}, e, c.in(t, "delta"))
	return map[string]any{"epsilon": g.Epsilon}
}

func goldenRDPSGMSigma(t *testing.T, c goldenCase) map[string]any {
	q, steps := c.in(t, "q"), int(c.in(t, "T"))
	cal := NewCalibrator(cfgGrid)
	target := Target{c.in(t, "epsilon"), c.in(t, "delta")}
	s, err := cal.Calibrate(func(x float64) Event {
		return SelfComposed{Event: PoissonSampledGaussian{Q: q, NoiseMultiplier: x}, Count: steps}
	}, target, Bracket{})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"sigma_tight": s, "sigma": s}
}

func goldenRepeatSelect(t *testing.T, c goldenCase) map[string]any {
	d, err := ParseDistribution(c.Inputs["distribution"].(string))
	if err != nil {
		t.Fatal(err)
	}
	shape := c.in(t, "shape")
	if d != TruncatedNegativeBinomial {
		shape = 0
	}
	e := RepeatAndSelect{Event: sgmEvent(t, c, "T"), Distribution: d, Mean: c.in(t, "mean"), Shape: shape}
	delta := c.in(t, "delta")
	out := map[string]any{}
	g := mustEps(t, cfgGrid, e, delta)
	out["epsilon"], out["optimal_order"] = g.Epsilon, g.Alpha
	g = mustEps(t, cfgInt256, e, delta)
	out["epsilon_int_orders_2_256"] = g.Epsilon
	if _, ok := c.Outputs["tnb_gamma"]; ok {
		out["tnb_gamma"] = tnbGamma(shapeOf(d, shape), e.Mean)
	}
	return out
}

func goldenAnalyticEps(t *testing.T, c goldenCase) map[string]any {
	e, err := AnalyticGaussianEpsilon(c.in(t, "sigma"), c.in(t, "delta"))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"epsilon": e}
}

func goldenAnalyticSigma(t *testing.T, c goldenCase) map[string]any {
	s, err := AnalyticGaussianSigma(c.in(t, "epsilon"), c.in(t, "delta"))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"sigma": s}
}

func goldenGaussMixEps(t *testing.T, c goldenCase) map[string]any {
	k, gamma, delta := int(c.in(t, "k")), c.in(t, "gamma"), c.in(t, "delta")
	g := mustEps(t, cfgDefault, GaussMix{K: k, Gamma: gamma}, delta)
	return map[string]any{
		"epsilon": g.Epsilon, "optimal_alpha": g.Alpha,
		"epsilon_sheffet2019": Sheffet2019Epsilon(k, gamma, delta),
	}
}

// goldenGaussMixSigma reproduces the GaussMix code's calibration
// (reference README, gaussmix_sigma_full): δ = 1/n², k = max(int(2.5d), 57),
// raw variance σ with row bound c = 1 + C_max² = 2, so γ = σ/2, and the
// code's λ_min noise η = σ/√k (gaussmix.md §4.5).
func goldenGaussMixSigma(t *testing.T, c goldenCase) map[string]any {
	n, d, eps := c.in(t, "n"), c.in(t, "d"), c.in(t, "epsilon")
	delta := 1 / (n * n)
	k := int(math.Max(math.Floor(2.5*d), math.Floor(2.5*math.Log(1e10))))
	if k != int(num(t, c.Outputs["k"])) {
		t.Fatalf("k = %d, want %v", k, c.Outputs["k"])
	}
	var alpha float64
	full := func(s float64) (float64, error) {
		e, a, err := GaussMixTheorem1Epsilon(k, s/2, s/math.Sqrt(float64(k)), delta)
		alpha = a
		return e, err
	}
	half := func(s float64) (float64, error) {
		g, err := cfgDefault.Epsilon(GaussMix{K: k, Gamma: s / 2}, delta)
		alpha = g.Alpha
		return g.Epsilon, err
	}
	out := map[string]any{}
	for _, x := range []struct {
		name   string
		f      func(float64) (float64, error)
		target float64
	}{{"full", full, eps}, {"half_eps", half, eps / 2}} {
		// lo = 5 (γ = 2.5) is infeasible for these targets; hi far above.
		s, err := SmallestFeasible(x.f, x.target, 5, 1e7, 1e-12)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := x.f(s); err != nil { // sets alpha at the solution
			t.Fatal(err)
		}
		out["sigma_"+x.name], out["sigma_"+x.name+"_exact"] = s, s
		out["alpha_opt_"+x.name+"_exact"] = alpha
	}
	return out
}

func goldenObjPert(t *testing.T, c goldenCase) map[string]any {
	switch c.Inputs["variant"] {
	case "rdp":
		e := ObjectivePerturbation{Sigma: c.in(t, "sigma"), Lambda: c.in(t, "lambd"), Beta: c.in(t, "beta"), L: c.in(t, "L")}
		r, err := ObjPertRDP(e, c.in(t, "alpha"))
		if err != nil {
			t.Fatal(err)
		}
		return map[string]any{"rdp": r}
	case "privacy_profile_delta":
		e := ObjectivePerturbation{Sigma: c.in(t, "sigma"), Lambda: c.in(t, "lam"), Beta: c.in(t, "beta"), L: c.in(t, "Delta")}
		d, err := ObjPertDelta(e, c.in(t, "eps"))
		if err != nil {
			t.Fatal(err)
		}
		return map[string]any{"delta_mpmath": d}
	case "amp_eps":
		e := AMP{
			ObjPert: ObjectivePerturbation{Sigma: c.in(t, "sigma_obj"), Lambda: c.in(t, "lambd"), Beta: c.in(t, "beta"), L: c.in(t, "L")},
			Tau:     c.in(t, "tau"), SigmaOut: c.in(t, "sigma_out"),
		}
		g := mustEps(t, cfgDefault, e, c.in(t, "delta"))
		return map[string]any{"epsilon": g.Epsilon, "optimal_alpha": g.Alpha}
	}
	t.Fatalf("unknown variant %v", c.Inputs["variant"])
	return nil
}

func goldenPSTuning(t *testing.T, c goldenCase) map[string]any {
	e := sgmEvent(t, c, "steps")
	orders := IntegerOrders(2, 256)
	base := make([]float64, len(orders))
	for i, a := range orders {
		r, err := cfgInt256.RDP(e, a)
		if err != nil {
			t.Fatal(err)
		}
		base[i] = r
	}
	rdp := PSPoissonTuningRDP(orders, base, c.in(t, "mu"))
	eps, alpha, err := EpsilonFromRDP(orders, rdp, c.in(t, "delta"))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"epsilon": eps, "optimal_alpha": alpha}
}

func goldenRGM(t *testing.T, c goldenCase) map[string]any {
	switch c.Inputs["variant"] {
	case "theorem1_v2":
		e := RGM{Eta: c.in(t, "eta"), Gamma: c.in(t, "gamma"), D: int(c.in(t, "d"))}
		r, err := RGMEpsilon(e, c.in(t, "alpha"))
		if err != nil {
			t.Fatal(err)
		}
		return map[string]any{"epsilon": r}
	case "code":
		return rgmCodeCalibration(t, c)
	}
	t.Fatalf("unknown variant %v", c.Inputs["variant"])
	return nil
}
