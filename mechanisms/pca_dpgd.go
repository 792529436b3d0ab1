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

// Two PCA-then-DP-GD learners of [HSS24] Figure 3 that carry their own PCA
// (the non-private PCA arm with the paper's conditional accounting is the
// spec's preprocess = [{ name = "pca-rank" }] in front of "dpgd"):
//
//   - "dppca-dpgd" (Figure 3(b)): a private PCA, "Analyze Gauss" (release
//     XᵀX + E with E symmetric, its upper triangle i.i.d. N(0, σ_P²); the
//     replace-one sensitivity of the triangle of xxᵀ is ≤ ‖xxᵀ − x'x'ᵀ‖_F ≤ 2
//     on the unit ball), projecting onto the top-k eigenvectors of the noisy
//     matrix, then A_GD on the projected rows. The PCA gets the budget
//     fraction f of (ε, δ) on its own (the paper: "half of the privacy
//     budget"); DP-GD's σ is then calibrated so that the composed ledger
//     meets (ε, δ).
//   - "ptr-pca-dpgd" ([HSS24] Algorithm 1, Theorem 7; preprocessing.md §2.9):
//     Propose-Test-Release on the eigengap. J(S) = max(0, (δ_k(S) − β)n/12.2)
//     (the implementable lower bound of the distance to a dataset with
//     δ_k ≤ β, sensitivity ≤ 1), γ̂ = J + Lap(1/ε_T); if γ̂ ≤ log(2/δ_A)/ε_T
//     it outputs ⊥ (the model θ = 0, recorded as diagnostic ptr_bot = 1);
//     otherwise non-private PCA rank reduction and A_GD. The ledger is
//     accounting.PTREvent around the pipeline whose sensitivities hold on
//     the safe collection δ_k > β (Δ∞ = n, Δ₂ = 4(3n+2)/(n(n−1)β)) — the
//     same ledger whatever the test's outcome, with σ calibrated so that it
//     meets (ε, δ): an unconditional guarantee. ε_T = test_fraction·ε,
//     δ_A = δ/2 (the algorithm's threshold parameter; the ledger charges
//     the pass probability e^{ε_T}δ_A/4 of an unsafe dataset).
//
// Rows are clipped to the unit ball first (data-independent). The model of
// dppca-dpgd is θ folded through the projection, x ↦ θᵀPx, P the rank-k
// projector: P comes from the private PCA, so folding is post-processing.
// The model of ptr-pca-dpgd is A_GD's θ itself, x ↦ θᵀx, as [HSS24]
// Algorithm 1 line 6 returns it (Prop. 8 scores ⟨θ̂, xᵢ⟩ on the original
// rows): its P is the non-private PCA's, which Theorem 2 does not cover —
// folded, θ lies exactly in P's span and reveals it (an audit refuted the
// folded release at ε_lo = 3.2 against ε = 1, see docs/trust.md).
type PCADPGD struct {
	ptr bool
	p   PCADPGDParams
}

// PCADPGDParams is the params table of "dppca-dpgd" and "ptr-pca-dpgd".
type PCADPGDParams struct {
	DPGDParams
	// K is the number of principal components, 1 ≤ k < d; 0 means 5 (F3).
	K int `toml:"k" default:"5" range:"1 ≤ k < d"`
	// BudgetFraction f ∈ (0, 1) of (ε, δ) for the private PCA
	// (dppca-dpgd); 0 means 0.5.
	BudgetFraction float64 `toml:"budget_fraction" default:"0.5" range:"(0, 1)" only:"dppca-dpgd"`
	// Beta is PTR's proposed eigengap bound β > 0 (ptr-pca-dpgd, public;
	// never the private δ_k(S), D21); required.
	Beta float64 `toml:"beta" default:"none (required)" range:"> 0" only:"ptr-pca-dpgd"`
	// TestFraction of ε spent on the test, ε_T = f·ε (ptr-pca-dpgd); 0 means 0.1.
	TestFraction float64 `toml:"test_fraction" default:"0.1" range:"(0, 1)" only:"ptr-pca-dpgd"`
}

// Validate implements Params.
func (p PCADPGDParams) Validate() error {
	if err := p.DPGDParams.Validate(); err != nil {
		return err
	}
	if p.K < 0 {
		return errors.New("k must be ≥ 1 (0 means 5)")
	}
	for _, f := range []struct {
		key string
		v   float64
	}{{"budget_fraction", p.BudgetFraction}, {"test_fraction", p.TestFraction}} {
		if !(f.v >= 0 && f.v < 1) {
			return fmt.Errorf("%s must be in (0, 1) (0 means the default)", f.key)
		}
	}
	return checkNonNegative("beta", p.Beta)
}

