package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/datasets/preprocess"
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/results"
)

// Pre-processing in front of a mechanism (a spec's preprocess key, [HSS24]).
// Per trial, after the split and the scaling:
//
//  1. every part's rows are clipped to the unit ball (preprocess.ClipRows:
//     data-independent; the bounds assume the unit ball);
//  2. the steps are fitted on the clipped training features, non-privately
//     (memoised per fixed split and steps: fitting is deterministic);
//  3. the declared collection is checked on the training rows (Fitted.Check):
//     a violation fails the trial, or with on_violation = "group" voids the
//     sensitivities (group privacy over all n rows);
//  4. the mechanism fits the pre-processed training rows (n fixed:
//     deduplication's removed rows are zero rows, preprocessing.md D3), with
//     Budget.Wrap = tuning ∘ pipeline: the pipeline wraps one run's event in
//     accounting.Preprocessed (plan.Pipeline.Event), and private tuning's
//     repeat-and-select wraps that. A calibrating mechanism therefore meets
//     its target with the pre-processing's cost included;
//  5. the model is scored on every part mapped by the fitted steps as held-out
//     rows are (Fitted.Transform of the clipped rows), except
//     excess_empirical_risk, whose reference minimum is over the original
//     training rows (preprocessing.md D22): the released predictor is
//     x ↦ model(π_S(clip(x))), scored on the original rows against the best
//     linear model of the original rows.

// prepped is a split after a pipeline's pre-processing.
type prepped struct {
	split // the parts the mechanism fits (train: π_S(S) with n rows) and is scored on (val, test: π_S of their clipped rows)
	// score is the training rows mapped as held-out rows are: what train
	// metrics score (for deduplication and quantization the rows as they
	// are, not the cleaned rows the mechanism saw).
	score *datasets.Dataset
	// orig is the training part before clipping and pre-processing: the
	// reference of excess_empirical_risk.
	orig   *datasets.Dataset
	fitted preprocess.Fitted
}

// pipelineRun is one trial's pre-processing: the data and how one run of
// the mechanism is charged.
type pipelineRun struct {
	p      *plan.Pipeline
	prep   *prepped
	charge plan.Charge
}

