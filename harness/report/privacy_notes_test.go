package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/run"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/plotting"
	"github.com/dplab/dplab/results"
)

// testDataDependent is the declaration of the test dataset
// "test-data-dependent": synthetic-linear, declared as if its loader read a
// statistic of the data, so the tests can follow a loader's declaration into
// records and footnotes without a data file.
const testDataDependent = "test loader: a column statistic over all rows, test rows included"

func init() {
	datasets.Register(datasets.Info{
		Name: "test-data-dependent", Title: "synthetic-linear with a declared data-dependent loader",
		Task: datasets.Regression, Synthetic: true, DataDependent: []string{testDataDependent},
	}, func(dir string, p datasets.LinearParams) (*datasets.Loaded, error) {
		e, err := datasets.Lookup("synthetic-linear")
		if err != nil {
			return nil, err
		}
		return e.Load(dir, func(v any) error { *v.(*datasets.LinearParams) = p; return nil })
	}, datasets.LinearParams{N: 50, D: 3})
}

// readSummary returns summary.csv of dir as one map per row, by column name.
func readSummary(t *testing.T, dir string) []map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, results.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("summary.csv: %d rows, %v", len(rows), err)
	}
	var out []map[string]string
	for _, r := range rows[1:] {
		m := map[string]string{}
		for j, h := range rows[0] {
			m[h] = r[j]
		}
		out = append(out, m)
	}
	return out
}

// footnotes returns the caption (line and notes) of every figure of s
// rendered from dir's records, and the text of every Markdown table
// written there with its caption file.
func footnotes(t *testing.T, s *spec.Spec, dir string) map[string]string {
	t.Helper()
	recs, err := results.Read(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := newView(s, recs)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := decodeOutputs(s)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for i, f := range outs.figures {
		out["figure "+s.Figures[i].Name] = captionText(f.Draw(&View{v}).Caption)
	}
	mds, _ := filepath.Glob(filepath.Join(dir, "tables", "*.md"))
	for _, p := range mds {
		if strings.HasSuffix(p, plotting.CaptionMarkdown) {
			continue
		}
		out["table "+filepath.Base(p)] = withCaption(t, p)
	}
	if len(out) == 0 {
		t.Fatal("no figure or table")
	}
	return out
}

var trialsRE = regexp.MustCompile(`over (\d+(–\d+)?) trials?( per cell)?`)

// TestFootnoteCountsStoredTrials (issue 9 item 10): after `run --trials 4`
// on a spec of 2 trials, summary.csv aggregates 4 trials per cell, and a
// later render of the unchanged spec must say "over 4 trials" in every
// figure and table footnote, not the spec's 2. A cell added later with the
// spec's 2 trials makes the count a per-cell range, "2–4 trials per cell".
func TestFootnoteCountsStoredTrials(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	src := strings.Replace(spectest.Valid, "trials = 3", "trials = 2", 1)
	if _, _, err := runAndRender(spectest.MustParse(t, src), run.Options{Jobs: 2, OutDir: dir, Trials: 4, Cache: &run.DataCache{}}); err != nil {
		t.Fatal(err)
	}
	s := spectest.MustParse(t, src)
	if _, err := Render(s, dir, nil); err != nil {
		t.Fatal(err)
	}
	for _, row := range readSummary(t, dir) {
		if row["count"] != "4" {
			t.Fatalf("summary.csv aggregates %s trials of %s, want 4", row["count"], row["label"])
		}
	}
	for name, note := range footnotes(t, s, dir) {
		if m := trialsRE.FindStringSubmatch(note); m == nil || m[0] != "over 4 trials" {
			t.Errorf("%s after --trials 4: footnote says %q, want \"over 4 trials\"", name, m)
		}
	}

	// One more ε: its cell has the spec's 2 trials, the others 4.
	src = strings.Replace(src, "epsilon = [0.5, 2]", "epsilon = [0.5, 2, 8]", 1)
	s = spectest.MustParse(t, src)
	if _, _, err := runAndRender(s, run.Options{Jobs: 2, OutDir: dir, Cache: &run.DataCache{}}); err != nil {
		t.Fatal(err)
	}
	for name, note := range footnotes(t, s, dir) {
		if m := trialsRE.FindStringSubmatch(note); m == nil || m[0] != "over 2–4 trials per cell" {
			t.Errorf("%s with cells of 2 and 4 trials: footnote says %q, want \"over 2–4 trials per cell\"", name, m)
		}
	}
}

// tunedSpec tunes DP-SGD with oracle tuning, with private tuning selecting
// on a validation split, and with private tuning selecting on the test set.
const tunedSpec = `name = "tuned"
seed = 3
trials = 2
epsilon = [1]
delta = 1e-5
[[dataset]]
name = "synthetic-logistic"
label = "Logit"
params = { n = 400, d = 4, seed = 1 }
split = { test = 0.2, validation = 0.2 }
scale = { x = "unit-rows" }
[[mechanism]]
name = "dpsgd"
label = "oracle"
params = { epochs = 1, batch = 64 }
[mechanism.tuning]
mode = "oracle"
candidates = { learning_rate = [0.01, 0.1, 1] }
[[mechanism]]
name = "dpsgd"
label = "validation"
params = { epochs = 1, batch = 64 }
[mechanism.tuning]
mode = "private"
mean = 3
select_on = "validation"
candidates = { learning_rate = [0.01, 0.1, 1] }
[[mechanism]]
name = "dpsgd"
label = "test"
params = { epochs = 1, batch = 64 }
[mechanism.tuning]
mode = "private"
mean = 3
select_on = "test"
candidates = { learning_rate = [0.01, 0.1, 1] }
[[figure]]
name = "acc"
metric = "test_accuracy"
[[table]]
name = "acc"
metric = "test_accuracy"
[[table]]
name = "privacy"
kind = "privacy"
`

// runTuned runs tunedSpec into a fresh directory and returns it with the
// records.
func runTuned(t *testing.T) (string, []results.Record) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	if _, _, err := runAndRender(spectest.MustParse(t, tunedSpec), run.Options{Jobs: 2, OutDir: dir, Cache: &run.DataCache{}}); err != nil {
		t.Fatal(err)
	}
	recs, err := results.Read(dir, nil)
	if err != nil || len(recs) != 6 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	return dir, recs
}

