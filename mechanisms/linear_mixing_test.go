package mechanisms

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/solvers"
	"gonum.org/v1/gonum/floats"
)

func fitLM(t *testing.T, p LinearMixingParams, d *datasets.Dataset, b Budget, seed string) *Release {
	t.Helper()
	rel, err := (&LinearMixing{p: p}).Fit(context.Background(), d, b, rngs.New(rngs.Derive("test", seed)))
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

// TestLinearMixingIsSketchedRidge: Algorithm 2 is a Gaussian sketch-and-solve
// of ridge regression with penalty s² ([LSS+25] App. F, eqs. (51)–(52)):
// (1/k)X̃ᵀX̃ → XᵀX + s²I and (1/k)X̃ᵀỸ → Xᵀy as k grows. With k = 40000 and
// ε = 2000 (so that s² is comparable to XᵀX, not dominating it) the relative
// error of θ against the ridge solution at the recorded s² is O(√(d/k))
// times the conditioning; the test allows 5%.
func TestLinearMixingIsSketchedRidge(t *testing.T) {
	data := tinyData(t, datasets.Regression, 400, 5)
	for _, sampler := range []string{samplerExact, samplerExplicit} {
		p := LinearMixingParams{sketchParams: sketchParams{K: 40000, Sampler: sampler}}
		rel := fitLM(t, p, data, Budget{Epsilon: 2000, Delta: 1e-6}, sampler)
		ridge, err := solvers.Ridge(data.X, data.Y, rel.Noise["sigma2"])
		if err != nil {
			t.Fatal(err)
		}
		theta := rel.Model.(*Linear).Theta
		diff := make([]float64, len(theta))
		floats.SubTo(diff, theta, ridge)
		r := floats.Norm(diff, 2) / floats.Norm(ridge, 2)
		t.Logf("%s: s² = %.4g, relative error %.3g", sampler, rel.Noise["sigma2"], r)
		if r > 0.05 {
			t.Errorf("%s: ‖θ − θ_ridge(s²)‖/‖θ_ridge‖ = %.3g", sampler, r)
		}
		// The noise: s² = γC² − λ̃ with 0 ≤ λ̃ ≤ λ_min here (z < τ).
		js, _ := joint(data, false)
		if s2, g := rel.Noise["sigma2"], rel.Noise["gamma"]; !(s2 <= 2*g && s2 >= 2*g-js.lamMin) {
			t.Errorf("%s: s² = %v outside [γC² − λ_min, γC²] = [%v, %v]", sampler, s2, 2*g-js.lamMin, 2*g)
		}
	}
}

// TestLinearMixingBinaryScale: on a binary task θ is the least-squares
// solution on ±1 labels times the surrogate's response scale, −b₁/(2b₂) =
// 3.53320 for the monomial Chebyshev fit on [−6, 6] (paper; gaussmix.md
// §5.1, 6 digits) and −c₁/(2c₂) = 1.1777320182967341 for the
// Chebyshev-basis one (code; reference-code.md §6 G4, exact), whose ratio is
// Q/2 = 3 (§8 item 7; 1e-12, rounding). The fitted head must also learn:
// train accuracy above 60% at ε = 1 on the separable synthetic task.
func TestLinearMixingBinaryScale(t *testing.T) {
	data := tinyData(t, datasets.Binary, 300, 4)
	b := Budget{Epsilon: 1, Delta: 1e-6}
	paper := fitLM(t, LinearMixingParams{sketchParams: sketchParams{K: 20}}, data, b, "s")
	sp, err := surrogateScale(0, presetPaper)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := surrogateScale(0, presetCode)
	if err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(sp-3.5332) < 1e-4 && math.Abs(sc-1.1777320182967341) < 1e-12 && math.Abs(sp/sc-3) < 1e-12) {
		t.Errorf("scales: paper %.10g, code %.16g, ratio %.16g (want 3.5332, 1.1777320182967341 (G4), 3)", sp, sc, sp/sc)
	}
	acc := 0
	for i := 0; i < data.Rows(); i++ {
		if (paper.Model.Predict(data.X.RawRowView(i)) > 0) == (data.Y[i] == 1) {
			acc++
		}
	}
	if float64(acc)/float64(data.Rows()) < 0.6 {
		t.Errorf("train accuracy %d/%d at ε = 1: the surrogate head is not learning", acc, data.Rows())
	}
}

// TestLinearMixingGammaBranch: when γ ≤ τ (tiny k, huge ε) Algorithm 1 skips
// the eigenvalue release (line 3) and the ledger is GaussMix alone.
func TestLinearMixingGammaBranch(t *testing.T) {
	data := tinyData(t, datasets.Regression, 200, 3)
	rel := fitLM(t, LinearMixingParams{sketchParams: sketchParams{K: 3}}, data, Budget{Epsilon: 200, Delta: 1e-6}, "b")
	if _, ok := rel.Event.(accounting.GaussMix); !ok {
		t.Fatalf("γ = %v ≤ τ: ledger %T, want GaussMix alone", rel.Noise["gamma"], rel.Event)
	}
	if rel.Noise["sigma2"] != 2*rel.Noise["gamma"] || rel.Noise["lambda_tilde"] != 0 {
		t.Errorf("branch γ ≤ τ: s² = %v, λ̃ = %v; want γC² = %v and 0", rel.Noise["sigma2"], rel.Noise["lambda_tilde"], 2*rel.Noise["gamma"])
	}
}

// TestLinearMixingErrors: bad params and data give errors naming the key.
func TestLinearMixingErrors(t *testing.T) {
	for name, p := range map[string]LinearMixingParams{
		"k":           {sketchParams: sketchParams{K: -1}},
		"k_over_d":    {sketchParams: sketchParams{KOverD: math.NaN()}},
		"preset":      {sketchParams: sketchParams{Preset: "x"}},
		"sampler":     {sketchParams: sketchParams{Sampler: "fast"}},
		"calibration": {Calibration: "box"},
		"surrogate_q": {SurrogateQ: -1},
	} {
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: Validate = %v", name, err)
		}
	}
	data := tinyData(t, datasets.Regression, 100, 6)
	_, err := (&LinearMixing{p: LinearMixingParams{sketchParams: sketchParams{K: 4}}}).Fit(context.Background(), data, Budget{Epsilon: 1, Delta: 1e-6}, rngs.New(rngs.Seed{}))
	if err == nil || !strings.Contains(err.Error(), "k = 4 < d = 6") {
		t.Errorf("k < d: %v", err)
	}
	// A sketch too large for memory is an error the trial records; k = 1e9
	// crashed the process ("fatal error: out of memory").
	_, err = (&LinearMixing{p: LinearMixingParams{sketchParams: sketchParams{K: 1e9}}}).Fit(context.Background(), data, Budget{Epsilon: 1, Delta: 1e-6}, rngs.New(rngs.Seed{}))
	if err == nil || !strings.Contains(err.Error(), "k = 1000000000: the k × (d + 1) sketch") {
		t.Errorf("k = 1e9: %v", err)
	}
	wrap := Budget{Epsilon: 1, Delta: 1e-6, Wrap: func(e accounting.Event) accounting.Event { return e }}
	if _, err := (&LinearMixing{}).Fit(context.Background(), data, wrap, rngs.New(rngs.Seed{})); err == nil {
		t.Error("calibration paper under private tuning accepted")
	}
}
