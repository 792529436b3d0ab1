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

// LinearMixing is differentially private least squares by Gaussian mixing
// ([LSS+25] Algorithm 2 on top of Algorithm 1, ModifiedGaussMix). In the
// normalised units of gaussmix.md §3.5, with the joint row bound
// C = √(C_X² + C_Y²), Z = [X, y] and p = d + 1:
//
//	γ      = smallest γ > 5/2 with ε̃(γ/√k, γ, k, δ) ≤ ε        Alg. 2 line 2, Thm 1 eq. (5)
//	τ      = √(2 log(3/δ)),  η = γ/√k                          Thm 1; Alg. 2 line 3
//	if γ ≤ τ:  s² = γ·C²                                        Alg. 1 line 3
//	else:      λ̃ = max(λ_min(ZᵀZ) − η·C²·(τ − z), 0),  z ~ N(0, 1)   Alg. 1 line 5
//	           s² = max(γ·C² − λ̃, 0)                            Alg. 1 lines 6–7
//	[X̃, Ỹ] = S·Z + s·Ξ,  S ~ N(0, 1)^{k×n},  Ξ ~ N(0, 1)^{k×p}   Alg. 1 line 7, one S for X and y (eq. (6))
//	θ      = (X̃ᵀX̃)⁻¹ X̃ᵀỸ                                         Alg. 2 line 4
//
// Paper (Alg. 1 line 3): noise γ·C_X·ξ; corrected: std √γ·C because γ is a
// variance in units of C² (the text: Sheffet's analogue sets the noise "to
// √γ"; the authors' code uses √(γC²)). Paper (Alg. 1 lines 5–6): λ̃ and γ
// mixed in raw and normalised units; corrected: the normalised form above
// (gaussmix.md §3.5), which differs from the printed one when C ≠ 1, as in
// Algorithm 2 where C = √2.
//
// Ledger (Thm 1's proof, App. D): the Gaussian release of λ_min(ZᵀZ)
// (sensitivity C², noise std η·C²), Lemma 1's GaussMix curve with (k, γ),
// and the failure probability P(z ≥ τ) = Φ(−τ) ≤ δ/3 (eq. (49)) of the event
// under which λ̃ > λ_min and Lemma 1's condition may fail, as an ApproxDP
// with ε = 0. In the γ ≤ τ branch only the GaussMix part (with λ̄_min = 0)
// is spent. The accountant composes the two curves and converts them at
// δ − Φ(−τ), so the ε reported is at most Theorem 1's ε̃, which adds the
// classical Gaussian bound at δ/3 and the GaussMix bound at δ/3.
//
// Binary tasks ([LSS+25] §5.2, App. G): labels y ∈ {0, 1} become
// t = 2y − 1 (C_Y = 1), the algorithm runs on (X, t), and θ is scaled by
// −b₁/(2b₂) of the degree-2 Chebyshev surrogate of log σ(s) on [−Q, Q]
// (solvers.LogisticSurrogate), which maximises the surrogate likelihood;
// the sign of xᵀθ, hence accuracy, does not depend on the scale.
//
// preset "code" (gaussmix.md §4.5): γ is calibrated with η = γ·C²/√k in
// Theorem 1 but the λ_min noise actually added has std √(γ·C²/√k); the
// branch test is γ·C² ≤ τ; binary tasks scale θ by the Chebyshev-basis
// −c₁/(2c₂). The ledger records the noise actually added, so the accountant
// reports the ε this spends (above the target: the code's eigenvalue release
// is under-noised).
//
// Ref: [LSS+25] Alg. 1, Alg. 2, Thm 1 (eq. (5)), Lemma 1 (eq. (4)), App. D,
// App. G. Symbols: C_X = bound_x, C_Y = bound_y, k = k, s² = sigma2.
type LinearMixing struct {
	p LinearMixingParams
}

// LinearMixingParams is the params table of "linear-mixing".
type LinearMixingParams struct {
	sketchParams
	// Calibration is "paper" (default: Theorem 1 with the preset's η) or
	// "accountant" (the smallest γ whose ledger, tuning included, meets the
	// target under the spec's accountant).
	Calibration string `toml:"calibration" default:"paper" range:"paper | accountant"`
	// SurrogateQ is the half-width Q of the surrogate's interval [−Q, Q] for
	// binary tasks; 0 means 6 ([LSS+25] code).
	SurrogateQ float64 `toml:"surrogate_q" default:"6" range:"> 0"`
}

// Validate implements Params.
func (p LinearMixingParams) Validate() error {
	if err := p.sketchParams.validate(); err != nil {
		return err
	}
	if err := validateCalibration(p.Calibration); err != nil {
		return err
	}
	return checkNonNegative("surrogate_q", p.SurrogateQ)
}

