package plotting

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func sampleFigure() *Figure {
	eps := []float64{0.1, 0.316, 1, 3.16, 10}
	return &Figure{
		Name: "sample", Title: "Sample", XLabel: "ε", YLabel: "test MSE", LogX: true,
		Note: "accountant rdp, δ = 1e-6, tuning none",
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
	if err != nil || len(paths) != 2 {
		t.Fatalf("Write: %v %v", paths, err)
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
		Note: "Accountant: rdp; δ = 1e-6; tuning: none.",
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
	tab := sampleTable()
	if b := tab.best(1); !b[0] || !b[1] || b[2] {
		t.Errorf("row 1 best = %v, want the two tied 0.1 entries", b)
	}
	tab.Better = Higher
	if b := tab.best(0); !b[0] || b[1] {
		t.Errorf("higher-is-better row 0 best = %v", b)
	}
}

// TestLogTicks: labels never crowd: at most 8 labelled ticks on any range,
// every label is a power of ten over ≥ 3 decades, and 1, 2, 5 multiples
// are labelled on short ranges.
func TestLogTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi    float64
		maxLabels int
		want      []string
	}{
		{1.7, 1e7, 8, []string{"1e5", "1e7"}},
		{0.1, 10, 8, []string{"0.1", "0.2", "0.5", "1", "2", "5", "10"}},
		{1e-6, 200, 8, []string{"1e-6", "0.01", "1"}},
	} {
		var labels []string
		for _, tk := range (logTicks{}).Ticks(tc.lo, tc.hi) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if len(labels) > tc.maxLabels {
			t.Errorf("[%g, %g]: %d labels %v", tc.lo, tc.hi, len(labels), labels)
		}
		for _, w := range tc.want {
			found := false
			for _, l := range labels {
				found = found || l == w
			}
			if !found {
				t.Errorf("[%g, %g]: labels %v lack %q", tc.lo, tc.hi, labels, w)
			}
		}
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
