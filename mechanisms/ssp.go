package mechanisms

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/datasets/preprocess"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/solvers"
)

// SSP is sufficient-statistics perturbation for ridge regression by one
// Gaussian mechanism: release the upper triangle of XᵀX and Xᵀy with
// N(0, σ²) on every entry, then solve the ridge system:
//
//	Ã = XᵀX + E (E symmetric, its upper triangle i.i.d. N(0, σ²)),
//	b̃ = Xᵀy + N(0, σ² I_d),   θ = (Ã + λI)⁻¹ b̃
//
// with rows clipped to the unit ball and targets to [−1, 1] first (a
// data-independent map, [HSS24] §4's domain). One record replaced moves the
// released vector (the triangle of xxᵀ and xy) by at most
// √(‖xxᵀ − x'x'ᵀ‖_F² + ‖xy − x'y'‖²) ≤ √(2² + 2²) = 2√2, so the ledger is one
// Gaussian release of sensitivity 2√2 under replace-one neighbours. It is the
// "Gaussian mechanism" of [HSS24] Table 1 (M_G) applied to a learner: σ is
// calibrated so that the charged ledger meets the (ε, δ) target, a
// pre-processing wrapper included.
//
// Ref: [HSS24] Thm 9 (M_G); the SSP construction follows [Wang18] §3 (line 5
// and 6 of Alg. 2 without the λ_min release). Symbols: λ = lambda.
type SSP struct{ p SSPParams }

// SSPParams is the params table of "ssp".
type SSPParams struct {
	// Lambda is the ridge penalty λ ≥ 0 on the noisy normal equations;
	// 0 means 1 (public, fixed a priori: it must not depend on the data).
	Lambda float64 `toml:"lambda" default:"1" range:"> 0"`
}

// Validate implements Params.
func (p SSPParams) Validate() error {
	return checkNonNegative("lambda", p.Lambda)
}

func init() {
	Register(Info{Name: "ssp", Title: "SSP (Gaussian mechanism)", Ref: "HSS24", Tasks: []datasets.Task{datasets.Regression}, Private: true, Version: 1, Relation: accounting.RelationReplaceOne, Events: []string{"gaussian"},
		Calibration: []CalibrationClaim{{Calibrated: true}},
		Audits: []Audit{{Setup: AuditSetup{Task: datasets.Regression, Rows: 1000, Dim: 3, Layout: AuditLayoutSpread,
			Note: "replace-one with (−x*, y*) leaves XᵀX unchanged and moves Xᵀy by 2x*y*, its full sensitivity; XᵀX is well conditioned, so θ along the canary is nearly linear in Xᵀy's noise. The budget spent on XᵀX is not exercised"},
			Trials: 10000, Trust: TrustRow{Claimed: "1.000", Real: "0.100", Broken: "under-charged: 1.131", Caught: "yes"}}},
		Quantities: map[string][]Quantity{
			"sigma": {quantity("σ", `$\sigma$`, "std of the Gaussian noise on each entry of XᵀX and Xᵀy", refHSS)},
		}},
		func(p SSPParams) (Mechanism, error) { return &SSP{p: p}, nil }, SSPParams{})
}

// sspSensitivity is the replace-one L2 sensitivity 2√2 of the released
// statistics for rows in the unit ball and targets in [−1, 1].
var sspSensitivity = 2 * math.Sqrt2

func sspLedger(sigma float64) accounting.Event {
	return accounting.WithRelation{Event: accounting.Gaussian{Sigma: sigma, Sensitivity: sspSensitivity}, Relation: accounting.RelationReplaceOne}
}

// EventShapes implements EventShaper.
func (*SSP) EventShapes(Budget) ([]accounting.Event, error) {
	return []accounting.Event{sspLedger(shapeNoise)}, nil
}

// Fit implements Mechanism.
func (m *SSP) Fit(ctx context.Context, train *datasets.Dataset, b Budget, rs rngs.Streams) (*Release, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n, d := train.X.Dims()
	if n < 1 {
		return nil, errors.New("ssp: no training rows")
	}
	sigma, err := b.Calibrate(sspLedger, accounting.Bracket{})
	if err != nil {
		return nil, fmt.Errorf("ssp: calibrate σ: %w", err)
	}
	// Clip rows and targets (data-independent), then XᵀX and Xᵀy.
	x := preprocess.ClipRows(train.X)
	y := make([]float64, n)
	for i, v := range train.Y {
		y[i] = math.Max(-1, math.Min(1, v))
	}
	a := mat.NewSymDense(d, nil)
	a.SymOuterK(1, x.T())
	rhs := make([]float64, d)
	mat.NewVecDense(d, rhs).MulVec(x.T(), mat.NewVecDense(n, y))
	noise := rs.Get("noise")
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			a.SetSym(i, j, a.At(i, j)+sigma*noise.NormFloat64())
		}
	}
	for j := range rhs {
		rhs[j] += sigma * noise.NormFloat64()
	}
	theta, err := solvers.SolveRegularized(a, rhs, orDefault(m.p.Lambda, 1))
	if err != nil {
		return nil, fmt.Errorf("ssp: %w", err)
	}
	model := &Linear{Theta: theta}
	if err := checkLinear("ssp", model); err != nil {
		return nil, err
	}
	return &Release{Model: model, Event: sspLedger(sigma), Calibrated: true, Noise: map[string]float64{"sigma": sigma}}, nil
}

// SmoothRDP implements SmoothRDPer: [HSS24] Thm 9's SRDP of the Gaussian
// mechanism, α L₁₂²τ²/(2σ²), with the released statistics' Lipschitz
// constant in the features (labels are never pre-processed): per row
// ‖xxᵀ − x'x'ᵀ‖_F ≤ ‖x‖‖x − x'‖ + ‖x − x'‖‖x'‖ ≤ 2‖x − x'‖ and
// ‖(x − x')y‖ ≤ ‖x − x'‖, so L₁₂ = √5 by the triangle inequality over rows
// (a removed row, the origin, fits the same bound). No dimension-free
// Frobenius constant is known: L_F is left unset.
func (m *SSP) SmoothRDP(e accounting.Event) (*accounting.SRDP, error) {
	w, ok := e.(accounting.WithRelation)
	if !ok {
		return nil, fmt.Errorf("ssp: SRDP of a %s event: want ssp's ledger", e.Kind())
	}
	g, ok := w.Event.(accounting.Gaussian)
	if !ok {
		return nil, fmt.Errorf("ssp: SRDP: unexpected release %s", w.Event.Kind())
	}
	return &accounting.SRDP{Mechanism: accounting.SRDPGaussian, Sigma: g.Sigma, Sensitivity: g.Sensitivity, L12: math.Sqrt(5)}, nil
}