func (p PCADPGDParams) k() int {
	if p.K == 0 {
		return 5
	}
	return p.K
}

// ptrAuditWeak is why ptr-pca-dpgd's under-charged audit variant is not
// caught (audit's TestPTRUnderChargedBound measures it).
const ptrAuditWeak = "its ε on every replace-one pair, at any size, is at most ≈ 0.56 < 1 (TestPTRUnderChargedBound): 0.5 from the test, the rest from DP-GD, whose ledger charges a PCA change moving every row while one replaced row moves the gradient sum by 1 + O(1/δ_k)"

func init() {
	bin := []datasets.Task{datasets.Binary}
	Register(Info{Name: "dppca-dpgd", Title: "DP-PCA + DP-GD", Ref: "HSS24", Tasks: bin, Private: true, Version: 1, Relation: accounting.RelationReplaceOne, Events: []string{"gaussian"},
		Calibration: []CalibrationClaim{{Params: `k = 2`, Calibrated: true}},
		Audits: []Audit{{Setup: AuditSetup{Task: datasets.Binary, Rows: 1000, Dim: 3, Layout: AuditLayoutAxes, Params: []string{"k=2", "iterations=1", "clip=0.5", "radius=100", "output=last"},
			Note: "1000 rows on e₁ and on the canary's coordinate (labels cancelling in pairs), none on e₂, so the private PCA keeps the canary's coordinate in its top 2; then dpgd's one-step pair. The canary also moves the PCA's covariance, which the statistic does not read"},
			Trials: 6000, Trust: TrustRow{Claimed: "1.000", Real: "0.088", Broken: "under-charged: 1.525", Caught: "yes"}}},
		Quantities: map[string][]Quantity{
			"sigma":     qDPGDSigma,
			"sigma_pca": {quantity("σ_PCA", `$\sigma_{\mathrm{PCA}}$`, "std of the noise on each entry of XᵀX (DP-PCA)", refHSS)},
		}},
		func(p PCADPGDParams) (Mechanism, error) { return &PCADPGD{p: p}, nil },
		PCADPGDParams{DPGDParams: DPGDParams{Iterations: 5}, K: 2})
	Register(Info{Name: "ptr-pca-dpgd", Title: "PCA + DP-GD with PTR (Algorithm 1)", Ref: "HSS24", Tasks: bin, Private: true, Version: 2, Relation: accounting.RelationReplaceOne, Events: []string{"laplace", "approx_dp", "preprocessed", "gaussian"},
		Calibration: []CalibrationClaim{{Params: `k = 2, beta = 0.01`, Calibrated: true}},
		Audits: []Audit{{Setup: AuditSetup{Task: datasets.Binary, Rows: 4000, Dim: 3, Pair: "projection", Params: []string{"k=2", "beta=0.01", "iterations=1", "clip=0.5", "radius=100", "output=last"},
			Note: "4,000 rows ±e₁, ±e₂ (eigengap ≈ ½, so PTR's test passes in ≈ 98% of runs at ε = 1); the replaced row tilts the top-2 subspace towards e_d, and the statistic is the release's share along e_d: a release that reveals the non-private projector is refuted. β = 0.01 is an arbitrary public proposal. The ledger charges DP-GD for a PCA change moving all n rows, far above what one row can do: the under-charged variant is not caught (docs/trust.md)"},
			Trials: 200, Weak: ptrAuditWeak, Leaks: []string{"fold-projection"}, Trust: TrustRow{Claimed: "1.000", Real: "0.000 (version 1: **3.245**, refuted)", Broken: "fold-projection: 3.245; under-charged: 0.000", Caught: "fold-projection: yes; under-charged: no — no pair can catch it (its ε on every pair ≤ 0.56)"}},
			{Name: "gradient", Setup: AuditSetup{Task: datasets.Binary, Rows: 4001, Dim: 3, Pair: "gradient", Params: []string{"k=2", "beta=0.01", "iterations=1", "clip=1e-5", "radius=100", "output=last", "step=0.5"},
				Note: "4,001 rows (projectionPair's layout); the replaced row ∓e₁ leaves the PCA and PTR's test unchanged and moves the unclipped gradient sum by 1 along e₁, the clipped one by 2C. The ledger charges DP-GD for a PCA change moving all n rows (σ = 8.67·C on the averaged gradient), so a per-example gradient bound that is not enforced shows only when the unclipped gradient ½ dwarfs C: clip = 1e-5 (the audit's noise on θ₁ is then η·σ = 4.3e-5 against the unclipped shift η/n = 1.25e-4). The real mechanism's shift, η·2C/n, is 5.8e-5 of a standard deviation"},
				Trials: 400, Weak: ptrAuditWeak, Leaks: []string{"no-clip"}, Trust: TrustRow{Claimed: "1.000", Real: "0.000", Broken: "no-clip: 2.780; under-charged: 0.000", Caught: "no-clip: yes; under-charged: no (as above)"}}},
		Quantities: map[string][]Quantity{
			"sigma":        qDPGDSigma,
			"test_epsilon": {quantity("ε_T", `$\varepsilon_T$`, "ε of the PTR test", refHSS+" Alg. 1")},
			"ptr_bot":      {quantity("⊥", `$\bot$`, "1: the test refused (Algorithm 1 returned ⊥)", refHSS+" Alg. 1")},
			"ptr_distance": {quantity("J(S)", `$J(S)$`, "distance to a dataset whose PCA is unstable", refHSS+" Alg. 1")},
		}},
		func(p PCADPGDParams) (Mechanism, error) {
			if p.Beta == 0 {
				return nil, errors.New("beta: PTR needs a proposed eigengap bound β > 0 (public, never read from the data)")
			}
			return &PCADPGD{ptr: true, p: p}, nil
		},
		PCADPGDParams{DPGDParams: DPGDParams{Iterations: 5}, K: 2, Beta: 0.01})
}

