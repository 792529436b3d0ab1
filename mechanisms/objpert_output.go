package mechanisms

import (
	"context"
	"fmt"
	"math"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/solvers"
)

// ObjPertOutput is output perturbation for regularised logistic regression
// with an intercept, the classical baseline of objective perturbation:
//
//	θ̃ : any point with ‖∇J(θ̃)‖₂ ≤ τ,   J(θ) = Σᵢ ℓ_C(θ; zᵢ) + (λ/2)‖θ‖²
//	output θ̃ + N(0, σ² I_{d+1}),        σ = m·Δ,   Δ = (C + 2τ)/λ
//
// ℓ_C is the logistic loss with per-example gradients clipped to norm C, so
// ‖∇ℓ_C‖ ≤ C for any data. Adding or removing one example moves the exact
// minimiser of the λ-strongly convex J by at most C/λ, and any θ̃ with
// ‖∇J(θ̃)‖ ≤ τ is within τ/λ of it, so θ̃ has L2 sensitivity Δ and the
// release is the Gaussian mechanism with noise multiplier m, calibrated
// through Budget.Calibrate (private tuning included). The ledger is
//
//	Gaussian{Sigma: m, Sensitivity: 1}
//
// (the release divided by Δ is θ̃/Δ, of sensitivity 1, plus N(0, m² I); the
// scaling is post-processing, and recording m itself keeps the accounted ε
// exactly the calibrated one).
//
// λ is fixed by the data-independent rule λ = m·Δ_λ/σ_out with Δ_λ = C + 2τ,
// so the output noise std equals sigma_out (Algorithm 1's 0.15 by default),
// unless lambda is set.
//
// Ref: [CMS11] Algorithm 1 (output perturbation; Corollary 8's sensitivity
// 2/(nλ) is for replace-one neighbours and a mean loss — on the sum scale
// with add/remove neighbours it is L/λ by the same strong-convexity
// argument); [RKW23] App. F.1 (‖θ̃ − θ^P‖ ≤ τ/λ for an approximate
// minimiser); clipping: [RKW23] §4, Thm F.2. Symbols: λ = lambda,
// τ = tau, C = clip, σ_out = sigma_out, m = noise_multiplier.
type ObjPertOutput struct{ p ObjPertOutputParams }

// ObjPertOutputParams is the params table of "objpert-output".
type ObjPertOutputParams struct {
	// Lambda is the ridge penalty λ > 0 on the summed loss; 0 means the rule
	// λ = m·(C + 2τ)/sigma_out (see ObjPertOutput).
	Lambda float64 `toml:"lambda" default:"m·(C + 2τ)/sigma_out" range:"> 0"`
	// SigmaOut is the output noise std the λ rule aims at; 0 means 0.15.
	// Used only when lambda is 0.
	SigmaOut float64 `toml:"sigma_out" default:"0.15" range:"> 0"`
	// Tau is the gradient-norm tolerance τ > 0; 0 means 1e-3.
	Tau float64 `toml:"tau" default:"1e-3" range:"> 0"`
	// Clip is the clipping norm C > 0; 0 means √2 (a no-op for unit-norm
	// rows with an intercept).
	Clip float64 `toml:"clip" default:"√2" range:"> 0"`
}

// Validate implements Params.
func (p ObjPertOutputParams) Validate() error {
	if err := checkDefaults(param{"lambda", p.Lambda}, param{"sigma_out", p.SigmaOut}, param{"tau", p.Tau}, param{"clip", p.Clip}); err != nil {
		return err
	}
	if p.Lambda > 0 && p.SigmaOut > 0 {
		return fmt.Errorf("set lambda or sigma_out, not both (sigma_out only sets the λ rule)")
	}
	return nil
}

