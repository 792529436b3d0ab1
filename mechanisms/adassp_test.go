package mechanisms

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// TestAdaSSPGramNoise: the two XᵀX noise forms have the variances their
// docs state — "paper" (N_sym, [LSS+25] Alg. 3) unit variance in every
// entry, "symmetrised" (½(Z + Zᵀ)) unit variance on the diagonal and ½ off
// it — and both are symmetric with mean 0. 20,000 draws of a 3×3 noise:
// the standard error of a sample variance v is v·√(2/20000) = 0.01·v, the
// bounds are 5 SE.
func TestAdaSSPGramNoise(t *testing.T) {
	const draws = 20000
	zero := mat.NewSymDense(3, nil)
	for _, tc := range []struct {
		form        string
		diag, other float64
	}{
		{adasspNoisePaper, 1, 1},
		{adasspNoiseSymmetrised, 1, 0.5},
	} {
		r := rngs.New(rngs.Derive("adassp-gram", tc.form)).Get("noise")
		var sum, sq [3][3]float64
		for k := 0; k < draws; k++ {
			z := adasspGram(zero, 2, tc.form, r) // s = 2: variances ×4
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					if z.At(i, j) != z.At(j, i) {
						t.Fatalf("%s: not symmetric", tc.form)
					}
					sum[i][j] += z.At(i, j)
					sq[i][j] += z.At(i, j) * z.At(i, j)
				}
			}
		}
		for i := 0; i < 3; i++ {
			for j := i; j < 3; j++ {
				want := 4 * tc.other
				if i == j {
					want = 4 * tc.diag
				}
				mean := sum[i][j] / draws
				v := sq[i][j]/draws - mean*mean
				if math.Abs(v-want) > 5*0.01*want || math.Abs(mean) > 5*math.Sqrt(want/draws) {
					t.Errorf("%s: entry (%d,%d) mean %.4f variance %.4f, want 0 and %v", tc.form, i, j, mean, v, want)
				}
			}
		}
	}
}

// TestAdaSSPPresetCodeDrawsLambdaOncePerCell: under preset "code" every
// fit with the same Budget.CellSeed releases the same λ̃_min whatever its
// own streams, and another cell a different one; the default preset draws
// it per fit. The noise form follows the preset unless set.
func TestAdaSSPPresetCodeDrawsLambdaOncePerCell(t *testing.T) {
	d := tinyData(t, datasets.Regression, 4000, 3)
	fit := func(p AdaSSPParams, cell string, trial string) float64 {
		t.Helper()
		b := Budget{Epsilon: 10, Delta: 1e-5}
		if cell != "" {
			b.CellSeed = rngs.Derive("cell", cell)
		}
		rel, err := (&AdaSSP{p: p}).Fit(context.Background(), d, b, rngs.New(rngs.Derive("trial", trial)))
		if err != nil {
			t.Fatal(err)
		}
		return rel.Noise["lambda_min_tilde"]
	}
	// ε = 10 on 4000 rows: λ_min(XᵀX) = 219 is far above the shift
	// L/(ε/3) = 4.0 and the noise std √L/(ε/3) = 1.1, so λ̃_min > 0 and
	// carries the noise draw.
	code := AdaSSPParams{Preset: presetCode}
	a, b := fit(code, "eps=1", "0"), fit(code, "eps=1", "1")
	if a != b || a <= 0 {
		t.Errorf("preset code, one cell: λ̃_min = %v and %v, want equal and > 0", a, b)
	}
	if c := fit(code, "eps=2", "0"); c == a {
		t.Errorf("preset code, another cell: λ̃_min = %v, the same as the first cell's", c)
	}
	if x, y := fit(AdaSSPParams{}, "eps=1", "0"), fit(AdaSSPParams{}, "eps=1", "1"); x == y {
		t.Errorf("default preset: λ̃_min = %v in two trials, want a draw per trial", x)
	}
	if x, y := fit(code, "", "0"), fit(code, "", "1"); x == y {
		t.Errorf("preset code without a cell: λ̃_min = %v in two fits, want a draw per fit", x)
	}
	for _, tc := range []struct {
		p    AdaSSPParams
		want string
	}{
		{AdaSSPParams{}, adasspNoiseSymmetrised},
		{AdaSSPParams{Preset: presetCode}, adasspNoisePaper},
		{AdaSSPParams{Preset: presetCode, Noise: adasspNoiseSymmetrised}, adasspNoiseSymmetrised},
		{AdaSSPParams{Noise: adasspNoisePaper}, adasspNoisePaper},
	} {
		if got := tc.p.noise(); got != tc.want {
			t.Errorf("%+v: noise %q, want %q", tc.p, got, tc.want)
		}
	}
}

