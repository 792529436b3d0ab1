package plotting

import (
	"bytes"
	"encoding/csv"
	"flag"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func sampleFigure() *Figure {
	eps := []float64{0.1, 0.316, 1, 3.16, 10}
	return &Figure{
		Name: "sample", Title: "Sample", XLabel: "ε", YLabel: "test MSE", LogX: true,
		Caption: Caption{Line: "accountant rdp, δ = 1e-6, tuning none", Notes: []string{"every trial's split is fixed"}},
		Panels: []Panel{
			{Title: "A", Series: []Series{
				{Label: "AdaSSP", X: eps, Y: []float64{3, 1, .5, .3, .25}, Lo: []float64{2.5, .8, .45, .28, .24}, Hi: []float64{3.5, 1.2, .55, .32, .26}},
				{Label: "Mixing", X: eps, Y: []float64{2, .8, .4, .28, .24}, Style: 1},
			}, References: []Reference{{Label: "non-private", Y: .22}}},
			{Title: "B", Note: "speed-up 3×", Series: []Series{
				{Label: "AdaSSP", X: eps, Y: []float64{4, 2, 1, .5, .3}},
			}},
		},
	}
}

func TestRenderIsDeterministic(t *testing.T) {
	for _, format := range Formats {
		a, err := Render(sampleFigure(), format)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		b, err := Render(sampleFigure(), format)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) || len(a) < 1000 {
			t.Fatalf("%s: two renders of the same figure differ (or are empty: %d bytes)", format, len(a))
		}
	}
}

func TestWriteFigureFiles(t *testing.T) {
	dir := t.TempDir()
	paths, err := Write(sampleFigure(), dir, Formats...)
	if err != nil || len(paths) != 4 {
		t.Fatalf("Write: %v %v, want the png, the svg and the two caption files", paths, err)
	}
	png, _ := os.ReadFile(filepath.Join(dir, "sample.png"))
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Error("sample.png is not a PNG")
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "sample.svg"))
	if !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("AdaSSP")) {
		t.Error("sample.svg lacks the svg element or the legend text")
	}
}

func TestFigureValidation(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Figure)
		want   string
	}{
		{"non-positive x on log axis", func(f *Figure) { f.Panels[0].Series[0].X = []float64{0, 1, 2, 3, 4} }, "log axis"},
		{"length mismatch", func(f *Figure) { f.Panels[0].Series[1].Y = []float64{1} }, "lengths differ"},
		{"log y with zero", func(f *Figure) { f.LogY = true; f.Panels[0].References[0].Y = 0 }, "log axis"},
		{"no panels", func(f *Figure) { f.Panels = nil }, "no panels"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := sampleFigure()
			tc.modify(f)
			_, err := Render(f, "svg")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
	if _, err := Render(sampleFigure(), "pdf"); err == nil {
		t.Error("unknown format accepted")
	}
}

func sampleTable() *Table {
	return &Table{
		Name: "mse", Title: "Test MSE on Boston", RowHeader: "ε", Better: Lower,
		Columns: []string{"AdaSSP", "Linear mixing", "Sheffet_17"},
		Rows:    []string{"0.1", "1"},
		Cells: [][]Entry{
			{{Mean: 0.51234, Half: 0.0213, Present: true}, {Mean: 0.31, Half: 0.012, Present: true}, {}},
			{{Mean: 0.1, Half: 0.004, Present: true}, {Mean: 0.1, Half: 0.005, Present: true}, {Mean: 0.2, Half: 0, Present: true}},
		},
		Caption: Caption{Line: "Accountant: rdp; δ = 1e-6; tuning: none", Notes: []string{"mean with 95% CI (1.96·SE) over 20 trials"}},
	}
}

// TestTableGolden compares the three table formats with reviewed golden files
// (regenerate with go test ./plotting -update and review the diff).
func TestTableGolden(t *testing.T) {
	tab := sampleTable()
	for _, format := range TableFormats {
		var buf bytes.Buffer
		var err error
		switch format {
		case "md":
			err = tab.WriteMarkdown(&buf)
		case "tex":
			err = tab.WriteLaTeX(&buf)
		case "csv":
			err = tab.WriteCSV(&buf)
		}
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", "table."+format+".golden")
		if *update {
			os.WriteFile(golden, buf.Bytes(), 0o644)
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run with -update to create)", err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s output differs from %s:\n%s", format, golden, buf.String())
		}
	}
}

