package audit

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/internal/strictoml"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/solvers"
	"gonum.org/v1/gonum/mat"
)

// Target is one auditable mechanism at one claimed (ε, δ): a neighbouring
// pair under the mechanism's relation, a sampler of the statistic on each
// side, and the ε the mechanism's ledger claims.
type Target struct {
	Mechanism string
	// Relation is the neighbouring relation of the mechanism's ledger
	// (accounting.Relation*), and the pair is built under it.
	Relation string
	// Pair and Statistic describe D₀, D₁ and the scalar the test thresholds.
	Pair, Statistic string
	// Params are the mechanism's params as audited (k=v, sorted).
	Params []string
	// Epsilon is the budget the mechanism was asked to meet; Claimed is the
	// ε its ledger accounts at Delta (the larger of the two sides'), which is
	// what dplab records as spent and what the audit tries to refute.
	Epsilon, Claimed, Delta float64
	// Noise is the noise the mechanism reported on its first fit on D₀.
	Noise  map[string]float64
	Sample Sampler
}

// Setup is how a registered mechanism is audited by default: the task and
// size of the pair, and params (k=v) that make the audit informative (few
// steps, full batches); a user's --params override them key by key.
type Setup struct {
	Task   datasets.Task
	Rows   int      // rows of the base dataset (D₀ under add/remove)
	Dim    int      // features; the canary uses the last, which no other row touches
	Params []string // default audit params
	// Layout places D₀'s rows: LayoutOrthogonal (default) on the first d − 1
	// coordinates, never on the canary's; LayoutSpread on every coordinate
	// in turn, the canary's included, in pairs whose targets (labels) cancel:
	// every Gram entry is then far from zero and the canary moves the
	// released θ nearly linearly through Xᵀy, instead of through a ratio of
	// two noisy statistics.
	Layout string
	// Missing is the number of D₀'s rows (the odd-indexed first, label 1)
	// whose canary coordinate is missing (NaN), for imputation pipelines.
	Missing int
	// Intercept scores the release's prediction at the canary, intercept
	// included (the canary's gradient has a component on the intercept),
	// instead of its change from the prediction at 0.
	Intercept bool
	// Offset, when set, returns the data-independent part of the statistic
	// in the run seeded by seed (a random initial θ₀ along the canary), which
	// the statistic subtracts: the auditor knows the public randomness.
	Offset func(seed rngs.Seed, dim int) float64
	// Note says why the pair is worst-case for this mechanism, or why not.
	Note string
	// prepare, when set, maps each side's dataset and budget before the
	// runs (a pre-processing pipeline: the steps fitted on the side's rows,
	// the budget's Wrap charging them); nil keeps both.
	prepare func(d *datasets.Dataset, b mechanisms.Budget, m mechanisms.Mechanism) (*datasets.Dataset, mechanisms.Budget, error)
	// custom, when set, builds the pair and the statistic from the
	// mechanism's released statistics (the probe fit's Noise on the base
	// dataset, at budget b) instead of the default canary and prediction.
	custom func(s Setup, relation string, b mechanisms.Budget, probe *mechanisms.Release) (*customPair, error)
}

// The layouts of Setup.Layout.
const (
	LayoutOrthogonal = "orthogonal"
	LayoutSpread     = "spread"
	LayoutCircle     = "circle" // distinct rows on a half circle in the first two coordinates
	LayoutAxes       = "axes"   // as spread, on the first and the canary's coordinates only
)

// baseNote is the reasoning shared by every mechanism that releases a
// linear model from bounded rows.
const baseNote = "the canary has the largest norm the bounds allow, on a coordinate no other row touches, so its whole contribution shows in the released θ along that coordinate"

