package mechanisms

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/solvers"
	"gonum.org/v1/gonum/mat"
)

// AdaSSP is adaptive sufficient-statistics perturbation for linear regression
// [Wang18] Algorithm 2, in the box of [LSS+25] Algorithm 3. With L = log(6/δ)
// and each of three releases at (ε/3, δ/3):
//
//	m        = √L / (ε/3)                                    noise multiplier
//	λ̃_min    = max(λ_min(XᵀX) + m·C_X²·z − L/(ε/3)·C_X², 0)    z ~ N(0, 1)
//	λ        = max(0, √(d·L·log(2d²/ρ))·C_X²/(ε/3) − λ̃_min)
//	XᵀX̃      = XᵀX + m·C_X²·½(Z + Zᵀ)                          Z ~ N(0, 1)^{d×d}
//	Xᵀỹ      = Xᵀy + m·C_X·C_Y·ξ                               ξ ~ N(0, I_d)
//	θ        = (XᵀX̃ + λI)⁻¹ Xᵀỹ
//
// Ref: [Wang18] Alg. 2 lines 2–7; [LSS+25] Alg. 3 and §4.4–4.5 (per-trial
// λ̃_min, ρ). Symbols: C_X = bound_x, C_Y = bound_y, ρ = rho.
//
// The ledger is the three Gaussian releases
// with noise multiplier m (add/remove: λ_min and XᵀX move by at most C_X²,
// Xᵀy by at most C_X·C_Y); the accountant, not the ε/3 split, decides the ε
// reported. With the box's constants that ε is below the target on the papers'
// grids (e.g. 8.07 at ε = 10, δ = 1e-6) but above it for large ε (30.4 at
// ε = 30, δ ≈ 1e-7): the box inherits a Gaussian-mechanism bound meant for
// small ε. calibration = "accountant" instead chooses the smallest m whose
// three releases the accountant puts within the target, and uses
// m·√L in place of L/(ε/3) for the downward shift of line 3, so the shift
// still covers the noise with probability 1 − δ/6.
//
// The XᵀX noise has two forms (noise = …), both private under that ledger:
//
//   - "symmetrised" (default): m·C_X²·½(Z + Zᵀ), Z ~ N(0, 1)^{d×d}, as
//     [Wang18]'s MATLAB code (reference-code.md §5.4). Releasing
//     XᵀX + m·C_X²·Z is the Gaussian mechanism for the Frobenius
//     sensitivity ‖xxᵀ‖_F = ‖x‖² ≤ C_X²; symmetrising is post-processing
//     (it halves the off-diagonal noise variance).
//   - "paper": m·C_X²·N_sym, the upper triangle (diagonal included) i.i.d.
//     N(0, 1) and mirrored: [LSS+25] Alg. 3 line 5 and the GaussMix
//     authors' code (unit variance in every entry). The upper triangle of
//     xxᵀ, as a vector, has 2-norm ≤ ‖xxᵀ‖_F ≤ C_X², so releasing it with
//     noise std m·C_X² per entry is the Gaussian mechanism with the same
//     multiplier m; mirroring is post-processing.
//
// preset = "code" follows the GaussMix authors' code (gaussmix.md §4.5,
// reference-code.md §1.2): noise "paper" unless noise is set, and the z of
// λ̃_min drawn once per ε rather than per trial — from Budget.CellSeed, the
// randomness every trial of a cell shares. Each trial is still the whole
// mechanism (the same three releases, the same ledger); only the trials of
// a cell are no longer independent, so the cell's confidence interval
// describes the spread given that one draw. Private tuning, whose analysis
// assumes independent runs, is refused under it. The code's operator bug in
// λ̃_min (a division where the box subtracts the shift, reference-code.md
// §8 item 1) is not reproduced: the box's shift is kept.
type AdaSSP struct{ p AdaSSPParams }

// AdaSSPParams is the params table of "adassp".
type AdaSSPParams struct {
	boundsParams
	// Rho is the failure probability ρ of the λ_min bound in line 4; 0 means
	// 1e-4 (the paper-era GaussMix code; [Wang18]'s own default is 0.05).
	Rho float64 `toml:"rho" default:"1e-4" range:"(0, 1)"`
	// Calibration is "box" (default: the paper's m = √log(6/δ)/(ε/3)) or
	// "accountant" (the smallest m that meets the target under the spec's
	// accountant, tuning included).
	Calibration string `toml:"calibration" default:"box" range:"box | accountant"`
	// Noise is the form of the XᵀX noise: "symmetrised" (m·C_X²·½(Z + Zᵀ))
	// or "paper" (m·C_X²·N_sym, Alg. 3). "" means "paper" under preset
	// "code" and "symmetrised" otherwise.
	Noise string `toml:"noise" default:"the preset's (paper: symmetrised, code: paper)" range:"symmetrised | paper"`
	// Preset is "paper" (default: the box, λ̃_min drawn every trial) or
	// "code" (the GaussMix authors' code: λ̃_min drawn once per ε, noise
	// "paper" unless set).
	Preset string `toml:"preset" default:"paper" range:"paper | code"`
}