func init() {
	Register(Info{Name: "linear-mixing", Title: "Linear mixing", Ref: "LSS+25",
		Tasks: []datasets.Task{datasets.Regression, datasets.Binary}, Private: true, Version: 1, Relation: accounting.RelationZeroOut, Events: []string{"gaussmix", "gaussian", "approx_dp"},
		Calibration: []CalibrationClaim{{Calibrated: false}, {Params: `calibration = "accountant"`, Calibrated: true}},
		Audits: []Audit{{Setup: AuditSetup{Task: datasets.Regression, Rows: 20, Dim: 3, Pair: "mixing", Params: []string{"k=200"},
			Note: "λ_min([X y]ᵀ[X y]) lies along the canary's direction and far enough above the shift that λ̃ is never clipped, so the canary moves the released λ̃ by its sensitivity C²: the Gaussian part of the ledger, tested at its worst case. The GaussMix part (the sketch) is not exercised: at this λ_min the canary changes one direction's variance by a factor ≈ 1 + 2/λ_min"},
			Trials: 8000, Trust: TrustRow{Claimed: "0.589", Real: "0.000", Broken: "under-charged: 0.968", Caught: "yes"}}},
		Quantities: map[string][]Quantity{
			"gamma":        qGammaMix,
			"sigma2":       qSigma2,
			"lambda_tilde": {quantity("λ̃", `$\tilde\lambda$`, "private, downward-shifted λ_min(ZᵀZ)", refLSS+" Alg. 1 l. 5").in(rawUnits)},
			"eta_std":      {quantity("σ_λ", `$\sigma_\lambda$`, "std of the noise on λ_min: ηC², η = γ/√k (code preset: √(γC²/√k))", refLSS+" Alg. 1 l. 5, Alg. 2").in(rawUnits)},
			"k":            qK,
		},
		QuantityParams: []string{`preset = "code"`}},
		func(p LinearMixingParams) (Mechanism, error) { return &LinearMixing{p: p}, nil },
		LinearMixingParams{sketchParams: sketchParams{K: 12}})
}

// lmSetup is what a LinearMixing fit derives from (k, ε, δ, C²).
type lmSetup struct {
	k          int
	gamma, tau float64
	etaStd     float64 // std of the noise on λ_min(ZᵀZ), raw units
	branch1    bool    // γ ≤ τ: no eigenvalue release (λ̄_min = 0)
	c2         float64 // C² = C_X² + C_Y²
}

// event is the ledger of a fit with setup s.
func (s lmSetup) event() accounting.Event {
	mix := accounting.GaussMix{K: s.k, Gamma: s.gamma}
	if s.branch1 {
		return mix
	}
	return accounting.NewComposed(
		accounting.Gaussian{Sigma: s.etaStd, Sensitivity: s.c2},
		mix,
		accounting.ApproxDP{Delta: gaussianTail(s.tau)})
}

// setup calibrates γ and derives the rest for a budget.
func (l *LinearMixing) setup(b Budget, k int, c2 float64) (lmSetup, error) {
	code := l.p.preset() == presetCode
	tau := math.Sqrt(2 * math.Log(3/b.Delta))
	sk := math.Sqrt(float64(k))
	mk := func(gamma float64) lmSetup {
		s := lmSetup{k: k, gamma: gamma, tau: tau, c2: c2, etaStd: gamma / sk * c2, branch1: gamma <= tau}
		if code {
			// preset "code": std √(s/√k) with s = γC² (utils_linear_mixing,
			// σ_e = σ_m/√k, γ̃ = λ_min − √σ_e·(τ − Z)); branch on γC² ≤ τ.
			s.etaStd = math.Sqrt(gamma * c2 / sk)
			s.branch1 = gamma*c2 <= tau
		}
		return s
	}
	var gamma float64
	var err error
	if l.p.Calibration == calAccountant {
		// The full ledger (eigenvalue release included) is calibrated; if γ
		// lands in the γ ≤ τ branch, that branch spends less.
		gamma, err = b.Calibrate(func(g float64) accounting.Event {
			s := mk(g)
			s.branch1 = false
			return s.event()
		}, accounting.Bracket{})
	} else {
		if b.Wrap != nil {
			return lmSetup{}, errPaperWrapped
		}
		key := gammaKey{fn: "linear-mixing", k: k, eps: b.Epsilon, delta: b.Delta}
		if code {
			key.c2 = c2 // η = γC²/√k
		}
		gamma, err = calibrateGamma(key, func() (float64, error) {
			// Thm 1 with η = γ/√k (paper) or γC²/√k (code), γ > 5/2.
			f := func(g float64) (float64, error) {
				eta := g / sk
				if code {
					eta = g * c2 / sk
				}
				e, _, err := accounting.GaussMixTheorem1Epsilon(k, g, eta, b.Delta)
				return e, err
			}
			return smallestGamma(f, b.Epsilon, 2.5)
		})
	}
	if err != nil {
		return lmSetup{}, fmt.Errorf("linear-mixing: calibrate γ at ε = %g, δ = %g, k = %d: %w", b.Epsilon, b.Delta, k, err)
	}
	return mk(gamma), nil
}

