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
	"github.com/dplab/dplab/results"
)

// iterSpec is what an iterations figure or table selects: a trace
// (results.Record.Traces) of the cells of some datasets, mechanisms and ε,
// with one panel per dataset or, with PanelBy, per value of a mechanism
// param.
type iterSpec struct {
	Trace      string
	PanelBy    string    // a mechanism param key; "" means one panel per dataset
	Datasets   []string  // labels; default all
	Mechanisms []string  // labels; default all
	Epsilon    []float64 // ε values of private cells to show; default all
	// PanelTitles titles panels by their panel_by value (as printed,
	// e.g. "label"); a panel without one is titled "<panel_by> = <value>".
	PanelTitles map[string]string
}

// iterLine is one line of an iterations panel: one cell's per-iteration
// statistics.
type iterLine struct {
	label   string         // legend entry
	cell    *plan.Cell     // the cell drawn
	stats   []results.Stat // stats[t]: the trace's values at t over the cell's trials
	private bool
}

// iterPanel is one panel of an iterations figure (one table of an
// iterations table).
type iterPanel struct {
	// stem is the panel's name: the dataset label, or "key = value" (with
	// the dataset label when there are several); table files are named by
	// it. title is what the panel says it shows: stem, or the block's
	// panel_titles entry.
	stem, title string
	note        string // "skipped: …" for a skipped dataset
	lines       []iterLine
}

