package report

import (
	"fmt"
	"math"
	"strconv"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/plotting"
)

// iterationsFigure is a per-iteration figure: x = iteration t (0 … T), y =
// a trace the mechanisms record (results.Record.Traces, e.g.
// "excess_objective"), one line per mechanism label (the mean over trials at
// each t) with a band, one panel per dataset or, with panel_by, per value
// of a mechanism param. Non-private mechanisms are dashed lines.
type iterationsFigure struct {
	Trace      string    `toml:"trace"`      // required: the trace's name
	PanelBy    string    `toml:"panel_by"`   // a mechanism param key: one panel per value; default one panel per dataset
	Datasets   []string  `toml:"datasets"`   // labels; default all
	Mechanisms []string  `toml:"mechanisms"` // labels; default all
	Epsilon    []float64 `toml:"epsilon"`    // ε of the private cells to draw; default all (the legend then names ε when several)
	Band       string    `toml:"band"`       // "minmax" (default), "ci", "none"
	LogY       *bool     `toml:"log_y"`      // default true
	Floor      float64   `toml:"floor"`      // log y: values ≤ 0 are drawn at this floor; 0 means a tenth of the decade of the smallest positive value drawn
	// BandMinTrials is the fewest trials a point's band is drawn from
	// (default 3); set it to 1 or 2 to draw bands from fewer.
	BandMinTrials int      `toml:"band_min_trials"`
	Title         string   `toml:"title"`   // figure title; default none
	XLabel        string   `toml:"x_label"` // default "iteration t"
	YLabel        string   `toml:"y_label"` // default the trace's name
	Columns       int      `toml:"columns"` // panels per row; 0 means up to 2
	Formats       []string `toml:"formats"` // default ["png", "svg"]
	Note          string   `toml:"note"`    // added to the caption file
	Layout                 // legend, size, axes, reference lines

	// PanelTitles titles the panels by their panel_by value, e.g.
	// { label = "…" }; default "<panel_by> = <value>".
	PanelTitles map[string]string `toml:"panel_titles"`

	name string
	sel  iterSpec
}

func init() {
	RegisterFigure("iterations", Kind[Figure]{
		Params:  iterationsFigure{},
		Example: "trace = \"excess_objective\"\npanel_by = \"split\"\ntitle = \"Excess objective per iteration\"",
		Decode: func(b *Block) (Figure, error) {
			f := iterationsFigure{name: b.Out.Name}
			if err := b.Decode(&f); err != nil {
				return nil, err
			}
			f.sel = iterSpec{Trace: f.Trace, PanelBy: f.PanelBy, PanelTitles: f.PanelTitles, Datasets: f.Datasets, Mechanisms: f.Mechanisms, Epsilon: f.Epsilon}
			if err := checkIterSpec(b, &f.sel); err != nil {
				return nil, err
			}
			var err error
			if f.Band, err = b.OneOf("band", f.Band, "minmax", "minmax", "ci", "none"); err != nil {
				return nil, err
			}
			if err := f.Layout.Check(b, false, f.LogY == nil || *f.LogY); err != nil {
				return nil, err
			}
			if f.Formats, err = b.Formats(f.Formats, plotting.Formats); err != nil {
				return nil, err
			}
			if f.Floor < 0 || math.IsInf(f.Floor, 0) || math.IsNaN(f.Floor) {
				return nil, b.Errorf("floor", "floor = %v: want a finite value > 0 (or 0 for the default)", f.Floor)
			}
			if f.BandMinTrials < 0 {
				return nil, b.Errorf("band_min_trials", "band_min_trials = %d: want ≥ 1 (or 0 for the default %d)", f.BandMinTrials, DefaultBandMinTrials)
			}
			if f.Columns < 0 {
				return nil, b.Errorf("columns", "columns = %d: want ≥ 1 (or 0 for the default)", f.Columns)
			}
			return &f, nil
		}})
}

func (f *iterationsFigure) FileFormats() []string { return f.Formats }

// unbounded is the range of a trace's values: any (a trace is not a metric).
var unbounded = plan.Metric{Min: math.Inf(-1), Max: math.Inf(1)}

// draw implements Figure.
func (f *iterationsFigure) Draw(v *View) *plotting.Figure {
	logY := f.LogY == nil || *f.LogY
	fig := &plotting.Figure{Name: f.name, Title: f.Title, XLabel: "iteration t", YLabel: f.Trace, LogY: logY,
		Columns: f.Columns}
	f.Layout.Apply(fig)
	if f.XLabel != "" {
		fig.XLabel = f.XLabel
	}
	if f.YLabel != "" {
		fig.YLabel = f.YLabel
	}
	panels := v.iterPanels(&f.sel)
	style := NewStyler()
	sparse := &SparseBands{Min: f.BandMinTrials}
	for _, p := range panels {
		panel := plotting.Panel{Title: p.title, Note: p.note}
		for _, l := range p.lines {
			s := plotting.Series{Label: l.label, Style: style(l.label), Dashed: !l.private}
			for t, st := range l.stats {
				y, lo, hi := CenterBand(st, unbounded, "mean", f.Band)
				s.X, s.Y = append(s.X, float64(t)), append(s.Y, y)
				if f.Band != "none" {
					if !sparse.Enough(l.label, st.Count) {
						lo, hi = math.NaN(), math.NaN()
					}
					s.Lo, s.Hi = append(s.Lo, lo), append(s.Hi, hi)
				}
			}
			panel.Series = append(panel.Series, s)
		}
		fig.Panels = append(fig.Panels, panel)
	}
	var extra []string
	if logY {
		if floor, used := ClampLogY(fig, f.Floor, true); used {
			extra = append(extra, "log y: values ≤ 0 (mean or band) drawn at the floor "+strconv.FormatFloat(floor, 'g', 3, 64))
		}
	}
	extra = append(extra, trialsPerLine(panels), sparse.Note(),
		"x: iteration t (t = 0 is the starting point)",
		fmt.Sprintf("y: the trace %q, computed from the training data without noise (evaluation only, not released)", f.Trace),
		"dashed: non-private", f.Note)
	fig.Caption = v.caption(f.Band, "mean", v.iterKeep(&f.sel), extra...)
	return fig
}
