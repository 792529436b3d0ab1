package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/plotting"
)

// Captions. What a figure or table shows besides its data is split in
// two (plotting.Caption): one line inside the image or under the table,
// which says which accountant and δ gave ε and marks the tuning (NON-PRIVATE
// tuning, a selection that is not private) and what must not be missed
// (an overspent target, an incomplete or quick run); and the notes of
// its caption files (<name>.caption.md and .caption.tex): everything
// else, each phrase once, naming the curves (mechanisms, datasets,
// panels) it concerns when it does not concern all of them.

// caption returns the caption of a figure or table showing the cells keep
// accepts, whose band (and centre) are as given: the line, and the notes
// (the accountant in full, δ per dataset, the neighbouring relation, the
// tuning of each mechanism, the band and trial count, warnings, target
// scopes, pre-processing, infeasible, data-independent, excluded and
// missing cells, then extra, then what ε does not account for).
func (v *view) caption(band, center string, keep func(*plan.Cell) bool, extra ...string) plotting.Caption {
	s := v.spec
	notes := []string{"Accountant: " + plan.AccountingConfig(s).Describe(), "δ = " + v.deltaText(), "neighbouring: " + v.relationText()}
	shown := map[int]bool{} // mechanisms with a cell shown
	for i := range v.cells {
		if keep(&v.cells[i]) {
			shown[v.cells[i].Mechanism] = true
		}
	}
	var oracle, selection, tuning, external []string
	for i, m := range s.Mechanisms {
		if !shown[i] {
			continue
		}
		if e := m.External; e != nil {
			external = append(external, m.Label)
			notes = append(notes, externalText(m.Label, e))
		}
		switch m.Tuning.Mode {
		case spec.TuneOracle:
			oracle = append(oracle, m.Label)
			tuning = append(tuning, m.Label+": NON-PRIVATE tuning (best on the test set, not charged: ε spent = ∞; the records keep the released run's ε as eps_per_run)")
		case spec.TunePrivate:
			selection = append(selection, m.Label)
			on := "validation rows scored without noise"
			if m.Tuning.SelectOn == "test" {
				on = "TEST rows scored without noise, the published protocol"
			}
			tuning = append(tuning, fmt.Sprintf("%s: private tuning, %s K with mean %g, runs charged, SELECTION NOT PRIVATE (%s)", m.Label, m.Tuning.Distribution, m.Tuning.Mean, on))
		}
	}
	if len(tuning) == 0 {
		notes = append(notes, "tuning: none")
	}
	for _, t := range tuning {
		notes = append(notes, "tuning: "+t)
	}
	trials := v.trialsText(keep)
	switch missing := v.missingDataText(keep); {
	case missing != "":
		notes = append(notes, missing)
	case band == "ci":
		notes = append(notes, fmt.Sprintf("%s with 95%% CI (%s) over %s", center, v.ciText(keep), trials))
	case band == "iqr":
		notes = append(notes, fmt.Sprintf("%s with interquartile band over %s", center, trials))
	case band == "minmax":
		notes = append(notes, fmt.Sprintf("%s with min–max band over %s", center, trials))
	default:
		notes = append(notes, fmt.Sprintf("%s over %s", center, trials))
	}
	var warned []string
	for _, label := range slices.Sorted(maps.Keys(v.over)) {
		eps := slices.Clone(v.over[label])
		slices.Sort(eps)
		eps = slices.Compact(eps)
		var list []string
		for _, e := range eps {
			list = append(list, strconv.FormatFloat(e, 'g', 3, 64))
		}
		warned = append(warned, label)
		notes = append(notes, fmt.Sprintf("WARNING: %s spent more than the target ε at ε = %s", label, strings.Join(list, ", ")))
	}
	notes = append(notes, v.scopeText(keep)...)
	notes = append(notes, v.pipelineText(keep)...)
	incomplete := v.incompleteText(keep)
	for _, t := range []string{v.infeasibleText(keep), v.dataIndependentText(keep), v.excludedText(keep), incomplete} {
		if t != "" {
			notes = append(notes, t)
		}
	}
	if s.QuickApplied {
		notes = append(notes, "QUICK RUN (reduced trials/grid)")
	}
	if s.Only != nil {
		notes = append(notes, fmt.Sprintf("SUBSET: drawn from the cells matching --only %s alone (%d of the spec's %d cells)",
			strings.Join(s.Only.Filters, " --only "), s.Only.Cells, s.Only.Cells+s.Only.LeftCells))
	}
	notes = append(notes, extra...)
	for _, a := range v.assumptionsText(keep) {
		notes = append(notes, "ε does not account for: "+a)
	}

	line := []string{"Accountant: " + plan.AccountingConfig(s).KindName() + ", δ = " + s.Delta.Text}
	switch {
	case len(oracle) == 0 && len(selection) == 0:
		line = append(line, "tuning: none")
	default:
		if len(oracle) > 0 {
			line = append(line, "NON-PRIVATE tuning: "+strings.Join(oracle, ", "))
		}
		if len(selection) > 0 {
			line = append(line, "SELECTION NOT PRIVATE: "+strings.Join(selection, ", "))
		}
	}
	if len(external) > 0 {
		line = append(line, "external code: "+strings.Join(external, ", "))
	}
	if len(warned) > 0 {
		line = append(line, "WARNING: target ε overspent ("+strings.Join(warned, ", ")+")")
	}
	if incomplete != "" {
		stored, want, _, _ := v.completeness(keep)
		line = append(line, fmt.Sprintf("INCOMPLETE: %d of %d trials", stored, want))
	}
	if s.QuickApplied {
		line = append(line, "QUICK RUN")
	}
	if s.Only != nil {
		line = append(line, "SUBSET (--only "+strings.Join(s.Only.Filters, " --only ")+")")
	}
	return plotting.Caption{Line: strings.Join(line, "; "), Notes: slices.DeleteFunc(notes, func(n string) bool { return n == "" })}
}