// analyzeGaussEvent is the private PCA's release: one Gaussian of
// replace-one sensitivity 2 on the triangle of XᵀX.
func analyzeGaussEvent(sigma float64) accounting.Event {
	return accounting.WithRelation{Event: accounting.Gaussian{Sigma: sigma, Sensitivity: 2}, Relation: accounting.RelationReplaceOne}
}

// ptrPipeline is the pipeline Algorithm 1 releases after a passed test:
// A_GD behind non-private PCA rank reduction, with the sensitivities of the
// safe collection δ_k > β.
func (m *PCADPGD) ptrPipeline(sigma float64, n, T int) (accounting.Preprocessed, error) {
	ledger := dpgdLedger(sigma, m.p.clip(), n, T)
	s, err := (&DPGD{p: m.p.DPGDParams}).SmoothRDP(ledger)
	if err != nil {
		return accounting.Preprocessed{}, err
	}
	// Safe rank-reduction Δ₂ with δ^k = β (datasets/preprocess, exact
	// constant, capped at 1).
	sens, err := (&preprocess.PCA{K: m.p.k()}).Sensitivity(preprocess.Collection{N: n, GapK: m.p.Beta}, preprocess.Safe)
	if err != nil {
		return accounting.Preprocessed{}, err
	}
	return accounting.Preprocessed{Event: ledger, SRDP: s, DeltaInf: sens.DeltaInf, Delta2: sens.Delta2, N: n}, nil
}

func (m *PCADPGD) ptrEvent(sigma, epsT, deltaA float64, n, T int) (accounting.Event, error) {
	pipe, err := m.ptrPipeline(sigma, n, T)
	if err != nil {
		return nil, err
	}
	return accounting.PTREvent(epsT, deltaA, pipe)
}

// EventShapes implements EventShaper. Neither learner supports private
// tuning (its PCA or test would be repeated per run).
func (m *PCADPGD) EventShapes(b Budget) ([]accounting.Event, error) {
	if b.Wrap != nil {
		return nil, errors.New("private tuning is not supported: the PCA (or PTR test) would run once per candidate")
	}
	if m.ptr {
		e, err := m.ptrEvent(shapeNoise, 0.1, 1e-6, 200, shapeSteps)
		if err != nil {
			return nil, err
		}
		return []accounting.Event{e}, nil
	}
	return []accounting.Event{accounting.NewComposed(analyzeGaussEvent(shapeNoise), dpgdLedger(shapeNoise, 1, 100, shapeSteps))}, nil
}