// AdaSSP noise forms (AdaSSPParams.Noise).
const (
	adasspNoiseSymmetrised = "symmetrised"
	adasspNoisePaper       = "paper"
)

// noise returns the XᵀX noise form the params select.
func (p AdaSSPParams) noise() string {
	if p.Noise != "" {
		return p.Noise
	}
	if p.Preset == presetCode {
		return adasspNoisePaper
	}
	return adasspNoiseSymmetrised
}

// Validate implements Params.
func (p AdaSSPParams) Validate() error {
	if err := p.boundsParams.validate(); err != nil {
		return err
	}
	if p.Rho < 0 || p.Rho >= 1 || math.IsNaN(p.Rho) {
		return errors.New("rho must be in (0, 1) (0 means 1e-4)")
	}
	if p.Calibration != "" && p.Calibration != "box" && p.Calibration != "accountant" {
		return errors.New(`calibration must be "box" or "accountant"`)
	}
	if p.Noise != "" && p.Noise != adasspNoiseSymmetrised && p.Noise != adasspNoisePaper {
		return fmt.Errorf("noise = %q: want %q or %q", p.Noise, adasspNoiseSymmetrised, adasspNoisePaper)
	}
	if p.Preset != "" && p.Preset != presetPaper && p.Preset != presetCode {
		return fmt.Errorf("preset = %q: want %q or %q", p.Preset, presetPaper, presetCode)
	}
	return nil
}

// refWang is where AdaSSP's printed quantities are defined
// (Info.Quantities).
const refWang = "[Wang18] Alg. 2; [LSS+25] Alg. 3"

func init() {
	Register(Info{Name: "adassp", Title: "AdaSSP", Ref: "Wang18", Tasks: []datasets.Task{datasets.Regression}, Private: true, Version: 1, Relation: accounting.RelationAddRemove, Events: []string{"gaussian"},
		Calibration: []CalibrationClaim{{Calibrated: false}, {Params: `calibration = "accountant"`, Calibrated: true}},
		Audits: []Audit{{Setup: AuditSetup{Task: datasets.Regression, Rows: 1000, Dim: 3, Pair: "adassp",
			Note: "λ_min(XᵀX) of D₀ lies along the canary's coordinate (rows (e_d, 1), more rows on every other coordinate), so the canary (e_d, −1) moves all three noisy statistics (λ_min, XᵀX, Xᵀy) by their sensitivity; λ_min is large enough that λ = 0, so θ_d ≈ (Xᵀỹ)_d/(XᵀX̃)_dd, and the statistic λ̃_min − n_G·θ_d reads the three releases' sum: the joint Gaussian test of the ledger's three releases"},
			Trials: 2000, Trust: TrustRow{Claimed: "0.617", Real: "0.000", Broken: "under-charged: 0.873", Caught: "yes"}}},
		Quantities: map[string][]Quantity{
			"noise_multiplier": {quantity("σ/Δ", `$\sigma/\Delta$`, "noise multiplier √log(6/δ)/(ε/3) of each release", refWang)},
			"lambda":           {quantity("λ", `$\lambda$`, "ridge penalty of line 4", refWang)},
			"lambda_min_tilde": {quantity("λ̃_min", `$\tilde\lambda_{\min}$`, "private, downward-shifted λ_min(XᵀX) of line 3", refWang)},
		}},
		func(p AdaSSPParams) (Mechanism, error) { return &AdaSSP{p: p}, nil }, AdaSSPParams{})
}

// Fit implements Mechanism.
func (a *AdaSSP) Fit(ctx context.Context, train *datasets.Dataset, b Budget, rs rngs.Streams) (*Release, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cx, cy := a.p.cx(), a.p.cy()
	if err := checkBounds("adassp", train, cx, cy); err != nil {
		return nil, err
	}
	if a.p.Preset == presetCode && b.Wrap != nil {
		return nil, errCodeWrapped
	}
	d := train.Cols()
	eps3 := b.Epsilon / 3
	logTerm := math.Log(6 / b.Delta)
	m, err := adasspBoxNoise(b)
	if err != nil {
		return nil, err
	}
	if a.p.Calibration == "accountant" {
		m, err = b.Calibrate(adasspEvent, accounting.Bracket{})
		if err != nil {
			return nil, err
		}
	}
	shift := m * math.Sqrt(logTerm) // = log(6/δ)/(ε/3) with the box's m
	noise := rs.Get("noise")

	gram, lamMin, err := gramStats(train)
	if err != nil {
		return nil, err
	}
	// Line 3: private, downward-shifted λ_min. preset "code": z drawn once
	// per cell (per ε) from the cell's shared streams.
	zLam := noise
	if a.p.Preset == presetCode && b.CellSeed != (rngs.Seed{}) {
		zLam = rngs.New(b.CellSeed).Get("adassp-lambda-min")
	}
	lamTilde := math.Max(lamMin+m*cx*cx*zLam.NormFloat64()-shift*cx*cx, 0)
	// Line 4: the ridge penalty.
	fd := float64(d)
	lambda := math.Max(0, math.Sqrt(fd*logTerm*math.Log(2*fd*fd/orDefault(a.p.Rho, 1e-4)))*cx*cx/eps3-lamTilde)
	// Line 5.
	noisy := adasspGram(gram, m*cx*cx, a.p.noise(), noise)
	// Line 6: Xᵀy + m·C_X·C_Y·ξ.
	xty, err := xtyStat(train)
	if err != nil {
		return nil, err
	}
	rhs := slices.Clone(xty)
	for i := range rhs {
		rhs[i] += m * cx * cy * noise.NormFloat64()
	}
	// Line 7.
	theta, err := solvers.SolveRegularized(noisy, rhs, lambda)
	if err != nil {
		return nil, err
	}
	model := &Linear{Theta: theta}
	if err := checkLinear("adassp", model); err != nil {
		return nil, err
	}
	return &Release{Model: model, Event: adasspEvent(m), Calibrated: a.p.Calibration == "accountant",
		Noise: map[string]float64{"noise_multiplier": m, "lambda": lambda, "lambda_min_tilde": lamTilde}}, nil
}

