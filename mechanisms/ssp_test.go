package mechanisms

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/solvers"
)

// sspStats returns the vector ssp releases before noise: the upper triangle
// of XᵀX and Xᵀy (rows and labels assumed in range).
func sspStats(x *mat.Dense, y []float64) []float64 {
	n, d := x.Dims()
	var out []float64
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			s := 0.0
			for r := 0; r < n; r++ {
				s += x.At(r, i) * x.At(r, j)
			}
			out = append(out, s)
		}
	}
	for j := 0; j < d; j++ {
		s := 0.0
		for r := 0; r < n; r++ {
			s += x.At(r, j) * y[r]
		}
		out = append(out, s)
	}
	return out
}

// TestSSP: at a huge ε the output is the ridge solution of the clipped
// statistics (independently solved); the ledger is one Gaussian release of
// replace-one sensitivity 2√2 meeting the target; and the sensitivity and
// the Lipschitz constant √5 its SRDP uses bound the released vector's move
// on random datasets (replace-one pairs, and feature moves of every row with
// labels fixed).
func TestSSP(t *testing.T) {
	d := tinyData(t, datasets.Regression, 200, 3)
	m := &SSP{p: SSPParams{Lambda: 0.5}}
	b := Budget{Epsilon: 1e9, Delta: 1e-5, Calibrator: accounting.NewCalibrator(accounting.Config{})}
	rel, err := m.Fit(context.Background(), d, b, rngs.New(rngs.Derive("ssp")))
	if err != nil {
		t.Fatal(err)
	}
	want, err := solvers.Ridge(d.X, d.Y, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	for j, w := range want {
		if got := rel.Model.(*Linear).Theta[j]; math.Abs(got-w) > 1e-5 {
			t.Errorf("θ[%d] = %v, ridge %v", j, got, w)
		}
	}
	b.Epsilon = 1
	rel, err = m.Fit(context.Background(), d, b, rngs.New(rngs.Derive("ssp")))
	if err != nil {
		t.Fatal(err)
	}
	g, err := accounting.Config{}.Epsilon(rel.Event, 1e-5)
	if err != nil || g.Epsilon > 1+1e-9 || g.Relation != accounting.RelationReplaceOne {
		t.Errorf("ε %v (%v), relation %q", g.Epsilon, err, g.Relation)
	}
	s, err := m.SmoothRDP(rel.Event)
	if err != nil {
		t.Fatal(err)
	}
	if err := (accounting.Preprocessed{Event: rel.Event, SRDP: s, DeltaInf: 5, Delta2: 0.1, N: 200}).Validate(); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(2, 2))
	unit := func(dim int) []float64 {
		v := make([]float64, dim)
		s := 0.0
		for i := range v {
			v[i] = r.NormFloat64()
			s += v[i] * v[i]
		}
		scale := r.Float64() / math.Sqrt(s)
		for i := range v {
			v[i] *= scale
		}
		return v
	}
	for trial := 0; trial < 2000; trial++ {
		n, dim := 2+r.IntN(8), 1+r.IntN(4)
		x, x2 := mat.NewDense(n, dim, nil), mat.NewDense(n, dim, nil)
		y, y2 := make([]float64, n), make([]float64, n)
		var d12 float64
		for i := 0; i < n; i++ {
			a, c := unit(dim), unit(dim)
			x.SetRow(i, a)
			y[i] = 2*r.Float64() - 1
			y2[i] = y[i]
			if trial%2 == 0 && i > 0 { // replace-one: only row 0 differs (label too)
				c = a
			}
			x2.SetRow(i, c)
			dd := 0.0
			for j := range a {
				dd += (a[j] - c[j]) * (a[j] - c[j])
			}
			d12 += math.Sqrt(dd)
		}
		if trial%2 == 0 {
			y2[0] = 2*r.Float64() - 1
		}
		s1, s2 := sspStats(x, y), sspStats(x2, y2)
		diff := 0.0
		for i := range s1 {
			diff += (s1[i] - s2[i]) * (s1[i] - s2[i])
		}
		diff = math.Sqrt(diff)
		if trial%2 == 0 && diff > sspSensitivity*(1+1e-12) {
			t.Fatalf("replace-one move %g > 2√2", diff)
		}
		if trial%2 == 1 && diff > math.Sqrt(5)*d12*(1+1e-12) {
			t.Fatalf("feature move %g > √5·d12 = %g", diff, math.Sqrt(5)*d12)
		}
	}
}
