package accounting

import (
	"math"
	"testing"
)

// TestDeltaRefined: with the default orders, Delta minimises over continuous
// α as Epsilon does, so δ(ε(δ)) = δ (to the 1e-10 tolerance of the α search,
// ~1e-6 in δ) and δ is never above the grid-only value; for ObjPert with
// σ = 10, β = 1, λ = 5 at ε = 1 the optimal α ≈ 78 lies between grid orders
// and the grid's δ is ≈ 4× too large (objpert.md §2.12: 1.0866e-15).
func TestDeltaRefined(t *testing.T) {
	events := []Event{
		ObjectivePerturbation{Sigma: 10, Lambda: 5, Beta: 1, L: 1},
		ObjectivePerturbation{Sigma: 5, Lambda: 20, Beta: 1, L: 1},
		Gaussian{Sigma: 3, Sensitivity: 1},
		SelfComposed{Event: PoissonSampledGaussian{Q: 0.01, NoiseMultiplier: 1.1}, Count: 1000},
	}
	for _, e := range events {
		for _, delta := range []float64{1e-5, 1e-10} {
			g, err := Config{}.Epsilon(e, delta)
			if err != nil {
				t.Fatal(err)
			}
			back, err := Config{}.Delta(e, g.Epsilon)
			if err != nil {
				t.Fatal(err)
			}
			grid, _ := Config{Orders: "grid"}.Delta(e, g.Epsilon)
			if math.Abs(back-delta) > 1e-6*delta || back > grid {
				t.Errorf("%+v: δ(ε(%g)) = %v (grid-only %v)", e, delta, back, grid)
			}
		}
	}
	d, _ := Config{}.Delta(ObjectivePerturbation{Sigma: 10, Lambda: 5, Beta: 1, L: 1}, 1)
	if math.Abs(d-1.0866e-15) > 1e-4*1.0866e-15 {
		t.Errorf("δ(1) = %v, want 1.0866e-15", d)
	}
}