// Setups lists the audit setup of every registered private mechanism by
// name. Mechanisms missing here are audited with a binary or regression
// default (defaultSetup).
var Setups = map[string]Setup{
	"adassp": {Task: datasets.Regression, Rows: 1000, Dim: 3, custom: adasspPair,
		Note: "λ_min(XᵀX) of D₀ lies along the canary's coordinate (rows (e_d, 1), more rows on every other coordinate), so the canary (e_d, −1) moves all three noisy statistics (λ_min, XᵀX, Xᵀy) by their sensitivity; λ_min is large enough that λ = 0, so θ_d ≈ (Xᵀỹ)_d/(XᵀX̃)_dd, and the statistic λ̃_min − n_G·θ_d reads the three releases' sum: the joint Gaussian test of the ledger's three releases"},
	"ssp": {Task: datasets.Regression, Rows: 1000, Dim: 3, Layout: LayoutSpread,
		Note: "replace-one with (−x*, y*) leaves XᵀX unchanged and moves Xᵀy by 2x*y*, its full sensitivity; XᵀX is well conditioned, so θ along the canary is nearly linear in Xᵀy's noise. The budget spent on XᵀX is not exercised"},
	"linear-mixing": {Task: datasets.Regression, Rows: 20, Dim: 3, custom: mixingPair, Params: []string{"k=200"},
		Note: "λ_min([X y]ᵀ[X y]) lies along the canary's direction and far enough above the shift that λ̃ is never clipped, so the canary moves the released λ̃ by its sensitivity C²: the Gaussian part of the ledger, tested at its worst case. The GaussMix part (the sketch) is not exercised: at this λ_min the canary changes one direction's variance by a factor ≈ 1 + 2/λ_min"},
	"sheffet17": {Task: datasets.Regression, Rows: 20, Dim: 3, custom: sheffetPair,
		Note: "λ_min([X y]ᵀ[X y]) of D₁ is the centre of the Laplace test, along the canary's direction, so the canary moves it by its sensitivity C² where the test's outcome has its largest likelihood ratio at pass probability ½: the Laplace part of the ledger at its worst case. The GaussMix part (the sketch) is not exercised"},
	"sheffet17-renyi": {Task: datasets.Regression, Rows: 20, Dim: 3, custom: sheffetPair,
		Note: "as sheffet17: the Laplace test at its worst case; the sketch is not exercised"},
	"objpert-amp": {Task: datasets.Binary, Rows: 4, Dim: 3, Intercept: true, Params: []string{"clip=0.5", "tau=1e-5", "sigma_out=0.001"},
		Note: "clip = 0.5 is below the canary's logistic gradient norm at θ = 0 (0.5·√2 with the intercept), so its clipped gradient has the full norm C wherever the prediction at x* is below ≈ 0.6, and there the minimiser moves by C/λ along it; the statistic is the prediction at x*, the gradient's direction. τ = 1e-5 and σ_out = 0.001 (instead of [RKW23]'s 0.01 and 0.15) keep the approximate-minimum part's sensitivity 2τ/λ small against σ_out, so almost all of the budget goes to the objective's noise, which the test then sees nearly alone"},
	"objpert-kifer": {Task: datasets.Binary, Rows: 4, Dim: 3, custom: curvaturePair,
		Note: "the canary (norm 1, alone with the shift rows on its coordinate) has the largest loss curvature s′(0) = ¼ = β the bounds allow, so near θ_d = 0 it raises θ's density by up to (λ + β)/λ, the factor Kifer et al.'s condition bounds; 300 rows (0.02·e_d, label 0) shift the objective's noise there by −3, so the canary's gradient term adds to its curvature term instead of vanishing; the statistic is θ_d's exact log-likelihood ratio at the fit's σ and λ. No clipping parameter: the gradient part is not at its bound L = 1 where the curvature part is"},
	"objpert-output": {Task: datasets.Binary, Rows: 4, Dim: 3, Intercept: true, Params: []string{"clip=0.5"},
		Note: "clip = 0.5 saturates the canary's clipped gradient (norm 0.5·√2 > C with the intercept), so the minimiser moves by about C/λ along the gradient, its sensitivity; the statistic is the prediction at x*, which projects the release on that direction"},
	"dpgd": {Task: datasets.Binary, Rows: 20, Dim: 3, Params: []string{"iterations=1", "clip=0.5", "radius=100", "output=last"},
		Note: baseNote + "; one full-batch step with no active projection, so the release is the noisy clipped gradient sum (the white-box Gaussian case); clip = 0.5 is the logistic gradient's norm at θ₀ = 0, so the replace-one pair moves the sum by exactly 2C"},
	"dpsgd": {Task: datasets.Binary, Rows: 20, Dim: 3, Offset: dpsgdInit, Params: []string{"epochs=1", "batch=1000", "optimizer=sgd", "clip=0.25", "learning_rate=1", "no_bias=true"},
		Note: baseNote + "; one step with the whole dataset as the batch (q = 1) and plain SGD, so the release is the noisy clipped gradient sum; the canary's gradient exceeds the clip, so it shifts the release by exactly C; no intercept, so the whole clipped gradient lies on the canary's coordinate; θ₀ is public randomness and is subtracted. Poisson subsampling is not exercised"},
	"dgd-rgm": {Task: datasets.Regression, Rows: 200, Dim: 3, Layout: LayoutSpread, Params: []string{"iterations=1", "mu=1", "epsilon_scope=total"},
		Note: "one step; 200 spread rows make the nodes' relative-gradient statistics large enough for the calibration to meet ε = 1 (with 20 orthogonal rows it is infeasible)"},
	"dgd-clip": {Task: datasets.Regression, Rows: 20, Dim: 3, Params: []string{"iterations=1", "mu=1", "epsilon_scope=total"},
		Note: baseNote + "; one clipped gradient step"},
	"dppca-dpgd": {Task: datasets.Binary, Rows: 1000, Dim: 3, Layout: LayoutAxes, Params: []string{"k=2", "iterations=1", "clip=0.5", "radius=100", "output=last"},
		Note: "1000 rows on e₁ and on the canary's coordinate (labels cancelling in pairs), none on e₂, so the private PCA keeps the canary's coordinate in its top 2; then dpgd's one-step pair. The canary also moves the PCA's covariance, which the statistic does not read"},
	"ptr-pca-dpgd": {Task: datasets.Binary, Rows: 4000, Dim: 3, custom: projectionPair, Params: []string{"k=2", "beta=0.01", "iterations=1", "clip=0.5", "radius=100", "output=last"},
		Note: "4,000 rows ±e₁, ±e₂ (eigengap ≈ ½, so PTR's test passes in ≈ 98% of runs at ε = 1); the replaced row tilts the top-2 subspace towards e_d, and the statistic is the release's share along e_d: a release that reveals the non-private projector is refuted. β = 0.01 is an arbitrary public proposal. The ledger charges DP-GD for a PCA change moving all n rows, far above what one row can do: the under-charged variant is not caught (docs/trust.md)"},
}

