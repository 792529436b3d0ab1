package mechanisms

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/dplab/dplab/datasets"

	"github.com/dplab/dplab/mechanisms/accounting"
	"gonum.org/v1/gonum/floats/scalar"
)

// The GaussMix-family calibrations against independent oracles. Two
// conventions appear and each assertion names its own:
//
//   - CODE: the authors' code (utils_linear_mixing.py) in the golden vectors
//     gaussmix_sigma_full and reference-code.md §6 G2: δ = 1/n²,
//     k = max(int(2.5d), 57), raw variance s = γ·C² with C² = C_X² + C_Y² = 2,
//     and the code's η = s/√k;
//   - PAPER: gaussmix.md §3.6's table, an independent prototype of Theorem 1
//     with η = γ/√k (Alg. 2), of Alg. 5's ε/2 rule and of Alg. 4's box.

// goldenSigmaCase is one gaussmix_sigma_full case of
// accounting/testdata/golden-vectors.json.
type goldenSigmaCase struct {
	ID      string             `json:"id"`
	Kind    string             `json:"kind"`
	Inputs  map[string]float64 `json:"inputs"`
	Outputs map[string]any     `json:"outputs"`
	Rtol    float64            `json:"rtol"`
	Over    map[string]float64 `json:"rtol_overrides"`
}

