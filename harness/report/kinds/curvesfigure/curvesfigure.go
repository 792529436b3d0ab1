// Package curvesfigure is the "curves" figure kind: the spec's analytic
// [[curve]] blocks, one panel per curve panel. It is written against
// report's exported View only, and registers itself in init (imported for
// its side effect by harness/report/kinds).
package curvesfigure

import (
	"math"
	"slices"

	"github.com/dplab/dplab/harness/report"
	"github.com/dplab/dplab/plotting"
)

// curvesFigure draws the spec's analytic [[curve]] blocks, one panel per
// curve panel.
type curvesFigure struct {
	Curves        []string `toml:"curves"`  // curve labels; default all
	Panels        []string `toml:"panels"`  // panels to draw, in order; default all
	LogX          *bool    `toml:"log_x"`   // default false
	LogY          bool     `toml:"log_y"`   // log-scale y axis; default false
	Title         string   `toml:"title"`   // figure title; default none
	XLabel        string   `toml:"x_label"` // x axis label; default none
	YLabel        string   `toml:"y_label"` // y axis label; default none
	Columns       int      `toml:"columns"` // panels per row; 0 means up to 2
	Formats       []string `toml:"formats"` // default ["png", "svg"]
	Note          string   `toml:"note"`    // added to the caption file
	report.Layout          // legend, size, axes, reference lines

	name string
}

func init() {
	report.RegisterFigure("curves", report.Kind[report.Figure]{Params: curvesFigure{}, Docs: kindDocs, Example: `panels = ["p"]`, Decode: decode})
}

func decode(b *report.Block) (report.Figure, error) {
	f := curvesFigure{name: b.Out.Name}
	if err := b.Decode(&f); err != nil {
		return nil, err
	}
	if err := b.CheckCurves(f.Curves, f.Panels); err != nil {
		return nil, err
	}
	if err := f.Layout.Check(b, f.LogX != nil && *f.LogX, f.LogY); err != nil {
		return nil, err
	}
	var err error
	if f.Formats, err = b.Formats(f.Formats, plotting.Formats); err != nil {
		return nil, err
	}
	return &f, nil
}

// FileFormats implements report.Figure.
func (f *curvesFigure) FileFormats() []string { return f.Formats }

// Draw implements report.Figure: a series per curve (Dashed as its block
// says), styled by label across panels; undefined points, and values ≤ 0
// on a log y axis, are gaps the caption counts.
func (f *curvesFigure) Draw(v *report.View) *plotting.Figure {
	fig := &plotting.Figure{Name: f.name, Title: f.Title, XLabel: f.XLabel, YLabel: f.YLabel,
		LogX: f.LogX != nil && *f.LogX, LogY: f.LogY, Columns: f.Columns}
	f.Layout.Apply(fig)
	style := report.NewStyler()
	var undefined int
	panels := v.CurvePanels(f.Panels)
	for _, panel := range panels {
		pn := plotting.Panel{Title: panel}
		for i, c := range v.Spec().Curves {
			if c.Panel != panel || len(f.Curves) > 0 && !slices.Contains(f.Curves, c.Label) {
				continue
			}
			sr := plotting.Series{Label: c.Label, Style: style(c.Label), Dashed: c.Dashed}
			for _, p := range v.CurvePoints(i) {
				if p.Err != nil || math.IsInf(p.Y, 0) || fig.LogY && p.Y <= 0 {
					undefined++
					continue
				}
				sr.X, sr.Y = append(sr.X, p.X), append(sr.Y, p.Y)
			}
			pn.Series = append(pn.Series, sr)
		}
		fig.Panels = append(fig.Panels, pn)
	}
	fig.Caption = v.CurveCaption(f.Curves, panels, f.Note, undefined)
	return fig
}
