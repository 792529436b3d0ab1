package mechanisms

import (
	"context"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// withoutRow returns d without row i (an add/remove neighbour).
func withoutRow(d *datasets.Dataset, i int) *datasets.Dataset {
	n, c := d.X.Dims()
	x := mat.NewDense(n-1, c, nil)
	y := make([]float64, 0, n-1)
	for r, k := 0, 0; r < n; r++ {
		if r == i {
			continue
		}
		x.SetRow(k, d.X.RawRowView(r))
		y = append(y, d.Y[r])
		k++
	}
	return &datasets.Dataset{Name: d.Name, Task: d.Task, X: x, Y: y}
}

// TestObjPertOutputSensitivity: for neighbouring datasets (one row removed)
// and the same λ, the released points minus their output noise (replayed
// from the same streams) differ by at most Δ = (C + 2τ)/λ, the sensitivity
// the ledger assumes; the ledger meets the target; and with λ left to the
// rule the output noise std is sigma_out.
func TestObjPertOutputSensitivity(t *testing.T) {
	t.Parallel()
	data := tinyData(t, datasets.Binary, 500, 4)
	for _, lambda := range []float64{0.5, 5, 50} {
		t.Run(fmt.Sprint("lambda=", lambda), func(t *testing.T) {
			m := &ObjPertOutput{p: ObjPertOutputParams{Lambda: lambda, Tau: 1e-3}}
			b := Budget{Epsilon: 1, Delta: 1e-5}
			seed := rngs.Derive("output-sens", fmt.Sprint(lambda))
			var pre [][]float64
			for _, d := range []*datasets.Dataset{data, withoutRow(data, 17)} {
				rel, err := m.Fit(context.Background(), d, b, rngs.New(seed))
				if err != nil {
					t.Fatal(err)
				}
				g, err := accounting.Config{}.Epsilon(rel.Event, b.Delta)
				if err != nil || g.Epsilon > b.Epsilon {
					t.Fatalf("ε spent %v (%v)", g.Epsilon, err)
				}
				lin := rel.Model.(*Linear)
				theta := append(append([]float64(nil), lin.Theta...), lin.Intercept)
				noise := rngs.New(seed).Get("noise")
				for i := range theta {
					theta[i] -= rel.Noise["sigma"] * noise.NormFloat64()
				}
				pre = append(pre, theta)
			}
			sens := (math.Sqrt2 + 2e-3) / lambda
			if d := floats.Distance(pre[0], pre[1], 2); d > sens*(1+1e-9) {
				t.Errorf("neighbours' θ̃ differ by %v > Δ = %v", d, sens)
			}
		})
	}
	rel, err := (&ObjPertOutput{}).Fit(context.Background(), data, Budget{Epsilon: 0.5, Delta: 1e-5}, rngs.New(rngs.Derive("rule")))
	if err != nil {
		t.Fatal(err)
	}
	if s := rel.Noise["sigma"]; math.Abs(s-0.15) > 1e-12 {
		t.Errorf("rule: output noise std %v, want 0.15", s)
	}
	for _, p := range []ObjPertOutputParams{{Lambda: -1}, {Tau: math.NaN()}, {Lambda: 1, SigmaOut: 0.2}} {
		if p.Validate() == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}
