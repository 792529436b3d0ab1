// Package auditgrid is the "audit" figure and table kinds: an audit grid's
// (a spec with an [audit] table) claimed ε against the audited lower bound
// on ε, one line (two columns) per mechanism, over the grid's ε. They read
// the audit metrics harness/run stores for each cell (plan.MetricAudit*:
// audit_lower_bound, audit_claimed_epsilon, audit_runs) through report's
// exported View only, and register themselves in init (imported for their
// side effect by harness/report/kinds). Cells without those metrics (any
// other spec's) are not drawn.
package auditgrid

import (
	"fmt"
	"strings"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/report"
	"github.com/dplab/dplab/plotting"
)

// auditFigure draws the claimed ε (x) against the audited lower bound on ε
// (y) of each mechanism over the grid's ε, with the line y = x: a point
// above it refutes the claim.
type auditFigure struct {
	Title   string   `toml:"title"`   // default the spec's title, else its name
	Formats []string `toml:"formats"` // default every figure format

	name string
}

// auditTable tabulates, per target ε (rows), each mechanism's claimed ε
// and audited lower bound (two columns per mechanism).
type auditTable struct {
	Title   string   `toml:"title"`   // default the spec's title
	Formats []string `toml:"formats"` // default ["md", "csv"]

	name string
}

func init() {
	report.RegisterFigure("audit", report.Kind[report.Figure]{Params: auditFigure{}, Docs: kindDocs, Example: `title = "Claimed vs audited ε"`,
		Decode: func(b *report.Block) (report.Figure, error) {
			f := auditFigure{name: b.Out.Name}
			if err := b.Decode(&f); err != nil {
				return nil, err
			}
			var err error
			f.Formats, err = b.Formats(f.Formats, plotting.Formats)
			return &f, err
		}})
	report.RegisterTable("audit", report.Kind[report.Table]{Params: auditTable{}, Docs: kindDocs, Example: `title = "Claimed vs audited ε"`,
		Decode: func(b *report.Block) (report.Table, error) {
			t := auditTable{name: b.Out.Name}
			if err := b.Decode(&t); err != nil {
				return nil, err
			}
			if len(t.Formats) == 0 {
				t.Formats = []string{"md", "csv"}
			}
			var err error
			t.Formats, err = b.Formats(t.Formats, plotting.TableFormats)
			return &t, err
		}})
}

// FileFormats implements report.Figure.
func (f *auditFigure) FileFormats() []string { return f.Formats }

// FileFormats implements report.Table.
func (t *auditTable) FileFormats() []string { return t.Formats }

// point is one audited cell: its claimed ε and lower bound.
type point struct{ claimed, lower float64 }

// grid is the view's audited cells: by mechanism block, by target ε.
type grid struct {
	eps   []float64 // the grid's ε in spec order
	cells []map[float64]point
	runs  []int // runs per side of a mechanism's stored audits (the last read)
}

// gridOf reads the audit metrics of the view's cells.
func gridOf(v *report.View) grid {
	s := v.Spec()
	g := grid{cells: make([]map[float64]point, len(s.Mechanisms)), runs: make([]int, len(s.Mechanisms))}
	eps, _ := s.Epsilon.Floats()
	g.eps = eps
	for _, c := range v.Cells() {
		a, ok := v.Summary(c)
		lo, okL := a.Metrics[plan.MetricAuditLowerBound]
		cl, okC := a.Metrics[plan.MetricAuditClaimed]
		if !ok || !okL || !okC {
			continue
		}
		if g.cells[c.Mechanism] == nil {
			g.cells[c.Mechanism] = map[float64]point{}
		}
		g.cells[c.Mechanism][c.Epsilon] = point{claimed: cl.Mean, lower: lo.Mean}
		if r, ok := a.Diagnostics[plan.DiagAuditRuns]; ok {
			g.runs[c.Mechanism] = int(r.Mean)
		}
	}
	return g
}

