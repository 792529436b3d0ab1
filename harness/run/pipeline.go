package run

import (
	"encoding/json"
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

// Pre-processing in front of a mechanism (a spec's preprocess key, [HSS24]):
// the cell's mechanism is plan.Pipeline.Mechanism, a mechanisms.Preprocessed
// around the block's mechanism, whose Fit clips the training rows to the
// unit ball, fits the steps on them (memoised on the training set), checks
// the declared collection and fits the mechanism on the pre-processed rows
// with Budget.Wrap = tuning ∘ pipeline, and releases x ↦ model(π_S(clip(x)))
// (a *mechanisms.PreprocessedModel) whose Event is the run's
// accounting.Preprocessed. The runner and tuning fit it as any mechanism;
// the model scores every part mapped as held-out rows are (score), except
// excess_empirical_risk, whose reference minimum is over the original
// training rows (preprocessing.md D22).

// behindPipeline returns mechanism m of cell c behind its block's pipeline,
// if it declares one (m itself otherwise).
func (r *runner) behindPipeline(c *plan.Cell, m mechanisms.Mechanism) mechanisms.Mechanism {
	ms := r.spec.Mechanisms[c.Mechanism]
	p := c.Pipeline
	if p == nil {
		return m
	}
	w := p.Mechanism(c.Entry.Info.Name, m, c.Private)
	w.ViolationNote = fmt.Sprintf("mechanism %q: the spec's pipeline.collection; on_violation = \"group\" falls back to group privacy over all n rows", ms.Label)
	return w
}

// score evaluates metric name of model m on part d of data: behind a
// pipeline the inner model on d's rows mapped as held-out rows are.
func score(name string, data *split, m mechanisms.Model, d *datasets.Dataset) (float64, error) {
	pm, ok := m.(*mechanisms.PreprocessedModel)
	if !ok {
		return evaluator(name, data)(m, d), nil
	}
	x, err := pm.Map(d)
	if err != nil {
		return 0, err
	}
	if name == "excess_empirical_risk" {
		// Against the best linear model of the original training rows
		// (preprocessing.md D22), whatever the mechanism saw.
		return excessRisk(pm.Model, x, d), nil
	}
	return metricEval[name](pm.Model, x), nil
}

// recordPipeline fills rec's privacy.pipeline and its assumptions about
// the pre-processing p that the release out was fitted behind (pm its
// model).
func (r *runner) recordPipeline(rec *results.Record, c *plan.Cell, p *plan.Pipeline, pm *mechanisms.PreprocessedModel, out *fitted, delta float64) error {
	ch := pm.Charge
	rp := &results.Pipeline{Steps: p.StepsText(), Mode: string(p.Mode), DeltaInf: ch.Sens.DeltaInf, Delta2: results.Float(ch.Sens.Delta2)}
	rec.Privacy.Pipeline = rp
	pipe, ok := out.release.Event.(accounting.Preprocessed)
	if !ok {
		return nil // a non-private mechanism: no guarantee to qualify
	}
	if err := p.CheckRelation(c.Entry.Info.Name, pipe.Event); err != nil {
		return err // validation refuses it from the declared shapes; a fit may not match them
	}
	rp.DeltaInf, rp.Delta2, rp.Group = pipe.DeltaInf, results.Float(pipe.Delta2), pm.Group
	pg, err := r.pipelineEpsilon(pipe, delta)
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
		pipelineAssumptions(p, pm, pipe, pg)...)
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
func pipelineAssumptions(p *plan.Pipeline, pm *mechanisms.PreprocessedModel, ev accounting.Preprocessed, pg accounting.PipelineGuarantee) []string {
	ch := pm.Charge
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
	case pm.Group != "":
		how = fmt.Sprintf("by group privacy over g = %d rows (%s, so not by [HSS24] Theorem 2; %s)", ev.GroupSize(), pm.Group, sens)
	case pg.Analysis == accounting.AnalysisGroup:
		how = fmt.Sprintf("by group privacy over g = %d rows, below [HSS24] Theorem 2's analyses (%s)", ev.GroupSize(), sens)
	default:
		how = fmt.Sprintf("by [HSS24] Theorem 2 (%s, %s)", pg.Analysis, sens)
	}
	return []string{AssumeUnitBall, fmt.Sprintf("data outside the declared collection %s: ε covers the non-private pre-processing %s %s only for data in it (checked on the training rows without noise)",
		p.CollectionText(ch.N), p.StepsText(), how)}
}

// pipelineDiagnostics adds the fitted steps' observed statistics (read
// from the training rows without noise) to d as "preprocess/<key>".
func pipelineDiagnostics(d map[string]results.Float, pm *mechanisms.PreprocessedModel) map[string]results.Float {
	for k, v := range pm.Fitted.Diagnostics() {
		if d == nil {
			d = map[string]results.Float{}
		}
		d["preprocess/"+k] = results.Float(v)
	}
	return d
}
