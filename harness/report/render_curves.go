package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dplab/dplab/harness/curves"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/plotting"
)

// CurvesFile is the table of evaluated analytic curves in a result directory.
const CurvesFile = "curves.csv"

// curvesCSV lists every evaluated point: curve, panel, x name, x, y and the
// error of undefined points.
func (v *view) curvesCSV() []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"panel", "curve", "function", "x_name", "x", "y", "error"})
	for i, c := range v.spec.Curves {
		for _, p := range v.curves[i] {
			errText, y := "", strconv.FormatFloat(p.Y, 'g', -1, 64)
			if p.Err != nil {
				errText, y = p.Err.Error(), ""
			}
			w.Write([]string{c.Panel, c.Label, c.Name, c.X, strconv.FormatFloat(p.X, 'g', -1, 64), y, errText})
		}
	}
	w.Flush()
	return buf.Bytes()
}

// panels returns the curve panels in first-appearance order, filtered.
func (v *view) panels(want []string) []string {
	var out []string
	for _, c := range v.spec.Curves {
		if !slices.Contains(out, c.Panel) && (len(want) == 0 || slices.Contains(want, c.Panel)) {
			out = append(out, c.Panel)
		}
	}
	if len(want) > 0 {
		// The figure's own order.
		sort.SliceStable(out, func(i, j int) bool { return indexOf(want, out[i]) < indexOf(want, out[j]) })
	}
	return out
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// curveCaption is the caption of curves drawn in panels (and among
// labels, when given): no line, and as notes each part of each curve's
// source (its registry entry's reference, parts split at "; " outside
// parentheses) and its
// fixed parameters, each phrase once, naming the curves (and panels) it
// concerns (phrases.texts), then the points left out and extra.
func (v *view) curveCaption(labels, panels []string, extra string, undefined int) plotting.Caption {
	var p phrases
	for _, c := range v.spec.Curves {
		if len(labels) > 0 && !slices.Contains(labels, c.Label) || !slices.Contains(panels, c.Panel) {
			continue
		}
		for _, part := range splitTop(curveRef(c.Name), "; ") {
			p.add(part, c.Panel, c.Label)
		}
		var fixed []string
		for _, k := range c.Params.Keys {
			if k != c.X {
				fixed = append(fixed, k+" = "+spec.FormatValue(c.Params.Values[k].List[0]))
			}
		}
		if len(fixed) > 0 {
			p.add(strings.Join(fixed, ", "), c.Panel, c.Label)
		}
	}
	notes := p.texts()
	if undefined > 0 {
		notes = append(notes, fmt.Sprintf("%d points outside a curve's domain are not drawn (see curves.csv)", undefined))
	}
	return plotting.Caption{Notes: append(notes, extra)}
}

// curveTables makes one table per curve panel: rows the x values, columns
// the curves' labels.
func (v *view) curveTables(t *tableSpec) []*plotting.Table {
	if t.Rows == "panels" {
		return []*plotting.Table{v.curvePanelsTable(t)}
	}
	var out []*plotting.Table
	panels := v.panels(t.Panels)
	for _, panel := range panels {
		tab := &plotting.Table{Name: t.Name, Title: t.Title, Better: plotting.NoBest}
		if len(panels) > 1 {
			tab.Name = t.Name + "-" + v.panelStem(panel)
			tab.Title = strings.TrimSpace(tab.Title + " — " + panel)
		}
		var xs []float64
		byCurve := map[string]map[float64]curves.Point{}
		for i, c := range v.spec.Curves {
			if c.Panel != panel {
				continue
			}
			tab.Columns = append(tab.Columns, c.Label)
			if tab.RowHeader == "" {
				tab.RowHeader = c.X
			}
			byCurve[c.Label] = map[float64]curves.Point{}
			for _, p := range v.curves[i] {
				byCurve[c.Label][p.X] = p
				if !containsFloat(xs, p.X) {
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
		tab.Caption = v.curveCaption(tab.Columns, []string{panel}, t.Note, 0)
		out = append(out, tab)
	}
	return out
}

// curvePanelsTable is the rows = "panels" layout: one table, a row per
// (panel, x) in panel order then x order, a column per curve label (in
// order of first appearance); a curve absent from a panel leaves its cells
// empty.
func (v *view) curvePanelsTable(t *tableSpec) *plotting.Table {
	panels := v.panels(t.Panels)
	tab := &plotting.Table{Name: t.Name, Title: t.Title, Better: plotting.NoBest, RowHeader: "panel"}
	type key struct {
		panel, label string
		x            float64
	}
	points := map[key]curves.Point{}
	for _, panel := range panels {
		var xs []float64
		xName := ""
		for i, c := range v.spec.Curves {
			if c.Panel != panel {
				continue
			}
			if !slices.Contains(tab.Columns, c.Label) {
				tab.Columns = append(tab.Columns, c.Label)
			}
			xName = c.X
			for _, p := range v.curves[i] {
				points[key{panel, c.Label, p.X}] = p
				if !containsFloat(xs, p.X) {
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
	tab.Caption = v.curveCaption(tab.Columns, panels, t.Note, 0)
	return tab
}

// curveFormulas is the symbolic companion of a curves table: a row per curve
// of the panels ("panel; label"), with its registry function, the formula
// it evaluates (the registry's title) and its source.
func (v *view) curveFormulas(t *tableSpec) *plotting.Table {
	tab := &plotting.Table{Name: t.Name + "-formulas", Title: strings.TrimSpace(t.Title + " (formulas)"), Better: plotting.NoBest,
		RowHeader: "curve", Columns: []string{"function", "formula", "reference"}}
	panels := v.panels(t.Panels)
	for _, panel := range panels {
		for _, c := range v.spec.Curves {
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

func containsFloat(xs []float64, x float64) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// evalCurves evaluates every [[curve]] block of the spec.
func evalCurves(s *spec.Spec) [][]curves.Point {
	sweeps := make([]curves.Sweep, len(s.Curves))
	for i, c := range s.Curves {
		fixed := curves.CurveParams{}
		for _, k := range c.Params.Keys {
			v, _ := c.Params.Values[k].Floats()
			fixed[k] = v[0]
		}
		xs, _ := c.Params.Values[c.X].Floats()
		sweeps[i] = curves.Sweep{Name: c.Name, Fixed: fixed, X: c.X, Xs: xs}
	}
	return curves.Eval(sweeps)
}

// curveRef is the paper and theorem of a registered curve.
func curveRef(name string) string {
	info, _ := curves.Lookup(name)
	return info.Ref
}
