package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/results"
)

// Pre-processed mechanisms (a spec's preprocess key): the legend says a
// mechanism ran behind non-private pre-processing when its label does not,
// with "paper bounds" and "group privacy" when they apply, and the caption
// states, per shown mechanism, the steps, the sensitivities and the
// analyses that gave the recorded ε (the records' privacy.pipeline); the
// full statement with the declared collection is among the assumptions.

// pipeNote is what the stored records say about one mechanism block's
// pre-processing.
type pipeNote struct {
	analyses []string // winning analyses, in order of appearance
	groups   []string // why only group privacy applied (privacy.pipeline.group)
}

// addPipeline notes an ok record's privacy.pipeline for its mechanism block.
func (v *view) addPipeline(c *plan.Cell, rp *results.Pipeline) {
	if rp == nil {
		return
	}
	if v.pipes == nil {
		v.pipes = map[int]*pipeNote{}
	}
	n := v.pipes[c.Mechanism]
	if n == nil {
		n = &pipeNote{}
		v.pipes[c.Mechanism] = n
	}
	if rp.Analysis != "" && !slices.Contains(n.analyses, rp.Analysis) {
		n.analyses = append(n.analyses, rp.Analysis)
	}
	if rp.Group != "" && !slices.Contains(n.groups, rp.Group) {
		n.groups = append(n.groups, rp.Group)
	}
}

// stepStems are the words that show a label names a step.
var stepStems = map[string]string{
	"dedup": "dedup", "quantize": "quantiz", "impute-mean": "imput", "impute-median": "imput",
	"impute-trimmed": "imput", "impute-linreg": "imput", "pca-rank": "pca", "pca-dim": "pca",
}

// preprocessing returns mechanism block mi's pre-processing (plan.New put
// it on each of the block's cells), or nil when it has none or no cells.
func (v *view) preprocessing(mi int) *plan.Pipeline {
	for i := range v.cells {
		if v.cells[i].Mechanism == mi {
			return v.cells[i].Pipeline
		}
	}
	return nil
}

// pipelineLegend is what a cell's legend adds for its mechanism's
// pre-processing: " (pre-processed: quantize[eta=0.1])" unless the label
// names every step (or says pre-processed), ", paper bounds" for the
// paper's sensitivities and ", group privacy" when a record charged group
// privacy alone, unless the label says so; "" without pre-processing.
func (v *view) pipelineLegend(c *plan.Cell) string {
	p := v.preprocessing(c.Mechanism)
	if p == nil {
		return ""
	}
	low := strings.ToLower(c.Label)
	named := strings.Contains(low, "pre-process") || strings.Contains(low, "preprocess")
	if !named {
		named = true
		for _, st := range p.Steps {
			stem, ok := stepStems[st.Name()]
			if !ok {
				stem = st.Name()
			}
			named = named && strings.Contains(low, stem)
		}
	}
	var parts []string
	if !named {
		parts = append(parts, "pre-processed: "+p.StepsText())
	}
	if string(p.Mode) == "paper" && !strings.Contains(low, "paper") {
		parts = append(parts, "paper bounds")
	}
	if n := v.pipes[c.Mechanism]; n != nil && len(n.groups) > 0 && !strings.Contains(low, "group") {
		parts = append(parts, "group privacy")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// pipelineText states, for the shown mechanisms with pre-processing, the
// steps, the sensitivities and the analyses of their records, each phrase
// once with the mechanisms it concerns (phrases.texts): "pre-processing:
// quantize[eta=0.1] (rows clipped to the unit ball first) (DP-GD)", "safe
// sensitivities", "ε by [HSS24] Theorem 2 (tight_pq) conditional on the
// declared collection (DP-GD)". Nil when no shown mechanism has any.
func (v *view) pipelineText(keep func(*plan.Cell) bool) []string {
	shown := map[int]bool{}
	for i := range v.cells {
		if keep(&v.cells[i]) {
			shown[v.cells[i].Mechanism] = true
		}
	}
	var p phrases
	for i, m := range v.spec.Mechanisms {
		if shown[i] {
			p.show("", m.Label)
		}
		pl := v.preprocessing(i)
		if pl == nil || !shown[i] {
			continue
		}
		p.add("pre-processing: "+pl.StepsText()+" (rows clipped to the unit ball first)", "", m.Label)
		mode := "safe sensitivities"
		if string(pl.Mode) == "paper" {
			mode = "PAPER sensitivities (as [HSS24] prints them, several refuted; reproduction only)"
		}
		p.add(mode, "", m.Label)
		n := v.pipes[i]
		switch {
		case n == nil:
			// no stored private trial (a non-private reference, or none yet)
		case len(n.groups) > 0:
			p.add(fmt.Sprintf("ε by group privacy only (%s)", strings.Join(n.groups, "; ")), "", m.Label)
			if other := slices.DeleteFunc(slices.Clone(n.analyses), func(a string) bool { return a == "group" }); len(other) > 0 {
				p.add("elsewhere ε by "+strings.Join(other, ", "), "", m.Label)
			}
		case len(n.analyses) > 0:
			p.add("ε by "+analysesText(n.analyses)+" conditional on the declared collection", "", m.Label)
		}
	}
	return p.texts()
}

// analysesText names the winning analyses: "[HSS24] Theorem 2 (tight_pq)",
// "group privacy", or both.
func analysesText(as []string) string {
	var thm, group []string
	for _, a := range as {
		if a == "group" {
			group = append(group, "group privacy")
		} else {
			thm = append(thm, a)
		}
	}
	var parts []string
	if len(thm) > 0 {
		parts = append(parts, "[HSS24] Theorem 2 ("+strings.Join(thm, ", ")+")")
	}
	return strings.Join(append(parts, group...), " or ")
}