// Fit implements Mechanism.
func (l *LinearMixing) Fit(ctx context.Context, train *datasets.Dataset, b Budget, rs rngs.Streams) (*Release, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	binary := train.Task == datasets.Binary
	cx, cy := l.p.cx(), l.p.cy()
	if binary {
		cy = 1 // t = 2y − 1 ∈ {−1, +1}
	}
	in, err := prepareSketch("linear-mixing", train, cx, cy, l.p.k, binary)
	if err != nil {
		return nil, err
	}
	k, c2, js := in.k, in.c2, in.js
	s, err := l.setup(b, k, c2)
	if err != nil {
		return nil, err
	}
	noise := rs.Get("noise")
	lamTilde := 0.0
	sigma2 := s.gamma * c2 // Alg. 1 line 3 (corrected: variance γC²)
	if !s.branch1 {
		// Alg. 1 lines 5–6.
		lamTilde = math.Max(js.lamMin-s.etaStd*(s.tau-noise.NormFloat64()), 0)
		sigma2 = math.Max(s.gamma*c2-lamTilde, 0)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	theta, err := js.sketchTheta(l.p.sampler(), k, math.Sqrt(sigma2), rs.Normals("sketch"), rs.Normals("noise"))
	if err != nil {
		return nil, fmt.Errorf("linear-mixing: %w", err)
	}
	if binary {
		scale, err := surrogateScale(l.p.SurrogateQ, l.p.preset())
		if err != nil {
			return nil, err
		}
		for i := range theta {
			theta[i] *= scale
		}
	}
	model := &Linear{Theta: theta}
	if err := checkLinear("linear-mixing", model); err != nil {
		return nil, err
	}
	return &Release{Model: model, Event: s.event(), Calibrated: l.p.Calibration == calAccountant, Noise: map[string]float64{
		"gamma": s.gamma, "sigma2": sigma2, "lambda_tilde": lamTilde, "eta_std": s.etaStd, "k": float64(k)}}, nil
}

// CheckTarget implements TargetChecker: the setup at b for the sketch size
// the data's declared columns give (nothing when they are not known).
func (l *LinearMixing) CheckTarget(b Budget, d DataShape) (accounting.Event, error) {
	if l.p.Calibration != calAccountant && b.Wrap != nil {
		return nil, nil // EventShapes refuses it
	}
	cx, cy := l.p.cx(), l.p.cy()
	if d.Task == datasets.Binary {
		cy = 1
	}
	return sketchTargetEvent(d, l.p.k, func(k int) (accounting.Event, error) {
		s, err := l.setup(b, k, cx*cx+cy*cy)
		return s.event(), err
	})
}

// EventShapes implements Mechanism.
func (l *LinearMixing) EventShapes(b Budget) ([]accounting.Event, error) {
	if l.p.Calibration != calAccountant && b.Wrap != nil {
		return nil, errPaperWrapped
	}
	s := lmSetup{k: shapeK, gamma: shapeNoise, tau: 1, etaStd: 1, c2: 1}
	s1 := s
	s1.branch1 = true
	return []accounting.Event{s.event(), s1.event()}, nil
}

// surrogateScale returns the factor that turns the least-squares solution on
// ±1 labels into the surrogate maximiser ([LSS+25] App. G): −b₁/(2b₂) of the
// monomial Chebyshev surrogate on [−Q, Q] (Q = 0 means 6), or for preset
// "code" −c₁/(2c₂) of its Chebyshev-basis coefficients (the authors'
// notebook; reference-code.md §8 item 7). Both are positive.
func surrogateScale(q float64, preset string) (float64, error) {
	if q == 0 {
		q = 6
	}
	if preset == presetCode {
		c, err := solvers.Chebyshev(func(s float64) float64 { return -math.Log1p(math.Exp(-s)) }, -q, q, 3)
		if err != nil {
			return 0, err
		}
		return -c[1] / (2 * c[2]), nil
	}
	sur, err := solvers.LogisticSurrogate(q)
	if err != nil {
		return 0, err
	}
	return sur.ResponseScale(), nil
}
