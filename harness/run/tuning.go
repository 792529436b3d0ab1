package run

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/results"
)

// selection returns the metric that scores tuning candidates and the data
// part it is computed on.
func (r *runner) selection(t spec.TuningSpec, data *split) (plan.Metric, *datasets.Dataset) {
	name := t.Metric
	if name == "" {
		name = plan.DefaultMetrics(data.train.Task)[0]
	}
	m, _ := plan.LookupMetric(name)
	if t.Mode == spec.TuneOracle || t.SelectOn == "test" {
		return m, data.test
	}
	return m, data.val
}

// better reports whether score a beats b for metric m (NaN never wins).
func better(m plan.Metric, a, b float64) bool {
	if math.IsNaN(a) {
		return false
	}
	if math.IsNaN(b) {
		return true
	}
	if m.Higher {
		return a > b
	}
	return a < b
}

// fitOracle is the papers' "dishonest" tuning: it fits every candidate of the
// grid and keeps the best on the test set. The selection is not private, so
// the ledger is the selected run's event composed with accounting.NonPrivate:
// the recorded ε spent is +Inf and the selected run's own ε is recorded as
// the per-run ε. Every figure and table says so ("non-private tuning").
//
// Behind a pipeline each candidate charges its own run (its event is the
// pre-processed run's); the per-run ε is the released run's pipeline ε.
func (r *runner) fitOracle(ctx context.Context, c *plan.Cell, data *split, b mechanisms.Budget, rs rngs.Streams) (*fitted, error) {
	t := r.spec.Mechanisms[c.Mechanism].Tuning
	sel, part := r.selection(t, data)
	cands, _ := t.Candidates.Points()
	var best *mechanisms.Release
	bestScore, bestIdx := math.NaN(), -1
	stats := map[string]float64{"runs": float64(len(cands))}
	for i, cand := range cands {
		m, err := r.mechanism(c.Entry, spec.MergeParams(c.Params, cand))
		if err != nil {
			return nil, err
		}
		rel, err := r.behindPipeline(c, m).Fit(ctx, data.train, b, rs.Sub(fmt.Sprintf("candidate/%d", i)))
		if err != nil {
			return nil, fmt.Errorf("candidate %d %v: %w", i, cand, err)
		}
		addTotals(stats, rel.Stats)
		s, err := score(sel.Name, data, rel.Model, part)
		if err != nil {
			return nil, fmt.Errorf("candidate %d %v: scoring: %w", i, cand, err)
		}
		if best == nil || better(sel, s, bestScore) {
			best, bestScore, bestIdx = rel, s, i
		}
	}
	addSelected(stats, cands[bestIdx])
	note := fmt.Sprintf("non-private tuning: best of %d candidates by %s on the test set, not charged: ε spent is +Inf; eps_per_run is the released run's ε alone", len(cands), sel.Name)
	return &fitted{release: best, charged: accounting.NewComposed(best.Event, accounting.NonPrivate{}), perRun: best.Event, note: note, stats: stats}, nil
}

