package mechanisms

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/solvers"
)

// DPGD is full-batch differentially private gradient descent for logistic
// regression without intercept, projected onto the ball of radius R and
// returning the average of its iterates: the algorithm A_GD of [HSS24]
// Thm 12 (and the learner of its Algorithm 1 and Proposition 8):
//
//	θ_0 = 0,  g̃_t = (1/n) Σᵢ clip_C(∇ℓ(θ_{t−1}; xᵢ, yᵢ)) + N(0, σ² I_d),
//	θ_t = Π_R(θ_{t−1} − η g̃_t),   output (1/T) Σ_{t=1}^T θ_t
//
// Ref: [HSS24] Thm 12 and App. D (A_GD: projected, averaged iterates,
// σ on the averaged gradient); preprocessing.md §5 D24 (θ_0 = 0, R = 1, the
// average as output). Symbols: T = iterations, η = step, R = radius,
// C = clip (the Lipschitz constant L of the clipped loss).
//
// The averaged clipped gradient moves by at most 2C/n when one record is
// replaced, so the ledger is T Gaussian releases of sensitivity 2C/n under
// replace-one neighbours, [HSS24]'s relation:
//
//	ledger = WithRelation{SelfComposed{Gaussian{σ, 2C/n}, T}, replace-one}
//
// σ is the smallest noise whose charged ledger meets the (ε, δ) target
// under the spec's accountant (Budget.Calibrate; a pre-processing wrapper
// or private tuning included). For the logistic loss on rows with
// ‖x‖ ≤ C the clipping never acts (|ℓ'| < 1); on other data it bounds the
// sensitivity regardless.
type DPGD struct{ p DPGDParams }

// DPGDParams is the params table of "dpgd".
type DPGDParams struct {
	// Iterations T ≥ 1; 0 means 500 (preprocessing.md §6 F3).
	Iterations int `toml:"iterations" default:"500" range:"≥ 1"`
	// Step η > 0; 0 means 0.5 (F3).
	Step float64 `toml:"step" default:"0.5" range:"> 0"`
	// Radius R of the projection ball; 0 means 1 ([HSS24] Prop. 8's proof).
	Radius float64 `toml:"radius" default:"1" range:"> 0"`
	// Clip C, the per-example gradient norm bound (and Lipschitz constant
	// L); 0 means 1 (the logistic loss on the unit ball).
	Clip float64 `toml:"clip" default:"1" range:"> 0"`
	// Output is "average" (default, A_GD) or "last" (the last iterate).
	Output string `toml:"output" default:"average" range:"average | last"`
}

// Validate implements Params.
func (p DPGDParams) Validate() error {
	if p.Iterations < 0 {
		return errors.New("iterations must be ≥ 1 (0 means 500)")
	}
	for _, c := range []struct {
		key string
		v   float64
		def string
	}{{"step", p.Step, "0.5"}, {"radius", p.Radius, "1"}, {"clip", p.Clip, "1"}} {
		if err := checkNonNegative(c.key, c.v); err != nil {
			return fmt.Errorf("%w (0 means %s)", err, c.def)
		}
	}
	if p.Output != "" && p.Output != "average" && p.Output != "last" {
		return fmt.Errorf(`output %q: want "average" or "last"`, p.Output)
	}
	return nil
}

func (p DPGDParams) iterations() int {
	if p.Iterations == 0 {
		return 500
	}
	return p.Iterations
}
func (p DPGDParams) step() float64   { return orDefault(p.Step, 0.5) }
func (p DPGDParams) radius() float64 { return orDefault(p.Radius, 1) }
func (p DPGDParams) clip() float64   { return orDefault(p.Clip, 1) }

// refHSS is where the printed quantities of [HSS24]'s mechanisms (dpgd,
// dppca-dpgd, ptr-pca-dpgd, ssp) are defined (Info.Quantities).
const refHSS = "[HSS24]"

// qDPGDSigma is the DP-GD noise std the DP-GD mechanisms print.
var qDPGDSigma = []Quantity{quantity("σ", `$\sigma$`, "DP-GD noise std on the averaged gradient", refHSS+" Thm 12")}

func init() {
	Register(Info{Name: "dpgd", Title: "DP-GD (projected, averaged)", Ref: "HSS24", Tasks: []datasets.Task{datasets.Binary}, Private: true, Version: 1, Relation: accounting.RelationReplaceOne, Events: []string{"gaussian"},
		Calibration: []CalibrationClaim{{Params: `iterations = 20`, Calibrated: true}},
		Audits: []Audit{{Setup: AuditSetup{Task: datasets.Binary, Rows: 20, Dim: 3, Params: []string{"iterations=1", "clip=0.5", "radius=100", "output=last"},
			Note: AuditCanaryNote + "; one full-batch step with no active projection, so the release is the noisy clipped gradient sum (the white-box Gaussian case); clip = 0.5 is the logistic gradient's norm at θ₀ = 0, so the replace-one pair moves the sum by exactly 2C"},
			Trials: 4000, Trust: TrustRow{Claimed: "1.000", Real: "0.095", Broken: "under-charged: 1.595", Caught: "yes"}}},
		Quantities: map[string][]Quantity{
			"sigma":      qDPGDSigma,
			"iterations": {quantity("T", `$T$`, "DP-GD steps", refHSS+" Thm 12")},
		}},
		func(p DPGDParams) (Mechanism, error) { return &DPGD{p: p}, nil }, DPGDParams{Iterations: 5})
}

