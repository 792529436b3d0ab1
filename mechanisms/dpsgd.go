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
// regression (binary tasks) or least squares (regression, loss ½(x̃ᵀθ − y)²)
// with an intercept, the baseline of [RKW23] §5. Every step
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
// The loss does not enter the guarantee either: clipping bounds every
// example's contribution to a step by C whatever the loss, which is all the
// sampled Gaussian mechanism's analysis uses ([ACG+16] §3.1). For the
// squared loss C = √2 is the largest gradient norm at θ = 0 on rows with
// ‖x‖ ≤ 1 and |y| ≤ 1 (|y|·‖[x; 1]‖), as for objpert-amp (glmConstants).
//
// The learning rate does not enter the guarantee; [RKW23] tunes it over
// logspace(−8, −1, 10), either on the test set without charging it
// (tuning mode "oracle") or by private selection (mode "private").
type DPSGD struct{ p DPSGDParams }

// DPSGDParams is the params table of "dpsgd".
type DPSGDParams struct {
	// LearningRate is η > 0; 0 means 1e-3 (PyTorch Adam's default). The
	// papers tune it (see DPSGD).
	LearningRate float64 `toml:"learning_rate" default:"1e-3" range:"> 0"`
	// Epochs: the run takes epochs·⌈n/batch⌉ steps; 0 means 60 ([RKW23] §5).
	Epochs int `toml:"epochs" default:"60" range:"≥ 1"`
	// Batch is the expected batch size B: each row enters a step's batch
	// with probability q = 1/⌈n/B⌉ (Opacus' DPDataLoader), so B ≥ n gives
	// q = 1, every row at every step; 0 means 256 ([RKW23] §5).
	Batch int `toml:"batch" default:"256" range:"≥ 1"`
	// Clip is the per-example clipping norm C > 0; 0 means √2 ([RKW23] §5:
	// with unit-norm rows and an intercept every logistic gradient has norm
	// < √2; for the squared loss, the largest gradient norm at θ = 0 when
	// |y| ≤ 1).
	Clip float64 `toml:"clip" default:"√2" range:"> 0"`
	// Optimizer is "adam" (default) or "sgd".
	Optimizer string `toml:"optimizer" default:"adam" range:"adam | sgd"`
	// NoBias drops the intercept (default: fit one, as [RKW23] does).
	NoBias bool `toml:"no_bias" default:"false"`
	// Radius R > 0 projects θ onto the ball ‖θ‖ ≤ R after every step; 0
	// (default) means no projection. With a radius the mechanism has a
	// smooth-RDP result (SmoothRDP) and a non-private pre-processor in front
	// of it is accounted by [HSS24] Theorem 2; without one, by group
	// privacy only. Binary tasks only (the analysis is the logistic
	// loss's).
	Radius float64 `toml:"radius" default:"none (no projection)" range:"> 0"`
}

