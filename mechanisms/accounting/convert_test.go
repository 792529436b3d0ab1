package accounting

import (
	"fmt"
	"strings"
	"testing"
)

// TestConversionTFPrivacyTutorial: the MNIST DP-SGD tutorial's privacy
// (n = 60,000, B = 256, 60 epochs, σ = 1.1, δ = 1e-5; T = ⌈E·n/B⌉ = 14063
// steps). Golden vectors: 3.009 is what TF Privacy's compute_dp_sgd_privacy
// computes (tensorflow/privacy, compute_dp_sgd_privacy_lib.py: its orders and
// the classic conversion of [Mir17] Prop. 3; its README and tutorials print
// it as "eps = 3.01", format .3g); 2.597 is dplab's default ([BBG+20] Thm 21
// on dp_accounting's grid refined over continuous α), both as issue 38 quotes
// them.
func TestConversionTFPrivacyTutorial(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--orders", "tfprivacy", "--conversion", "classic"}, "3.009"},
		{nil, "2.597"},
		{[]string{"--orders", "grid"}, "2.597"},
	}
	for _, tc := range cases {
		args := append([]string{"--n", "60000", "--batch-size", "256", "--epochs", "60", "--sigma", "1.1", "--delta", "1e-5"}, tc.args...)
		ans, err := ask(t, "sgm", args...)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if got := fmt.Sprintf("%.3f", float64(*ans.Results[0].Epsilon)); got != tc.want {
			t.Errorf("%v: ε = %s, want %s", tc.args, got, tc.want)
		}
	}
}

// TestConversionClassicNeverTighter: on every order set, the classic
// conversion's ε (and δ) is at least the default's ((1) − (3) =
// log(1 − 1/α) − log(α)/(α − 1) < 0), and both decrease the same way in δ.
func TestConversionClassicNeverTighter(t *testing.T) {
	for _, orders := range []string{"default", "grid", "opacus", "tfprivacy", "integer"} {
		for _, q := range []float64{0.001, 0.01, 0.1, 1} {
			for _, sigma := range []float64{0.7, 1.1, 4} {
				for _, steps := range []int{1, 1000} {
					e := SelfComposed{Event: PoissonSampledGaussian{Q: q, NoiseMultiplier: sigma}, Count: steps}
					for _, delta := range []float64{1e-10, 1e-5, 1e-2} {
						def, err := Config{Orders: orders}.Epsilon(e, delta)
						if err != nil {
							t.Fatal(err)
						}
						cl, err := Config{Orders: orders, Conversion: "classic"}.Epsilon(e, delta)
						if err != nil {
							t.Fatal(err)
						}
						if cl.Epsilon < def.Epsilon {
							t.Errorf("%s q=%g σ=%g T=%d δ=%g: classic ε %v < default %v", orders, q, sigma, steps, delta, cl.Epsilon, def.Epsilon)
						}
					}
					for _, eps := range []float64{0.5, 2, 8} {
						def, err := Config{Orders: orders}.Delta(e, eps)
						if err != nil {
							t.Fatal(err)
						}
						cl, err := Config{Orders: orders, Conversion: "classic"}.Delta(e, eps)
						if err != nil {
							t.Fatal(err)
						}
						if cl < def {
							t.Errorf("%s q=%g σ=%g T=%d ε=%g: classic δ %v < default %v", orders, q, sigma, steps, eps, cl, def)
						}
					}
				}
			}
		}
	}
}

// TestConversionBadInput: an unknown conversion or order set is an error
// naming the valid ones.
func TestConversionBadInput(t *testing.T) {
	for _, tc := range []struct{ flag, value, want string }{
		{"--conversion", "tight", `unknown conversion "tight" (want default or classic)`},
		{"--orders", "tf", `unknown order set "tf" (want default, grid, opacus, tfprivacy or integer)`},
	} {
		_, err := ask(t, "gaussian", "--sigma", "2", "--delta", "1e-5", tc.flag, tc.value)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: error %v, want it to contain %q", tc.flag, tc.value, err, tc.want)
		}
	}
}