// TestOracleRecordsNoGuarantee (issue 9 item 13): an oracle-tuned record's
// eps_spent is +Inf (its ledger composes the released run with a
// NonPrivate event), the released run's own ε is eps_per_run, and
// summary.csv says so in its own columns: eps_spent_max "+Inf",
// eps_per_run_max that run's ε, privacy_note "NOT PRIVATE: oracle tuning".
func TestOracleRecordsNoGuarantee(t *testing.T) {
	dir, recs := runTuned(t)
	for _, r := range recs {
		if r.Label != "oracle" {
			continue
		}
		p := r.Privacy
		ev, err := accounting.UnmarshalEvent(p.Event)
		if err != nil {
			t.Fatal(err)
		}
		c, ok := ev.(accounting.Composed)
		if !ok || len(c.Events) != 2 || c.Events[1] != accounting.Event(accounting.NonPrivate{}) {
			t.Fatalf("oracle ledger %s, want the released run composed with non_private", p.Event)
		}
		run, err := accounting.Config{}.Epsilon(c.Events[0], float64(p.Delta))
		if err != nil {
			t.Fatal(err)
		}
		if !math.IsInf(float64(p.EpsSpent), 1) || float64(p.EpsPerRun) != run.Epsilon || p.Selection != results.SelectionOracle {
			t.Errorf("oracle trial %d: eps_spent %v (want +Inf), eps_per_run %v (want the run's %v), selection %q",
				r.Trial, p.EpsSpent, p.EpsPerRun, run.Epsilon, p.Selection)
		}
	}
	var seen bool
	for _, row := range readSummary(t, dir) {
		if row["label"] != "oracle" {
			continue
		}
		seen = true
		perRun, err := strconv.ParseFloat(row["eps_per_run_max"], 64)
		if row["eps_spent_max"] != "" || row["private"] != "false" || err != nil || !(perRun > 0 && perRun <= 1) ||
			!strings.HasPrefix(row["privacy_note"], "NOT PRIVATE: oracle tuning") || row["selection"] != results.SelectionOracle {
			t.Errorf("summary.csv oracle row: eps_spent_max %q, eps_per_run_max %q, privacy_note %q, selection %q",
				row["eps_spent_max"], row["eps_per_run_max"], row["privacy_note"], row["selection"])
		}
	}
	if !seen {
		t.Fatal("no oracle row in summary.csv")
	}
}

