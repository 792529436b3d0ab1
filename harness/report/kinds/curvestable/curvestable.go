// Package curvestable is the "curves" table kind: the spec's analytic
// [[curve]] blocks tabulated, rows x and columns curve labels. It is
// written against report's exported View only, and registers itself in
// init (imported for its side effect by harness/report/kinds).
package curvestable

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dplab/dplab/harness/curves"
	"github.com/dplab/dplab/harness/report"
	"github.com/dplab/dplab/plotting"
)

// curvesTable tabulates the analytic curves: rows x, columns curve labels,
// one table per panel; with rows = "panels", one table whose rows are the
// (panel, x) pairs (a panel per case of a comparison, e.g. the RGM v1-vs-v2
// counterexamples).
type curvesTable struct {
	Panels []string `toml:"panels"` // panels to tabulate; default all
	Rows   string   `toml:"rows"`   // "x" (default: a table per panel) or "panels" (one table)
	// Formulas adds a table <name>-formulas: per curve, its function, the
	// formula it evaluates and the reference (the curve registry's title
	// and source): the symbolic form of the numbers.
	Formulas bool     `toml:"formulas"`
	Title    string   `toml:"title"`   // table title; the panel is appended; default none
	Formats  []string `toml:"formats"` // default ["md", "tex", "csv"]
	Note     string   `toml:"note"`    // added to the caption file

	name string
}

func init() {
	report.RegisterTable("curves", report.Kind[report.Table]{Params: curvesTable{}, Docs: kindDocs, Example: `panels = ["p"]`, Decode: func(b *report.Block) (report.Table, error) {
		t := curvesTable{name: b.Out.Name}
		if err := b.Decode(&t); err != nil {
			return nil, err
		}
		if err := b.CheckCurves(nil, t.Panels); err != nil {
			return nil, err
		}
		var err error
		if t.Formats, err = b.Formats(t.Formats, plotting.TableFormats); err != nil {
			return nil, err
		}
		if t.Rows, err = b.OneOf("rows", t.Rows, "x", "x", "panels"); err != nil {
			return nil, err
		}
		return &t, nil
	}})
}

// Build implements report.Table.
func (t *curvesTable) Build(v *report.View) []*plotting.Table {
	out := t.tables(v)
	if t.Formulas {
		out = append(out, t.formulas(v))
	}
	return out
}

// FileFormats implements report.Table.
func (t *curvesTable) FileFormats() []string { return t.Formats }

// tables makes one table per curve panel: rows the x values, columns
// the curves' labels.
func (t *curvesTable) tables(v *report.View) []*plotting.Table {
	if t.Rows == "panels" {
		return []*plotting.Table{t.panelsTable(v)}
	}
	var out []*plotting.Table
	panels := v.CurvePanels(t.Panels)
	for _, panel := range panels {
		tab := &plotting.Table{Name: t.name, Title: t.Title, Better: plotting.NoBest}
		if len(panels) > 1 {
			tab.Name = t.name + "-" + v.PanelStem(panel)
			tab.Title = strings.TrimSpace(tab.Title + " — " + panel)
		}
		var xs []float64
		byCurve := map[string]map[float64]curves.Point{}
		for i, c := range v.Spec().Curves {
			if c.Panel != panel {
				continue
			}
			tab.Columns = append(tab.Columns, c.Label)
			if tab.RowHeader == "" {
				tab.RowHeader = c.X
			}
			byCurve[c.Label] = map[float64]curves.Point{}
			for _, p := range v.CurvePoints(i) {
				byCurve[c.Label][p.X] = p
				if !slices.Contains(xs, p.X) {
					xs = append(xs, p.X)
				}
			}
		}
		sort.Float64s(xs)
		for _, x := range xs {
			tab.Rows = append(tab.Rows, strconv.FormatFloat(x, 'g', 6, 64))
			var row []plotting.Entry
			for _, label := range tab.Columns {
				p, ok := byCurve[label][x]
				row = append(row, plotting.Entry{Mean: p.Y, Present: ok && p.Err == nil})
			}
			tab.Cells = append(tab.Cells, row)
		}
		tab.Caption = v.CurveCaption(tab.Columns, []string{panel}, t.Note, 0)
		out = append(out, tab)
	}
	return out
}

// panelsTable is the rows = "panels" layout: one table, a row per
// (panel, x) in panel order then x order, a column per curve label (in
// order of first appearance); a curve absent from a panel leaves its cells
// empty.
func (t *curvesTable) panelsTable(v *report.View) *plotting.Table {
	panels := v.CurvePanels(t.Panels)
	tab := &plotting.Table{Name: t.name, Title: t.Title, Better: plotting.NoBest, RowHeader: "panel"}
	type key struct {
		panel, label string
		x            float64
	}
	points := map[key]curves.Point{}
	for _, panel := range panels {
		var xs []float64
		xName := ""
		for i, c := range v.Spec().Curves {
			if c.Panel != panel {
				continue
			}
			if !slices.Contains(tab.Columns, c.Label) {
				tab.Columns = append(tab.Columns, c.Label)
			}
			xName = c.X
			for _, p := range v.CurvePoints(i) {
				points[key{panel, c.Label, p.X}] = p
				if !slices.Contains(xs, p.X) {
					xs = append(xs, p.X)
				}
			}
		}
		sort.Float64s(xs)
		for _, x := range xs {
			tab.Rows = append(tab.Rows, fmt.Sprintf("%s; %s = %s", panel, xName, strconv.FormatFloat(x, 'g', 6, 64)))
			var row []plotting.Entry
			for _, label := range tab.Columns {
				p, ok := points[key{panel, label, x}]
				row = append(row, plotting.Entry{Mean: p.Y, Present: ok && p.Err == nil})
			}
			tab.Cells = append(tab.Cells, row)
		}
	}
	// Rows built before a later panel added a column are padded.
	for i := range tab.Cells {
		for len(tab.Cells[i]) < len(tab.Columns) {
			tab.Cells[i] = append(tab.Cells[i], plotting.Entry{})
		}
	}
	tab.Caption = v.CurveCaption(tab.Columns, panels, t.Note, 0)
	return tab
}

// formulas is the symbolic companion of a curves table: a row per curve
// of the panels ("panel; label"), with its registry function, the formula
// it evaluates (the registry's title) and its source.
func (t *curvesTable) formulas(v *report.View) *plotting.Table {
	tab := &plotting.Table{Name: t.name + "-formulas", Title: strings.TrimSpace(t.Title + " (formulas)"), Better: plotting.NoBest,
		RowHeader: "curve", Columns: []string{"function", "formula", "reference"}}
	panels := v.CurvePanels(t.Panels)
	for _, panel := range panels {
		for _, c := range v.Spec().Curves {
			if c.Panel != panel {
				continue
			}
			info, _ := curves.Lookup(c.Name)
			row := c.Label
			if len(panels) > 1 {
				row = panel + "; " + c.Label
			}
			tab.Rows = append(tab.Rows, row)
			tab.Cells = append(tab.Cells, []plotting.Entry{{Present: true, Text: c.Name}, {Present: true, Text: info.Title}, {Present: true, Text: info.Ref}})
		}
	}
	return tab
}
