package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/internal/strictoml"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
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

// Setup is how an audit target is audited: the declared pair, task, size
// and params (mechanisms.AuditSetup, from the mechanism's registration or a
// pipeline's declaration), resolved by setupFrom; a user's --params override
// the params key by key.
type Setup struct {
	mechanisms.AuditSetup
	// behind, when set, puts the audited mechanism behind a pre-processing
	// pipeline (a mechanisms.Preprocessed, which fits the steps on each
	// side's rows and charges them); nil audits the mechanism itself.
	behind func(m mechanisms.Mechanism) mechanisms.Mechanism
	// custom, when set, builds the pair and the statistic from the
	// mechanism's released statistics (the probe fit's Noise on the base
	// dataset, at budget b) instead of the default canary and prediction:
	// customPairs[AuditSetup.Pair].
	custom customPairFunc
}

// The layouts of Setup.Layout: LayoutOrthogonal (default) puts D₀'s rows on
// the first d − 1 coordinates, never on the canary's; LayoutSpread on every
// coordinate in turn, the canary's included, in pairs whose targets
// (labels) cancel: every Gram entry is then far from zero and the canary
// moves the released θ nearly linearly through Xᵀy, instead of through a
// ratio of two noisy statistics.
const (
	LayoutOrthogonal = mechanisms.AuditLayoutOrthogonal
	LayoutSpread     = mechanisms.AuditLayoutSpread
	LayoutCircle     = mechanisms.AuditLayoutCircle // distinct rows on a half circle in the first two coordinates
	LayoutAxes       = mechanisms.AuditLayoutAxes   // as spread, on the first and the canary's coordinates only
)

// customPairFunc builds a custom pair and its statistic (Setup.custom).
type customPairFunc func(s Setup, relation string, b mechanisms.Budget, probe *mechanisms.Release) (*customPair, error)

// customPairs are the pairs an AuditSetup may name (its Pair), each built
// from a mechanism's released statistics (pairs.go, pipeline.go).
var customPairs = map[string]customPairFunc{
	"adassp":     adasspPair,
	"mixing":     mixingPair,
	"sheffet":    sheffetPair,
	"curvature":  curvaturePair,
	"projection": projectionPair,
	"gradient":   gradientPair,
	"clusters":   clusterPair,
}

// setupFrom resolves the declared setup a of a target of mechanism info:
// zero fields take the defaults (20 rows, 3 features, the canary note), a
// task the mechanism does not fit its first, and a named pair its builder.
func setupFrom(info mechanisms.Info, a mechanisms.AuditSetup) (Setup, error) {
	s := Setup{AuditSetup: a}
	if !info.Supports(s.Task) {
		s.Task = info.Tasks[0]
	}
	if s.Rows == 0 {
		s.Rows = 20
	}
	if s.Dim == 0 {
		s.Dim = 3
	}
	if s.Note == "" {
		s.Note = mechanisms.AuditCanaryNote
	}
	if a.Pair != "" {
		if s.custom = customPairs[a.Pair]; s.custom == nil {
			return Setup{}, fmt.Errorf("audit: %s: unknown pair %q (want %s)", info.Name, a.Pair, strings.Join(slices.Sorted(maps.Keys(customPairs)), ", "))
		}
	}
	return s, nil
}

// declared is one audit target as declared: the registered mechanism, its
// declared audit, and the pipeline in front of it (nil for none).
type declared struct {
	entry    mechanisms.Entry
	audit    mechanisms.Audit
	pipeline *Pipeline
}

// Names returns every audit target's name but the reference's, sorted: the
// private mechanisms (their own audits), their further pairs
// ("mechanism/pair") and the pipelines. A private mechanism is listed even
// when it declares no audit, so that lookup reports it.
func Names() []string {
	var names []string
	for _, info := range mechanisms.List() {
		if !info.Private {
			continue
		}
		names = append(names, info.Name)
		for _, a := range info.Audits {
			if a.Name != "" {
				names = append(names, info.Name+"/"+a.Name)
			}
		}
	}
	names = append(names, slices.Collect(maps.Keys(Pipelines))...)
	slices.Sort(names)
	return slices.Compact(names)
}

// lookup returns the declaration of the audit target name: a registered
// private mechanism, one of its further pairs or a pipeline.
func lookup(name string) (declared, error) {
	if p, ok := Pipelines[name]; ok {
		e, err := mechanisms.Lookup(p.Mechanism)
		return declared{entry: e, audit: p.Audit, pipeline: &p}, err
	}
	mech, pair, _ := strings.Cut(name, "/")
	e, err := mechanisms.Lookup(mech)
	if err != nil {
		return declared{}, fmt.Errorf("%w; or %q, or an audited pipeline or further pair: %s", err, GaussianName, strings.Join(Names(), ", "))
	}
	if !e.Info.Private {
		return declared{}, fmt.Errorf("audit: %s is a non-private reference learner (ε = +Inf): there is nothing to audit", name)
	}
	for _, a := range e.Info.Audits {
		if a.Name == pair {
			return declared{entry: e, audit: a}, nil
		}
	}
	if pair == "" {
		return declared{}, fmt.Errorf("audit: %s declares no audit (mechanisms.Info.Audits)", name)
	}
	return declared{}, fmt.Errorf("audit: %s declares no further pair %q; the audit targets: %s", mech, pair, strings.Join(Names(), ", "))
}