// pipeline pre-processes dataset i's split for mechanism block ms (fitted
// once per fixed split and steps), checks the declared collection and
// computes the sensitivities at the training size.
func (r *runner) pipeline(c *plan.Cell, data *split) (*pipelineRun, error) {
	ms := r.spec.Mechanisms[c.Mechanism]
	p := c.Pipeline
	var prep *prepped
	var err error
	if r.spec.Datasets[c.Dataset].Split.Resample {
		prep, err = preprocessSplit(data, p.Pre)
	} else {
		var v any
		v, err = r.prepMemo.Do(strconv.Itoa(c.Dataset)+"|"+p.Pre.String(), func() (any, error) { return preprocessSplit(data, p.Pre) })
		if err == nil {
			prep = v.(*prepped)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("pre-processing %s: %w", p.StepsText(), err)
	}
	n := prep.train.Rows()
	pr := &pipelineRun{p: p, prep: prep, charge: plan.Charge{N: n}}
	if err := prep.fitted.Check(p.Collection); err != nil {
		var v *preprocess.ViolationError
		if !errors.As(err, &v) {
			return nil, err
		}
		if p.OnViolation != plan.ViolationGroup {
			return nil, fmt.Errorf("%w (mechanism %q: the spec's pipeline.collection; on_violation = \"group\" falls back to group privacy over all n rows)", err, ms.Label)
		}
		pr.charge.Void = err
	}
	if pr.charge.Sens, err = p.Sensitivity(n); err != nil {
		return nil, fmt.Errorf("pre-processing %s at n = %d: %w", p.StepsText(), n, err)
	}
	return pr, nil
}

// preprocessSplit clips every part of data to the unit ball, fits pre on
// the clipped training features and maps the parts.
func preprocessSplit(data *split, pre preprocess.Preprocessor) (*prepped, error) {
	clipped := &datasets.Dataset{Name: data.train.Name, Task: data.train.Task, X: preprocess.ClipRows(data.train.X), Y: data.train.Y, Features: data.train.Features}
	f, err := pre.Fit(clipped.X)
	if err != nil {
		return nil, err
	}
	train, err := f.Output().Dataset(clipped, false)
	if err != nil {
		return nil, err
	}
	mapPart := func(d *datasets.Dataset) (*datasets.Dataset, error) {
		if d == nil {
			return nil, nil
		}
		x, err := f.Transform(preprocess.ClipRows(d.X))
		if err != nil {
			return nil, err
		}
		out := &datasets.Dataset{Name: d.Name, Task: d.Task, X: x, Y: d.Y}
		if _, c := x.Dims(); c == d.Cols() {
			out.Features = d.Features
		}
		return out, nil
	}
	p := &prepped{split: split{train: train}, orig: data.train, fitted: f}
	if p.test, err = mapPart(data.test); err != nil {
		return nil, fmt.Errorf("test rows: %w", err)
	}
	if p.val, err = mapPart(data.val); err != nil {
		return nil, fmt.Errorf("validation rows: %w", err)
	}
	if p.score, err = mapPart(data.train); err != nil {
		return nil, fmt.Errorf("training rows: %w", err)
	}
	return p, nil
}

// wrap returns the pipeline's Budget.Wrap for mechanism m of cell c; nil
// without a pipeline, or for a non-private mechanism (whose NonPrivate
// ledger gives no guarantee either way).
func (pr *pipelineRun) wrap(c *plan.Cell, m mechanisms.Mechanism) func(accounting.Event) accounting.Event {
	if pr == nil || !c.Private {
		return nil
	}
	return pr.p.Wrap(c.Entry.Info.Name, m, pr.charge)
}

// note sets out's pipeline event for one run of m with event e (a
// private mechanism behind a pipeline only).
func (pr *pipelineRun) note(out *fitted, c *plan.Cell, m mechanisms.Mechanism, e accounting.Event) {
	if pr == nil || !c.Private || e == nil {
		return
	}
	ev, group := pr.p.Event(c.Entry.Info.Name, m, e, pr.charge)
	out.pipe, out.group = &ev, group
}

// recordPipeline fills rec's privacy.pipeline and its assumptions about
// the pre-processing.
func (r *runner) recordPipeline(rec *results.Record, c *plan.Cell, pr *pipelineRun, out *fitted, delta float64) error {
	p := pr.p
	rp := &results.Pipeline{Steps: p.StepsText(), Mode: string(p.Mode), DeltaInf: pr.charge.Sens.DeltaInf, Delta2: results.Float(pr.charge.Sens.Delta2)}
	rec.Privacy.Pipeline = rp
	if out.pipe == nil {
		return nil // a non-private mechanism: no guarantee to qualify
	}
	if err := p.CheckRelation(c.Entry.Info.Name, out.pipe.Event); err != nil {
		return err // validation refuses it from the declared shapes; a fit may not match them
	}
	rp.DeltaInf, rp.Delta2, rp.Group = out.pipe.DeltaInf, results.Float(out.pipe.Delta2), out.group
	pg, err := r.pipelineEpsilon(*out.pipe, delta)
	if err != nil {
		return fmt.Errorf("account for the pre-processing: %w", err)
	}
	rp.Analysis = pg.Analysis
	for _, a := range pg.PerAnalysis {
		if rp.PerAnalysis == nil {
			rp.PerAnalysis = map[string]results.Float{}
		}
		rp.PerAnalysis[a.Analysis] = results.Float(a.Epsilon)
	}
	if math.IsInf(float64(rec.Privacy.EpsSpent), 1) {
		return nil // no guarantee: nothing it rests on (as Assumptions)
	}
	rec.Privacy.Assumptions = append(rec.Privacy.Assumptions[:len(rec.Privacy.Assumptions):len(rec.Privacy.Assumptions)],
		pipelineAssumptions(p, pr.charge, out, pg)...)
	return nil
}

// pipelineEpsilon is accounting.PreprocessedEpsilon memoised by (event
// JSON, δ): the trials of a cell usually charge the same pipeline.
func (r *runner) pipelineEpsilon(e accounting.Preprocessed, delta float64) (accounting.PipelineGuarantee, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return accounting.PipelineGuarantee{}, err
	}
	v, err := r.pipeSpent.Do(string(b)+"|"+strconv.FormatFloat(delta, 'g', -1, 64), func() (any, error) {
		return accounting.PreprocessedEpsilon(r.acc, e, delta)
	})
	if err != nil {
		return accounting.PipelineGuarantee{}, err
	}
	return v.(accounting.PipelineGuarantee), nil
}

