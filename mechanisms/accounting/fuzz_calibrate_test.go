package accounting

import (
	"testing"
)

// FuzzCalibrateSGM: DP-SGD's noise multiplier calibrated by the RDP or the
// PLD accountant never overshoots: a fresh accountant's ε at the returned
// multiplier is at most the target (the runner's promise for calibrated
// mechanisms). Run for 240 s when written (35,957 inputs, RDP and PLD):
// nothing found.
func FuzzCalibrateSGM(f *testing.F) {
	f.Add(false, 0.01, uint16(1000), 1.0, 1e-5)
	f.Add(true, 256.0/45000, uint16(100), 0.5, 1e-6)
	f.Add(true, 0.5, uint16(3), 8.0, 1e-8)
	f.Fuzz(func(t *testing.T, pld bool, q float64, steps uint16, eps, delta float64) {
		tg := Target{Epsilon: eps, Delta: delta}
		if tg.Validate() != nil || !(q > 0 && q <= 1) || steps == 0 || eps < 1e-2 || eps > 50 || delta < 1e-12 || delta > 0.1 {
			t.Skip()
		}
		cfg := Config{}
		if pld {
			if steps > 100 || eps > 10 {
				// A PLD calibration takes seconds over long runs or at large ε
				// (10 s at T = 1659, q = 2.6e-5; 8 s at ε = 47), beyond the
				// fuzzer's time per input.
				t.Skip()
			}
			cfg.Kind = "pld"
		}
		mk := func(m float64) Event {
			return SelfComposed{Event: PoissonSampledGaussian{Q: q, NoiseMultiplier: m}, Count: int(steps)}
		}
		m, err := NewCalibrator(cfg).Calibrate(mk, tg, Bracket{})
		if err != nil {
			if _, ok := IsInfeasible(err); ok {
				t.Skip()
			}
			t.Fatal(err)
		}
		got, err := cfg.Epsilon(mk(m), delta)
		if err != nil {
			t.Fatal(err)
		}
		if got.Epsilon > eps {
			t.Fatalf("q = %g, T = %d, %s: multiplier %g gives ε = %.12g > target %g at δ = %g", q, steps, cfg.Kind, m, got.Epsilon, eps, delta)
		}
	})
}