// fitPrivate is Papernot–Steinke repeat-and-select: K runs with K drawn from
// the tuning distribution, each with a candidate drawn at random and noise
// calibrated so that RepeatAndSelect(one run) meets the target, and the best
// run on the selection split released. The ledger is the whole procedure's
// with respect to the training rows; the selection scores the runs without
// noise on validation or test rows, which the guarantee therefore treats as
// public (the record's Privacy.Selection and Assumptions say so).
//
// Behind a pipeline the charged event is repeat-and-select around one
// pre-processed run: the pipeline's Fit charges Budget.Wrap = tuning ∘
// pipeline. The steps are fitted
// once (they are deterministic: K fits of π_S would give one map), so the K
// runs are K runs of the mechanism on π_S(S), i.e. K runs of the
// pre-processed mechanism, whose RDP curve (accounting.Preprocessed) is what
// repeat-and-select needs. (Validation allows it only for steps that leave
// held-out rows as they are, so the selection's scores do not read π_S.)
func (r *runner) fitPrivate(ctx context.Context, c *plan.Cell, data *split, b mechanisms.Budget, rs rngs.Streams) (*fitted, error) {
	t := r.spec.Mechanisms[c.Mechanism].Tuning
	dist, _ := accounting.ParseDistribution(t.Distribution)
	wrap := plan.PrivateWrap(t)
	tr := rs.Get("tuning")
	k := sampleRuns(t, tr)
	sel, part := r.selection(t, data)
	cands, _ := t.Candidates.Points()

	var best *mechanisms.Release
	stats := map[string]float64{results.DiagRuns: float64(k)} // 0: Record.DataIndependent
	var base []byte
	var baseRel *mechanisms.Release // the first run: its event is what every run spends
	bestScore := math.NaN()
	var bestCand map[string]any
	// K = 0 releases a data-independent default; one run is still made (and
	// discarded) to learn the base event the ledger charges.
	runs := max(k, 1)
	for j := 0; j < runs; j++ {
		cand := sampleCandidate(t, cands, tr)
		m, err := r.mechanism(c.Entry, spec.MergeParams(c.Params, cand))
		if err != nil {
			return nil, err
		}
		bm := b
		bm.Wrap = wrap
		rel, err := r.behindPipeline(c, m).Fit(ctx, data.train, bm, rs.Sub(fmt.Sprintf("run/%d", j)))
		if err != nil {
			return nil, fmt.Errorf("tuning run %d %v: %w", j, cand, err)
		}
		addTotals(stats, rel.Stats)
		ev, err := json.Marshal(rel.Event)
		if err != nil {
			return nil, err
		}
		if base == nil {
			base, baseRel = ev, rel
		} else if !bytes.Equal(base, ev) {
			return nil, fmt.Errorf("private tuning needs every run to spend the same event; run 0 spent %s, run %d spent %s", base, j, ev)
		}
		if j >= k {
			break
		}
		s, err := score(sel.Name, data, rel.Model, part)
		if err != nil {
			return nil, fmt.Errorf("tuning run %d %v: scoring: %w", j, cand, err)
		}
		if best == nil || better(sel, s, bestScore) {
			best, bestScore, bestCand = rel, s, cand
		}
	}
	note := fmt.Sprintf("private tuning: K ~ %s(mean %g) runs, best by %s on the %s split", dist, t.Mean, sel.Name, map[bool]string{true: "test", false: "validation"}[t.SelectOn == "test"])
	if t.SelectOn == "test" {
		note += " (the published protocol: selection on the test set)"
	}
	note += "; selection not private: runs scored without noise, the scored rows treated as public"
	if best == nil {
		var zero mechanisms.Model = mechanisms.DataIndependentModel(data.train.Cols())
		if pm, ok := baseRel.Model.(*mechanisms.PreprocessedModel); ok {
			_, cols := pm.Fitted.Output().X.Dims()
			zero = pm.With(mechanisms.DataIndependentModel(cols))
		}
		best = &mechanisms.Release{Model: zero, Event: baseRel.Event}
		note += "; K = 0: released the zero model"
	} else {
		addSelected(stats, bestCand)
	}
	return &fitted{release: best, charged: wrap(baseRel.Event), perRun: baseRel.Event, note: note, stats: stats}, nil
}

// sampleRuns draws private tuning t's number of runs K from tr, the
// trial's "tuning" stream (its first draw).
func sampleRuns(t spec.TuningSpec, tr *rand.Rand) int {
	return plan.PrivateWrap(t)(accounting.NoOp{}).(accounting.RepeatAndSelect).SampleRuns(tr)
}

// trialSeed is the seed of trial t of cell c: every stream the trial draws
// from (rngs.New) derives from it, so trialFits reads the K its trial will
// draw.
func trialSeed(s *spec.Spec, c *plan.Cell, t int) rngs.Seed {
	return rngs.TrialSeed(uint64(s.Seed), c.Key, t)
}

// trialFits is the number of fits trial t of cell c makes: under private
// tuning max(K, 1), with K drawn from the trial's own "tuning" stream as
// fitPrivate draws it (a K = 0 trial still makes one); under oracle tuning
// the grid's size; else 1. Estimate weighs a tuned row's timed trials by
// it: K varies from trial to trial (Poisson(15.4) in objpert_fig2) and the
// fits are nearly all of a trial's work.
func (r *runner) trialFits(c *plan.Cell, t int) int {
	if c.Audit != nil {
		return 1
	}
	tu := r.spec.Mechanisms[c.Mechanism].Tuning
	switch tu.Mode {
	case spec.TunePrivate:
		rs := rngs.New(trialSeed(r.spec, c, t))
		return max(sampleRuns(tu, rs.Get("tuning")), 1)
	case spec.TuneOracle:
		cands, _ := tu.Candidates.Points()
		return max(len(cands), 1)
	}
	return 1
}

// sampleCandidate draws one candidate: uniformly from the grid, or with each
// swept key log-uniform between its smallest and largest value.
func sampleCandidate(t spec.TuningSpec, grid []map[string]any, r *rand.Rand) map[string]any {
	if t.Sample != "loguniform" {
		return grid[r.IntN(len(grid))]
	}
	out := map[string]any{}
	for _, k := range t.Candidates.Keys {
		vals, _ := t.Candidates.Values[k].Floats()
		lo, hi := vals[0], vals[0]
		for _, v := range vals {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		out[k] = math.Exp(math.Log(lo) + r.Float64()*(math.Log(hi)-math.Log(lo)))
	}
	return out
}

// addTotals adds a run's work counters to the trial's totals "total_<key>"
// (every run made counts, including the one a K = 0 trial discards).
func addTotals(totals, stats map[string]float64) {
	for k, v := range stats {
		totals["total_"+k] += v
	}
}

// addSelected records the selected candidate's numeric values as sel_<key>.
func addSelected(stats map[string]float64, cand map[string]any) {
	for k, v := range cand {
		if f, err := spec.AsFloat(v); err == nil {
			stats["sel_"+k] = f
		}
	}
}