func TestCellFormatAndBest(t *testing.T) {
	tests := []struct {
		c      Entry
		digits int // Table.Digits (0: the default 4)
		want   string
	}{
		{Entry{Mean: 0.51234, Half: 0.0213, Present: true}, 0, "0.512 ± 0.021"},
		{Entry{Mean: 12.3456, Half: 0.5, Present: true}, 0, "12.35 ± 0.50"},
		{Entry{Mean: 812.3, Half: 40, Present: true}, 0, "812 ± 40"},
		{Entry{Mean: 0.25, Half: 0, Present: true}, 0, "0.25"},
		{Entry{Mean: 0.845771144279, Half: 1.1e-16, Present: true}, 0, "0.8458"}, // identical trials, rounding-level SE
		{Entry{}, 0, "—"},
		{Entry{Mean: 141691, Present: true}, 0, "1.417e+05"},
		{Entry{Mean: 141691, Present: true}, 6, "141691"}, // a row count, exactly
		{Entry{Mean: 0.845771144279, Present: true}, 6, "0.845771"},
		{Entry{Mean: 12.3456, Half: 0.5, Present: true}, 6, "12.35 ± 0.50"}, // an interval sets the decimals
	}
	for _, tc := range tests {
		tab := Table{Digits: tc.digits}
		if got := tc.c.format(" ± ", tab.digits()); got != tc.want {
			t.Errorf("format(%+v) with %d digits = %q, want %q", tc.c, tc.digits, got, tc.want)
		}
	}
}

// TestBoldOnlyClearWinners (issue 13): a row's best mean is bold only when
// its 95% CI overlaps no other entry's; overlapping CIs are a tie, marked †
// in Markdown and LaTeX with a note, and in the CSV's best and
// tied_for_best columns. (Before, the best mean was bold whatever the CIs.)
func TestBoldOnlyClearWinners(t *testing.T) {
	e := func(mean, half float64) Entry { return Entry{Mean: mean, Half: half, Present: true} }
	tests := []struct {
		name   string
		better Better
		row    []Entry
		win    int
		tied   []int
	}{
		{"clear winner", Lower, []Entry{e(0.31, 0.012), e(0.51, 0.02), {}}, 0, nil},
		{"overlapping CIs tie", Lower, []Entry{e(0.10, 0.004), e(0.105, 0.005), e(0.2, 0)}, -1, []int{0, 1}},
		{"touching CIs tie", Higher, []Entry{e(0.8, 0.05), e(0.9, 0.05)}, -1, []int{0, 1}},
		{"higher is better", Higher, []Entry{e(0.8, 0.01), e(0.9, 0.01)}, 1, nil},
		{"a third entry with a wide CI ties", Lower, []Entry{e(1, 0.1), e(2, 0.1), e(3, 2.5)}, -1, []int{0, 2}},
		{"one trial: unknown CI ties", Lower, []Entry{e(1, math.NaN()), e(5, 0.1)}, -1, []int{0, 1}},
		{"identical deterministic values tie", Lower, []Entry{e(1, 0), e(1, 0)}, -1, []int{0, 1}},
		{"a lone entry wins nothing", Lower, []Entry{e(1, 0.1), {}, {Present: true, Text: "n/a"}}, -1, nil},
		{"no direction", NoBest, []Entry{e(1, 0.1), e(5, 0.1)}, -1, nil},
	}
	for _, tc := range tests {
		cols := []string{"A", "B", "C"}[:len(tc.row)]
		tab := &Table{Name: "t", RowHeader: "ε", Rows: []string{"1"}, Columns: cols, Cells: [][]Entry{tc.row}, Better: tc.better}
		r := tab.rank(0)
		if r.win != tc.win || !slices.Equal(r.tied, tc.tied) {
			t.Errorf("%s: win %d tied %v, want %d %v", tc.name, r.win, r.tied, tc.win, tc.tied)
		}
	}

	tab := sampleTable() // row 0: a clear winner; row 1: 0.1 ± 0.004 and 0.1 ± 0.005 tie
	var md, tex, csvb bytes.Buffer
	if err := tab.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := tab.WriteLaTeX(&tex); err != nil {
		t.Fatal(err)
	}
	if err := tab.WriteCSV(&csvb); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| 0.1 | 0.512 ± 0.021 | **0.310 ± 0.012** | — |", "| 1 | 0.1000 ± 0.0040 † | 0.1000 ± 0.0050 † | 0.2 |", "† tied for best"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	for _, want := range []string{`\textbf{0.310 $\pm$ 0.012}`, `0.1000 $\pm$ 0.0040$^\dagger$`, "tied for best"} {
		if !strings.Contains(tex.String(), want) {
			t.Errorf("latex lacks %q:\n%s", want, tex.String())
		}
	}
	rows, err := csv.NewReader(&csvb).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	last := len(rows[0]) - 1
	if rows[0][last-1] != "best" || rows[0][last] != "tied_for_best" || rows[1][last-1] != "Linear mixing" || rows[1][last] != "" ||
		rows[2][last-1] != "" || rows[2][last] != "AdaSSP; Linear mixing" {
		t.Errorf("csv best and tie columns: %q", rows)
	}
}

