package report

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/harness/run"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/plotting"
	"github.com/dplab/dplab/results"
)

// Issue 35: figures and tables fit for a paper by default.

// TestCaptionLineKeepsPrivacyMarks: the one line inside a figure (and
// under a table) says which accountant and δ gave ε and marks NON-PRIVATE
// tuning and a selection that is not private, naming the mechanisms; it
// fits on one line; the caption files beside each figure and table hold
// the rest (each mechanism's tuning in full, the band, the assumptions).
func TestCaptionLineKeepsPrivacyMarks(t *testing.T) {
	dir, recs := runTuned(t)
	s := spectest.MustParse(t, tunedSpec)
	figs, err := DrawFigures(s, recs)
	if err != nil {
		t.Fatal(err)
	}
	line := figs[0].Caption.Line
	for _, want := range []string{"Accountant: rdp, δ = 1e-05", "NON-PRIVATE tuning: oracle", "SELECTION NOT PRIVATE: validation, test"} {
		if !strings.Contains(line, want) {
			t.Errorf("caption line %q lacks %q", line, want)
		}
	}
	if n, err := plotting.CaptionLines(figs[0]); err != nil || n != 1 {
		t.Errorf("caption line on %d lines (%v): want 1", n, err)
	}
	for _, f := range []string{"figures/acc.caption.md", "tables/acc.caption.md", "tables/privacy.caption.md"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			line,
			"tuning: oracle: NON-PRIVATE tuning (best on the test set, not charged: ε spent = ∞",
			"validation: private tuning, poisson K with mean 3, runs charged, SELECTION NOT PRIVATE (validation rows scored without noise)",
			"test: private tuning, poisson K with mean 3, runs charged, SELECTION NOT PRIVATE (TEST rows scored without noise, the published protocol)",
			"Accountant: rdp (orders default)",
		} {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s lacks %q:\n%s", f, want, b)
			}
		}
	}
	tab, err := os.ReadFile(filepath.Join(dir, "tables", "acc.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(tab), line) || strings.Contains(string(tab), "eps_per_run") {
		t.Errorf("acc.md: want the caption line under the table and the rest in its caption file:\n%s", tab)
	}
}

