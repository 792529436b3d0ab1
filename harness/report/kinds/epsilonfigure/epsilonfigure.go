// Package epsilonfigure is the "epsilon" figure kind, the default: a
// metric versus ε, one panel per dataset, one line per mechanism, with a
// band. It is written against report's exported View only, and registers
// itself in init (imported for its side effect by harness/report/kinds).
package epsilonfigure

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/report"
	"github.com/dplab/dplab/plotting"
)

// epsilonFigure is the default figure kind: a metric versus ε, one panel
// per dataset, one line per mechanism, with a band (CI, IQR or min–max).
type epsilonFigure struct {
	Title      string   `toml:"title"`      // figure title; default none
	Metric     string   `toml:"metric"`     // required: the metric on the y axis (test_mse, test_accuracy, …)
	Datasets   []string `toml:"datasets"`   // labels; default all
	Mechanisms []string `toml:"mechanisms"` // labels; default all
	Band       string   `toml:"band"`       // "ci" (default), "iqr", "minmax", "none"
	Center     string   `toml:"center"`     // "mean" (default) or "median"
	LogX       *bool    `toml:"log_x"`      // default true
	LogY       bool     `toml:"log_y"`      // log-scale y axis; default false
	XLabel     string   `toml:"x_label"`    // x axis label; default "ε"
	YLabel     string   `toml:"y_label"`    // y axis label; default the metric's title
	Columns    int      `toml:"columns"`    // panels per row; 0 means up to 2
	Formats    []string `toml:"formats"`    // default ["png", "svg"]
	Note       string   `toml:"note"`       // added to the caption file
	// TimeRatio names two mechanism labels [A, B]: each panel's note gives
	// A's mean wall time per fit over B's at the largest ε (the GaussMix
	// paper's "Faster by" of Figures 3 and 5).
	TimeRatio []string `toml:"time_ratio"`
	// BandMinTrials is the fewest trials a point's band is drawn from
	// (default 3: with 2 trials a Student-t CI has t = 12.7 and buries the
	// curves); set it to 1 or 2 to draw bands from fewer.
	BandMinTrials int `toml:"band_min_trials"`
	report.Layout     // legend, size, axes, reference lines

	name string
}

func init() {
	report.RegisterFigure("epsilon", report.Kind[report.Figure]{Params: epsilonFigure{}, Docs: kindDocs, Example: `metric = "test_mse"`, Decode: decode})
}

func decode(b *report.Block) (report.Figure, error) {
	f := epsilonFigure{name: b.Out.Name}
	if err := b.Decode(&f); err != nil {
		return nil, err
	}
	if err := plan.CheckMetric(b.Spec, b.Kind, b.Index, f.Metric); err != nil {
		return nil, err
	}
	var err error
	if f.Band, err = b.OneOf("band", f.Band, "ci", "ci", "iqr", "minmax", "none"); err != nil {
		return nil, err
	}
	if f.Center, err = b.OneOf("center", f.Center, "mean", "mean", "median"); err != nil {
		return nil, err
	}
	if err := f.Layout.Check(b, f.LogX == nil || *f.LogX, f.LogY); err != nil {
		return nil, err
	}
	if f.Formats, err = b.Formats(f.Formats, plotting.Formats); err != nil {
		return nil, err
	}
	if f.BandMinTrials < 0 {
		return nil, b.Errorf("band_min_trials", "band_min_trials = %d: want ≥ 1 (or 0 for the default %d)", f.BandMinTrials, report.DefaultBandMinTrials)
	}
	if len(f.TimeRatio) > 0 {
		if len(f.TimeRatio) != 2 || f.TimeRatio[0] == f.TimeRatio[1] {
			return nil, b.Errorf("time_ratio", "time_ratio names two different mechanism labels [numerator, denominator]")
		}
		if _, _, err := b.Labels(nil, f.TimeRatio); err != nil {
			return nil, b.Errorf("time_ratio", "%v", err)
		}
	}
	if f.Datasets, f.Mechanisms, err = b.Labels(f.Datasets, f.Mechanisms); err != nil {
		return nil, err
	}
	if f.TimeRatio = b.Spec.Kept(f.TimeRatio); len(f.TimeRatio) < 2 {
		f.TimeRatio = nil // a --quick run dropped one of the two
	}
	return &f, nil
}

// FileFormats implements report.Figure.
func (f *epsilonFigure) FileFormats() []string { return f.Formats }