// TestLogTicks (issue 35): a log axis has a tick at every decade, minor
// ticks at 2…9 times each decade up to maxMinorDecades decades, labels
// written as powers of ten, 10^{−7} (drawn 10⁻⁷, never "1e-7"), when a
// decade outside [10⁻², 10³] is in range, else as decimals; every decade
// labelled up to maxLogLabels decades (every k-th beyond, the others
// ticked unlabelled); 1 and 3 times each decade from one to three
// decades (an ε grid 0.1, 0.3, 1, 3, 10 has a label at each point: issue
// 13), 1, 2, 3 and 5 times on shorter ranges, and a range too short for
// four such labels gets a linear axis's labels.
func TestLogTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   []string // every label, in order
	}{
		{1.7, 1e7, []string{"10^{1}", "10^{2}", "10^{3}", "10^{4}", "10^{5}", "10^{6}", "10^{7}"}},
		{1e-6, 200, []string{"10^{−6}", "10^{−5}", "10^{−4}", "10^{−3}", "10^{−2}", "10^{−1}", "10^{0}", "10^{1}", "10^{2}"}},
		{1e-24, 1, []string{"10^{−24}", "10^{−21}", "10^{−18}", "10^{−15}", "10^{−12}", "10^{−9}", "10^{−6}", "10^{−3}", "10^{0}"}},
		{0.01, 1000, []string{"0.01", "0.1", "1", "10", "100", "1000"}},
		{0.001, 100, []string{"10^{−3}", "10^{−2}", "10^{−1}", "10^{0}", "10^{1}", "10^{2}"}},
		{0.1, 10, []string{"0.1", "0.3", "1", "3", "10"}},
		{0.3, 3, []string{"0.3", "1", "3"}},
		{0.05, 20, []string{"0.1", "0.3", "1", "3", "10"}},
		{2e-5, 5e-4, []string{"3×10^{−5}", "10^{−4}", "3×10^{−4}"}},
		{0.5, 4, []string{"0.5", "1", "2", "3"}},
		{0.8, 1.2, nil}, // linear labels, below
	} {
		ticks := (logTicks{}).Ticks(tc.lo, tc.hi)
		var labels []string
		decades := map[float64]bool{}
		for _, tk := range ticks {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
			if e := math.Log10(tk.Value); math.Abs(e-math.Round(e)) < 1e-9 {
				decades[math.Round(e)] = true
			}
		}
		if len(tc.want) == 0 {
			// A range within half a decade: linear labels, at least minLabels.
			if len(labels) < minLabels {
				t.Errorf("[%g, %g]: labels %v: want at least %d", tc.lo, tc.hi, labels, minLabels)
			}
			continue
		}
		if strings.Join(labels, " ") != strings.Join(tc.want, " ") {
			t.Errorf("[%g, %g]: labels %v, want %v", tc.lo, tc.hi, labels, tc.want)
		}
		for e := math.Ceil(math.Log10(tc.lo)); e <= math.Floor(math.Log10(tc.hi)); e++ {
			if !decades[e] {
				t.Errorf("[%g, %g]: no tick at 10^%g", tc.lo, tc.hi, e)
			}
		}
		minor := 0
		for _, tk := range ticks {
			if tk.Label == "" {
				minor++
			}
		}
		if d := math.Log10(tc.hi / tc.lo); d >= 1 && d <= maxMinorDecades && minor < 8*int(d)-len(labels) {
			t.Errorf("[%g, %g]: %d minor ticks over %.1f decades: want the 2…9 multiples", tc.lo, tc.hi, minor, d)
		}
	}
}