// externalText is the caption note of an external mechanism (label,
// its [mechanism.external] table e): external code, its command, and who
// chose its noise (docs/external.md).
func externalText(label string, e *spec.ExternalSpec) string {
	who := "the worker chose its noise and declared its ledger, which dplab accounted"
	if e.Mode == "calibrate" {
		who = "dplab calibrated its noise and checked the ledger it returned"
	}
	return fmt.Sprintf("external code: %s is a worker process running %q (mode %s: %s)", label, strings.Join(e.Command, " "), e.Mode, who)
}

// withReferences puts the non-private references of a table (their
// values) first among its caption's notes.
func withReferences(refs []string, c plotting.Caption) plotting.Caption {
	if len(refs) > 0 {
		c.Notes = append([]string{"Reference (non-private): " + strings.Join(refs, "; ")}, c.Notes...)
	}
	return c
}

// phrases collects the phrases of a caption and where each holds: on
// which (group, label) pairs of those shown, a group being a dataset or a
// panel and a label a mechanism or a curve. Each phrase is stated once,
// followed by where it holds when that is not everywhere (attribution).
type phrases struct {
	order          []string
	where          map[string]map[pair]bool // phrase -> where it holds
	groups, labels []string                 // shown, in order of first appearance
	shown          map[pair]bool
}

// pair is a (group, label): a (dataset, mechanism) or a (panel, curve).
type pair struct{ group, label string }

// show notes that the figure or table shows label in group.
func (p *phrases) show(group, label string) {
	if p.shown == nil {
		p.shown, p.where = map[pair]bool{}, map[string]map[pair]bool{}
	}
	if !slices.Contains(p.groups, group) {
		p.groups = append(p.groups, group)
	}
	if !slices.Contains(p.labels, label) {
		p.labels = append(p.labels, label)
	}
	p.shown[pair{group, label}] = true
}

