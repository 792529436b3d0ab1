package report

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/run"
	"github.com/dplab/dplab/results"
)

// TestBandsClippedToMetricRange (issue 13): with few trials the CI of an
// accuracy near 1 reached above 1 and that of an MSE near 0 below 0; the
// band is clipped to the metric's range, the centre is not.
func TestBandsClippedToMetricRange(t *testing.T) {
	acc, _ := plan.LookupMetric("test_accuracy")
	mse, _ := plan.LookupMetric("test_mse")
	near1 := results.Stat{Mean: 0.99, Median: 0.99, CILow: 0.95, CIHigh: 1.03, Q1: 0.98, Q3: 1, Min: 0.97, Max: 1}
	if y, lo, hi := CenterBand(near1, acc, "mean", "ci"); y != 0.99 || lo != 0.95 || hi != 1 {
		t.Errorf("accuracy band: %v [%v, %v], want 0.99 [0.95, 1]", y, lo, hi)
	}
	near0 := results.Stat{Mean: 0.01, CILow: -0.02, CIHigh: 0.04}
	if _, lo, hi := CenterBand(near0, mse, "mean", "ci"); lo != 0 || hi != 0.04 {
		t.Errorf("MSE band: [%v, %v], want [0, 0.04]", lo, hi)
	}
	if _, lo, hi := CenterBand(near0, mse, "mean", "none"); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("no band: [%v, %v]", lo, hi)
	}
	for _, m := range plan.Metrics {
		if !(m.Min < m.Max) {
			t.Errorf("metric %s: range [%v, %v] is empty (every metric states its range)", m.Name, m.Min, m.Max)
		}
	}
}

// TestScaledTargetInAxisTitle (issue 13): "Test MSE" says when the target
// was divided by max |y| of the training rows (scale.y = "max-abs", the
// default for regression), in the axis title when every panel's was, in
// the rescaled panels' titles when only some were.
func TestScaledTargetInAxisTitle(t *testing.T) {
	draw := func(src string) (ylabel string, titles []string) {
		t.Helper()
		s := spectest.MustParse(t, src)
		v, err := newView(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		outs, err := decodeOutputs(s)
		if err != nil {
			t.Fatal(err)
		}
		fig := outs.figures[0].Draw(&View{v})
		for _, p := range fig.Panels {
			titles = append(titles, p.Title)
		}
		return fig.YLabel, titles
	}
	if y, _ := draw(spectest.Valid); y != "Test MSE (y / max|y|)" {
		t.Errorf("default scaling: y label %q", y)
	}
	unscaled := strings.Replace(spectest.Valid, "params = { n = 400, d = 4, seed = 3 }", "params = { n = 400, d = 4, seed = 3 }\nscale = { y = \"none\" }", 1)
	if y, _ := draw(unscaled); y != "Test MSE" {
		t.Errorf("scale.y = none: y label %q", y)
	}
	mixed := strings.Replace(unscaled, "[[mechanism]]", "[[dataset]]\nname = \"synthetic-linear\"\nlabel = \"Lin2\"\nparams = { n = 300, d = 4, seed = 4 }\n\n[[mechanism]]", 1)
	y, titles := draw(mixed)
	if y != "Test MSE" || len(titles) != 2 || titles[0] != "Lin" || titles[1] != "Lin2 (y / max|y|)" {
		t.Errorf("mixed scaling: y label %q, panel titles %q", y, titles)
	}
}

// TestFootnoteNamesTheInterval: under the default ci = "auto" a figure of
// 3 trials per cell says its band is a Student-t interval; ci = "normal"
// keeps 1.96·SE.
func TestFootnoteNamesTheInterval(t *testing.T) {
	for _, tc := range []struct{ ci, want string }{
		{"", "mean with 95% CI (Student-t, n < 30) over 3 trials"},
		{"ci = \"normal\"\n", "mean with 95% CI (1.96·SE) over 3 trials"},
	} {
		s := spectest.MustParse(t, tc.ci+spectest.Valid)
		dir := filepath.Join(t.TempDir(), "out")
		if _, _, err := runAndRender(s, run.Options{OutDir: dir, Jobs: 2}); err != nil {
			t.Fatal(err)
		}
		figs, err := DrawFigures(s, stored(t, dir))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(captionText(figs[0].Caption), tc.want) {
			t.Errorf("ci %q: footnote %q lacks %q", tc.ci, captionText(figs[0].Caption), tc.want)
		}
	}
}
