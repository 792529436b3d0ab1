package mechanisms

import (
	"context"
	"math"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// naiveProjectedGD is an independent noise-free reference: projected
// gradient descent on the mean logistic loss from 0, averaging the iterates.
func naiveProjectedGD(d *datasets.Dataset, T int, eta, R float64) []float64 {
	n, p := d.X.Dims()
	theta, avg := make([]float64, p), make([]float64, p)
	for t := 1; t <= T; t++ {
		g := make([]float64, p)
		for i := 0; i < n; i++ {
			row := d.X.RawRowView(i)
			u := 0.0
			for j := range row {
				u += row[j] * theta[j]
			}
			r := 1/(1+math.Exp(-u)) - d.Y[i]
			for j := range row {
				g[j] += r * row[j] / float64(n)
			}
		}
		s := 0.0
		for j := range theta {
			theta[j] -= eta * g[j]
			s += theta[j] * theta[j]
		}
		if s > R*R {
			for j := range theta {
				theta[j] *= R / math.Sqrt(s)
			}
		}
		for j := range avg {
			avg[j] += (theta[j] - avg[j]) / float64(t)
		}
	}
	return avg
}

// TestDPGD: at a huge ε the noise nearly vanishes and the output is the
// noise-free projected, averaged GD of an independent implementation (to
// 1e-4: at ε = 1e7 the calibrated σ is still of order 1e-6 per step, and the
// coordinates differ by under 1e-5); the ledger's RDP is the closed form T·α(2C/n)²/(2σ²) under
// replace-one neighbours and meets the target; iterates stay in the ball.
func TestDPGD(t *testing.T) {
	d := tinyData(t, datasets.Binary, 300, 4)
	n, _ := d.X.Dims()
	m := &DPGD{p: DPGDParams{Iterations: 50, Step: 0.5, Radius: 0.3}}
	b := Budget{Epsilon: 1e7, Delta: 1e-5, Calibrator: accounting.NewCalibrator(accounting.Config{})}
	rel, err := m.Fit(context.Background(), d, b, rngs.New(rngs.Derive("dpgd")))
	if err != nil {
		t.Fatal(err)
	}
	want := naiveProjectedGD(d, 50, 0.5, 0.3)
	got := rel.Model.(*Linear).Theta
	for j := range want {
		if math.Abs(got[j]-want[j]) > 1e-4 {
			t.Errorf("θ[%d] = %.9f, noise-free reference %.9f", j, got[j], want[j])
		}
	}
	b.Epsilon = 1
	rel, err = m.Fit(context.Background(), d, b, rngs.New(rngs.Derive("dpgd")))
	if err != nil {
		t.Fatal(err)
	}
	sigma := rel.Noise["sigma"]
	for _, a := range []float64{2, 10} {
		r, err := accounting.Config{}.RDP(rel.Event, a)
		want := 50 * a * math.Pow(2/float64(n), 2) / (2 * sigma * sigma)
		if err != nil || math.Abs(r-want) > 1e-9*want {
			t.Errorf("α = %g: RDP %v (%v), closed form %v", a, r, err, want)
		}
	}
	g, err := accounting.Config{}.Epsilon(rel.Event, 1e-5)
	if err != nil || g.Epsilon > 1+1e-9 || g.Relation != accounting.RelationReplaceOne {
		t.Errorf("ε spent %v (%v), relation %q; want ≤ 1, replace_one", g.Epsilon, err, g.Relation)
	}
	norm := 0.0
	for _, v := range rel.Model.(*Linear).Theta {
		norm += v * v
	}
	if math.Sqrt(norm) > 0.3+1e-12 {
		t.Errorf("‖θ‖ = %g outside the ball of radius 0.3", math.Sqrt(norm))
	}
	if err := (DPGDParams{Output: "median"}).Validate(); err == nil {
		t.Error(`output = "median" validated`)
	}
}

// TestDPGDSmoothRDP: the SRDP dpgd declares for its ledger describes the same
// release (accounting.Preprocessed.Validate compares their RDP curves), and
// its L12 curve is [HSS24] Thm 12's T·αμ_x²τ²/(2n²σ²) with μ_x = 1 + R/4.
func TestDPGDSmoothRDP(t *testing.T) {
	m := &DPGD{p: DPGDParams{Iterations: 40, Radius: 2}}
	const sigma, n = 0.01, 500
	ledger := dpgdLedger(sigma, 1, n, 40)
	s, err := m.SmoothRDP(ledger)
	if err != nil {
		t.Fatal(err)
	}
	p := accounting.Preprocessed{Event: ledger, SRDP: s, DeltaInf: n, Delta2: 0.01, N: n}
	if err := p.Validate(); err != nil {
		t.Fatalf("preprocessed dpgd: %v", err)
	}
	for _, c := range []struct{ a, tau float64 }{{2, 1}, {8, 24}} {
		got, err := s.At(c.a, c.tau, accounting.MetricL12)
		mu := 1 + 2.0/4
		want := 40 * c.a * mu * mu * c.tau * c.tau / (2 * n * n * sigma * sigma)
		if err != nil || math.Abs(got-want) > 1e-9*want {
			t.Errorf("α = %g, τ = %g: SRDP %v (%v), want %v", c.a, c.tau, got, err, want)
		}
	}
	if _, err := m.SmoothRDP(accounting.Gaussian{Sigma: 1, Sensitivity: 1}); err == nil {
		t.Error("SRDP of a foreign event")
	}
}