func init() {
	Register(Info{Name: "objpert-output", Title: "Output perturbation", Ref: "CMS11", Tasks: []datasets.Task{datasets.Binary}, Private: true, Version: 1, Relation: accounting.RelationAddRemove, Events: []string{"gaussian"},
		Calibration: []CalibrationClaim{{Calibrated: true}},
		Audits: []Audit{{Setup: AuditSetup{Task: datasets.Binary, Rows: 4, Dim: 3, Intercept: true, Params: []string{"clip=0.5"},
			Note: "clip = 0.5 saturates the canary's clipped gradient (norm 0.5·√2 > C with the intercept), so the minimiser moves by about C/λ along the gradient, its sensitivity; the statistic is the prediction at x*, which projects the release on that direction"},
			Trials: 4000, Trust: TrustRow{Claimed: "1.000", Real: "0.133", Broken: "under-charged: 1.366", Caught: "yes"}}},
		Quantities: map[string][]Quantity{
			"sigma":            {quantity("σ_out", `$\sigma_{\mathrm{out}}$`, "std of the output noise N(0, σ_out²I) = (σ/Δ)·(C + 2τ)/λ", "[CMS11] Alg. 1")},
			"lambda":           qObjLambda,
			"tau":              qObjTau,
			"clip":             qClipC,
			"noise_multiplier": {quantity("σ/Δ", `$\sigma/\Delta$`, "noise multiplier: the noise std over the release's sensitivity", "[Mir17] Prop. 7")},
		}},
		func(p ObjPertOutputParams) (Mechanism, error) { return &ObjPertOutput{p: p}, nil }, ObjPertOutputParams{})
}

// Fit implements Mechanism.
func (o *ObjPertOutput) Fit(ctx context.Context, train *datasets.Dataset, b Budget, rs rngs.Streams) (*Release, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tau, c := orDefault(o.p.Tau, 1e-3), orDefault(o.p.Clip, math.Sqrt2)
	m, err := b.Calibrate(outputPertEvent, accounting.Bracket{})
	if err != nil {
		return nil, fmt.Errorf("objpert-output: calibrate the noise: %w", err)
	}
	lambda := o.p.Lambda
	if lambda == 0 {
		lambda = m * (c + 2*tau) / orDefault(o.p.SigmaOut, 0.15)
	}
	sens := (c + 2*tau) / lambda
	loss, err := solvers.NewGLM(train.X, train.Y, solvers.GLMConfig{Bias: true, Clip: c})
	if err != nil {
		return nil, fmt.Errorf("objpert-output: %w", err)
	}
	obj := solvers.Objective{Loss: loss, L2: lambda}
	res, err := solvers.MinimizeContext(ctx, obj, make([]float64, obj.Dim()), &solvers.Settings{GradTol: tau})
	if err != nil {
		return nil, fmt.Errorf("objpert-output: ‖∇J‖ ≤ τ = %g with λ = %g: %w", tau, lambda, err)
	}
	sigma := m * sens
	noise := rs.Get("noise")
	theta := res.X
	for i := range theta {
		theta[i] += sigma * noise.NormFloat64()
	}
	model := linearFromTheta(theta, true)
	if err := checkLinear("objpert-output", model); err != nil {
		return nil, err
	}
	return &Release{Model: model, Event: outputPertEvent(m), Calibrated: true,
		Noise: map[string]float64{"sigma": sigma, "lambda": lambda, "noise_multiplier": m, "tau": tau, "clip": c},
		Stats: map[string]float64{"iterations": float64(res.Iterations), "passes": float64(res.GradEvals),
			"grad_evals": float64(res.GradEvals) * float64(train.Rows()), "hess_evals": float64(res.HessEvals)}}, nil
}

// EventShapes implements Mechanism.
func (*ObjPertOutput) EventShapes(Budget) ([]accounting.Event, error) {
	return []accounting.Event{outputPertEvent(shapeNoise)}, nil
}

// outputPertEvent is the ledger of output perturbation with noise multiplier
// m: the Gaussian mechanism on the sensitivity-1 query θ̃/Δ.
func outputPertEvent(m float64) accounting.Event {
	return accounting.Gaussian{Sigma: m, Sensitivity: 1}
}