// TestBandsNeedThreeTrials (issue 35: with 2 trials a Student-t band has
// t = 12.7 and buries the curves): a point of fewer than band_min_trials
// (default 3) trials gets no band, and the caption says so; band_min_trials
// = 2 draws it.
func TestBandsNeedThreeTrials(t *testing.T) {
	src := strings.Replace(spectest.Valid, "trials = 3", "trials = 2", 1)
	s := spectest.MustParse(t, src)
	dir := filepath.Join(t.TempDir(), "out")
	if _, _, err := runAndRender(s, run.Options{Jobs: 2, OutDir: dir, Cache: &run.DataCache{}}); err != nil {
		t.Fatal(err)
	}
	bands := func(src string) (drawn int, notes []string) {
		t.Helper()
		figs, err := DrawFigures(spectest.MustParse(t, src), stored(t, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range figs[0].Panels {
			for _, sr := range p.Series {
				for i := range sr.Lo {
					if !math.IsNaN(sr.Lo[i]) && !math.IsNaN(sr.Hi[i]) {
						drawn++
					}
				}
			}
		}
		return drawn, figs[0].Caption.Notes
	}
	drawn, notes := bands(src)
	if drawn != 0 || !strings.Contains(strings.Join(notes, "; "), "no band where a point has fewer than 3 trials (band_min_trials)") {
		t.Errorf("2 trials: %d band points drawn, caption %q: want none, and the caption saying why", drawn, notes)
	}
	asked := strings.Replace(src, `metric = "test_mse"`, "metric = \"test_mse\"\nband_min_trials = 2", 1)
	if drawn, notes := bands(asked); drawn == 0 || strings.Contains(strings.Join(notes, "; "), "no band") {
		t.Errorf("band_min_trials = 2: %d band points drawn, caption %q: want the bands", drawn, notes)
	}
}

// TestSkippedPanelSaysSoInFull (issue 35: a truncated "skipped … gise..."
// panel): the panel of a dataset whose files are absent names the files
// and the command that fetches them, in full, and no path of the machine.
func TestSkippedPanelSaysSoInFull(t *testing.T) {
	src := strings.Replace(spectest.Valid, "[[mechanism]]", "[[dataset]]\nname = \"wine\"\noptional = true\n\n[[mechanism]]", 1)
	s := spectest.MustParse(t, src)
	dir := filepath.Join(t.TempDir(), "out")
	data := t.TempDir()
	if _, _, err := runAndRender(s, run.Options{Jobs: 2, OutDir: dir, DataDir: data, Cache: &run.DataCache{}}); err != nil {
		t.Fatal(err)
	}
	figs, err := DrawFigures(s, stored(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	var note string
	for _, p := range figs[0].Panels {
		if strings.HasPrefix(p.Title, "Wine") {
			note = p.Note
		}
	}
	if !strings.HasPrefix(note, "skipped: dataset wine: missing ") || !strings.HasSuffix(note, "(dplab datasets fetch wine)") ||
		strings.Contains(note, "...") || strings.Contains(note, data) {
		t.Errorf("skipped panel says %q: want the missing files in full and the fetch command, no path", note)
	}
}

// TestAxisKeys: a figure's axis limits, ticks and horizontal reference
// lines are spec keys (x_min, x_max, y_min, y_max, x_ticks, y_ticks,
// hline: a number or a list), checked at load with the key named.
func TestAxisKeys(t *testing.T) {
	src := strings.Replace(spectest.Valid, `metric = "test_mse"`, "metric = \"test_mse\"\ny_min = 0\ny_max = 0.5\nx_ticks = [0.5, 2]\nhline = 0.1", 1)
	s := spectest.MustParse(t, src)
	dir := filepath.Join(t.TempDir(), "out")
	if _, _, err := runAndRender(s, run.Options{Jobs: 2, OutDir: dir, Cache: &run.DataCache{}}); err != nil {
		t.Fatal(err)
	}
	figs, err := DrawFigures(s, stored(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	f := figs[0]
	if f.Y.Min == nil || *f.Y.Min != 0 || f.Y.Max == nil || *f.Y.Max != 0.5 || len(f.X.Ticks) != 2 || len(f.HLines) != 1 || f.HLines[0] != 0.1 {
		t.Errorf("figure axes x %+v, y %+v, hlines %v", f.X, f.Y, f.HLines)
	}
	for _, tc := range []struct{ keys, key, want string }{
		{"y_min = 1\ny_max = 0.5", "y_min", "want min < max"},
		{"log_y = true\ny_min = 0", "y_min", "> 0 (a log axis)"},
		{"x_ticks = [0, 1]", "x_ticks", "> 0 (a log axis)"}, // ε is on a log axis
		{"hline = \"one\"", "hline", "want a number or a list of numbers"},
		{"hline = [1, \"two\"]", "hline", "want a number or a list of numbers"},
		{"log_y = true\nhline = -1", "hline", "want values > 0 on a log y axis"},
	} {
		bad := strings.Replace(spectest.Valid, `metric = "test_mse"`, "metric = \"test_mse\"\n"+tc.keys, 1)
		err := Check(spectest.MustParse(t, bad))
		if err == nil || !strings.Contains(err.Error(), "figure[0]."+tc.key) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v; want an error at figure[0].%s saying %q", tc.keys, err, tc.key, tc.want)
		}
	}
}

// TestCaptionPhrases: a phrase is stated once, followed by the labels and
// groups it concerns unless it concerns every one shown; a curve's source
// splits at "; " outside parentheses only.
func TestCaptionPhrases(t *testing.T) {
	var p phrases
	for _, g := range []string{"A", "B, b"} {
		for _, l := range []string{"M1", "M2, x"} {
			p.show(g, l)
			p.add("everywhere", g, l)
		}
	}
	p.add("one", "A", "M1")
	p.add("group", "B, b", "M1")
	p.add("group", "B, b", "M2, x")
	p.add("label", "A", "M2, x")
	p.add("label", "B, b", "M2, x")
	want := []string{"everywhere", "one (M1 on A)", "group (B, b)", "label (M2, x)"}
	if got := p.texts(); !slices.Equal(got, want) {
		t.Errorf("phrases %q, want %q", got, want)
	}
	if got := splitTop("a (b; c); d [e; f]; g", "; "); !slices.Equal(got, []string{"a (b; c)", "d [e; f]", "g"}) {
		t.Errorf("splitTop: %q", got)
	}
}

// TestCaptionSaysExternalCode: a figure or table showing an external
// mechanism's cells says so, in its line ("external code: LABEL", still
// one line) and in a note naming the command and who chose the noise; one
// not showing them says nothing of it.
func TestCaptionSaysExternalCode(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "w.py"), []byte("# a worker\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `name = "ext"
seed = 1
trials = 3
epsilon = [1, 2]
delta = 1e-5
[[dataset]]
name = "synthetic-linear"
label = "Lin"
params = { n = 100, d = 3 }
[[mechanism]]
name = "external"
label = "Ext"
[mechanism.external]
command = ["python3", "w.py"]
mode = "declare"
[[mechanism]]
name = "adassp"
label = "AdaSSP"
[[figure]]
name = "both"
metric = "test_mse"
[[figure]]
name = "builtin"
metric = "test_mse"
mechanisms = ["AdaSSP"]
`
	path := filepath.Join(dir, "ext.toml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path, spec.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var recs []results.Record
	for _, c := range spectest.Cells(t, s) {
		for trial := range s.Trials {
			recs = append(recs, results.Record{Schema: results.SchemaVersion, Experiment: s.Name, CellKey: c.Key, Dataset: "Lin",
				Mechanism: c.Entry.Info.Name, Label: c.Label, Epsilon: results.Float(c.Epsilon), Trial: trial, Status: results.StatusOK,
				Metrics: map[string]results.Float{"test_mse": results.Float(1 + trial)},
				Privacy: results.Privacy{EpsTarget: results.Float(c.Epsilon), EpsSpent: results.Float(c.Epsilon), Delta: 1e-5, Accountant: "rdp"}})
		}
	}
	figs, err := DrawFigures(s, recs)
	if err != nil {
		t.Fatal(err)
	}
	if line := figs[0].Caption.Line; !strings.Contains(line, "; external code: Ext") {
		t.Errorf("caption line %q does not say Ext is external code", line)
	}
	if n, err := plotting.CaptionLines(figs[0]); err != nil || n != 1 {
		t.Errorf("caption line on %d lines (%v): want 1", n, err)
	}
	note := `external code: Ext is a worker process running "python3 w.py" (mode declare: the worker chose its noise`
	if !slices.ContainsFunc(figs[0].Caption.Notes, func(n string) bool { return strings.HasPrefix(n, note) }) {
		t.Errorf("caption notes %q lack %q", figs[0].Caption.Notes, note)
	}
	if c := figs[1].Caption; strings.Contains(c.Line, "external") || slices.ContainsFunc(c.Notes, func(n string) bool { return strings.Contains(n, "external code") }) {
		t.Errorf("a figure of AdaSSP alone says external code: %q %q", c.Line, c.Notes)
	}
}
