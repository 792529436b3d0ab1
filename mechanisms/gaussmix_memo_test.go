package mechanisms

import (
	"math"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// TestPaperCalibrationOncePerProcess: the paper calibration of γ that one
// mechanism value computes (validation's target check) is the one another
// value of the same params finds (the runner's fit): no new entry, the same
// γ. And every γ the memo returns equals smallestGamma computed afresh
// (the oracle), also for linear-mixing's code preset at bounds that differ
// only in C², whose γ differ: the key holds everything γ depends on.
func TestPaperCalibrationOncePerProcess(t *testing.T) {
	const n, d, k = 404, 13, 57
	delta := 1.0 / (n * n)
	shape := DataShape{Task: datasets.Regression, Rows: n, Cols: d}
	sk := math.Sqrt(k)
	lmOracle := func(code bool, c2, eps float64) float64 {
		g, err := smallestGamma(func(g float64) (float64, error) {
			eta := g / sk
			if code {
				eta = g * c2 / sk
			}
			e, _, err := accounting.GaussMixTheorem1Epsilon(k, g, eta, delta)
			return e, err
		}, eps, 2.5)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	shOracle := func(eps float64) float64 {
		g, err := smallestGamma(func(g float64) (float64, error) { return gaussMixEpsilon(k, g, delta) }, eps/2, 1)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	for _, eps := range []float64{0.3, 2.63} {
		b := Budget{Epsilon: eps, Delta: delta}
		for _, bx := range []float64{1, 3} {
			c2 := bx*bx + 1
			for _, preset := range []string{presetPaper, presetCode} {
				p := LinearMixingParams{sketchParams: sketchParams{boundsParams: boundsParams{BoundX: bx, BoundY: 1}, K: k, Preset: preset}}
				validation, runner := &LinearMixing{p: p}, &LinearMixing{p: p}
				if _, err := validation.CheckTarget(b, shape); err != nil {
					t.Fatal(err)
				}
				before := gammaMemo.Len()
				s, err := runner.setup(b, k, c2)
				if err != nil {
					t.Fatal(err)
				}
				if gammaMemo.Len() != before {
					t.Errorf("linear-mixing %s, C² = %g, ε = %g: the fit calibrated again after the target check", preset, c2, eps)
				}
				want := lmOracle(preset == presetCode, c2, eps)
				if got := s.gamma; got != want {
					t.Errorf("linear-mixing %s, C² = %g, ε = %g: γ = %v, computed afresh %v", preset, c2, eps, got, want)
				}
			}
			p := Sheffet17Params{sketchParams: sketchParams{boundsParams: boundsParams{BoundX: bx, BoundY: 1}, K: k, Preset: presetCode}}
			validation, runner := &Sheffet17{p: p, renyi: true}, &Sheffet17{p: p, renyi: true}
			if _, err := validation.CheckTarget(b, shape); err != nil {
				t.Fatal(err)
			}
			before := gammaMemo.Len()
			s, err := runner.setup(b, k, c2)
			if err != nil {
				t.Fatal(err)
			}
			if gammaMemo.Len() != before {
				t.Errorf("sheffet17-renyi, ε = %g: the fit calibrated again after the target check", eps)
			}
			if got, want := s.threshold, shOracle(eps); got != want {
				t.Errorf("sheffet17-renyi code, ε = %g: threshold γ = %v, computed afresh %v", eps, got, want)
			}
		}
	}
}