// Draw implements report.Figure: a panel per shown dataset of the metric's
// task, a series per legend entry of its private cells (x the target ε),
// a reference line per non-private cell.
func (f *epsilonFigure) Draw(v *report.View) *plotting.Figure {
	s := v.Spec()
	m, _ := plan.LookupMetric(f.Metric)
	fig := &plotting.Figure{Name: f.name, Title: f.Title, XLabel: "ε", YLabel: m.Title, LogX: f.LogX == nil || *f.LogX, LogY: f.LogY, Columns: f.Columns}
	f.Layout.Apply(fig)
	if f.XLabel != "" {
		fig.XLabel = f.XLabel
	}
	var shown []int // the datasets with a panel: those of the metric's task
	for di, d := range s.Datasets {
		de, _ := datasets.Lookup(d.Name)
		if (len(f.Datasets) == 0 || slices.Contains(f.Datasets, d.Label)) && de.Info.Task == m.Task {
			shown = append(shown, di)
		}
	}
	wantMechanism := func(c report.Cell) bool {
		return len(f.Mechanisms) == 0 || slices.Contains(f.Mechanisms, s.Mechanisms[c.Mechanism].Label)
	}
	allScaled := v.ScaledY(m, shown...)
	if allScaled {
		fig.YLabel += report.ScaledYNote
	}
	if f.YLabel != "" {
		fig.YLabel = f.YLabel
	}
	cells := v.Cells()
	style := report.NewStyler()
	sparse := &report.SparseBands{Min: f.BandMinTrials}
	var ratios []timeRatio
	for _, di := range shown {
		d := s.Datasets[di]
		panel := plotting.Panel{Title: d.Label}
		if !allScaled && v.ScaledY(m, di) {
			panel.Title += report.ScaledYNote
		}
		if note, ok := v.SkipNote(di); ok {
			panel.Note = note
		}
		series := map[string]*plotting.Series{}
		var order []string
		for _, c := range cells {
			if c.Dataset != di || !wantMechanism(c) {
				continue
			}
			a, ok := v.Summary(c)
			if !ok {
				continue
			}
			st, ok := a.Metrics[f.Metric]
			if !ok {
				continue
			}
			y, lo, hi := report.CenterBand(st, m, f.Center, f.Band)
			label := v.Legend(c)
			if !c.Private {
				panel.References = append(panel.References, plotting.Reference{Label: label, Y: y})
				continue
			}
			sr, ok := series[label]
			if !ok {
				sr = &plotting.Series{Label: label, Style: style(label)}
				series[label] = sr
				order = append(order, label)
			}
			sr.X = append(sr.X, c.Epsilon)
			sr.Y = append(sr.Y, y)
			if f.Band != "none" {
				if !sparse.Enough(label, st.Count) {
					lo, hi = math.NaN(), math.NaN()
				}
				sr.Lo, sr.Hi = append(sr.Lo, lo), append(sr.Hi, hi)
			}
		}
		for _, label := range order {
			panel.Series = append(panel.Series, *series[label])
		}
		if eps, r, ok := wallRatio(v, cells, di, f.TimeRatio); ok {
			ratios = append(ratios, timeRatio{d.Label, eps, r})
		}
		fig.Panels = append(fig.Panels, panel)
	}
	var extra []string
	if fig.LogY {
		// A metric can be 0 (a test error on an easy split): such a center
		// or reference line is drawn at a floor, and the caption says so.
		// (Band ends ≤ 0 run to the bottom of the axes, plotting.logFloor.)
		if floor, used := report.ClampLogY(fig, 0, false); used {
			extra = append(extra, "log y: values ≤ 0 (a "+f.Center+" or reference line) drawn at the floor "+strconv.FormatFloat(floor, 'g', 3, 64))
		}
	}
	extra = append(extra, sparse.Note())
	extra = append(extra, f.Note, timeRatioText(f.TimeRatio, ratios))
	fig.Caption = v.Caption(f.Band, f.Center, func(c report.Cell) bool {
		return slices.Contains(shown, c.Dataset) && wantMechanism(c)
	}, extra...)
	return fig
}

// timeRatio is a panel's ratio of two mechanisms' mean wall times per fit
// at ε.
type timeRatio struct {
	panel  string
	eps, r float64
}

// timeRatioText states the panels' time ratios in one caption sentence:
// "AdaSSP / Mixing mean wall time per fit at ε = 2: 1.23×", or per panel
// "…at the largest ε: Crime 3.10× (ε = 10), Wine 2.00× (ε = 10)" ("" for
// none). (It used to be a second line of each panel's title.)
func timeRatioText(labels []string, ratios []timeRatio) string {
	switch len(ratios) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("%s / %s mean wall time per fit at ε = %.4g: %.2f×", labels[0], labels[1], ratios[0].eps, ratios[0].r)
	}
	var each []string
	for _, r := range ratios {
		each = append(each, fmt.Sprintf("%s %.2f× (ε = %.4g)", r.panel, r.r, r.eps))
	}
	return fmt.Sprintf("%s / %s mean wall time per fit at the largest ε: %s", labels[0], labels[1], strings.Join(each, ", "))
}

// wallRatio returns the ratio of the mean wall time per fit of the
// mechanisms labelled labels[0] and labels[1] on dataset di at the largest
// ε where both have trials, and that ε (ok false when there is none).
func wallRatio(v *report.View, cells []report.Cell, di int, labels []string) (eps, ratio float64, ok bool) {
	if len(labels) != 2 {
		return 0, 0, false
	}
	wall := [2]map[float64]float64{{}, {}}
	for _, c := range cells {
		a, ok := v.Summary(c)
		if c.Dataset != di || !ok || a.Trials == 0 {
			continue
		}
		for k, l := range labels {
			if v.Spec().Mechanisms[c.Mechanism].Label == l {
				wall[k][c.Epsilon] = a.WallMean
			}
		}
	}
	best := math.Inf(-1)
	for e := range wall[0] {
		if _, ok := wall[1][e]; ok && e > best && wall[1][e] > 0 {
			best = e
		}
	}
	if math.IsInf(best, -1) {
		return 0, 0, false
	}
	return best, wall[0][best] / wall[1][best], true
}
