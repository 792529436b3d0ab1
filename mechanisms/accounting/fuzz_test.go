package accounting

import (
	"math"
	"testing"
)

// FuzzEpsilon: for any sampled-Gaussian or Gaussian ledger and δ, the RDP
// accountant returns ε ≥ 0, never NaN, non-increasing in δ.
func FuzzEpsilon(f *testing.F) {
	f.Add(0.01, 1.0, uint16(1000), 1e-5)
	f.Add(1e-6, 0.3, uint16(1), 1e-9)
	f.Add(0.9, 1000.0, uint16(60000), 0.5)
	f.Fuzz(func(t *testing.T, q, sigma float64, steps uint16, delta float64) {
		e := SelfComposed{Event: PoissonSampledGaussian{Q: q, NoiseMultiplier: sigma}, Count: int(steps)}
		if Validate(e) != nil || !(delta > 0 && delta < 1) || sigma > 1e4 {
			t.Skip()
		}
		a, err := Config{Orders: "grid"}.Epsilon(e, delta)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Config{Orders: "grid"}.Epsilon(e, math.Min(1, delta*2))
		if err != nil {
			t.Fatal(err)
		}
		if math.IsNaN(a.Epsilon) || a.Epsilon < 0 || b.Epsilon > a.Epsilon*(1+1e-12) {
			t.Fatalf("ε(δ=%g) = %v, ε(2δ) = %v", delta, a.Epsilon, b.Epsilon)
		}
	})
}

// FuzzCalibrate: a calibrated Gaussian noise level never overshoots.
func FuzzCalibrate(f *testing.F) {
	f.Add(1.0, 1e-5, uint16(10))
	f.Add(0.05, 1e-8, uint16(1))
	f.Fuzz(func(t *testing.T, eps, delta float64, steps uint16) {
		tg := Target{eps, delta}
		if tg.Validate() != nil || delta == 0 || eps > 50 || eps < 1e-3 || steps == 0 {
			t.Skip()
		}
		mk := func(x float64) Event {
			return SelfComposed{Event: Gaussian{Sigma: x, Sensitivity: 1}, Count: int(steps)}
		}
		cal := NewCalibrator(Config{Orders: "grid"})
		x, err := cal.Calibrate(mk, tg, Bracket{})
		if err != nil {
			if _, ok := IsInfeasible(err); ok {
				t.Skip()
			}
			t.Fatal(err)
		}
		if got, _ := cal.EpsilonAt(mk(x), delta); got > eps {
			t.Fatalf("ε(%g) = %v > target %v", x, got, eps)
		}
	})
}