// TestAdaSSPParamsErrors: an unknown noise form or preset is an error naming
// the key.
func TestAdaSSPParamsErrors(t *testing.T) {
	for key, p := range map[string]AdaSSPParams{
		"noise": {Noise: "symmetric"}, "preset": {Preset: "authors"}, "calibration": {Calibration: "x"},
	} {
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%+v: %v, want an error naming %s", p, err, key)
		}
	}
}

// TestAdaSSPPresetCodeRefusesTuning: under preset "code" the runs of a
// privately tuned trial would share λ̃_min; Fit and EventShapes refuse a
// wrapped budget (and the default preset accepts it).
func TestAdaSSPPresetCodeRefusesTuning(t *testing.T) {
	d := tinyData(t, datasets.Regression, 200, 3)
	wrap := func(e accounting.Event) accounting.Event { return e }
	b := Budget{Epsilon: 1, Delta: 1e-5, Wrap: wrap}
	code := &AdaSSP{p: AdaSSPParams{Preset: presetCode}}
	if _, err := code.EventShapes(b); !errors.Is(err, errCodeWrapped) {
		t.Errorf("EventShapes: %v, want errCodeWrapped", err)
	}
	if _, err := code.Fit(context.Background(), d, b, rngs.New(rngs.Derive("t"))); !errors.Is(err, errCodeWrapped) {
		t.Errorf("Fit: %v, want errCodeWrapped", err)
	}
	if _, err := (&AdaSSP{}).EventShapes(b); err != nil {
		t.Errorf("default preset, EventShapes: %v", err)
	}
}

// TestAdaSSPTinyEpsilon: at ε = 1e-320 the paper's noise multiplier
// √log(6/δ)/(ε/3) overflows; the fit failed with "regularization λ = NaN"
// and now says ε is too small.
func TestAdaSSPTinyEpsilon(t *testing.T) {
	d := tinyData(t, datasets.Regression, 200, 3)
	_, err := (&AdaSSP{}).Fit(context.Background(), d, Budget{Epsilon: 1e-320, Delta: 1e-6}, rngs.New(rngs.Derive("tiny")))
	if want := "ε is too small for float64"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want one saying %q", err, want)
	}
}

// TestAdaSSPXtyOncePerTrainingSet: AdaSSP's Xᵀy is data only, so the fits
// of one training set share one product (xtyStat) instead of forming it per
// trial; each fit adds its noise to its own copy, so the shared product is
// never changed: the same streams give the same θ on the shared set, fit
// after fit, as on a fresh clone of it. Fails before the memo (Xᵀy was
// computed again on every fit, never memoised).
func TestAdaSSPXtyOncePerTrainingSet(t *testing.T) {
	d := tinyData(t, datasets.Regression, 500, 4)
	b := Budget{Epsilon: 1, Delta: 1e-5}
	fit := func(data *datasets.Dataset) []float64 {
		t.Helper()
		rel, err := (&AdaSSP{}).Fit(context.Background(), data, b, rngs.New(rngs.Derive("xty", "trial")))
		if err != nil {
			t.Fatal(err)
		}
		return rel.Model.(*Linear).Theta
	}
	want := fit(d.Clone())
	for i := range 3 {
		if got := fit(d); !slices.Equal(got, want) {
			t.Fatalf("fit %d on the shared training set: θ = %v, want %v (a fresh clone's)", i, got, want)
		}
	}
	v, err := d.Memo("mechanisms/xty", func() (any, error) {
		t.Error("Xᵀy was not memoised on the training set: computed again")
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The memo holds Xᵀy (oracle: the sum over rows, to rounding).
	xty, _ := v.([]float64)
	if len(xty) != d.Cols() {
		t.Fatalf("memoised Xᵀy has %d entries, want %d", len(xty), d.Cols())
	}
	for j := range xty {
		var s float64
		for i := range d.Rows() {
			s += d.X.At(i, j) * d.Y[i]
		}
		if math.Abs(xty[j]-s) > 1e-12*max(1, math.Abs(s)) {
			t.Errorf("memoised (Xᵀy)_%d = %v, want %v", j, xty[j], s)
		}
	}
}