// Fit implements Mechanism.
func (m *PCADPGD) Fit(ctx context.Context, train *datasets.Dataset, b Budget, rs rngs.Streams) (*Release, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if b.Wrap != nil {
		return nil, errors.New("private tuning is not supported")
	}
	n, d := train.X.Dims()
	k := m.p.k()
	if k >= d {
		return nil, fmt.Errorf("k = %d: must be below the %d features", k, d)
	}
	x, err := clippedRows(train)
	if err != nil {
		return nil, err
	}
	T, C := m.p.iterations(), m.p.clip()
	if m.ptr {
		return m.fitPTR(ctx, train, x, b, rs, n, d, k, T, C)
	}
	// Private PCA at (fε, fδ) alone (Analyze Gauss).
	f := orDefault(m.p.BudgetFraction, 0.5)
	pcaBudget := b
	pcaBudget.Epsilon, pcaBudget.Delta = f*b.Epsilon, f*b.Delta
	sigmaP, err := pcaBudget.Calibrate(analyzeGaussEvent, accounting.Bracket{})
	if err != nil {
		return nil, fmt.Errorf("dppca-dpgd: calibrate the PCA's σ: %w", err)
	}
	noise := rs.Get("pca")
	moment, err := train.Memo(memoSecondMoment, func() (any, error) {
		var xtx mat.SymDense
		xtx.SymOuterK(1, x.T())
		return &xtx, nil
	})
	if err != nil {
		return nil, err
	}
	second := mat.NewSymDense(d, nil)
	second.CopySym(moment.(*mat.SymDense))
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			second.SetSym(i, j, second.At(i, j)+sigmaP*noise.NormFloat64())
		}
	}
	proj, err := topKProjector(second, k)
	if err != nil {
		return nil, fmt.Errorf("dppca-dpgd: %w", err)
	}
	pca := analyzeGaussEvent(sigmaP)
	composed := b
	composed.Wrap = func(e accounting.Event) accounting.Event { return accounting.NewComposed(pca, e) }
	sigma, err := composed.Calibrate(func(s float64) accounting.Event { return dpgdLedger(s, C, n, T) }, accounting.Bracket{})
	if err != nil {
		return nil, fmt.Errorf("dppca-dpgd: calibrate DP-GD's σ: %w", err)
	}
	theta, err := m.descendProjected(ctx, x, proj, train.Y, sigma, rs, true)
	if err != nil {
		return nil, err
	}
	return &Release{Model: &Linear{Theta: theta}, Event: accounting.NewComposed(pca, dpgdLedger(sigma, C, n, T)), Calibrated: true,
		Noise: map[string]float64{"sigma": sigma, "sigma_pca": sigmaP}}, nil
}

// ptrThresholdDelta returns the δ_A of Algorithm 1's threshold
// log(2/δ_A)/ε_T for a total δ: δ/2 (the paper's split) while the test's
// pass bound e^{ε_T}·δ_A/4 (accounting.PTRPassBound: a neighbour of an
// unsafe dataset has J ≤ 1) stays ≤ δ/2, i.e. ε_T ≤ log 4, else 2δ·e^{−ε_T},
// which holds the pass bound at δ/2 for any ε_T (the threshold stays ≥ 1).
// Without the second branch a large ε_T would spend more than δ on the
// test alone and no σ could meet the target.
func ptrThresholdDelta(epsT, delta float64) float64 {
	return math.Min(delta/2, 2*delta*math.Exp(-epsT))
}

// Keys of what a fit computes from the training set alone, memoised on it
// (datasets.Dataset.Memo: the trials of a fixed split share one training
// set, and preprocessing_fig3's 60 fits of each mechanism one dataset): the
// rows clipped to the unit ball, their second moment XᵀX (before DP-PCA's
// noise) and the non-private PCA of Algorithm 1 (its gap and projector).
// Each is the same computation on the same rows, so a fit's release is bit
// for bit what computing them afresh gives.
const (
	memoClipped      = "pca-dpgd/clipped-rows"
	memoSecondMoment = "pca-dpgd/second-moment"
	memoPTRPCA       = "pca-dpgd/ptr-pca"
)

// clippedRows returns preprocess.ClipRows(train.X), memoised on train;
// callers must not modify it.
func clippedRows(train *datasets.Dataset) (*mat.Dense, error) {
	x, err := train.Memo(memoClipped, func() (any, error) { return preprocess.ClipRows(train.X), nil })
	if err != nil {
		return nil, err
	}
	return x.(*mat.Dense), nil
}

