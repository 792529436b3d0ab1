package mechanisms

import (
	"context"
	"math"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/solvers"
	"gonum.org/v1/gonum/floats"
)

// TestObjPertKifer: the noise and ridge of Algorithm 6 line 2 (closed forms,
// 1e-15), the returned θ is a minimiser of n × line 4's objective with the
// trial's b (gradient norm ≤ n·tol, recomputed), and the ledger is Kifer's
// condition at (ε, δ): ε for the paper's Δ/(2n), 2ε for the code's Δ/(4n)
// (1e-12: closed forms).
func TestObjPertKifer(t *testing.T) {
	data := tinyData(t, datasets.Binary, 500, 6)
	const delta = 1e-6
	for _, tc := range []struct {
		preset string
		eps    float64
		spent  float64 // ε the ledger certifies, per ε of target
	}{
		{"", 0.5, 1}, {"", 7.5, 1}, {presetCode, 0.5, 2},
	} {
		m := &ObjPertKifer{p: ObjPertKiferParams{Preset: tc.preset}}
		seed := rngs.Derive("kifer", tc.preset)
		rel, err := m.Fit(context.Background(), data, Budget{Epsilon: tc.eps, Delta: delta}, rngs.New(seed))
		if err != nil {
			t.Fatal(err)
		}
		sigma := math.Sqrt(4*tc.eps+8*math.Log(2/delta)) / tc.eps
		lambda := 1 / (2 * tc.eps)
		if tc.preset == presetCode {
			lambda /= 2
		}
		if math.Abs(rel.Noise["sigma"]-sigma) > 1e-15*sigma || math.Abs(rel.Noise["lambda"]-lambda) > 1e-15*lambda {
			t.Errorf("%s ε=%v: σ = %v, λ = %v; want %v, %v", tc.preset, tc.eps, rel.Noise["sigma"], rel.Noise["lambda"], sigma, lambda)
		}
		g, err := accounting.Config{}.Epsilon(rel.Event, delta)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(g.Epsilon-tc.spent*tc.eps) > 1e-12*tc.eps {
			t.Errorf("%s ε=%v: ledger ε = %.15g, want %v", tc.preset, tc.eps, g.Epsilon, tc.spent*tc.eps)
		}
		// Stationarity, with b redrawn from the same stream.
		noise := rngs.New(seed).Get("noise")
		b := make([]float64, data.Cols())
		for i := range b {
			b[i] = sigma * noise.NormFloat64()
		}
		loss, _ := solvers.NewLogistic(data.X, data.Y, solvers.LogisticConfig{})
		obj := solvers.Objective{Loss: loss, L2: lambda, Linear: b}
		grad := make([]float64, obj.Dim())
		obj.ValueGrad(grad, rel.Model.(*Linear).Theta)
		if gn := floats.Norm(grad, 2); gn > 1e-6*float64(data.Rows()) || rel.Stats["converged"] != 1 {
			t.Errorf("%s ε=%v: ‖∇‖ = %v > n·tol", tc.preset, tc.eps, gn)
		}
	}
}