// add notes that text holds for label in group (shown, see show).
func (p *phrases) add(text, group, label string) {
	p.show(group, label)
	if p.where[text] == nil {
		p.order = append(p.order, text)
		p.where[text] = map[pair]bool{}
	}
	p.where[text][pair{group, label}] = true
}

// texts returns each phrase, in order of first appearance, followed by
// where it holds when that is not every pair shown: the labels ("(DP-SGD)"),
// the groups ("(Adult)"), both ("(DP-SGD on Adult)"), or, when that is not
// every combination of them, each group's labels ("(M1 on Adult; M2 on
// Crime)"). Without the names a reader would take one mechanism's
// assumption (a tuning's public validation rows, DP-SGD's public n) for
// every curve's.
func (p *phrases) texts() []string {
	var out []string
	for _, text := range p.order {
		where := p.where[text]
		inG, inL := map[string]bool{}, map[string]bool{}
		for at := range where {
			inG[at.group], inL[at.label] = true, true
		}
		gs := slices.DeleteFunc(slices.Clone(p.groups), func(g string) bool { return !inG[g] }) // in order
		ls := slices.DeleteFunc(slices.Clone(p.labels), func(l string) bool { return !inL[l] })
		product := true // text holds on every shown pair of gs × ls
		for at := range p.shown {
			if inG[at.group] && inL[at.label] && !where[at] {
				product = false
			}
		}
		someGroups, someLabels := len(gs) < len(p.groups), len(ls) < len(p.labels)
		sep := listSeparator(ls)
		switch {
		case !product:
			var each []string
			for _, g := range gs {
				var on []string
				for _, l := range ls {
					if where[pair{g, l}] {
						on = append(on, l)
					}
				}
				each = append(each, strings.Join(on, sep)+" on "+g)
			}
			text += " (" + strings.Join(each, "; ") + ")"
		case someGroups && someLabels:
			text += " (" + strings.Join(ls, sep) + " on " + strings.Join(gs, listSeparator(gs)) + ")"
		case someGroups:
			text += " (" + strings.Join(gs, listSeparator(gs)) + ")"
		case someLabels:
			text += " (" + strings.Join(ls, sep) + ")"
		}
		out = append(out, text)
	}
	return out
}

// listSeparator joins labels (or groups) with ", ", or with "; " when one
// holds a comma itself ("SRDP (paper), η = 0.01").
func listSeparator(labels []string) string {
	if slices.ContainsFunc(labels, func(l string) bool { return strings.Contains(l, ",") }) {
		return "; "
	}
	return ", "
}

// assumptionsText lists, deduplicated in the spec's cell order, the
// assumptions recorded with the shown cells' trials that have a guarantee
// (a finite ε spent), each naming where it holds (phrases.texts).
func (v *view) assumptionsText(keep func(*plan.Cell) bool) []string {
	var p phrases
	for i := range v.cells {
		c := &v.cells[i]
		a, ok := v.agg[c.Key]
		if !ok || !c.Private || !keep(c) || math.IsInf(a.EpsSpentMax, 1) {
			continue
		}
		d, m := v.spec.DatasetAt(c.Dataset).Label, v.spec.Mechanisms[c.Mechanism].Label
		p.show(d, m)
		for _, text := range a.Assumptions {
			p.add(text, d, m)
		}
	}
	return p.texts()
}

// splitTop splits s at the separators sep outside parentheses and
// brackets: a source "Prop. 5: Δ₂ = 12.2/(n δ_min) (n ≥ 101; constant = 1:
// …)" is one phrase.
func splitTop(s, sep string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		}
		if depth == 0 && strings.HasPrefix(s[i:], sep) {
			out = append(out, s[start:i])
			start = i + len(sep)
			i += len(sep) - 1
		}
	}
	return append(out, s[start:])
}
