package audit

import (
	"context"
	"fmt"
	"math"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/internal/strictoml"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
	"gonum.org/v1/gonum/floats"
)

// GaussianName is the audit name of the reference Gaussian mechanism.
const GaussianName = "gaussian"

// gaussianCanaryNorm is the canary's norm in units of the clipping bound Δ:
// far outside the ball, so that only enforced clipping keeps its shift at Δ
// (auditing.md §7.3).
const gaussianCanaryNorm = 10

// GaussianParams are the reference mechanism's params: bound (Δ, the
// clipping norm; default 1) and dim (features, default 3).
type GaussianParams struct {
	Bound float64 `toml:"bound"`
	Dim   int     `toml:"dim"`
}

// NewGaussian returns the audit target of the reference Gaussian mechanism:
// the sum query Σᵢ clip_Δ(xᵢ) released with N(0, σ²Δ²I) noise, σ the
// analytic calibration of [BW18] (accounting.AnalyticGaussianSigma) for
// (epsilon, delta) under add/remove. The pair is add/remove with a canary of
// norm 10Δ on a coordinate no other row touches; the statistic is the release
// minus f(D₀), projected on the canary direction, which reduces the test to
// N(0, σ²Δ²) against N(Δ, σ²Δ²), where a threshold test is optimal
// (Neyman–Pearson; auditing.md §4).
func NewGaussian(params []string, epsilon, delta float64) (*Target, error) {
	var p GaussianParams
	if err := strictoml.DecodeKV(params)(&p); err != nil {
		return nil, fmt.Errorf("audit: gaussian: params: %w", err)
	}
	if p.Bound == 0 {
		p.Bound = 1
	}
	if p.Dim == 0 {
		p.Dim = 3
	}
	if !(p.Bound > 0) || math.IsInf(p.Bound, 0) {
		return nil, fmt.Errorf("audit: gaussian: params: bound = %v: must be positive and finite", p.Bound)
	}
	if p.Dim < 2 {
		return nil, fmt.Errorf("audit: gaussian: params: dim = %d: need ≥ 2", p.Dim)
	}
	if !(epsilon > 0) || math.IsInf(epsilon, 0) {
		return nil, fmt.Errorf("audit: epsilon = %v: must be positive and finite", epsilon)
	}
	if !(delta > 0 && delta < 1) {
		return nil, fmt.Errorf("audit: gaussian: delta = %v: the Gaussian mechanism needs δ in (0, 1)", delta)
	}
	mult, err := accounting.AnalyticGaussianSigma(epsilon, delta)
	if err != nil {
		return nil, fmt.Errorf("audit: gaussian: %w", err)
	}
	claimed, err := accounting.AnalyticGaussianEpsilon(mult, delta)
	if err != nil {
		return nil, fmt.Errorf("audit: gaussian: %w", err)
	}
	s := Setup{AuditSetup: mechanisms.AuditSetup{Task: datasets.Regression, Rows: 20, Dim: p.Dim}}
	d0, d1 := gaussianPair(s, p.Bound)
	return &Target{
		Mechanism: GaussianName, Relation: accounting.RelationAddRemove,
		Pair: fmt.Sprintf("add/remove: D₁ = D₀ ∪ {canary of norm %g·Δ on e_d}; D₀'s %d rows are 0.5·Δ·e_i off the canary's coordinate",
			float64(gaussianCanaryNorm), s.Rows),
		Statistic: "⟨release − f(D₀), e_d⟩: the noisy sum's shift along the canary",
		Params:    []string{"bound=" + formatFloat(p.Bound), fmt.Sprintf("dim=%d", p.Dim)},
		Epsilon:   epsilon, Claimed: claimed, Delta: delta,
		Noise:  map[string]float64{"sigma": mult * p.Bound, "noise_multiplier": mult},
		Sample: gaussianSampler(d0, d1, p.Bound, mult*p.Bound, true),
	}, nil
}

// gaussianPair returns the reference mechanism's rows: D₀ with rows
// 0.5·Δ·e_{i mod (d−1)}, D₁ with the canary 10·Δ·e_d added.
func gaussianPair(s Setup, bound float64) (d0, d1 [][]float64) {
	for i := 0; i < s.Rows; i++ {
		r := make([]float64, s.Dim)
		r[i%(s.Dim-1)] = 0.5 * bound
		d0 = append(d0, r)
	}
	c := make([]float64, s.Dim)
	c[s.Dim-1] = gaussianCanaryNorm * bound
	d1 = append(append([][]float64(nil), d0...), c)
	return d0, d1
}

// gaussianSampler releases Σ clip(xᵢ) + N(0, σ²I) on D₀ or D₁ and returns its
// last coordinate minus f(D₀)'s. clip = false (tests only: a broken variant)
// skips the clipping.
func gaussianSampler(d0, d1 [][]float64, bound, sigma float64, clip bool) Sampler {
	rows := [2][][]float64{d0, d1}
	dim := len(d0[0])
	ref := gaussianSum(d0, bound, clip)
	return func(_ context.Context, side int, seed rngs.Seed) (float64, error) {
		sum := gaussianSum(rows[side], bound, clip)
		noise := rngs.New(seed).Get("noise")
		for j := range sum {
			sum[j] += sigma * noise.NormFloat64()
		}
		return sum[dim-1] - ref[dim-1], nil
	}
}

// gaussianSum returns Σᵢ clip_bound(rowᵢ) (or the plain sum without clip).
func gaussianSum(rows [][]float64, bound float64, clip bool) []float64 {
	sum := make([]float64, len(rows[0]))
	for _, r := range rows {
		scale := 1.0
		if n := floats.Norm(r, 2); clip && n > bound {
			scale = bound / n
		}
		floats.AddScaled(sum, scale, r)
	}
	return sum
}