// TestFigureSize: a figure is DefaultPanelWidth × DefaultPanelHeight per
// panel at DefaultDPI (924 px per panel, twice the former 462 px) unless
// Width, Height and DPI say otherwise; out-of-range sizes are refused with
// the value and range named.
func TestFigureSize(t *testing.T) {
	pngSize := func(f *Figure) (int, int) {
		t.Helper()
		b, err := Render(f, "png")
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return cfg.Width, cfg.Height
	}
	f := sampleFigure() // two panels side by side
	if w, _ := pngSize(f); w != 2*924 {
		t.Errorf("default width %d px, want 2 × 924", w)
	}
	f.Width, f.Height, f.DPI = 7*vg.Inch, 3*vg.Inch, 300
	if w, h := pngSize(f); w != 2100 || h != 900 {
		t.Errorf("7 in × 3 in at 300 dpi: %d × %d px, want 2100 × 900", w, h)
	}
	svg, err := Render(f, "svg")
	if err != nil || !bytes.Contains(svg, []byte(`width="504pt" height="216pt"`)) {
		t.Errorf("svg of 7 in × 3 in lacks its size in points (504 × 216): %v %.200s", err, svg)
	}
	for _, tc := range []struct {
		w, h vg.Length
		dpi  float64
		want string
	}{
		{0.5 * vg.Inch, 0, 0, "width = 0.5: want inches in [1, 40]"},
		{0, 41 * vg.Inch, 0, "height = 41: want inches in [1, 40]"},
		{0, 0, 10, "dpi = 10: want pixels per inch in [50, 600]"},
		{0, 0, math.NaN(), "dpi = NaN"},
		{39 * vg.Inch, 0, 600, "width = 39 in at 600 dpi is 23400 px: want at most 12000 px"},
		{0, 1.5 * vg.Inch, 0, "leaves"}, // the footnote leaves too little for a panel
		{2 * vg.Inch, 0, 0, "width 2 in leaves 1 in per panel"},
	} {
		f := sampleFigure()
		f.Width, f.Height, f.DPI = tc.w, tc.h, tc.dpi
		if _, err := Render(f, "png"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("size %v × %v at %v dpi: %v, want %q", tc.w, tc.h, tc.dpi, err, tc.want)
		}
	}
	f = sampleFigure()
	f.Legend = "middle"
	if _, err := Render(f, "svg"); err == nil || !strings.Contains(err.Error(), `legend "middle"`) {
		t.Errorf("legend middle: %v", err)
	}
}

// crowdedFigure has data in its top right and bottom left corners, where a
// legend fixed at the top right (the placement before issue 13) covers
// points.
func crowdedFigure() *Figure {
	x := []float64{0.1, 0.2, 0.5, 1, 2, 5, 10}
	return &Figure{Name: "crowded", LogX: true, XLabel: "ε", YLabel: "accuracy", Panels: []Panel{{Title: "A", Series: []Series{
		{Label: "rising", X: x, Y: []float64{0.5, 0.55, 0.6, 0.8, 0.95, 0.97, 0.98},
			Lo: []float64{0.45, 0.5, 0.55, 0.75, 0.93, 0.96, 0.97}, Hi: []float64{0.55, 0.6, 0.65, 0.85, 0.97, 0.98, 0.99}},
		{Label: "flat top", X: x, Y: []float64{0.97, 0.97, 0.97, 0.97, 0.97, 0.98, 0.98}, Style: 1},
	}, References: []Reference{{Label: "non-private", Y: 0.99}}}}}
}

// TestLegendAvoidsData: the automatic legend covers no data point (marker
// or band vertex) where a top-right legend does; when every place inside
// the axes is covered it goes outside them, and still covers nothing.
func TestLegendAvoidsData(t *testing.T) {
	f := crowdedFigure()
	f.Legend = "top-right"
	if covered, err := LegendCovers(f); err != nil || len(covered) == 0 {
		t.Fatalf("a top-right legend covers nothing (%v): the test figure does not test placement", err)
	}
	f.Legend = ""
	covered, err := LegendCovers(f)
	if err != nil || len(covered) > 0 {
		t.Errorf("automatic legend: %v %v", covered, err)
	}
	lay, err := f.layout()
	if err != nil {
		t.Fatal(err)
	}
	pl := lay.panels[0]
	dataC := pl.plot.DataCanvas(draw.Canvas{Rectangle: pl.tile})
	if !inRect(lay.legendBox.Min, dataC.Rectangle) || !inRect(lay.legendBox.Max, dataC.Rectangle) {
		t.Errorf("legend %v not inside the axes %v although a place is free", lay.legendBox, dataC.Rectangle)
	}

	// Points everywhere: no free place inside.
	var xs, ys []float64
	for i := range 15 {
		for j := range 15 {
			xs, ys = append(xs, 1+float64(i)), append(ys, float64(j))
		}
	}
	full := &Figure{Name: "full", Panels: []Panel{{Title: "grid", Series: []Series{{Label: "everywhere", X: xs, Y: ys}}}}}
	lay, err = full.layout()
	if err != nil {
		t.Fatal(err)
	}
	pl = lay.panels[0]
	dataC = pl.plot.DataCanvas(draw.Canvas{Rectangle: pl.tile})
	if lay.legendBox.Min.X < dataC.Max.X {
		t.Errorf("legend %v overlaps the axes %v: want it outside", lay.legendBox, dataC.Rectangle)
	}
	if covered, err := LegendCovers(full); err != nil || len(covered) > 0 {
		t.Errorf("outside legend: %v %v", covered, err)
	}
	if _, err := Render(full, "png"); err != nil {
		t.Error(err)
	}
	// A legend wider than a third of the panel goes below the axes.
	full.Panels[0].Series[0].Label = "a method with a long label (tuning accounted, selection not private)"
	if lay, err = full.layout(); err != nil {
		t.Fatal(err)
	}
	pl = lay.panels[0]
	if lay.legendBox.Max.Y > pl.tile.Min.Y || lay.legendBox.Min.Y < 0 {
		t.Errorf("wide legend %v: want it below the panel's tile %v, on the canvas", lay.legendBox, pl.tile)
	}
}

