package report

import (
	"slices"
	"strings"

	"github.com/dplab/dplab/harness/curves"
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/plotting"
	"github.com/dplab/dplab/results"
)

// View is what a figure or table kind draws from: the spec, its current
// cells joined with the summaries of their stored trials, the evaluated
// [[curve]] blocks, and the helpers every kind shares to label, caption
// and name what it draws. A kind's Draw or Build reads it and writes
// nothing into it; a View is not safe for concurrent use.
//
// The collection behind it (the ledgers, pipelines, infeasible and
// excluded cells its captions state) stays in this package: a kind
// reaches it through Caption.
type View struct {
	*view
}

// Cell is one cell of the spec's grid as a kind sees it: a dataset, a
// mechanism with its swept params, and a target ε.
type Cell struct {
	Key       string  // the cell key of its stored records (Summary's key)
	Dataset   int     // index into Spec().Datasets
	Mechanism int     // index into Spec().Mechanisms
	Label     string  // the mechanism's label plus its swept values
	Epsilon   float64 // the target ε (a private cell's)
	Private   bool    // false for a non-private baseline
}

// cellOf is the Cell of a cell of the view.
func cellOf(c *plan.Cell) Cell {
	return Cell{Key: c.Key, Dataset: c.Dataset, Mechanism: c.Mechanism, Label: c.Label, Epsilon: c.Epsilon, Private: c.Private}
}

// specCell is the part of a plan.Cell a legend reads.
func (c Cell) specCell() *plan.Cell {
	return &plan.Cell{Key: c.Key, Dataset: c.Dataset, Mechanism: c.Mechanism, Label: c.Label, Epsilon: c.Epsilon, Private: c.Private}
}

// Spec returns the spec the view renders; a kind does not change it.
func (v *View) Spec() *spec.Spec { return v.spec }

// Cells returns the spec's current cells (those of the run, after --quick)
// in the spec's cell order: datasets, then mechanisms, then sweep points,
// then ε. A cell with no stored ok trial is among them (Summary says so).
func (v *View) Cells() []Cell {
	out := make([]Cell, len(v.cells))
	for i := range v.cells {
		out[i] = cellOf(&v.cells[i])
	}
	return out
}

// Summary returns the summary of the cell's stored ok trials; ok is false
// when it has none.
func (v *View) Summary(c Cell) (s results.CellSummary, ok bool) {
	s, ok = v.agg[c.Key]
	return s, ok
}

// Legend returns the cell's legend entry, as every figure and table shows
// it: the label, with non-private tuning, the non-private selection of
// accounted tuning and pre-processing marked.
func (v *View) Legend(c Cell) string { return v.legend(c.specCell()) }

// Caption returns the caption of a figure or table that shows the cells
// keep accepts, drawn with band ("ci", "iqr", "minmax" or "none") around
// center ("mean" or "median"): its line (accountant, δ, tuning marks,
// warnings) and its notes (everything else the view knows of those cells:
// tuning, trials and intervals, target scopes, pre-processing, infeasible,
// excluded and missing cells), with notes added before what ε does not
// account for. keep is also asked about cells the spec leaves out
// (MechanismSpec.Exclude), which are not among Cells.
func (v *View) Caption(band, center string, keep func(Cell) bool, notes ...string) plotting.Caption {
	return v.caption(band, center, func(c *plan.Cell) bool { return keep(cellOf(c)) }, notes...)
}

// DatasetStem returns the file-name part of a dataset label, unique among
// the spec's datasets, for a table split per dataset ("<name>-<stem>").
func (v *View) DatasetStem(label string) string { return v.datasetStem(label) }

// PanelStem returns the file-name part of a curve panel, unique among the
// spec's curve panels, for a table split per panel ("<name>-<stem>").
func (v *View) PanelStem(panel string) string { return v.panelStem(panel) }

// SkipNote returns what the panel (or row) of dataset di says when no
// trial of it ran because it could not be loaded ("skipped: dataset
// gisette: missing … (dplab datasets fetch gisette)"); ok is false when it
// was not skipped.
func (v *View) SkipNote(di int) (note string, ok bool) {
	d := v.spec.Datasets[di]
	why, ok := v.skipped[d.Label]
	if !ok {
		return "", false
	}
	return skipNote(why, d.Name), true
}

// ScaledY reports whether m is a regression metric and the target of every
// dataset di of datasets (at least one) is divided by the max |y| of its
// training rows (scale.y = "max-abs", the default): then its title takes
// ScaledYNote.
func (v *View) ScaledY(m plan.Metric, datasets ...int) bool { return v.scaledY(m, datasets...) }

// CurvePoints returns the evaluated points of the spec's i-th [[curve]]
// block (Spec().Curves[i]).
func (v *View) CurvePoints(i int) []curves.Point { return v.curves[i] }

// CurvePanels returns the panels of the spec's curves in first-appearance
// order, or those of want in want's order (empty: all).
func (v *View) CurvePanels(want []string) []string { return v.panels(want) }

// CurveCaption returns the caption of analytic curves drawn in panels
// (among labels, when given): no line, and as notes each curve's source
// and fixed parameters, each once, the count of undefined points left out
// (when not 0) and note.
func (v *View) CurveCaption(labels, panels []string, note string, undefined int) plotting.Caption {
	return v.curveCaption(labels, panels, note, undefined)
}

// NewStyler returns a function giving each series label a style index, in
// order of first appearance, so that a label keeps its colour and marker
// across a figure's panels.
func NewStyler() func(label string) int {
	styles := map[string]int{}
	return func(label string) int {
		if i, ok := styles[label]; ok {
			return i
		}
		styles[label] = len(styles)
		return styles[label]
	}
}

// Relation returns the neighbouring relation (accounting's name, e.g.
// "add_remove") of the private cells' stored ok records labelled label,
// "" when none is stored, and the relations joined by ", " in sorted order
// when they differ.
func (v *View) Relation(label string) string {
	var rels []string
	for rel, labels := range v.rels {
		if slices.Contains(labels, label) {
			rels = append(rels, rel)
		}
	}
	slices.Sort(rels)
	return strings.Join(rels, ", ")
}