// TestNonPrivateSelectionLabelled (issue 9 item 12): private tuning scores
// its runs without noise, on validation or test rows; its records say which
// (privacy.selection) and list the scored rows as treated public, its ε
// still meets the target, summary.csv says the ε protects the training rows
// only, and every figure and table footnote says "SELECTION NOT PRIVATE".
func TestNonPrivateSelectionLabelled(t *testing.T) {
	dir, recs := runTuned(t)
	want := map[string][2]string{
		"validation": {results.SelectionValidation, results.AssumeValidationPublic},
		"test":       {results.SelectionTest, results.AssumeTestPublic},
	}
	for _, r := range recs {
		w, ok := want[r.Label]
		if !ok {
			continue
		}
		p := r.Privacy
		if p.Selection != w[0] || !slices.Contains(p.Assumptions, w[1]) || float64(p.EpsSpent) > float64(p.EpsTarget) {
			t.Errorf("%s trial %d: selection %q, assumptions %q, ε %v of %v; want selection %q and %q among the assumptions",
				r.Label, r.Trial, p.Selection, p.Assumptions, p.EpsSpent, p.EpsTarget, w[0], w[1])
		}
	}
	for _, row := range readSummary(t, dir) {
		if w, ok := want[row["label"]]; ok && (row["selection"] != w[0] || !strings.Contains(row["privacy_note"], "training rows only")) {
			t.Errorf("summary.csv %s: selection %q, privacy_note %q", row["label"], row["selection"], row["privacy_note"])
		}
	}
	for name, note := range footnotes(t, spectest.MustParse(t, tunedSpec), dir) {
		for _, label := range []string{"validation", "test"} {
			if !strings.Contains(note, label+": private tuning") || !regexp.MustCompile(label+`: private tuning[^;]*SELECTION NOT PRIVATE`).MatchString(note) {
				t.Errorf("%s: the footnote does not say %s's selection is not private:\n%s", name, label, note)
			}
		}
	}
}

// assumptionSpec: regression data scaled by the training rows' maximum row
// norm and max |y|, δ a rule in n, an add/remove mechanism (AdaSSP) and a
// zero-out one (GaussMix's linear mixing), on a dataset whose loader
// declares a data-dependent statistic and on plain synthetic data.
const assumptionSpec = `name = "assume"
seed = 2
trials = 2
epsilon = [1, 4]
delta = "1/n^2"
[[dataset]]
name = "test-data-dependent"
label = "Declared"
params = { n = 300, d = 4, seed = 1 }
scale = { x = "max-row-norm", y = "max-abs" }
[[dataset]]
name = "synthetic-linear"
label = "Plain"
params = { n = 300, d = 4, seed = 2 }
scale = { x = "max-row-norm", y = "max-abs" }
[[mechanism]]
name = "adassp"
label = "AdaSSP"
[[mechanism]]
name = "linear-mixing"
label = "Mixing"
[[mechanism]]
name = "ridge"
label = "Ridge"
[[figure]]
name = "mse"
metric = "test_mse"
[[table]]
name = "mse"
metric = "test_mse"
[[table]]
name = "privacy"
kind = "privacy"
[[table]]
name = "runtime"
kind = "runtime"
`