// TestEmptyPanelOnLogAxes: a panel with nothing to draw (a skipped dataset)
// renders on log axes instead of failing gonum's "values must be greater
// than 0 for a log scale".
func TestEmptyPanelOnLogAxes(t *testing.T) {
	f := sampleFigure()
	f.LogY = true
	f.Panels = append(f.Panels, Panel{Title: "C", Note: "skipped: files absent"})
	for _, format := range Formats {
		if _, err := Render(f, format); err != nil {
			t.Errorf("%s: %v", format, err)
		}
	}
}

// TestSingleXOnLogAxis: a figure with one x value (a single ε) renders on a
// log x axis.
func TestSingleXOnLogAxis(t *testing.T) {
	f := &Figure{Name: "one", LogX: true, Panels: []Panel{{Title: "A", Series: []Series{
		{Label: "m", X: []float64{1}, Y: []float64{0.9}, Lo: []float64{0.85}, Hi: []float64{0.95}},
	}}}}
	for _, format := range Formats {
		if _, err := Render(f, format); err != nil {
			t.Errorf("%s: %v", format, err)
		}
	}
}

// TestLogBandFloor: on a log y axis a band reaching 0 (an MSE's CI clipped
// to its range) runs down to half the smallest positive value drawn, and
// does not stretch the axis over decades no point needs (it used to be
// drawn at y/1000); the axis leaves its headroom below that.
func TestLogBandFloor(t *testing.T) {
	x := []float64{0.1, 1, 10}
	f := &Figure{Name: "floor", LogX: true, LogY: true, Panels: []Panel{{Title: "A", Series: []Series{
		{Label: "a", X: x, Y: []float64{0.05, 0.01, 0.0006}, Lo: []float64{0.04, 0.005, 0}, Hi: []float64{0.06, 0.015, 0.0008}},
	}}}}
	lay, err := f.layout()
	if err != nil {
		t.Fatal(err)
	}
	// 0.0003 (half of 0.0006), less the headroom below it.
	if lo := lay.panels[0].plot.Y.Min; !(lo < 0.0003 && lo > 0.0002) {
		t.Errorf("y axis from %g, want just under 0.0003 (half of 0.0006)", lo)
	}
	if _, err := Render(f, "png"); err != nil {
		t.Error(err)
	}
}

// TestLogAxisLabelLeavesNoGap: a long y axis title on a log axis used to
// leave a gap between the panel title and the axes (gonum/plot pads for the
// title as if it were centred at the arithmetic mean of the range); the
// axes now start just under the panel title.
func TestLogAxisLabelLeavesNoGap(t *testing.T) {
	x := []float64{0.1, 1, 10}
	f := &Figure{Name: "gap", LogX: true, LogY: true, YLabel: "Test MSE (a long axis title, rescaled y)", Panels: []Panel{{Title: "A", Series: []Series{
		{Label: "a", X: x, Y: []float64{0.07, 0.01, 0.0007}},
	}}}}
	lay, err := f.layout()
	if err != nil {
		t.Fatal(err)
	}
	pl := lay.panels[0]
	dataC := pl.plot.DataCanvas(draw.Canvas{Rectangle: pl.tile})
	if gap := pl.tile.Max.Y - dataC.Max.Y; gap > 25 {
		t.Errorf("%.1f pt between the tile's top and the axes (title 12 pt): a gap", gap)
	}
}