// dpgdLedger is the ledger of T releases with noise σ on an averaged
// gradient of replace-one sensitivity 2C/n.
func dpgdLedger(sigma, clip float64, n, steps int) accounting.Event {
	return accounting.WithRelation{
		Event:    accounting.SelfComposed{Event: accounting.Gaussian{Sigma: sigma, Sensitivity: 2 * clip / float64(n)}, Count: steps},
		Relation: accounting.RelationReplaceOne,
	}
}

// EventShapes implements EventShaper.
func (m *DPGD) EventShapes(Budget) ([]accounting.Event, error) {
	return []accounting.Event{dpgdLedger(shapeNoise, 1, 100, shapeSteps)}, nil
}

// Fit implements Mechanism.
func (m *DPGD) Fit(ctx context.Context, train *datasets.Dataset, b Budget, rs rngs.Streams) (*Release, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n, d := train.X.Dims()
	if n < 1 {
		return nil, errors.New("dpgd: no training rows")
	}
	T, C := m.p.iterations(), m.p.clip()
	loss, err := solvers.NewGLM(train.X, train.Y, solvers.GLMConfig{Clip: C})
	if err != nil {
		return nil, fmt.Errorf("dpgd: %w", err)
	}
	sigma, err := b.Calibrate(func(x float64) accounting.Event { return dpgdLedger(x, C, n, T) }, accounting.Bracket{})
	if err != nil {
		return nil, fmt.Errorf("dpgd: calibrate σ: %w", err)
	}
	out, err := dpgdDescend(ctx, loss, n, d, sigma, m.p, rs.Get("noise"))
	if err != nil {
		return nil, err
	}
	model := &Linear{Theta: out}
	if err := checkLinear("dpgd", model); err != nil {
		return nil, err
	}
	return &Release{Model: model, Event: dpgdLedger(sigma, C, n, T), Calibrated: true,
		Noise: map[string]float64{"sigma": sigma}, Stats: map[string]float64{"iterations": float64(T)}}, nil
}

// dpgdDescend runs A_GD's T projected steps from θ_0 = 0 on the summed
// (clipped) logistic loss of n rows with noise σ on the averaged gradient,
// and returns the average of the iterates (or the last, per p.Output).
func dpgdDescend(ctx context.Context, loss *solvers.GLM, n, d int, sigma float64, p DPGDParams, noise *rand.Rand) ([]float64, error) {
	T, eta, R := p.iterations(), p.step(), p.radius()
	theta, avg, grad := make([]float64, d), make([]float64, d), make([]float64, d)
	for t := 1; t <= T; t++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		loss.ValueGrad(grad, theta)
		for j := range theta {
			// g̃ = (1/n)Σ clipped gradients + N(0, σ²)   ([HSS24] Thm 12)
			theta[j] -= eta * (grad[j]/float64(n) + sigma*noise.NormFloat64())
		}
		solvers.ProjectBall(theta, R)
		for j := range avg {
			avg[j] += (theta[j] - avg[j]) / float64(t)
		}
	}
	if p.Output == "last" {
		return theta, nil
	}
	return avg, nil
}

// SmoothRDP implements SmoothRDPer: [HSS24] Thm 12's SRDP of A_GD,
// T·α μ_x² τ²/(2n²σ²) in the L12 metric, with the data smoothness of the
// clipped logistic gradient on the unit ball for ‖θ‖ ≤ R: the gradient
// ℓ'(θᵀx)x has ∂/∂x = ℓ”(θᵀx)θxᵀ + ℓ'(θᵀx)I, of norm ≤ ‖θ‖/4 + 1, and
// clipping is 1-Lipschitz, so μ_x = 1 + R/4 (preprocessing.md §4.5 rule 4,
// D23). It reads σ, the sensitivity 2C/n and T from the ledger dpgdLedger
// builds.
func (m *DPGD) SmoothRDP(e accounting.Event) (*accounting.SRDP, error) {
	w, ok := e.(accounting.WithRelation)
	if !ok {
		return nil, fmt.Errorf("dpgd: SRDP of a %s event: want dpgd's ledger", e.Kind())
	}
	sc, ok := w.Event.(accounting.SelfComposed)
	if !ok {
		return nil, fmt.Errorf("dpgd: SRDP: unexpected ledger %s", w.Event.Kind())
	}
	g, ok := sc.Event.(accounting.Gaussian)
	if !ok || g.Sensitivity <= 0 {
		return nil, fmt.Errorf("dpgd: SRDP: unexpected release %s", sc.Event.Kind())
	}
	C := m.p.clip()
	n := int(math.Round(2 * C / g.Sensitivity))
	return &accounting.SRDP{Mechanism: accounting.SRDPDPGD, Sigma: g.Sigma, N: n, Steps: sc.Count,
		Lipschitz: C, MuX: 1 + m.p.radius()/4}, nil
}
