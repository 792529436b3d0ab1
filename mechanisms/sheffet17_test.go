package mechanisms

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"gonum.org/v1/gonum/mat"
)

// wellConditioned returns n rows of i.i.d. N(0, 1) features and an
// independent N(0, 1) target, scaled like the runner (rows by the max row
// norm, y by max|y|): λ_min([X y]ᵀ[X y]) is then of order n/(p·max‖z‖²),
// large enough for Sheffet's test to pass at large ε.
func wellConditioned(n, d int) *datasets.Dataset {
	r := rand.New(rand.NewPCG(3, 3))
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	raw := x.RawMatrix().Data
	for i := range raw {
		raw[i] = r.NormFloat64()
	}
	for i := range y {
		y[i] = r.NormFloat64()
	}
	ds := &datasets.Dataset{Name: "wc", Task: datasets.Regression, X: x, Y: y}
	if err := (datasets.Scaling{X: "max-row-norm", Y: "max-abs"}).Apply(ds); err != nil {
		panic(err)
	}
	return ds
}

// TestSheffetBranches: Algorithm 4's Laplace test (line 5) sends data with a
// large λ_min([X y]ᵀ[X y]) to the noise-free sketch (line 6) at large ε
// (200: at k = 40 the box's γ/C² = 1.35, within Lemma 1), and
// the paper's datasets (λ_min ≈ 0 after scaling) to the noisy one; the
// ledger is the same in both branches. In the noise-free branch the model is
// the least-squares solution on S·Z from the trial's "sketch" stream.
func TestSheffetBranches(t *testing.T) {
	wc := wellConditioned(2000, 4)
	tiny := tinyData(t, datasets.Regression, 400, 4)
	for _, tc := range []struct {
		name   string
		data   *datasets.Dataset
		eps    float64
		branch float64
	}{
		{"well conditioned, ε = 200", wc, 200, 1},
		{"near-singular data", tiny, 1, 0},
	} {
		for _, renyi := range []bool{false, true} {
			m := &Sheffet17{p: Sheffet17Params{sketchParams: sketchParams{K: 40}}, renyi: renyi}
			seed := rngs.Derive("sheffet", tc.name)
			rel, err := m.Fit(context.Background(), tc.data, Budget{Epsilon: tc.eps, Delta: 1e-6}, rngs.New(seed))
			if err != nil {
				t.Fatal(err)
			}
			if rel.Stats["no_noise_branch"] != tc.branch {
				js, _ := joint(tc.data, false)
				t.Errorf("%s (renyi %v): branch %v, want %v (λ_min = %v, W = %v)", tc.name, renyi, rel.Stats["no_noise_branch"], tc.branch, js.lamMin, rel.Noise["threshold"])
			}
			if tc.branch == 1 {
				js, _ := joint(tc.data, false)
				rs := rngs.New(seed)
				theta, err := sketchOLS(js.sketch(samplerExact, 40, 0, rs.Get("sketch"), nil))
				if err != nil {
					t.Fatal(err)
				}
				got := rel.Model.(*Linear).Theta
				for i := range theta {
					if got[i] != theta[i] {
						t.Fatalf("noise-free branch: θ = %v, want the sketch OLS %v", got, theta)
					}
				}
			}
		}
	}
}

// TestSheffetLaplaceFailure: the ledger's failure probability is
// P(z < −shift) for z ~ Lap(b): ½·exp(−shift/b) = δ/2 for both presets
// (shift = b·log(1/δ)); checked against a Monte Carlo frequency of the
// mechanism's own Laplace draws at a δ large enough to count (δ = 0.02:
// 2·10⁵ draws, SE of the frequency 2.2e-4, tolerance 5 SE).
func TestSheffetLaplaceFailure(t *testing.T) {
	const delta = 0.02
	m := &Sheffet17{}
	s, err := m.setup(Budget{Epsilon: 1, Delta: delta}, 10, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := 0.5 * math.Exp(-s.shift/s.scale)
	if math.Abs(want-delta/2) > 1e-15 {
		t.Errorf("failure probability %v, want δ/2 = %v", want, delta/2)
	}
	r := rand.New(rand.NewPCG(5, 5))
	const n = 200000
	fails := 0
	for i := 0; i < n; i++ {
		if s.scale*(r.ExpFloat64()-r.ExpFloat64()) < -s.shift {
			fails++
		}
	}
	freq := float64(fails) / n
	if se := math.Sqrt(want * (1 - want) / n); math.Abs(freq-want) > 5*se {
		t.Errorf("Laplace tail frequency %v, want %v ± %v", freq, want, 5*se)
	}
}

// TestSheffetCalibrationParam: sheffet17 has a closed-form γ and rejects a
// calibration param; sheffet17-renyi accepts both calibrations.
func TestSheffetCalibrationParam(t *testing.T) {
	e, _ := Lookup("sheffet17")
	if _, _, err := e.Build(func(v any) error { v.(*Sheffet17Params).Calibration = calAccountant; return nil }); err == nil {
		t.Error("sheffet17 accepted calibration")
	}
	e, _ = Lookup("sheffet17-renyi")
	if _, _, err := e.Build(func(v any) error { v.(*Sheffet17Params).Calibration = calAccountant; return nil }); err != nil {
		t.Error(err)
	}
}

// TestSheffetBoxOutsideLemma1: at ε = 1000 (k = 40) Algorithm 4's box gives
// γ/C² = 0.27 ≤ 1, where Lemma 1 does not hold; the fit ran and the trial
// failed afterwards at accounting ("gaussmix: gamma = 0.27, want > 1"). It is
// now refused before the fit, saying so; sheffet17-renyi calibrates γ > 1.
func TestSheffetBoxOutsideLemma1(t *testing.T) {
	wc := wellConditioned(2000, 4)
	m := &Sheffet17{p: Sheffet17Params{sketchParams: sketchParams{K: 40}}}
	_, err := m.Fit(context.Background(), wc, Budget{Epsilon: 1000, Delta: 1e-6}, rngs.New(rngs.Derive("box")))
	if want := "outside Lemma 1 (γ > 1) by which dplab accounts it"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want one saying %q", err, want)
	}
	m.renyi = true
	if _, err := m.Fit(context.Background(), wc, Budget{Epsilon: 1000, Delta: 1e-6}, rngs.New(rngs.Derive("box"))); err != nil {
		t.Fatalf("sheffet17-renyi at ε = 1000: %v", err)
	}
}