// AssumeUnitBall is the assumption phrase of the clipping before
// pre-processing (it reads after "ε does not account for:", as every
// assumption does).
const AssumeUnitBall = "rows outside the unit ball as given: every row is clipped to ‖x‖ ≤ 1 (x/max(1, ‖x‖), data-independent) before the non-private pre-processing, whose bounds assume the unit ball"

// pipelineAssumptions states what a pre-processed trial's ε rests on: the
// clipping, and how ε covers the steps — the analysis that won at the run's
// optimal order, the sensitivities and the declared collection it is
// conditional on, or the unconditional group-privacy fallback.
func pipelineAssumptions(p *plan.Pipeline, ch plan.Charge, out *fitted, pg accounting.PipelineGuarantee) []string {
	ev := out.pipe
	mode := "safe sensitivities"
	if p.Mode == preprocess.Paper {
		mode = "PAPER sensitivities ([HSS24] as printed, several refuted: preprocessing.md Appendix A; reproduction only)"
	}
	sens := fmt.Sprintf("%s Δ∞ = %d, Δ₂ = %.4g", mode, ev.DeltaInf, ev.Delta2)
	if _, ok := ev.Event.(accounting.ReplaceByRemoveAdd); ok {
		sens += ", the mechanism's add/remove ledger read for replace-one neighbours by [Mir17] Prop. 11"
	}
	if ch.Void != nil {
		return []string{AssumeUnitBall, fmt.Sprintf("the declared collection %s, which the data violate (%s): ε covers the non-private pre-processing %s by group privacy over all g = %d rows instead, which needs no collection (on_violation = \"group\")",
			p.CollectionText(ch.N), plan.ViolationText(ch.Void), p.StepsText(), ev.GroupSize())}
	}
	var how string
	switch {
	case out.group != "":
		how = fmt.Sprintf("by group privacy over g = %d rows (%s, so not by [HSS24] Theorem 2; %s)", ev.GroupSize(), out.group, sens)
	case pg.Analysis == accounting.AnalysisGroup:
		how = fmt.Sprintf("by group privacy over g = %d rows, below [HSS24] Theorem 2's analyses (%s)", ev.GroupSize(), sens)
	default:
		how = fmt.Sprintf("by [HSS24] Theorem 2 (%s, %s)", pg.Analysis, sens)
	}
	return []string{AssumeUnitBall, fmt.Sprintf("data outside the declared collection %s: ε covers the non-private pre-processing %s %s only for data in it (checked on the training rows without noise)",
		p.CollectionText(ch.N), p.StepsText(), how)}
}

// diagnostics adds the fitted steps' observed statistics (read from the
// training rows without noise) to d as "preprocess/<key>".
func (pr *pipelineRun) diagnostics(d map[string]results.Float) map[string]results.Float {
	for k, v := range pr.prep.fitted.Diagnostics() {
		if d == nil {
			d = map[string]results.Float{}
		}
		d["preprocess/"+k] = results.Float(v)
	}
	return d
}