// Alternate is a further audit of a registered mechanism, on another pair.
type Alternate struct {
	Mechanism string
	Setup     Setup
}

// Alternates lists the further audits of registered mechanisms by audit
// name (mechanism/pair).
var Alternates = map[string]Alternate{
	"ptr-pca-dpgd/gradient": {Mechanism: "ptr-pca-dpgd", Setup: Setup{Task: datasets.Binary, Rows: 4001, Dim: 3, custom: gradientPair,
		Params: []string{"k=2", "beta=0.01", "iterations=1", "clip=1e-5", "radius=100", "output=last", "step=0.5"},
		Note:   "4,001 rows (projectionPair's layout); the replaced row ∓e₁ leaves the PCA and PTR's test unchanged and moves the unclipped gradient sum by 1 along e₁, the clipped one by 2C. The ledger charges DP-GD for a PCA change moving all n rows (σ = 8.67·C on the averaged gradient), so a per-example gradient bound that is not enforced shows only when the unclipped gradient ½ dwarfs C: clip = 1e-5 (the audit's noise on θ₁ is then η·σ = 4.3e-5 against the unclipped shift η/n = 1.25e-4). The real mechanism's shift, η·2C/n, is 5.8e-5 of a standard deviation"}},
}

// lookupSetup returns the registry entry and the audit setup of name, a
// registered mechanism or an Alternates name.
func lookupSetup(name string) (mechanisms.Entry, Setup, error) {
	mech := name
	a, isAlt := Alternates[name]
	if isAlt {
		mech = a.Mechanism
	}
	e, err := mechanisms.Lookup(mech)
	if err != nil {
		var more []string
		for n := range Pipelines {
			more = append(more, n)
		}
		for n := range Alternates {
			more = append(more, n)
		}
		sort.Strings(more)
		return e, Setup{}, fmt.Errorf("%w; or %q, or an audited pipeline or further pair: %s", err, GaussianName, strings.Join(more, ", "))
	}
	if !e.Info.Private {
		return e, Setup{}, fmt.Errorf("audit: %s is a non-private reference learner (ε = +Inf): there is nothing to audit", name)
	}
	if isAlt {
		return e, a.Setup, nil
	}
	return e, SetupFor(e.Info), nil
}

