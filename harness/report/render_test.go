package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/run"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/results"
)

// runAndRender runs s and renders its figures and tables from the run's
// records, as the CLI's run command does: a Collector given each record
// (run.Options.Records) renders once the trials are done.
func runAndRender(s *spec.Spec, opt run.Options) (*run.Report, []string, error) {
	col, err := collectorOf(s)
	if err != nil {
		return nil, nil, err
	}
	var outs []string
	var rerr error
	opt.Records = col.Add
	opt.Render = func() { outs, rerr = col.Render(opt.OutDir, opt.Log) }
	rep, err := run.Run(context.Background(), s, opt)
	if err == nil {
		err = rerr
	}
	return rep, outs, err
}

// stored returns the records of the store in dir.
func stored(t *testing.T, dir string) []results.Record {
	t.Helper()
	recs, err := results.Read(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestRenderIsByteIdentical re-renders stored results and compares every
// output file byte for byte (figures, tables, summary).
func TestRenderIsByteIdentical(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	s := spectest.MustParse(t, spectest.Valid)
	_, outs, err := runAndRender(s, run.Options{Jobs: 2, OutDir: dir, Cache: &run.DataCache{}})
	if err != nil {
		t.Fatal(err)
	}
	first := map[string][]byte{}
	for _, p := range outs {
		first[p], _ = os.ReadFile(p)
	}
	again, err := Render(spectest.MustParse(t, spectest.Valid), dir, nil)
	if err != nil || len(again) != len(outs) || len(again) < 6 {
		t.Fatalf("re-render wrote %v (%v); first %v", again, err, outs)
	}
	for _, p := range again {
		b, _ := os.ReadFile(p)
		if !bytes.Equal(b, first[p]) {
			t.Errorf("%s differs between renders of the same results", p)
		}
	}
}

// TestRenderIndependentOfRecordOrder: the store's records come in the order
// trials finished, which depends on -j; every output must not (the privacy
// table's mean noise was a float sum in file order, and differed in its
// last digit between runs).
func TestRenderIndependentOfRecordOrder(t *testing.T) {
	src := spectest.Valid + "\n[[table]]\nname = \"cal\"\nkind = \"privacy\"\n"
	s := spectest.MustParse(t, src)
	s.Trials = 40
	dir := filepath.Join(t.TempDir(), "a")
	if _, _, err := runAndRender(s, run.Options{Jobs: 2, OutDir: dir, Cache: &run.DataCache{}}); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	for perm := 0; perm < 5; perm++ {
		recs := stored(t, dir)
		r.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
		other := filepath.Join(t.TempDir(), "b")
		if err := os.MkdirAll(other, 0o755); err != nil {
			t.Fatal(err)
		}
		outs, err := RenderRecords(s, other, recs, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range outs {
			rel, _ := filepath.Rel(other, p)
			a, _ := os.ReadFile(filepath.Join(dir, rel))
			b, _ := os.ReadFile(p)
			if !bytes.Equal(a, b) {
				t.Errorf("permutation %d: %s differs when the records come in another order", perm, rel)
			}
		}
	}
}

// TestRenderIncompleteSaysSo: rendering the records of an interrupted run
// (some cells short of the spec's trials, one with none) states the stored
// count per short cell and in total in every footnote, and warns on the log;
// a complete run's footnotes say nothing of it.
func TestRenderIncompleteSaysSo(t *testing.T) {
	s := spectest.MustParse(t, spectest.Valid)
	dir := filepath.Join(t.TempDir(), "out")
	var log bytes.Buffer
	if _, _, err := runAndRender(s, run.Options{Jobs: 2, OutDir: dir, Cache: &run.DataCache{}, Log: &log}); err != nil {
		t.Fatal(err)
	}
	table := func(d string) string {
		t.Helper()
		return withCaption(t, filepath.Join(d, "tables", s.Tables[0].Name+".md"))
	}
	if got := table(dir); strings.Contains(got, "INCOMPLETE") || strings.Contains(log.String(), "incomplete") {
		t.Fatalf("a complete run is called incomplete:\n%s\n%s", got, log.String())
	}
	// Drop trial 2 of the first cell and every trial of the second.
	cells := spectest.Cells(t, s)
	var recs []results.Record
	for _, r := range stored(t, dir) {
		if r.CellKey == cells[0].Key && r.Trial == 2 || r.CellKey == cells[1].Key {
			continue
		}
		recs = append(recs, r)
	}
	want := 0
	for _, c := range cells {
		want += c.Trials
	}
	other := filepath.Join(t.TempDir(), "partial")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	if _, err := RenderRecords(s, other, recs, &log); err != nil {
		t.Fatal(err)
	}
	got := table(other)
	short := fmt.Sprintf("at ε = %s (%d of %d)", strconv.FormatFloat(cells[0].Epsilon, 'g', 3, 64), cells[0].Trials-1, cells[0].Trials)
	for _, w := range []string{fmt.Sprintf("INCOMPLETE: %d of %d trials stored", len(recs), want), short, "1 cell with none, not drawn"} {
		if !strings.Contains(got, w) {
			t.Errorf("the footnote lacks %q:\n%s", w, got)
		}
	}
	if !strings.Contains(log.String(), fmt.Sprintf("warning: rendering incomplete results: %d of %d trials stored", len(recs), want)) {
		t.Errorf("no warning on the log: %q", log.String())
	}
	// Without a log the warning is dropped, the outputs the same (the
	// warning once wrote to the nil log and panicked).
	quiet := filepath.Join(t.TempDir(), "quiet")
	if err := os.MkdirAll(quiet, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := RenderRecords(s, quiet, recs, nil); err != nil {
		t.Fatal(err)
	}
	if table(quiet) != got {
		t.Error("the table rendered without a log differs")
	}
}

// TestMissingDataSaysSo: the tables of an optional dataset whose files are
// absent say "data missing: wine …", not "over 0 trials (none stored)"; the
// other dataset's tables and the figure over both keep their trial counts
// (issue 34, item 17).
func TestMissingDataSaysSo(t *testing.T) {
	src := strings.Replace(spectest.Valid, "[[mechanism]]", "[[dataset]]\nname = \"wine\"\noptional = true\n\n[[mechanism]]", 1) +
		"\n[[table]]\nname = \"cal\"\nkind = \"privacy\"\n"
	s := spectest.MustParse(t, src)
	dir := filepath.Join(t.TempDir(), "out")
	if _, _, err := runAndRender(s, run.Options{Jobs: 2, OutDir: dir, DataDir: t.TempDir(), Cache: &run.DataCache{}}); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		t.Helper()
		return withCaption(t, filepath.Join(dir, "tables", name))
	}
	const missing = "data missing: wine (its files were not found: dplab datasets fetch wine)"
	for _, name := range []string{"mse-wine-quality-red.md", "cal-wine-quality-red.md", "mse-wine-quality-red.tex"} {
		if got := read(name); !strings.Contains(got, missing) || strings.Contains(got, "none stored") {
			t.Errorf("%s: want %q and no \"none stored\":\n%s", name, missing, got)
		}
	}
	for _, name := range []string{"mse-lin.md", "cal-lin.md"} {
		if got := read(name); strings.Contains(got, "data missing") || !strings.Contains(got, "over 3 trials") {
			t.Errorf("%s: want \"over 3 trials\" and no missing data:\n%s", name, got)
		}
	}
}

// TestLedgerNoiseMeans compares a privacy table's noise means with sums
// over the trials in a map: trials whose noise parameters differ (some
// missing, some new, ±0 among the values), added in any order, give each
// parameter the sum over the trials that have it, in trial order, divided
// by all of them, bit for bit.
func TestLedgerNoiseMeans(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	names := []string{"sigma", "k", "scale", "gamma"}
	values := []float64{0, math.Copysign(0, -1), 0.1, 1e-300, 3, -2.5}
	for range 100 {
		sums := map[string]float64{}
		n := 1 + r.IntN(30)
		recs := make([]results.Record, n)
		for trial := range recs {
			rec := results.Record{CellKey: "c", Trial: trial, Status: results.StatusOK, Privacy: results.Privacy{Noise: map[string]results.Float{}}}
			for _, k := range names {
				if r.IntN(3) > 0 {
					x := values[r.IntN(len(values))] * (1 + r.Float64())
					rec.Privacy.Noise[k] = results.Float(x)
					sums[k] += x
				}
			}
			recs[trial] = rec
		}
		r.Shuffle(n, func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
		cells := results.Aggregate(recs, results.CIAuto)
		v := &view{agg: map[string]results.CellSummary{"c": cells[0]}}
		for _, k := range names {
			got, ok := v.noiseMean(&cells[0], k, quantity{})
			sum, want := sums[k]
			if ok != want {
				t.Fatalf("%s: has a mean %v, want %v", k, ok, want)
			}
			if want := sum / float64(n); ok && math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%s: mean %v, want %v", k, got, want)
			}
		}
	}
}

// TestRenderLogYZero: a log-y ε figure whose metric is 0 in some cell (a
// test error on an easy split; here test_mse set to 0) and whose reference
// line is 0 is drawn with those values at a floor that the footnote names.
// Rendering failed with "y = 0 on a log axis" and wrote no figure.
func TestRenderLogYZero(t *testing.T) {
	src := spectest.Valid + "\n[[figure]]\nname = \"logmse\"\nmetric = \"test_mse\"\nlog_y = true\nformats = [\"svg\"]\n"
	s := spectest.MustParse(t, src)
	dir := filepath.Join(t.TempDir(), "out")
	if _, _, err := runAndRender(s, run.Options{Jobs: 2, OutDir: dir, Cache: &run.DataCache{}}); err != nil {
		t.Fatal(err)
	}
	cells := spectest.Cells(t, s)
	recs := stored(t, dir)
	for i := range recs {
		if recs[i].CellKey == cells[0].Key || recs[i].Mechanism == "ridge" {
			recs[i].Metrics = map[string]results.Float{"test_mse": 0, "train_mse": 0}
		}
	}
	other := filepath.Join(t.TempDir(), "zero")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := RenderRecords(s, other, recs, nil); err != nil {
		t.Fatal(err)
	}
	if b := withCaption(t, filepath.Join(other, "figures", "logmse.svg")); !strings.Contains(b, "drawn at the floor") {
		t.Error("the footnote does not say which values were drawn at the floor")
	}
}

// TestDataIndependentReleasesCounted: private tuning that draws K = 0 runs
// releases the zero model (results.Record.DataIndependent). Each cell's
// count of such trials is in summary.csv (data_independent_releases, after
// count) and in the footnotes of its tables and figure; the privacy
// table's noise columns average only the trials that ran, so DP-SGD's q
// and steps are the runs' own values (before, 0.1187 for 0.125 and 76 for
// 80 with one K = 0 trial of 20) (issue 34, item 15).
func TestDataIndependentReleasesCounted(t *testing.T) {
	src := strings.Replace(spectest.Valid, `[[mechanism]]
name = "ridge"
label = "Ridge"`, `[[mechanism]]
name = "dpsgd"
label = "DP-SGD"
params = { epochs = 2, batch = 64 }
[mechanism.tuning]
mode = "private"
distribution = "poisson"
mean = 1
select_on = "test"
candidates = { learning_rate = [0.1, 0.3] }`, 1) + "\n[[table]]\nname = \"cal\"\nkind = \"privacy\"\n"
	s := spectest.MustParse(t, src)
	s.Trials = 12
	dir := filepath.Join(t.TempDir(), "out")
	_, _, err := runAndRender(s, run.Options{Jobs: 2, OutDir: dir, Cache: &run.DataCache{}})
	if err != nil {
		t.Fatal(err)
	}
	k0 := map[string]int{} // cell key -> trials with K = 0 (from the tuning note)
	q, steps := map[string]float64{}, map[string]float64{}
	for _, r := range stored(t, dir) {
		if r.Privacy.Tuning != results.TuningPrivate {
			continue
		}
		if strings.Contains(r.Privacy.TuningNote, "K = 0") {
			k0[r.CellKey]++
			if len(r.Privacy.Noise) != 0 {
				t.Errorf("a K = 0 record has noise %v", r.Privacy.Noise)
			}
			continue
		}
		q[r.CellKey], steps[r.CellKey] = float64(r.Privacy.Noise["q"]), float64(r.Privacy.Noise["steps"])
	}
	var cells []plan.Cell
	for _, c := range spectest.Cells(t, s) {
		if c.Label == "DP-SGD" {
			cells = append(cells, c)
		}
	}
	if len(cells) != 2 || k0[cells[0].Key]+k0[cells[1].Key] == 0 || len(q) != 2 {
		t.Fatalf("want K = 0 draws and runs in both DP-SGD cells (mean 1: P(K = 0) = 0.37); K = 0 per cell %v", k0)
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := lines[0]
	col := slices.Index(head, "data_independent_releases")
	if col < 0 || head[col-1] != "count" {
		t.Fatalf("summary.csv header %v: want data_independent_releases after count", head)
	}
	rows := 0
	for _, f := range lines[1:] {
		key := f[len(f)-1]
		want := k0[key] // 0 for AdaSSP's cells
		if f[col] != strconv.Itoa(want) {
			t.Errorf("summary.csv, cell %s: data_independent_releases %s, want %d", key, f[col], want)
		}
		rows++
	}
	if rows == 0 {
		t.Fatal("summary.csv has no rows")
	}
	cal, err := os.ReadFile(filepath.Join(dir, "tables", "cal.md"))
	if err != nil {
		t.Fatal(err)
	}
	calCaption, err := os.ReadFile(filepath.Join(dir, "tables", "cal.caption.md"))
	if err != nil {
		t.Fatal(err)
	}
	mse, err := os.ReadFile(filepath.Join(dir, "tables", "mse.caption.md"))
	if err != nil {
		t.Fatal(err)
	}
	figs, err := DrawFigures(s, stored(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	fig := []byte(captionText(figs[0].Caption)) // the figure's caption
	for _, c := range cells {
		if k0[c.Key] == 0 {
			continue
		}
		want := fmt.Sprintf("DP-SGD (tuning accounted, selection not private) at ε = %s (%d of 12 trials)", strconv.FormatFloat(c.Epsilon, 'g', 3, 64), k0[c.Key])
		for name, out := range map[string][]byte{"cal.caption.md": calCaption, "mse.caption.md": mse, "the figure's caption": fig} {
			if !strings.Contains(string(out), want) {
				t.Errorf("%s does not count the K = 0 releases: want %q", name, want)
			}
		}
		// The privacy table's row: q and steps as every run had them.
		row := ""
		for _, l := range strings.Split(string(cal), "\n") {
			if strings.HasPrefix(l, "| DP-SGD") && strings.Contains(l, ", ε = "+strconv.FormatFloat(c.Epsilon, 'g', 4, 64)+" |") {
				row = l
			}
		}
		for _, v := range []float64{q[c.Key], steps[c.Key]} {
			if s := "| " + strconv.FormatFloat(v, 'g', 4, 64) + " |"; !strings.Contains(row, s) {
				t.Errorf("privacy table row %q lacks %s (the runs' value)", row, s)
			}
		}
	}
}

// TestCalibrationFailureSettled: a calibration that cannot meet its target
// whatever the rows (linear mixing's paper calibration finds no γ ≤ 1.6e30
// meeting ε = 1e-30) is found at validation (a warning naming the
// mechanism, dataset and ε), recorded infeasible with its reason instead of
// failed, not rerun by a second run, and named in the footnotes with its
// reason; a spec change (another δ: new cells) runs it again (issue 34,
// item 16). Before, every run failed the trial again, exit 1.
func TestCalibrationFailureSettled(t *testing.T) {
	src := `name = "lm"
seed = 1
trials = 2
epsilon = [1e-30, 1]
delta = 1e-6

[[dataset]]
name = "synthetic-linear"
label = "Lin"
params = { n = 300, d = 4 }

[[mechanism]]
name = "linear-mixing"
label = "LM"

[[table]]
name = "mse"
metric = "test_mse"
`
	s := spectest.MustParse(t, src)
	if w := strings.Join(s.Warnings, "\n"); !strings.Contains(w, `mechanism[0] "LM" on dataset Lin at ε = 1e-30`) || !strings.Contains(w, "no γ ≤") || !strings.Contains(w, "recorded infeasible") {
		t.Errorf("validation warnings %q: want the infeasible calibration at ε = 1e-30", s.Warnings)
	}
	dir := filepath.Join(t.TempDir(), "out")
	opt := run.Options{Jobs: 2, OutDir: dir, Cache: &run.DataCache{}}
	rep, _, err := runAndRender(s, opt)
	if err != nil || rep.Failed != 0 || rep.Infeasible != 2 || rep.Ran != 2 {
		t.Fatalf("first run: %v; %d ok, %d failed, %d infeasible; want 2 ok, 2 infeasible", err, rep.Ran, rep.Failed, rep.Infeasible)
	}
	for _, r := range stored(t, dir) {
		if r.Epsilon == 1e-30 && (r.Status != results.StatusInfeasible || !strings.Contains(r.Error, "no γ ≤")) {
			t.Errorf("trial %d at ε = 1e-30: %s %q; want infeasible with the reason", r.Trial, r.Status, r.Error)
		}
	}
	b := withCaption(t, filepath.Join(dir, "tables", "mse.md"))
	if !strings.Contains(b, "LM at ε = 1e-30 (linear-mixing: calibrate γ at ε = 1e-30") || !strings.Contains(b, "no γ ≤") {
		t.Errorf("the footnote does not give the reason:\n%s", b)
	}
	again, err := run.Run(context.Background(), spectest.MustParse(t, src), opt)
	if err != nil || again.Ran+again.Failed+again.Infeasible != 0 || again.Stored != 4 {
		t.Errorf("rerun: %v; %d run, %d failed, %d infeasible, %d stored; want nothing run, 4 stored", err, again.Ran, again.Failed, again.Infeasible, again.Stored)
	}
	changed, err := run.Run(context.Background(), spectest.MustParse(t, strings.Replace(src, "delta = 1e-6", "delta = 1e-7", 1)), opt)
	if err != nil || changed.Infeasible != 2 || changed.Ran != 2 {
		t.Errorf("changed spec: %v; %d ok, %d infeasible; want its 4 new trials run", err, changed.Ran, changed.Infeasible)
	}
}

// TestCollectorLedgersAsAdded: with a privacy table in the spec, the
// Collector evaluates each cell's ledger components as Add notes the
// ledger (on a run's writer goroutine, while trials run), and the view's
// calibration table takes them from there instead of evaluating them after
// the last trial; their values are LedgerComponents' own. Without a
// privacy table it evaluates none.
func TestCollectorLedgersAsAdded(t *testing.T) {
	src := spectest.Valid + "\n[[table]]\nname = \"cal\"\nkind = \"privacy\"\n"
	s := spectest.MustParse(t, src)
	dir := filepath.Join(t.TempDir(), "out")
	if _, _, err := runAndRender(s, run.Options{Jobs: 2, OutDir: dir, Cache: &run.DataCache{}}); err != nil {
		t.Fatal(err)
	}
	recs := stored(t, dir)
	col, err := collectorOf(s)
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		col.Add(&recs[i])
	}
	v := col.view()
	cfg := plan.AccountingConfig(s)
	if len(v.ledgers) == 0 {
		t.Fatal("no ledgers noted")
	}
	for key, l := range v.ledgers {
		eps, ok := col.ledgerEps[ledgerKeyOf(l.event, l.delta)]
		if !ok {
			t.Fatalf("cell %s: its ledger was not evaluated as it was added", key)
		}
		want := LedgerComponents(cfg, l.event, l.delta)
		if len(eps) != len(want) {
			t.Fatalf("cell %s: %d components, want %d", key, len(eps), len(want))
		}
		for i := range want {
			if math.Float64bits(eps[i]) != math.Float64bits(want[i]) {
				t.Errorf("cell %s: component %d = %v, want %v", key, i, eps[i], want[i])
			}
		}
		if got := v.components(l); len(got) == 0 || &got[0] != &eps[0] {
			t.Errorf("cell %s: the view evaluated the ledger again", key)
		}
	}
	plain, err := collectorOf(spectest.MustParse(t, spectest.Valid))
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		plain.Add(&recs[i])
	}
	if plain.ledgerEps != nil {
		t.Error("a spec without a privacy table had its ledgers evaluated")
	}
}
