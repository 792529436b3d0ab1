package mechanisms

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/solvers"
)

// DPSGD is differentially private stochastic gradient descent for logistic
// regression with an intercept, the baseline of [RKW23] §5. Every step
// Poisson-samples the rows at rate q, clips each per-example gradient to
// norm C, adds N(0, σ_mult²C² I) to their sum and divides by the expected
// batch size, then takes an Adam (or SGD) step (solvers.DPSGD). With
// q = 1/⌈n/B⌉ and T = epochs·⌈n/B⌉ the run is T adaptive compositions of the
// Poisson-subsampled Gaussian mechanism:
//
//	ledger = SelfComposed(PoissonSampledGaussian{Q: q, NoiseMultiplier: σ_mult}, T)
//
// and σ_mult is the smallest noise multiplier for which Budget.Wrap(ledger)
// meets the target under the spec's accountant: one run is (ε, δ)-DP
// ("dishonest" tuning charges only this), and under private tuning the whole
// Papernot–Steinke selection is ([RKW23] §5 "honest" DP-SGD).
//
// Ref: [ACG+16] Alg. 1; [MTZ19] (sampled Gaussian RDP, add/remove);
// [RKW23] §5 and its optimisation-parameter table (expected batch 256,
// 60 epochs, C = √2, Adam), objpert.md §4. Symbols: η = learning_rate,
// B = batch, C = clip, σ_mult = noise_multiplier.
//
// The learning rate does not enter the guarantee; [RKW23] tunes it over
// logspace(−8, −1, 10), either on the test set without charging it
// (tuning mode "oracle") or by private selection (mode "private").
type DPSGD struct{ p DPSGDParams }

// DPSGDParams is the params table of "dpsgd".
type DPSGDParams struct {
	// LearningRate is η > 0; 0 means 1e-3 (PyTorch Adam's default). The
	// papers tune it (see DPSGD).
	LearningRate float64 `toml:"learning_rate"`
	// Epochs: the run takes epochs·⌈n/batch⌉ steps; 0 means 60 ([RKW23] §5).
	Epochs int `toml:"epochs"`
	// Batch is the expected batch size B; 0 means 256 ([RKW23] §5).
	Batch int `toml:"batch"`
	// Clip is the per-example clipping norm C > 0; 0 means √2 ([RKW23] §5:
	// with unit-norm rows and an intercept every gradient has norm < √2).
	Clip float64 `toml:"clip"`
	// Optimizer is "adam" (default) or "sgd".
	Optimizer string `toml:"optimizer"`
	// NoBias drops the intercept (default: fit one, as [RKW23] does).
	NoBias bool `toml:"no_bias"`
}

// Validate implements Params.
func (p DPSGDParams) Validate() error {
	if err := checkNonNegative("learning_rate", p.LearningRate); err != nil {
		return fmt.Errorf("%w (0 means 1e-3)", err)
	}
	if err := checkNonNegative("clip", p.Clip); err != nil {
		return fmt.Errorf("%w (0 means √2)", err)
	}
	if p.Epochs < 0 {
		return errors.New("epochs must be ≥ 1 (0 means 60)")
	}
	if p.Batch < 0 {
		return errors.New("batch must be ≥ 1 (0 means 256)")
	}
	if p.Optimizer != "" && p.Optimizer != solvers.OptimizerAdam && p.Optimizer != solvers.OptimizerSGD {
		return fmt.Errorf("optimizer %q: want %q or %q", p.Optimizer, solvers.OptimizerAdam, solvers.OptimizerSGD)
	}
	return nil
}

// config returns the solver configuration with the defaults filled in and no
// noise yet.
func (p DPSGDParams) config() solvers.DPSGDConfig {
	c := solvers.DPSGDConfig{LearningRate: p.LearningRate, Epochs: p.Epochs, ExpectedBatch: p.Batch,
		Clip: p.Clip, Optimizer: p.Optimizer, Bias: !p.NoBias}
	if c.LearningRate == 0 {
		c.LearningRate = 1e-3
	}
	if c.Epochs == 0 {
		c.Epochs = 60
	}
	if c.ExpectedBatch == 0 {
		c.ExpectedBatch = 256
	}
	if c.Clip == 0 {
		c.Clip = math.Sqrt2
	}
	return c
}

func init() {
	Register(Info{Name: "dpsgd", Title: "DP-SGD", Ref: "ACG+16", Tasks: []datasets.Task{datasets.Binary}, Private: true, Version: 1},
		func(p DPSGDParams) (Mechanism, error) { return &DPSGD{p: p}, nil },
		DPSGDParams{Epochs: 5, LearningRate: 0.05})
}

// dpsgdEvent is the ledger of one DP-SGD run: T steps of the
// Poisson-subsampled Gaussian mechanism at rate q with noise multiplier m.
func dpsgdEvent(q float64, steps int) func(m float64) accounting.Event {
	return func(m float64) accounting.Event {
		return accounting.SelfComposed{Event: accounting.PoissonSampledGaussian{Q: q, NoiseMultiplier: m}, Count: steps}
	}
}

// Fit implements Mechanism.
func (s *DPSGD) Fit(ctx context.Context, train *datasets.Dataset, b Budget, rs rngs.Streams) (*Release, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cfg := s.p.config()
	q, steps, err := cfg.Schedule(train.Rows())
	if err != nil {
		return nil, fmt.Errorf("dpsgd: %w", err)
	}
	event := dpsgdEvent(q, steps)
	m, err := b.Calibrate(event, accounting.Bracket{})
	if err != nil {
		return nil, fmt.Errorf("dpsgd: calibrate the noise multiplier: %w", err)
	}
	cfg.NoiseMultiplier = m
	res, err := solvers.DPSGD(ctx, train.X, train.Y, cfg, rs)
	if err != nil {
		return nil, fmt.Errorf("dpsgd: %w", err)
	}
	model := linearFromTheta(res.Theta, cfg.Bias)
	if err := checkLinear("dpsgd", model); err != nil {
		return nil, err
	}
	return &Release{Model: model, Event: event(m), Calibrated: true,
		Noise: map[string]float64{"noise_multiplier": m, "q": q, "steps": float64(steps), "clip": cfg.Clip},
		Stats: map[string]float64{"steps": float64(steps), "grad_evals": float64(res.Examples), "clipped": float64(res.Clipped)}}, nil
}

// EventShapes implements Mechanism.
func (*DPSGD) EventShapes(Budget) ([]accounting.Event, error) {
	return []accounting.Event{dpsgdEvent(shapeQ, shapeSteps)(shapeNoise)}, nil
}