// TestAssumptionsRecordedAndFootnoted (issue 9 item 14): every private
// record lists what its ε rests on but does not account for: the loader's
// declared data-dependent statistic (on that dataset only), the scaling's
// maximum row norm and max |y| of the training rows, and, for the add/remove
// ledger only, the public training size n that sets δ = 1/n^2; the
// non-private reference lists nothing. Every assumption of every record
// appears verbatim in every figure and table footnote of the dataset, with
// the datasets or mechanisms it holds for when it does not hold for all, and
// the fit's counters are stored as non-private diagnostics
// ("diagnostics_nonprivate", no "stats").
func TestAssumptionsRecordedAndFootnoted(t *testing.T) {
	s := spectest.MustParse(t, assumptionSpec)
	dir := filepath.Join(t.TempDir(), "out")
	if _, _, err := runAndRender(s, run.Options{Jobs: 2, OutDir: dir, Cache: &run.DataCache{}}); err != nil {
		t.Fatal(err)
	}
	recs, err := results.Read(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	publicN := "public n: the training size n, which sets δ = 1/n^2, is treated as public (add/remove neighbours)"
	byDataset := map[string]map[string]bool{} // dataset label -> its records' assumptions
	for _, r := range recs {
		a := r.Privacy.Assumptions
		if r.Mechanism == "ridge" {
			if len(a) != 0 {
				t.Errorf("non-private %s lists assumptions %q", r.Label, a)
			}
			continue
		}
		want := []string{"x divided by the maximum row norm of the training rows", "y divided by max |y| of the training rows"}
		if r.Dataset == "Declared" {
			want = append([]string{testDataDependent}, want...)
		}
		if r.Mechanism == "adassp" {
			want = append(want, publicN) // GaussMix's zero-out relation keeps n fixed
		}
		if !slices.Equal(a, want) {
			t.Errorf("%s on %s: assumptions %q, want %q", r.Label, r.Dataset, a, want)
		}
		if byDataset[r.Dataset] == nil {
			byDataset[r.Dataset] = map[string]bool{}
		}
		for _, x := range a {
			byDataset[r.Dataset][x] = true
		}
	}
	// The figure shows both datasets; tables have one per dataset.
	notes := footnotes(t, s, dir)
	if len(notes) != 7 {
		t.Fatalf("%d footnotes, want the figure's and 6 tables'", len(notes))
	}
	for name, note := range notes {
		note = plotting.PlainText(note) // caption files write "n^2" as n²
		shown := []string{"Declared", "Plain"}
		if strings.HasSuffix(name, "-declared.md") {
			shown = []string{"Declared"}
		} else if strings.HasSuffix(name, "-plain.md") {
			shown = []string{"Plain"}
		}
		for _, ds := range shown {
			for x := range byDataset[ds] {
				if !strings.Contains(note, plotting.PlainText(x)) {
					t.Errorf("%s: the footnote omits the assumption %q recorded on %s:\n%s", name, x, ds, note)
				}
			}
		}
		// Linear mixing's zero-out relation fixes n: the public-n phrase is
		// AdaSSP's alone, and the footnote must not leave it to every curve.
		if !strings.Contains(note, plotting.PlainText(publicN)+" (AdaSSP)") {
			t.Errorf("%s: the public-n assumption holds for AdaSSP only but is not attributed to it:\n%s", name, note)
		}
		switch {
		case len(shown) == 2 && !strings.Contains(note, testDataDependent+" (Declared)"):
			t.Errorf("%s: the loader's statistic holds for Declared only but is not attributed to it:\n%s", name, note)
		case shown[0] == "Plain" && strings.Contains(note, testDataDependent):
			t.Errorf("%s: Declared's loader statistic in Plain's footnote:\n%s", name, note)
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, results.TrialsFile))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		if _, ok := m["stats"]; ok {
			t.Errorf("line %d: counters stored as \"stats\", not marked non-private", i+1)
		}
	}
}