// defaultSetup is used for a registered mechanism without a Setups entry.
func defaultSetup(info mechanisms.Info) Setup {
	return Setup{Task: info.Tasks[0], Rows: 20, Dim: 3, Note: baseNote}
}

// SetupFor returns the audit setup of a registered mechanism.
func SetupFor(info mechanisms.Info) Setup {
	if s, ok := Setups[info.Name]; ok {
		return s
	}
	return defaultSetup(info)
}

// NewTarget builds the audit target of the registered mechanism name with
// the setup's params overridden by params (k=v), at budget (epsilon, delta).
func NewTarget(ctx context.Context, name string, params []string, epsilon, delta float64) (*Target, error) {
	if name == GaussianName {
		return NewGaussian(params, epsilon, delta)
	}
	if p, ok := Pipelines[name]; ok {
		return newPipelineTarget(ctx, name, p, params, epsilon, delta)
	}
	e, setup, err := lookupSetup(name)
	if err != nil {
		return nil, err
	}
	kv, err := mergeParams(setup.Params, params)
	if err != nil {
		return nil, err
	}
	m, _, err := e.Build(DecodeParams(kv))
	if err != nil {
		return nil, err
	}
	t, err := NewTargetFor(ctx, name, m, setup, epsilon, delta)
	if err != nil {
		return nil, err
	}
	t.Params = kv
	return t, nil
}