// xtyStat returns Xᵀy of d, computed once per dataset as gramStats computes
// XᵀX (the trials of a fixed split share the training set; a per-trial
// product was a tenth of the CPU of the authors'-grid panel on Bike, whose
// training set has 8,708 rows), by the same gonum product as before, so
// every fit sees the same bits. The caller must not modify the returned
// slice.
func xtyStat(d *datasets.Dataset) ([]float64, error) {
	v, err := d.Memo("mechanisms/xty", func() (any, error) {
		var xty mat.VecDense
		xty.MulVec(d.X.T(), mat.NewVecDense(d.Rows(), d.Y))
		return xty.RawVector().Data, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]float64), nil
}

// adasspBoxNoise is the box's noise multiplier of each release,
// √log(6/δ)/(ε/3) ([Wang18] Alg. 2), or an *OutOfRangeError when ε is too
// small for it to be a float64.
func adasspBoxNoise(b Budget) (float64, error) {
	m := math.Sqrt(math.Log(6/b.Delta)) / (b.Epsilon / 3)
	if math.IsInf(m, 0) {
		return 0, &OutOfRangeError{Reason: fmt.Sprintf("adassp: noise multiplier √log(6/δ)/(ε/3) = %v at ε = %g: ε is too small for float64", m, b.Epsilon)}
	}
	return m, nil
}

// CheckTarget implements TargetChecker: the box's ledger at b (nil when
// calibrated by the accountant).
func (a *AdaSSP) CheckTarget(b Budget, _ DataShape) (accounting.Event, error) {
	m, err := adasspBoxNoise(b)
	if err != nil || a.p.Calibration == "accountant" {
		return nil, err
	}
	return adasspEvent(m), nil
}

// EventShapes implements Mechanism.
func (a *AdaSSP) EventShapes(b Budget) ([]accounting.Event, error) {
	if a.p.Preset == presetCode && b.Wrap != nil {
		return nil, errCodeWrapped
	}
	return []accounting.Event{adasspEvent(shapeNoise)}, nil
}

// errCodeWrapped: under preset "code" the runs of a tuned trial would share
// one λ̃_min release, while private tuning's analysis (RepeatAndSelect)
// assumes independent runs.
var errCodeWrapped = errors.New(`preset = "code" draws λ̃_min once per cell, so the runs of private tuning would not be independent, as its analysis assumes; use the default preset`)

// adasspEvent is AdaSSP's ledger for noise multiplier m: three Gaussian
// releases (λ_min, XᵀX, Xᵀy), each with noise std m times its sensitivity.
func adasspEvent(m float64) accounting.Event {
	g := accounting.Gaussian{Sigma: m, Sensitivity: 1}
	return accounting.SelfComposed{Event: g, Count: 3}
}

// adasspGram returns XᵀX + s·Z for the noise form: Z = ½(Z₀ + Z₀ᵀ) with
// Z₀ ~ N(0, 1)^{d×d} drawn row-major ("symmetrised"), or Z = N_sym, its
// upper triangle drawn row by row and mirrored ("paper").
func adasspGram(gram mat.Symmetric, s float64, form string, r *rand.Rand) *mat.SymDense {
	d := gram.SymmetricDim()
	noisy := mat.NewSymDense(d, nil)
	if form == adasspNoisePaper {
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				noisy.SetSym(i, j, gram.At(i, j)+s*r.NormFloat64())
			}
		}
		return noisy
	}
	z := make([]float64, d*d)
	for i := range z {
		z[i] = r.NormFloat64()
	}
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			noisy.SetSym(i, j, gram.At(i, j)+s*0.5*(z[i*d+j]+z[j*d+i]))
		}
	}
	return noisy
}
