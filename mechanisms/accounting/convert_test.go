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
	t.Parallel()
	for _, orders := range []string{"default", "grid", "opacus", "tfprivacy", "integer"} {
		for _, q := range []float64{0.001, 0.01, 0.1, 1} {
			for _, sigma := range []float64{0.7, 1.1, 4} {
				for _, steps := range []int{1, 100, 10000} {
					e := PoissonSampledGaussian{Q: q, NoiseMultiplier: sigma}
					var acc [2]Accountant // default, classic: one curve each for every query
					for i, conv := range []string{"default", "classic"} {
						a, err := Config{Orders: orders, Conversion: conv}.New()
						if err == nil {
							err = a.Compose(e, steps)
						}
						if err != nil {
							t.Fatal(err)
						}
						acc[i] = a
					}
					at := fmt.Sprintf("%s q=%g σ=%g T=%d", orders, q, sigma, steps)
					for _, delta := range []float64{1e-10, 1e-5, 1e-2} {
						def, err1 := acc[0].Epsilon(delta)
						cl, err2 := acc[1].Epsilon(delta)
						if err1 != nil || err2 != nil {
							t.Fatal(err1, err2)
						}
						if cl.Epsilon < def.Epsilon {
							t.Errorf("%s δ=%g: classic ε %v < default %v", at, delta, cl.Epsilon, def.Epsilon)
						}
					}
					for _, eps := range []float64{0.5, 2, 8} {
						def, err1 := acc[0].Delta(eps)
						cl, err2 := acc[1].Delta(eps)
						if err1 != nil || err2 != nil {
							t.Fatal(err1, err2)
						}
						if cl < def {
							t.Errorf("%s ε=%g: classic δ %v < default %v", at, eps, cl, def)
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
	// The classic conversion is the RDP accountant's: refused with the PLD
	// or exact one alone (which ignored it), taken with rdp and all.
	for _, kind := range []string{"pld", "exact"} {
		_, err := ask(t, "gaussian", "--sigma", "2", "--delta", "1e-5", "--accountant", kind, "--conversion", "classic")
		if want := "--conversion classic applies to the rdp accountant, not --accountant " + kind; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--accountant %s --conversion classic: error %v, want it to contain %q", kind, err, want)
		}
	}
	for _, kind := range []string{"rdp", "all"} {
		if _, err := ask(t, "gaussian", "--sigma", "2", "--delta", "1e-5", "--accountant", kind, "--conversion", "classic"); err != nil {
			t.Errorf("--accountant %s --conversion classic: %v", kind, err)
		}
	}
}