// NewTargetFor builds the audit target of a built mechanism m (tests pass
// deliberately broken wrappers here) under setup.
func NewTargetFor(ctx context.Context, name string, m mechanisms.Mechanism, setup Setup, epsilon, delta float64) (*Target, error) {
	if !(epsilon > 0) || math.IsInf(epsilon, 0) {
		return nil, fmt.Errorf("audit: epsilon = %v: must be positive and finite", epsilon)
	}
	if !(delta >= 0 && delta < 1) {
		return nil, fmt.Errorf("audit: delta = %v: must be in [0, 1)", delta)
	}
	if setup.Rows < 1 || setup.Dim < 2 {
		return nil, fmt.Errorf("audit: setup of %s: need ≥ 1 row and ≥ 2 features", name)
	}
	acc := accounting.Config{}
	b := mechanisms.Budget{Epsilon: epsilon, Delta: delta, Accounting: acc, Calibrator: accounting.NewCalibrator(acc)}
	prepare := setup.prepare
	if prepare == nil {
		prepare = func(d *datasets.Dataset, b mechanisms.Budget, _ mechanisms.Mechanism) (*datasets.Dataset, mechanisms.Budget, error) {
			return d, b, nil
		}
	}
	probe, pb, err := prepare(baseData(setup, 0), b, m)
	if err != nil {
		return nil, fmt.Errorf("audit: %s on the pair's base dataset: %w", name, err)
	}
	r, err := m.Fit(ctx, probe, pb, rngs.New(rngs.Derive("dplab/audit-probe", name)))
	if err != nil {
		return nil, fmt.Errorf("audit: %s on the pair's base dataset: %w", name, err)
	}
	g, err := acc.Epsilon(pb.Charged(r.Event), delta)
	if err != nil {
		return nil, fmt.Errorf("audit: %s: accounting its ledger: %w", name, err)
	}
	d0, d1, pair := neighbours(setup, g.Relation)
	statistic := "⟨θ, x*⟩/‖x*‖: the released model's change in prediction along the canary direction"
	var stat func(*mechanisms.Release) (float64, error)
	if setup.custom != nil {
		c, err := setup.custom(setup, g.Relation, pb, r)
		if err != nil {
			return nil, fmt.Errorf("audit: %s: building the pair: %w", name, err)
		}
		d0, d1, pair, statistic, stat = c.d0, c.d1, c.pair, c.statistic, c.stat
	}
	var data [2]*datasets.Dataset
	var budgets [2]mechanisms.Budget
	claimed := 0.0
	for side, d := range []*datasets.Dataset{d0, d1} {
		if data[side], budgets[side], err = prepare(d, b, m); err != nil {
			return nil, fmt.Errorf("audit: %s on D%d: %w", name, side, err)
		}
		r, err := m.Fit(ctx, data[side], budgets[side], rngs.New(rngs.Derive("dplab/audit-claim", name)))
		if err != nil {
			return nil, fmt.Errorf("audit: %s on the pair: %w", name, err)
		}
		g, err := acc.Epsilon(budgets[side].Charged(r.Event), delta)
		if err != nil {
			return nil, fmt.Errorf("audit: %s: accounting its ledger: %w", name, err)
		}
		claimed = math.Max(claimed, g.Epsilon)
	}
	canary := make([]float64, setup.Dim)
	canary[setup.Dim-1] = 1
	zero := make([]float64, setup.Dim)
	sample := func(ctx context.Context, side int, seed rngs.Seed) (float64, error) {
		r, err := m.Fit(ctx, data[side], budgets[side], rngs.New(seed))
		if err != nil {
			return 0, err
		}
		if stat != nil {
			return stat(r)
		}
		s := r.Model.Predict(canary)
		if !setup.Intercept {
			s -= r.Model.Predict(zero)
		}
		if setup.Offset != nil {
			s -= setup.Offset(seed, setup.Dim)
		}
		return s, nil
	}
	return &Target{
		Mechanism: name, Relation: g.Relation, Pair: pair,
		Statistic: statistic,
		Epsilon:   epsilon, Claimed: claimed, Delta: delta, Noise: r.Noise, Sample: sample,
	}, nil
}

// baseData returns the base dataset of setup: rows 0.5·e_{i mod (d−1)} (the
// last coordinate is never touched), targets alternating ±0.3 (regression)
// or labels alternating 0, 1 (binary), plus extra zero rows.
func baseData(s Setup, extra int) *datasets.Dataset {
	n, d := s.Rows+extra, s.Dim
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < s.Rows; i++ {
		switch s.Layout {
		case LayoutSpread:
			x.Set(i, (i/2)%d, 0.5)
		case LayoutAxes:
			x.Set(i, ((i/2)%2)*(d-1), 0.5)
		case LayoutCircle:
			a, b := circleRow(i, s.Rows)
			x.Set(i, 0, a)
			x.Set(i, 1, b)
		default:
			x.Set(i, i%(d-1), 0.5)
		}
		if i%2 == 1 && i/2 < s.Missing {
			x.Set(i, d-1, math.NaN())
		}
		switch {
		case s.Task == datasets.Binary:
			y[i] = float64(i % 2)
		case i%2 == 0:
			y[i] = 0.3
		default:
			y[i] = -0.3
		}
	}
	return &datasets.Dataset{Name: "audit-pair", Task: s.Task, X: x, Y: y}
}

