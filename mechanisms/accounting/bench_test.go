package accounting

import (
	"strconv"
	"testing"
)

// dpsgdEvent is the benchmark event: sgm q = 0.01, σ = 1, T = 10000.
var dpsgdEvent = SelfComposed{Event: PoissonSampledGaussian{Q: 0.01, NoiseMultiplier: 1}, Count: 10000}

// BenchmarkRDPEpsilon: RDP ε of a DP-SGD event from a fresh accountant
// (nothing memoised across iterations), per order set.
func BenchmarkRDPEpsilon(b *testing.B) {
	for _, cfg := range []Config{{}, {Orders: "grid"}, {Orders: "integer"}, {SGM: "exact"}} {
		name := "orders=" + cfg.Orders
		if cfg.Orders == "" {
			name = "orders=default"
		}
		if cfg.SGM != "" {
			name += ",sgm=" + cfg.SGM
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cfg.Epsilon(dpsgdEvent, 1e-5); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCalibrateSigma: σ calibration for the same event at ε = 1,
// δ = 1e-5, with a fresh Calibrator each iteration (no memo hits).
func BenchmarkCalibrateSigma(b *testing.B) {
	mk := func(x float64) Event {
		return SelfComposed{Event: PoissonSampledGaussian{Q: 0.01, NoiseMultiplier: x}, Count: 10000}
	}
	for _, cfg := range []Config{{}, {Orders: "grid"}} {
		name := "orders=" + cfg.Orders
		if cfg.Orders == "" {
			name = "orders=default"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := NewCalibrator(cfg).Calibrate("", mk, Target{1, 1e-5}, Bracket{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPLDEpsilon: PLD ε of DP-SGD on Adult-sized data (q = 256/45000,
// σ = 1, T = 1758 = 10 epochs) at δ = 1e-5, from a fresh accountant, per
// discretisation interval (dp_accounting 0.6.0 takes ~0.5 s at 1e-4 on a
// 2-core machine, anchors.md §4.2).
func BenchmarkPLDEpsilon(b *testing.B) {
	e := SelfComposed{Event: PoissonSampledGaussian{Q: 256.0 / 45000, NoiseMultiplier: 1}, Count: 1758}
	for _, h := range []float64{1e-3, 1e-4} {
		b.Run("interval="+strconv.FormatFloat(h, 'g', -1, 64), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := (Config{Kind: "pld", Interval: h}).Epsilon(e, 1e-5); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