func loadSigmaGoldens(t *testing.T) []goldenSigmaCase {
	t.Helper()
	b, err := os.ReadFile("accounting/testdata/golden-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []json.RawMessage `json:"cases"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	var out []goldenSigmaCase
	for _, raw := range f.Cases {
		var c goldenSigmaCase
		if json.Unmarshal(raw, &c) == nil && c.Kind == "gaussmix_sigma_full" {
			out = append(out, c)
		}
	}
	if len(out) != 3 {
		t.Fatalf("found %d gaussmix_sigma_full cases, want 3", len(out))
	}
	return out
}

// codeConvention returns δ = 1/n² and k = max(int(2.5d), 57) (CODE).
func codeConvention(n, d float64) (delta float64, k int) {
	return 1 / (n * n), max(int(2.5*d), int(2.5*math.Log(1e10)))
}

// TestCalibrationGoldenCode pins linear-mixing (preset "code") and
// sheffet17-renyi to the golden gaussmix_sigma_full cases (CODE convention):
// sigma_full = γ·C² of Theorem 1 with the code's η, sigma_half_eps = γ·C²
// of Lemma 1 + Prop. 1 at ε/2. Tolerances from the file: 1e-8 against the
// *_exact roots, 1e-5 against the code's own bisection.
func TestCalibrationGoldenCode(t *testing.T) {
	for _, c := range loadSigmaGoldens(t) {
		t.Run(c.ID, func(t *testing.T) {
			delta, k := codeConvention(c.Inputs["n"], c.Inputs["d"])
			if want := c.Outputs["k"].(float64); float64(k) != want {
				t.Fatalf("k = %d, want %v", k, want)
			}
			b := Budget{Epsilon: c.Inputs["epsilon"], Delta: delta}
			lm := &LinearMixing{p: LinearMixingParams{sketchParams: sketchParams{Preset: presetCode}}}
			s, err := lm.setup(b, k, 2)
			if err != nil {
				t.Fatal(err)
			}
			sh := &Sheffet17{p: Sheffet17Params{sketchParams: sketchParams{Preset: presetCode}}, renyi: true}
			s5, err := sh.setup(b, k, 2)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range []struct {
				name string
				got  float64
			}{
				{"sigma_full", 2 * s.gamma}, {"sigma_full_exact", 2 * s.gamma},
				{"sigma_half_eps", s5.gamma}, {"sigma_half_eps_exact", s5.gamma},
			} {
				want := c.Outputs[x.name].(float64)
				rtol, ok := c.Over[x.name]
				if !ok {
					rtol = c.Rtol
				}
				if !scalar.EqualWithinRel(x.got, want, rtol) {
					t.Errorf("%s = %.12g, want %.12g (rtol %g)", x.name, x.got, want, rtol)
				}
			}
		})
	}
}

// TestCalibrationCodeG2 pins the code's three calibrations on the rows of
// reference-code.md §6 G2 (CODE convention; values printed by the authors'
// utils_linear_mixing.py): σ_full (tol 1e-5, the code's bisection width),
// σ_Sheffet-ours (1e-5) and the closed-form Sheffet '17 W (1e-12).
func TestCalibrationCodeG2(t *testing.T) {
	rows := []struct {
		n, d, eps            float64
		full, half, sheffetW float64
	}{
		{404, 13, 0.1, 879.2631907563994, 884.8678335139748, 2165.978059278821},
		{404, 13, 1.0, 98.30085798049642, 108.69721003707917, 216.59780592788212},
		{404, 13, 10.0, 12.29383153621757, 14.915517654389301, 21.659780592788213},
		{10000, 100, 1.0, 243.26546019098168, 273.89444829756115, 486.970831618441},
		{14939, 18, 0.5, 258.37610826856667, 305.29518822754767, 564.6642348712683},
	}
	for _, r := range rows {
		delta, k := codeConvention(r.n, r.d)
		b := Budget{Epsilon: r.eps, Delta: delta}
		code := sketchParams{Preset: presetCode}
		s, err := (&LinearMixing{p: LinearMixingParams{sketchParams: code}}).setup(b, k, 2)
		if err != nil {
			t.Fatal(err)
		}
		s5, err := (&Sheffet17{p: Sheffet17Params{sketchParams: code}, renyi: true}).setup(b, k, 2)
		if err != nil {
			t.Fatal(err)
		}
		s4, err := (&Sheffet17{p: Sheffet17Params{sketchParams: code}}).setup(b, k, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !scalar.EqualWithinRel(2*s.gamma, r.full, 1e-5) || !scalar.EqualWithinRel(s5.gamma, r.half, 1e-5) ||
			!scalar.EqualWithinRel(s4.gamma, r.sheffetW, 1e-12) {
			t.Errorf("n=%v d=%v ε=%v: σ_full %.10g (want %.10g), σ_half %.10g (want %.10g), W %.15g (want %.15g)",
				r.n, r.d, r.eps, 2*s.gamma, r.full, s5.gamma, r.half, s4.gamma, r.sheffetW)
		}
	}
}

// TestCalibrationPaper pins the paper presets to gaussmix.md §3.6's table
// (PAPER convention, δ and k as listed; C_X = C_Y = 1): Algorithm 2's γ
// (6 significant digits printed, tol 1e-5), Algorithm 4's raw variance
// 4C²/ε(√(2k log(8/δ)) + 2 log(8/δ)) and Algorithm 5's γ (5 digits, 1e-4).
func TestCalibrationPaper(t *testing.T) {
	rows := []struct {
		k              int
		delta, eps     float64
		alg2, alg4, a5 float64
	}{
		{250, 1e-6, 0.1, 1370.11, 9675.1, 951.03},
		{250, 1e-6, 0.31623, 445.446, 3059.5, 325.12},
		{250, 1e-6, 1, 144.948, 967.51, 111.15},
		{250, 1e-6, 3.1623, 47.4739, 305.95, 38.576},
		{250, 1e-6, 10, 15.9164, 96.751, 14.062},
		{150, 1e-8, 0.1, 1284.16, 9553.8, 988.96},
		{150, 1e-8, 1, 134.315, 955.38, 110.81},
		{150, 1e-8, 10, 14.589, 95.538, 13.440},
	}
	for _, r := range rows {
		// The table's ε values are rounded to 5 digits; evaluate at those.
		b := Budget{Epsilon: r.eps, Delta: r.delta}
		s, err := (&LinearMixing{}).setup(b, r.k, 2)
		if err != nil {
			t.Fatal(err)
		}
		s4, _ := (&Sheffet17{}).setup(b, r.k, 2)
		s5, err := (&Sheffet17{renyi: true}).setup(b, r.k, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !scalar.EqualWithinRel(s.gamma, r.alg2, 1e-5) || !scalar.EqualWithinRel(s4.gamma, r.alg4, 1e-4) ||
			!scalar.EqualWithinRel(s5.gamma/2, r.a5, 1e-4) {
			t.Errorf("k=%d δ=%g ε=%g: Alg.2 γ %.6g (want %g), Alg.4 %.5g (want %g), Alg.5 γ %.5g (want %g)",
				r.k, r.delta, r.eps, s.gamma, r.alg2, s4.gamma, r.alg4, s5.gamma/2, r.a5)
		}
		if want := r.alg2 / math.Sqrt(float64(r.k)) * 2; !scalar.EqualWithinRel(s.etaStd, want, 1e-5) {
			t.Errorf("η·C² = %v, want γ/√k·C² = %v", s.etaStd, want)
		}
	}
}

// gridCase is a (k, δ, ε grid) of the paper's figures.
var gridCases = []struct {
	name  string
	k     int
	delta float64
	eps   []float64
}{
	// Figs. 2/4: ε ∈ logspace(−1, 1, 5), δ = min(1e-6, 0.01/n) = 1e-6,
	// k = int(2.5d) for Wine (27), Boston (32), Bike (45), Crime (247),
	// Tecator (310), the 512-d synthetic sets (1280).
	{"wine", 27, 1e-6, logspace(-1, 1, 5)},
	{"boston", 32, 1e-6, logspace(-1, 1, 5)},
	{"bike", 45, 1e-6, logspace(-1, 1, 5)},
	{"crime", 247, 1e-6, logspace(-1, 1, 5)},
	{"tecator", 310, 1e-6, logspace(-1, 1, 5)},
	{"synthetic", 1280, 1e-6, logspace(-1, 1, 5)},
	// Figs. 3/5: ε ∈ logspace(−1, 1.5, 5), k = 512, δ = 0.01/12000.
	{"fmnist", 512, 0.01 / 12000, logspace(-1, 1.5, 5)},
}

func logspace(a, b float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Pow(10, a+(b-a)*float64(i)/float64(n-1))
	}
	return out
}

// TestLedgerWithinTarget: for every ε of the paper's grids, the ledger each
// mechanism returns (paper preset, paper and accountant calibrations) is
// within the target under the RDP accountant; for preset "code" it is
// reported as spent, which exceeds the target for linear-mixing on the
// regression grid (gaussmix.md §4.5: the code's eigenvalue release is
// under-noised). Tolerance:
// none (ε spent ≤ target exactly).
func TestLedgerWithinTarget(t *testing.T) {
	cal := accounting.NewCalibrator(accounting.Config{})
	for _, gc := range gridCases {
		for _, eps := range gc.eps {
			b := Budget{Epsilon: eps, Delta: gc.delta, Calibrator: cal}
			ledgers := map[string]accounting.Event{}
			for _, c := range []string{calPaper, calAccountant} {
				s, err := (&LinearMixing{p: LinearMixingParams{Calibration: c}}).setup(b, gc.k, 2)
				if err != nil {
					t.Fatal(err)
				}
				ledgers["linear-mixing/"+c] = s.event()
				s5, err := (&Sheffet17{p: Sheffet17Params{Calibration: c}, renyi: true}).setup(b, gc.k, 2)
				if err != nil {
					t.Fatal(err)
				}
				ledgers["sheffet17-renyi/"+c] = s5.event()
			}
			s4, _ := (&Sheffet17{}).setup(b, gc.k, 2)
			ledgers["sheffet17"] = s4.event()
			ks, err := (&ObjPertKifer{}).setup(b, 1)
			if err != nil {
				t.Fatal(err)
			}
			ledgers["objpert-kifer"] = ks.event
			for name, e := range ledgers {
				g, err := accounting.Config{}.Epsilon(e, gc.delta)
				if err != nil {
					t.Fatal(err)
				}
				// objpert-kifer meets its condition with equality; allow
				// the rounding of σ and λ (1e-12 relative).
				slack := 1.0
				if name == "objpert-kifer" {
					slack = 1 + 1e-12
				}
				if !(g.Epsilon <= eps*slack) {
					t.Errorf("%s, %s, ε = %.4g: ledger spends %.6g", gc.name, name, eps, g.Epsilon)
				}
			}
			// The code preset of linear-mixing spends more than its target
			// on the regression grid (ε ≤ 10; at ε = 31.6 its large η
			// happens to cover the under-noised release).
			if eps > 10.01 {
				continue
			}
			s, err := (&LinearMixing{p: LinearMixingParams{sketchParams: sketchParams{Preset: presetCode}}}).setup(b, gc.k, 2)
			if err != nil {
				t.Fatal(err)
			}
			if g, _ := (accounting.Config{}).Epsilon(s.event(), gc.delta); !(g.Epsilon > eps) {
				t.Errorf("%s, ε = %.4g: preset code spends %.4g ≤ target; the under-noised eigenvalue release should show", gc.name, eps, g.Epsilon)
			}
		}
	}
}

// TestLedgerVsTheorem1: the RDP accountant's ε of linear-mixing's ledger is
// at most Theorem 1's ε̃ (eq. (5)), which bounds the same three parts by
// basic composition at δ/3 each; the accountant composes the two curves and
// converts once at δ − Φ(−τ) ≥ 2δ/3.
func TestLedgerVsTheorem1(t *testing.T) {
	for _, gc := range gridCases {
		for _, eps := range gc.eps {
			s, err := (&LinearMixing{}).setup(Budget{Epsilon: eps, Delta: gc.delta}, gc.k, 2)
			if err != nil {
				t.Fatal(err)
			}
			thm1, _, err := accounting.GaussMixTheorem1Epsilon(gc.k, s.gamma, s.gamma/math.Sqrt(float64(gc.k)), gc.delta)
			if err != nil {
				t.Fatal(err)
			}
			g, _ := accounting.Config{}.Epsilon(s.event(), gc.delta)
			if !(g.Epsilon <= thm1) || !(thm1 <= eps) {
				t.Errorf("%s ε=%.4g: accountant %.6g, Theorem 1 %.6g", gc.name, eps, g.Epsilon, thm1)
			}
			if tail := gaussianTail(s.tau); !(tail <= gc.delta/3) {
				t.Errorf("Φ(−τ) = %g > δ/3 = %g", tail, gc.delta/3)
			}
		}
	}
}

// TestCheckBoundsMemo: the bound check (memoised per training set) names
// the first row above the bound and the first target above C_Y, and a NaN
// fails it.
func TestCheckBoundsMemo(t *testing.T) {
	d := tinyData(t, datasets.Regression, 50, 3)
	if err := checkBounds("m", d, 1, 1); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		bx, by float64
		want   string
	}{{0.5, 1, "row "}, {1, 0.5, "target "}} {
		err := checkBounds("m", d, tc.bx, tc.by)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("bounds (%v, %v): %v", tc.bx, tc.by, err)
		}
	}
	nan := d.Clone()
	nan.X.Set(7, 1, math.NaN())
	if err := checkBounds("m", nan, 1, 1); err == nil || !strings.Contains(err.Error(), "row 7") {
		t.Errorf("NaN row: %v", err)
	}
}

// TestSmallestGammaEvaluatesEachPointOnce: the γ search (Algorithm 5's
// calibration, once per cell) evaluated the bracket's upper end twice and
// repeated points inside SmallestFeasible; each γ is now accounted once,
// and the γ found meets ε/2.
func TestSmallestGammaEvaluatesEachPointOnce(t *testing.T) {
	calls := map[float64]int{}
	g, err := smallestGamma(func(gamma float64) (float64, error) {
		calls[gamma]++
		return gaussMixEpsilon(57, gamma, 1e-5)
	}, 0.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	for x, n := range calls {
		if n > 1 {
			t.Errorf("γ = %v evaluated %d times", x, n)
		}
	}
	if eps, err := gaussMixEpsilon(57, g, 1e-5); err != nil || eps > 0.5 {
		t.Errorf("ε(γ = %v) = %v (%v), want ≤ 0.5", g, eps, err)
	}
}