// build builds the audit target name's mechanism with its declared audit
// params overridden by params (k=v), and its setup; it also returns the
// merged params.
func build(name string, params []string) (mechanisms.Mechanism, Setup, []string, error) {
	d, err := lookup(name)
	if err != nil {
		return nil, Setup{}, nil, err
	}
	setup, err := setupFrom(d.entry.Info, d.audit.Setup)
	if err != nil {
		return nil, Setup{}, nil, err
	}
	kv, err := mergeParams(setup.Params, params)
	if err != nil {
		return nil, Setup{}, nil, err
	}
	m, _, err := d.entry.Build(strictoml.DecodeKV(kv))
	if err != nil {
		return nil, Setup{}, nil, err
	}
	if d.pipeline != nil {
		if setup, err = d.pipeline.withPipeline(setup, kv, true); err != nil {
			return nil, Setup{}, nil, fmt.Errorf("audit: %s: %w", name, err)
		}
	}
	return m, setup, kv, nil
}

// NewTarget builds the audit target name (a registered private mechanism,
// one of its further pairs, a pipeline, or the reference Gaussian) with its
// declared params overridden by params (k=v), at budget (epsilon, delta).
func NewTarget(ctx context.Context, name string, params []string, epsilon, delta float64) (*Target, error) {
	if name == GaussianName {
		return NewGaussian(params, epsilon, delta)
	}
	m, setup, kv, err := build(name, params)
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

// SetupOf resolves setup a for a mechanism of info as a registered
// mechanism's declared audit is: zero fields take the defaults (the default
// canary pair, 20 rows, 3 features, the mechanism's first task when it does
// not fit a's). For mechanisms outside the registry (an external one), whose
// targets NewTargetFor then builds.
func SetupOf(info mechanisms.Info, a mechanisms.AuditSetup) (Setup, error) { return setupFrom(info, a) }

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
	b := mechanisms.Budget{Epsilon: epsilon, Delta: delta, Accounting: acc, Calibrator: accounting.SharedCalibrator(acc)}
	if setup.behind != nil {
		m = setup.behind(m)
	}
	r, err := m.Fit(ctx, baseData(setup, 0), b, rngs.New(rngs.Derive("dplab/audit-probe", name)))
	if err != nil {
		return nil, fmt.Errorf("audit: %s on the pair's base dataset: %w", name, err)
	}
	g, err := acc.Epsilon(b.Charged(r.Event), delta)
	if err != nil {
		return nil, fmt.Errorf("audit: %s: accounting its ledger: %w", name, err)
	}
	d0, d1, pair := neighbours(setup, g.Relation)
	statistic := "⟨θ, x*⟩/‖x*‖: the released model's change in prediction along the canary direction"
	var stat func(*mechanisms.Release) (float64, error)
	if setup.custom != nil {
		c, err := setup.custom(setup, g.Relation, b, r)
		if err != nil {
			return nil, fmt.Errorf("audit: %s: building the pair: %w", name, err)
		}
		d0, d1, pair, statistic, stat = c.d0, c.d1, c.pair, c.statistic, c.stat
	}
	data := [2]*datasets.Dataset{d0, d1}
	claimed := 0.0
	for side, d := range data {
		r, err := m.Fit(ctx, d, b, rngs.New(rngs.Derive("dplab/audit-claim", name)))
		if err != nil {
			return nil, fmt.Errorf("audit: %s on D%d: %w", name, side, err)
		}
		g, err := acc.Epsilon(b.Charged(r.Event), delta)
		if err != nil {
			return nil, fmt.Errorf("audit: %s: accounting its ledger: %w", name, err)
		}
		claimed = math.Max(claimed, g.Epsilon)
	}
	canary := make([]float64, setup.Dim)
	canary[setup.Dim-1] = 1
	zero := make([]float64, setup.Dim)
	ledger := ledgerCheck{claimed: claimed, delta: delta, acc: acc}
	sample := func(ctx context.Context, side int, seed rngs.Seed) (float64, error) {
		r, err := m.Fit(ctx, data[side], b, rngs.New(seed))
		if err != nil {
			return 0, err
		}
		if err := ledger.check(b.Charged(r.Event)); err != nil {
			return 0, fmt.Errorf("audit: %s on D%d: %w", name, side, err)
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

// formatFloat formats x compactly for params and messages.
func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// ledgerCheck accounts the ledgers of an audit's sampled runs: the claimed
// ε is that of the probe fits' ledgers (NewTargetFor), so a run whose
// ledger spends more is not audited against its own claim (an external
// worker declares its ledger per fit). Each distinct ledger is accounted
// once; it is safe for concurrent use.
type ledgerCheck struct {
	claimed, delta float64
	acc            accounting.Config
	ok             sync.Map // accounting.EventKey of a ledger accounted at most claimed → struct{}
}

// check returns an error when ev spends more than the claim at δ (beyond
// accounting.CalibrationTolerance, relative) or cannot be accounted.
func (l *ledgerCheck) check(ev accounting.Event) error {
	key, memo := accounting.EventKey(ev)
	if memo {
		if _, ok := l.ok.Load(key); ok {
			return nil
		}
	}
	g, err := l.acc.Epsilon(ev, l.delta)
	if err != nil {
		return fmt.Errorf("accounting a run's ledger: %w", err)
	}
	if g.Epsilon > l.claimed*(1+accounting.CalibrationTolerance) {
		data, _ := json.Marshal(ev)
		return fmt.Errorf("a run's ledger %s spends ε = %.6g at δ = %g, above the claimed ε = %.6g of the probe fits' ledgers: the runs audited are not those the claim is of", data, g.Epsilon, l.delta, l.claimed)
	}
	if memo {
		l.ok.Store(key, struct{}{})
	}
	return nil
}