// Validate implements Params.
func (p DPSGDParams) Validate() error {
	if err := checkNonNegative("learning_rate", p.LearningRate); err != nil {
		return fmt.Errorf("%w (0 means 1e-3)", err)
	}
	if err := checkNonNegative("clip", p.Clip); err != nil {
		return fmt.Errorf("%w (0 means √2)", err)
	}
	if err := checkNonNegative("radius", p.Radius); err != nil {
		return fmt.Errorf("%w (0 means no projection)", err)
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
		Clip: p.Clip, Optimizer: p.Optimizer, Bias: !p.NoBias, Radius: p.Radius}
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

// refACG is where DP-SGD's printed quantities are defined
// (Info.Quantities).
const refACG = "[ACG+16] Alg. 1"

func init() {
	Register(Info{Name: "dpsgd", Title: "DP-SGD", Ref: "ACG+16", Tasks: []datasets.Task{datasets.Binary, datasets.Regression}, Private: true, Version: 1, Relation: accounting.RelationAddRemove, Events: []string{"poisson_sampled_gaussian"},
		Calibration: []CalibrationClaim{{Params: `epochs = 2`, Calibrated: true}},
		Audits: []Audit{{Setup: AuditSetup{Task: datasets.Binary, Rows: 20, Dim: 3, Offset: dpsgdAuditOffset, Params: []string{"epochs=1", "batch=1000", "optimizer=sgd", "clip=0.25", "learning_rate=1", "no_bias=true"},
			Note: AuditCanaryNote + "; one step with the whole dataset as the batch (q = 1) and plain SGD, so the release is the noisy clipped gradient sum; the canary's gradient exceeds the clip, so it shifts the release by exactly C; no intercept, so the whole clipped gradient lies on the canary's coordinate; θ₀ is public randomness and is subtracted. Poisson subsampling is not exercised"},
			Trials: 6000, Trust: TrustRow{Claimed: "1.000", Real: "0.145", Broken: "under-charged: 2.122", Caught: "yes"}}},
		Quantities: map[string][]Quantity{
			"noise_multiplier": {quantity("σ/Δ", `$\sigma/\Delta$`, "noise multiplier σ: the noise std is σC on the clipped sum", refACG)},
			"q":                {quantity("q", `$q$`, "sampling rate", refACG)},
			"steps":            {quantity("T", `$T$`, "SGD steps", refACG)},
			"clip":             {quantity("C", `$C$`, "per-example gradient clipping norm", refACG)},
			"clipped":          {quantity("clipped", `clipped`, "per-example gradients clipped, over all steps", "")},
		}},
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

// dpsgdAuditOffset is DP-SGD's random initial weight on the canary's
// coordinate in the audit run seeded by seed (solvers.DPSGD draws θ₀ from
// the stream "init" with solvers.LinearInit): public randomness, which the
// audit's statistic subtracts.
func dpsgdAuditOffset(seed rngs.Seed, dim int) float64 {
	return solvers.LinearInit(dim, false, rngs.New(seed).Get("init"))[dim-1]
}

// Fit implements Mechanism.
func (s *DPSGD) Fit(ctx context.Context, train *datasets.Dataset, b Budget, rs rngs.Streams) (*Release, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cfg := s.p.config()
	if train.Task == datasets.Regression {
		if cfg.Radius > 0 {
			// SmoothRDP's μ_x is the logistic gradient's; the squared
			// loss's would differ (and depend on |y|): no claim is made.
			return nil, errors.New("dpsgd: radius (a smooth-RDP analysis) is derived for the logistic loss only; a regression task cannot use it")
		}
		cfg.Loss = solvers.LossSquared
	}
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
	// X's derived data (finiteness, row norms, sparse rows) are shared by
	// every run on this training set.
	design, _ := train.Memo("solvers/dpsgd-design", func() (any, error) { return solvers.NewDesign(train.X, train.Y), nil })
	res, err := solvers.DPSGDOn(ctx, design.(*solvers.Design), cfg, rs)
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

// SmoothRDP implements SmoothRDPer when a radius bounds θ: the smooth-RDP of
// Poisson-sampled, clipped DP-SGD derived in preprocessing.md §4.3 (each
// batch uses the same rows for both datasets, clipping is 1-Lipschitz, a
// Poisson batch may hold every row, so no amplification: per step
// αμ_x²τ²/(2z²C²) in L12, accounting.SRDPDPSGD). The data smoothness of the
// logistic gradient ℓ'(θᵀx̃)x̃ with x̃ = [x; 1] on the unit ball for
// ‖θ‖ ≤ R: ∂/∂x = ℓ”(u)x̃wᵀ + ℓ'(u)[I; 0] has norm ≤ ‖x̃‖‖w‖/4 + 1, so
// μ_x = 1 + √2·R/4 with an intercept, 1 + R/4 without. Without a radius
// the gradient is not smooth in the data uniformly in θ: no SRDP.
func (s *DPSGD) SmoothRDP(e accounting.Event) (*accounting.SRDP, error) {
	if s.p.Radius == 0 {
		return nil, errors.New("dpsgd: no smooth-RDP result without a projection radius (set radius > 0)")
	}
	sc, ok := e.(accounting.SelfComposed)
	if !ok {
		return nil, fmt.Errorf("dpsgd: SRDP of a %s event: want dpsgd's ledger", e.Kind())
	}
	psg, ok := sc.Event.(accounting.PoissonSampledGaussian)
	if !ok {
		return nil, fmt.Errorf("dpsgd: SRDP: unexpected step %s", sc.Event.Kind())
	}
	cfg := s.p.config()
	mu := 1 + s.p.Radius/4
	if cfg.Bias {
		mu = 1 + math.Sqrt2*s.p.Radius/4
	}
	return &accounting.SRDP{Mechanism: accounting.SRDPDPSGD, NoiseMultiplier: psg.NoiseMultiplier, Clip: cfg.Clip,
		MuX: mu, Steps: sc.Count, Q: psg.Q}, nil
}