// confidence is the audit grid's confidence (0.95 in a spec without one).
func confidence(v *report.View) float64 {
	if a := v.Spec().Audit; a != nil && a.Confidence > 0 {
		return a.Confidence
	}
	return plan.DefaultAuditConfidence
}

// Draw implements report.Figure.
func (f *auditFigure) Draw(v *report.View) *plotting.Figure {
	s := v.Spec()
	g := gridOf(v)
	hi := 0.0
	for _, e := range g.eps {
		hi = max(hi, e)
	}
	series := []plotting.Series{{Label: "claimed ε (y = x)", X: []float64{0, hi}, Y: []float64{0, hi}, Style: 0, Dashed: true}}
	for i, m := range s.Mechanisms {
		ser := plotting.Series{Label: m.Label, Style: i + 1}
		for _, e := range g.eps {
			if p, ok := g.cells[i][e]; ok {
				ser.X = append(ser.X, p.claimed)
				ser.Y = append(ser.Y, p.lower)
			}
		}
		series = append(series, ser)
	}
	title := f.Title
	if title == "" {
		title = s.Title
	}
	if title == "" {
		title = s.Name
	}
	return &plotting.Figure{Name: f.name, Title: title, XLabel: "claimed ε (ledger)",
		YLabel: fmt.Sprintf("audited lower bound on ε (%g confidence)", confidence(v)),
		Panels: []plotting.Panel{{Series: series}}, Caption: caption(v, g)} // legend placed where it covers no point
}

// Build implements report.Table.
func (t *auditTable) Build(v *report.View) []*plotting.Table {
	s := v.Spec()
	g := gridOf(v)
	title := t.Title
	if title == "" {
		title = s.Title
	}
	tab := &plotting.Table{Name: t.name, Title: title, RowHeader: "target ε", Better: plotting.NoBest, Caption: caption(v, g), Digits: 3}
	for _, e := range g.eps {
		tab.Rows = append(tab.Rows, fmt.Sprintf("%g", e))
	}
	tab.Cells = make([][]plotting.Entry, len(g.eps))
	for i, m := range s.Mechanisms {
		tab.Columns = append(tab.Columns, m.Label+" claimed", m.Label+" audited")
		for j, e := range g.eps {
			claimed, audited := plotting.Entry{}, plotting.Entry{}
			if p, ok := g.cells[i][e]; ok {
				claimed = plotting.Entry{Mean: p.claimed, Present: true}
				audited = plotting.Entry{Mean: p.lower, Present: true}
			}
			tab.Cells[j] = append(tab.Cells[j], claimed, audited)
		}
	}
	return []*plotting.Table{tab}
}

// caption states what the numbers are: on the caption line the
// accountant, δ and the confidence, and that an audit refutes but never
// certifies; in the notes the method and, per mechanism, the pair's
// relation and the runs.
func caption(v *report.View, g grid) plotting.Caption {
	s := v.Spec()
	delta, conf := s.Delta.Text, confidence(v)
	notes := []string{
		fmt.Sprintf("Claimed ε: the mechanism's ledger under the RDP accountant at δ = %s", delta),
		fmt.Sprintf("Audited: a Clopper–Pearson lower bound on ε (confidence %g) from a threshold test chosen on half of the runs and evaluated on the other half", conf),
		"it can refute a claim (a point above y = x), never certify one",
	}
	for i, m := range s.Mechanisms {
		rel := v.Relation(m.Label)
		if rel == "" {
			rel = "no"
		}
		notes = append(notes, fmt.Sprintf("%s: %s pair, %d runs per side", m.Label, strings.ReplaceAll(rel, "_", "-"), g.runs[i]))
	}
	return plotting.Caption{
		Line:  fmt.Sprintf("Claimed ε: RDP accountant at δ = %s; audited: Clopper–Pearson lower bound (confidence %g), which can refute a claim (above y = x), never certify one", delta, conf),
		Notes: notes,
	}
}