// checkIterSpec checks an iterations block's trace, panel_by and labels
// at decode time; it fills sp.Datasets and sp.Mechanisms with the labels a
// --quick run kept.
func checkIterSpec(b *Block, sp *iterSpec) error {
	if strings.TrimSpace(sp.Trace) == "" {
		return b.Errorf("trace", "trace is required: the name of a per-iteration trace the mechanisms record (e.g. trace = \"excess_objective\")")
	}
	ds, ms, err := b.Labels(sp.Datasets, sp.Mechanisms)
	if err != nil {
		return err
	}
	sp.Datasets, sp.Mechanisms = ds, ms
	for _, e := range sp.Epsilon {
		if !(e > 0) || math.IsInf(e, 0) {
			return b.Errorf("epsilon", "ε = %v: want finite values > 0", e)
		}
	}
	if len(sp.PanelTitles) > 0 {
		if sp.PanelBy == "" {
			return b.Errorf("panel_titles", "panel_titles needs panel_by: it titles the panels by their panel_by value")
		}
		var values []string
		for _, m := range b.Spec.Mechanisms {
			if len(sp.Mechanisms) == 0 || slices.Contains(sp.Mechanisms, m.Label) {
				for _, x := range m.Params.Values[sp.PanelBy].List {
					values = append(values, spec.FormatValue(x))
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(sp.PanelTitles)) {
			if !slices.Contains(values, k) {
				return b.Errorf("panel_titles", "panel_titles key %q is not a value of %s (its values: %s)", k, sp.PanelBy, strings.Join(slices.Compact(slices.Sorted(slices.Values(values))), ", "))
			}
			if strings.TrimSpace(sp.PanelTitles[k]) == "" {
				return b.Errorf("panel_titles", "panel_titles.%s is empty: want the panel's title", k)
			}
		}
	}
	if sp.PanelBy != "" {
		var keys []string
		for _, m := range b.Spec.Mechanisms {
			if len(sp.Mechanisms) > 0 && !slices.Contains(sp.Mechanisms, m.Label) {
				continue
			}
			if slices.Contains(m.Params.Keys, sp.PanelBy) {
				return nil
			}
			keys = append(keys, m.Params.Keys...)
		}
		slices.Sort(keys)
		return b.Errorf("panel_by", "panel_by = %q is not a param of any mechanism shown (their params: %s)", sp.PanelBy, strings.Join(slices.Compact(keys), ", "))
	}
	return nil
}

// iterKeep is the filter of the cells an iterations block shows: datasets,
// mechanisms and ε (private cells) as selected, with the trace stored.
func (v *view) iterKeep(sp *iterSpec) func(*plan.Cell) bool {
	base := v.keep(sp.Datasets, sp.Mechanisms, nil)
	return func(c *plan.Cell) bool {
		if !base(c) {
			return false
		}
		if c.Private && len(sp.Epsilon) > 0 && !slices.ContainsFunc(sp.Epsilon, func(e float64) bool { return math.Abs(e-c.Epsilon) <= 1e-9*e }) {
			return false
		}
		a, ok := v.agg[c.Key]
		return ok && len(a.Traces[sp.Trace]) > 0
	}
}

// lineLabel is a cell's legend entry in an iterations block: its label
// without the panel_by param (the panel says it), the tuning marks of
// view.legend, and its ε when the block shows several.
func (v *view) lineLabel(c *plan.Cell, panelBy string, manyEps bool) string {
	m := v.spec.Mechanisms[c.Mechanism]
	label := c.Label
	if _, has := c.Params[panelBy]; panelBy != "" && has {
		label = m.Label
		var parts []string
		for _, k := range m.Params.Keys {
			if vals := m.Params.Values[k]; k != panelBy && vals.Sweep && len(vals.List) > 1 {
				parts = append(parts, k+"="+spec.FormatValue(c.Params[k]))
			}
		}
		if len(parts) > 0 {
			label += "[" + strings.Join(parts, ",") + "]"
		}
	}
	label += TuningMark(m.Tuning.Mode)
	if manyEps && c.Private {
		label += ", ε = " + strconv.FormatFloat(c.Epsilon, 'g', 4, 64)
	}
	return label
}

// iterPanels returns the panels of an iterations block: one per dataset in
// spec order or, with PanelBy, one per (dataset, value of the param) in
// sweep order. A cell of a mechanism without the param is drawn in every
// panel of its dataset. Lines are in cell order.
func (v *view) iterPanels(sp *iterSpec) []iterPanel {
	keep := v.iterKeep(sp)
	var shownEps []float64
	for i := range v.cells {
		if c := &v.cells[i]; c.Private && keep(c) && !slices.Contains(shownEps, c.Epsilon) {
			shownEps = append(shownEps, c.Epsilon)
		}
	}
	manyEps := len(shownEps) > 1
	var shownData []int
	for di := range v.spec.Datasets {
		if v.wantDataset(sp.Datasets, di) {
			shownData = append(shownData, di)
		}
	}
	var out []iterPanel
	for _, di := range shownData {
		label := v.spec.Datasets[di].Label
		var values []string // panel_by values in cell order
		if sp.PanelBy != "" {
			for i := range v.cells {
				c := &v.cells[i]
				if x, has := c.Params[sp.PanelBy]; has && c.Dataset == di && keep(c) && !slices.Contains(values, spec.FormatValue(x)) {
					values = append(values, spec.FormatValue(x))
				}
			}
		}
		if len(values) == 0 {
			values = []string{""} // one panel for the dataset
		}
		for _, val := range values {
			p := iterPanel{stem: label}
			if val != "" {
				p.stem = sp.PanelBy + " = " + val
				if len(shownData) > 1 {
					p.stem = label + " — " + p.stem
				}
			}
			p.title = p.stem
			if t, ok := sp.PanelTitles[val]; ok && val != "" {
				p.title = t
				if len(shownData) > 1 {
					p.title = label + " — " + t
				}
			}
			if why, ok := v.skipped[label]; ok {
				p.note = skipNote(why, v.spec.Datasets[di].Name)
			}
			for i := range v.cells {
				c := &v.cells[i]
				if c.Dataset != di || !keep(c) {
					continue
				}
				if x, has := c.Params[sp.PanelBy]; sp.PanelBy != "" && has && spec.FormatValue(x) != val {
					continue
				}
				p.lines = append(p.lines, iterLine{label: v.lineLabel(c, sp.PanelBy, manyEps), cell: c,
					stats: v.agg[c.Key].Traces[sp.Trace], private: c.Private})
			}
			if len(p.lines) == 0 && p.note == "" {
				p.note = fmt.Sprintf("no trace %q stored", sp.Trace)
			}
			out = append(out, p)
		}
	}
	return out
}

// trialsPerLine states the lines whose number of trials with the trace
// differs from the spec's trials per cell ("" when none does): "trials per
// line: RGM 2, Clip c 1–3 (spec: 3)", a range when some trials' traces are
// shorter than others.
func trialsPerLine(panels []iterPanel) string {
	var parts []string
	seen := map[string]bool{}
	want := 0
	for _, p := range panels {
		for _, l := range p.lines {
			lo, hi := math.MaxInt, 0
			for _, st := range l.stats {
				lo, hi = min(lo, st.Count), max(hi, st.Count)
			}
			want = l.cell.Trials
			if lo == want && hi == want || seen[l.label] {
				continue
			}
			seen[l.label] = true
			n := strconv.Itoa(hi)
			if lo != hi {
				n = fmt.Sprintf("%d–%d", lo, hi)
			}
			parts = append(parts, l.label+" "+n)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("trials per line: %s (spec: %d)", strings.Join(parts, ", "), want)
}