// TestSchema1StoreStillRendersHonestly: a store written before schema 2
// (counters under "stats", an oracle record's one-run ε as eps_spent, no
// selection or assumptions) still resumes without rerunning anything, and
// renders as a current store would: oracle rows +Inf and NOT PRIVATE in
// summary.csv, the assumptions in the footnotes (the selection's, and that
// the others were not recorded: results' decoder upgrades the records).
func TestSchema1StoreStillRendersHonestly(t *testing.T) {
	dir, recs := runTuned(t)
	var old bytes.Buffer
	for _, r := range recs {
		p := &r.Privacy
		if p.Tuning == spec.TuneOracle {
			p.EpsSpent, p.EpsPerRun = p.EpsPerRun, 0 // schema 1: one run's ε as the total
		}
		p.Selection, p.Assumptions = "", nil
		r.Schema = 1
		b, err := json.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		b = bytes.Replace(b, []byte(`"diagnostics_nonprivate":`), []byte(`"stats":`), 1)
		old.Write(append(b, '\n'))
	}
	if err := os.WriteFile(filepath.Join(dir, results.TrialsFile), old.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, _, err := runAndRender(spectest.MustParse(t, tunedSpec), run.Options{Jobs: 2, OutDir: dir, Cache: &run.DataCache{}})
	if err != nil || rep.Ran != 0 || rep.Stored != 6 {
		t.Fatalf("resume of a schema-1 store: ran %d, stored %d, %v", rep.Ran, rep.Stored, err)
	}
	got, err := results.Read(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range got {
		if _, ok := r.Diagnostics["total_steps"]; !ok {
			t.Errorf("%s: schema-1 stats not read as diagnostics: %v", r.Label, r.Diagnostics)
		}
	}
	for _, row := range readSummary(t, dir) {
		if row["label"] == "oracle" && (row["eps_spent_max"] != "" || row["private"] != "false" || !strings.HasPrefix(row["privacy_note"], "NOT PRIVATE")) {
			t.Errorf("schema-1 oracle row: eps_spent_max %q, privacy_note %q", row["eps_spent_max"], row["privacy_note"])
		}
		if row["label"] == "validation" && !strings.Contains(row["assumptions"], results.AssumeValidationPublic) {
			t.Errorf("schema-1 validation row: assumptions %q", row["assumptions"])
		}
	}
	for name, note := range footnotes(t, spectest.MustParse(t, tunedSpec), dir) {
		if !strings.Contains(note, results.AssumeValidationPublic) || !strings.Contains(note, plotting.PlainText(results.AssumeUnrecorded)) {
			t.Errorf("%s: schema-1 records rendered without their assumptions:\n%s", name, note)
		}
	}
	// results upgraded the records as it read them: every reader sees the
	// current schema, and the records claiming a guarantee say that their
	// other assumptions were not recorded.
	for _, r := range got {
		if r.Schema != results.SchemaVersion {
			t.Errorf("%s trial %d: read back as schema %d", r.Label, r.Trial, r.Schema)
		}
		if claims := !math.IsInf(float64(r.Privacy.EpsSpent), 1); r.Status == results.StatusOK && claims != slices.Contains(r.Privacy.Assumptions, results.AssumeUnrecorded) {
			t.Errorf("%s trial %d: ε spent %v, assumptions %q", r.Label, r.Trial, r.Privacy.EpsSpent, r.Privacy.Assumptions)
		}
	}
}

// TestDeltaReadsN: a δ rule reads n if its value changes with n anywhere,
// even when flat at small n (min(1e-6, 0.01/n) is 1e-6 up to n = 10⁴); a
// number or a rule in d alone does not.
func TestDeltaReadsN(t *testing.T) {
	for _, c := range []struct {
		rule string
		want bool
	}{
		{`1e-5`, false}, {`"1/n^2"`, true}, {`"min(1e-6, 0.01/n)"`, true}, {`"1/(d+1)^2"`, false}, {`"min(1e-5, 1/(n*d))"`, true},
	} {
		s := spectest.MustParse(t, strings.Replace(spectest.Valid, `delta = "min(1e-6, 0.01/n)"`, "delta = "+c.rule, 1))
		if got := s.Delta.ReadsN(); got != c.want {
			t.Errorf("δ = %s: reads n %v, want %v", c.rule, got, c.want)
		}
	}
}

// TestAssumptionsTextNamesWhere: a footnote phrase that holds for only some
// of the shown cells with a guarantee names the mechanisms, the datasets,
// both, or each dataset's mechanisms when that is not every combination;
// a phrase that holds everywhere names nothing, and cells without a
// guarantee (oracle tuning: ε spent +Inf) are not counted as places where
// a phrase could hold.
func TestAssumptionsTextNamesWhere(t *testing.T) {
	s := &spec.Spec{
		Datasets:   []spec.DatasetSpec{{Label: "D1"}, {Label: "D2"}},
		Mechanisms: []spec.MechanismSpec{{Label: "M1"}, {Label: "M2"}, {Label: "Oracle"}},
	}
	// holds[d][m] lists the phrases recorded by mechanism m on dataset d.
	holds := [2][3][]string{
		{{"all", "m1", "d1", "m1d1", "mixed"}, {"all", "d1"}, nil},
		{{"all", "m1"}, {"all", "mixed"}, nil},
	}
	v := &view{spec: s, agg: map[string]results.CellSummary{}}
	for d := range 2 {
		for m := range 3 {
			key := strconv.Itoa(d) + "/" + strconv.Itoa(m)
			v.cells = append(v.cells, plan.Cell{Key: key, Dataset: d, Mechanism: m, Private: true})
			eps := 1.0
			if m == 2 {
				eps = math.Inf(1)
			}
			v.agg[key] = results.CellSummary{EpsSpentMax: eps, Assumptions: holds[d][m]}
		}
	}
	all := func(*plan.Cell) bool { return true }
	want := "all; m1 (M1); d1 (D1); m1d1 (M1 on D1); mixed (M1 on D1; M2 on D2)"
	if got := strings.Join(v.assumptionsText(all), "; "); got != want {
		t.Errorf("both datasets shown:\n got %q\nwant %q", got, want)
	}
	d2 := func(c *plan.Cell) bool { return c.Dataset == 1 }
	if got, want := strings.Join(v.assumptionsText(d2), "; "), "all; m1 (M1); mixed (M2)"; got != want {
		t.Errorf("D2 only:\n got %q\nwant %q", got, want)
	}
}

// captionText is a caption's line and notes in one text, for tests of what
// a figure or table says.
func captionText(c plotting.Caption) string {
	return strings.Join(append([]string{c.Line}, c.Notes...), "; ")
}

// withCaption returns the file at path followed by its caption file
// (<stem>.caption.tex beside a LaTeX table, <stem>.caption.md beside
// anything else): what a figure or table says, in the image or table and
// in its caption (issue 35).
func withCaption(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ext := filepath.Ext(path)
	suffix := plotting.CaptionMarkdown
	if ext == ".tex" {
		suffix = plotting.CaptionTeX
	}
	c, err := os.ReadFile(strings.TrimSuffix(path, ext) + suffix)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n" + string(c)
}

// TestLedgerComponentsShared: two cells whose ledgers are the same bytes at
// the same δ share one evaluation of their components (the same slice,
// equal to LedgerComponents'), a different δ or ledger gets its own (fails
// before: each call evaluated the ledger anew, a third of the docs' ledger
// evaluations being repeats).
func TestLedgerComponentsShared(t *testing.T) {
	ev, err := json.Marshal(accounting.NewComposed(accounting.Gaussian{Sigma: 2, Sensitivity: 1}, accounting.Gaussian{Sigma: 3, Sensitivity: 1}))
	if err != nil {
		t.Fatal(err)
	}
	other, err := json.Marshal(accounting.Gaussian{Sigma: 4, Sensitivity: 1})
	if err != nil {
		t.Fatal(err)
	}
	v := &view{spec: &spec.Spec{}}
	a := v.components(&ledgerSummary{event: ev, delta: 1e-5})
	b := v.components(&ledgerSummary{event: slices.Clone(ev), delta: 1e-5})
	want := LedgerComponents(plan.AccountingConfig(v.spec), ev, 1e-5)
	if len(a) != 2 || !slices.Equal(a, want) || !slices.Equal(b, want) {
		t.Fatalf("components %v and %v, want %v", a, b, want)
	}
	if &a[0] != &b[0] {
		t.Errorf("equal ledgers at equal δ evaluated twice")
	}
	if c := v.components(&ledgerSummary{event: ev, delta: 1e-6}); &c[0] == &a[0] || !(c[0] > a[0]) {
		t.Errorf("δ = 1e-6 gave %v, δ = 1e-5 %v: want its own, larger ε", c, a)
	}
	if c := v.components(&ledgerSummary{event: other, delta: 1e-5}); len(c) != 1 || &c[0] == &a[0] {
		t.Errorf("another ledger gave %v", c)
	}
}