// neighbours returns the pair (D₀, D₁) under relation and its description.
// The canary z = (x*, y*) has x* = e_d (norm 1, the default bound_x and the
// scale every shipped spec uses) and y* = 1 (the default bound_y; label 1).
//   - add/remove: D₁ = D₀ ∪ {z}.
//   - zero-out: D₀ holds a zero row (x = 0, y = 0) where D₁ holds z.
//   - replace-one: D₀ holds z′ = (−x*, y*) where D₁ holds z: the opposite
//     feature vector with the same target, which moves a linear model's
//     gradient and sufficient statistics by twice the canary's own
//     contribution (a flipped label with −x* would give the same logistic
//     loss as z, so the label is kept).
func neighbours(s Setup, relation string) (d0, d1 *datasets.Dataset, pair string) {
	d1 = baseData(s, 1)
	last := s.Rows
	d1.X.Set(last, s.Dim-1, 1)
	d1.Y[last] = 1
	switch relation {
	case accounting.RelationZeroOut:
		d0 = baseData(s, 1)
		pair = "zero-out: D₁ = D₀ with its zero row replaced by the canary (x* = e_d, y* = 1)"
	case accounting.RelationReplaceOne:
		d0 = baseData(s, 1)
		d0.X.Set(last, s.Dim-1, -1)
		d0.Y[last] = 1
		pair = "replace-one: D₀ holds (−x*, y* = 1) where D₁ holds the canary (x* = e_d, y* = 1)"
	default:
		d0 = baseData(s, 0)
		pair = "add/remove: D₁ = D₀ ∪ {canary (x* = e_d, y* = 1)}"
	}
	switch s.Layout {
	case LayoutSpread:
		pair += fmt.Sprintf("; D₀'s %d other rows are 0.5·eᵢ on every coordinate in turn, in pairs whose targets cancel", s.Rows)
	case LayoutAxes:
		pair += fmt.Sprintf("; D₀'s %d other rows are 0.5·e₁ and 0.5·e_d in turn, in pairs whose targets cancel", s.Rows)
	case LayoutCircle:
		pair += fmt.Sprintf("; D₀'s %d other rows are distinct points 0.5·(cos φ, sin φ) on the first 2 coordinates, never on the canary's", s.Rows)
	default:
		pair += fmt.Sprintf("; D₀'s %d other rows are 0.5·eᵢ on the first %d coordinates, never on the canary's", s.Rows, s.Dim-1)
	}
	if s.Missing > 0 {
		pair += fmt.Sprintf("; the canary's coordinate is missing (NaN) in %d of them (label 1)", s.Missing)
	}
	return d0, d1, pair
}

// mergeParams returns base with each key of over replaced (or added),
// sorted by key; every entry must be k=v.
func mergeParams(base, over []string) ([]string, error) {
	m := map[string]string{}
	for _, list := range [][]string{base, over} {
		for _, kv := range list {
			k, v, ok := strings.Cut(kv, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				return nil, fmt.Errorf("audit: param %q: want key=value", kv)
			}
			m[k] = strings.TrimSpace(v)
		}
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out, nil
}

// DecodeParams returns a decoder of k=v params into a mechanism's params
// struct with the spec's strict rules (internal/strictoml): a
// value is read as a TOML value would be (an integer, a float, true or
// false), and as a string otherwise.
func DecodeParams(kv []string) func(v any) error {
	return func(v any) error {
		values := map[string]any{}
		for _, p := range kv {
			k, raw, ok := strings.Cut(p, "=")
			if !ok {
				return fmt.Errorf("param %q: want key=value", p)
			}
			values[strings.TrimSpace(k)] = parseValue(strings.TrimSpace(raw))
		}
		if key, err := strictoml.DecodeTable(values, v); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		return nil
	}
}

// parseValue reads raw as an int64, a float64 or a bool, else a string.
func parseValue(raw string) any {
	if i, err := strconv.ParseInt(raw, 10, 64); err == nil {
		return i
	}
	if f, err := strconv.ParseFloat(raw, 64); err == nil {
		return f
	}
	if b, err := strconv.ParseBool(raw); err == nil && (raw == "true" || raw == "false") {
		return b
	}
	return strings.Trim(raw, `"`)
}

// formatFloat formats x compactly for params and messages.
func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// dpsgdInit is DP-SGD's random initial weight on the canary's coordinate in
// the run seeded by seed (solvers.LinearInit from the "init" stream, as
// mechanisms.DPSGD draws it).
func dpsgdInit(seed rngs.Seed, dim int) float64 {
	return solvers.LinearInit(dim, false, rngs.New(seed).Get("init"))[dim-1]
}