// fitPTR is Algorithm 1.
func (m *PCADPGD) fitPTR(ctx context.Context, train *datasets.Dataset, x *mat.Dense, b Budget, rs rngs.Streams, n, d, k, T int, C float64) (*Release, error) {
	epsT := orDefault(m.p.TestFraction, 0.1) * b.Epsilon
	deltaA := ptrThresholdDelta(epsT, b.Delta)
	if deltaA == 0 {
		return nil, fmt.Errorf("ptr-pca-dpgd: the test's ε_T = %g underflows its threshold parameter 2δ·e^{−ε_T}; lower test_fraction or ε", epsT)
	}
	var calErr error
	sigma, err := b.Calibrate(func(s float64) accounting.Event {
		e, err := m.ptrEvent(s, epsT, deltaA, n, T)
		if err != nil {
			calErr = err
			return accounting.NonPrivate{}
		}
		return e
	}, accounting.Bracket{})
	if calErr != nil {
		return nil, fmt.Errorf("ptr-pca-dpgd: %w", calErr)
	}
	if err != nil {
		return nil, fmt.Errorf("ptr-pca-dpgd: calibrate DP-GD's σ: %w", err)
	}
	ledger, err := m.ptrEvent(sigma, epsT, deltaA, n, T)
	if err != nil {
		return nil, err
	}
	f, err := train.Memo(fmt.Sprintf("%s|k=%d", memoPTRPCA, k), func() (any, error) { return (&preprocess.PCA{K: k}).Fit(x) })
	if err != nil {
		return nil, fmt.Errorf("ptr-pca-dpgd: %w", err)
	}
	fit := f.(preprocess.Fitted)
	gap := fit.Observed().GapK
	j, err := accounting.PTRDistance(math.Max(gap, 0), m.p.Beta, n)
	if err != nil {
		return nil, fmt.Errorf("ptr-pca-dpgd: %w", err)
	}
	// γ̂ = J + Lap(1/ε_T); ⊥ when γ̂ ≤ log(2/δ_A)/ε_T ([HSS24] Alg. 1 lines 1–3).
	u := rs.Get("ptr").Float64() - 0.5
	lap := -math.Copysign(1, u) * math.Log1p(-2*math.Abs(u)) / epsT
	rel := &Release{Event: ledger, Calibrated: true, Noise: map[string]float64{"sigma": sigma, "test_epsilon": epsT},
		Stats: map[string]float64{"ptr_bot": 0, "ptr_distance": j}}
	if j+lap <= math.Log(2/deltaA)/epsT {
		rel.Stats["ptr_bot"] = 1
		rel.Model = &Linear{Theta: make([]float64, d)}
		return rel, nil
	}
	ident := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		ident.Set(i, i, 1)
	}
	proj, err := fit.Transform(ident) // the rank-k projector P (rows e_iᵀP)
	if err != nil {
		return nil, err
	}
	theta, err := m.descendProjected(ctx, x, proj, train.Y, sigma, rs, false)
	if err != nil {
		return nil, err
	}
	rel.Model = &Linear{Theta: theta}
	return rel, nil
}

// descendProjected runs A_GD on the rows xP and returns its θ, or with fold
// Pθ, the model on raw rows (P symmetric); fold only where P is private.
func (m *PCADPGD) descendProjected(ctx context.Context, x, proj *mat.Dense, y []float64, sigma float64, rs rngs.Streams, fold bool) ([]float64, error) {
	n, d := x.Dims()
	var z mat.Dense
	z.Mul(x, proj)
	loss, err := solvers.NewGLM(&z, y, solvers.GLMConfig{Clip: m.p.clip()})
	if err != nil {
		return nil, err
	}
	theta, err := dpgdDescend(ctx, loss, n, d, sigma, m.p.DPGDParams, rs.Get("noise"))
	if err != nil {
		return nil, err
	}
	if !fold {
		if err := checkLinear("pca-dpgd", &Linear{Theta: theta}); err != nil {
			return nil, err
		}
		return theta, nil
	}
	out := make([]float64, d)
	mat.NewVecDense(d, out).MulVec(proj, mat.NewVecDense(d, theta))
	if err := checkLinear("pca-dpgd", &Linear{Theta: out}); err != nil {
		return nil, err
	}
	return out, nil
}

// topKProjector returns VVᵀ for the eigenvectors V of the k largest
// eigenvalues of the symmetric a.
func topKProjector(a *mat.SymDense, k int) (*mat.Dense, error) {
	var eig mat.EigenSym
	if !eig.Factorize(a, true) {
		return nil, errors.New("eigendecomposition failed")
	}
	var vec mat.Dense
	eig.VectorsTo(&vec)
	d, _ := a.Dims()
	v := vec.Slice(0, d, d-k, d) // ascending eigenvalues: the last k columns
	var p mat.Dense
	p.Mul(v, v.T())
	return &p, nil
}
