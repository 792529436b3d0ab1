package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/harness/run"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/plotting"
	"github.com/dplab/dplab/results"
)

// evidenceOf makes the evidence of recs for s, writes it and reads it back.
func evidenceOf(t *testing.T, s *spec.Spec, recs []results.Record) *Evidence {
	t.Helper()
	e, err := NewEvidence(s, results.FromSlice(recs))
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b) {
		t.Fatalf("evidence is not JSON:\n%s", b)
	}
	back, err := ParseEvidence("evidence.json", b)
	if err != nil {
		t.Fatal(err)
	}
	again, err := back.JSON()
	if err != nil || !bytes.Equal(again, b) {
		t.Fatalf("evidence read back encodes differently (%v)", err)
	}
	return back
}

// iterRecordsComplete is iterRecords with GD's single trial repeated as
// its trials 1 and 2: every cell has the spec's 3 trials.
func iterRecordsComplete(t *testing.T, s *spec.Spec) []results.Record {
	recs := iterRecords(t, s)
	for _, r := range recs {
		if r.Label == "GD" {
			for trial := 1; trial < s.Trials; trial++ {
				r.Trial = trial
				recs = append(recs, r)
			}
		}
	}
	return recs
}

// recordsOutputs is what a render of recs builds for s (every table, the
// claims, summary.csv), from the records themselves: the oracle of the
// evidence's outputs.
func recordsOutputs(t *testing.T, s *spec.Spec, recs []results.Record) *EvidenceOutputs {
	t.Helper()
	col, err := collectorOf(s)
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		col.Add(&recs[i])
	}
	outs, v, err := col.prepare()
	if err != nil {
		t.Fatal(err)
	}
	out, err := viewOutputs(s, outs, v)
	if err != nil {
		t.Fatal(err)
	}
	if out.Claims != nil {
		// The claims a render writes, read back: what evidence must give.
		out.Claims, _ = renderClaims(t, s, recs)
	}
	return out
}

// dropCSVColumn returns a CSV without its column name.
func dropCSVColumn(t *testing.T, b []byte, name string) string {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	i := -1
	if len(rows) > 0 {
		i = slices.Index(rows[0], name)
	}
	for _, r := range rows {
		if i >= 0 {
			r = slices.Delete(r, i, i+1)
		}
		w.Write(r)
	}
	w.Flush()
	return out.String()
}

// sameOutputs fails t when got (from evidence) differs from want (from the
// records): summary.csv but its wall-time column, every table's Markdown,
// LaTeX and CSV (numbers at full precision), the claims' JSON.
func sameOutputs(t *testing.T, got, want *EvidenceOutputs) {
	t.Helper()
	if g, w := dropCSVColumn(t, got.Summary, "wall_s_mean"), dropCSVColumn(t, want.Summary, "wall_s_mean"); g != w {
		t.Errorf("summary.csv differs:\n%s\nwant\n%s", g, w)
	}
	if got.Interval != want.Interval {
		t.Errorf("interval %q, want %q", got.Interval, want.Interval)
	}
	if len(got.Tables) != len(want.Tables) {
		t.Fatalf("%d tables, want %d", len(got.Tables), len(want.Tables))
	}
	for i := range want.Tables {
		for _, f := range []string{"md", "tex", "csv"} {
			var g, w bytes.Buffer
			write := map[string]func(*bytes.Buffer, int) error{
				"md":  func(b *bytes.Buffer, j int) error { return []*EvidenceOutputs{got, want}[j].Tables[i].WriteMarkdown(b) },
				"tex": func(b *bytes.Buffer, j int) error { return []*EvidenceOutputs{got, want}[j].Tables[i].WriteLaTeX(b) },
				"csv": func(b *bytes.Buffer, j int) error { return []*EvidenceOutputs{got, want}[j].Tables[i].WriteCSV(b) },
			}[f]
			if err := write(&g, 0); err != nil {
				t.Fatal(err)
			}
			if err := write(&w, 1); err != nil {
				t.Fatal(err)
			}
			if g.String() != w.String() {
				t.Errorf("table %s (%s) differs:\n%s\nwant\n%s", want.Tables[i].Name, f, g.String(), w.String())
			}
		}
	}
	if (got.Claims == nil) != (want.Claims == nil) {
		t.Fatalf("claims %v, want %v", got.Claims != nil, want.Claims != nil)
	}
	if want.Claims != nil {
		g, _ := got.Claims.JSON()
		w, _ := want.Claims.JSON()
		if !bytes.Equal(g, w) {
			t.Errorf("claims differ:\n%s\nwant\n%s", g, w)
		}
	}
}

// withCIMethod returns src with ci = method as its first line.
func withCIMethod(src, method string) string { return "ci = \"" + method + "\"\n" + src }

// TestEvidenceRendersAsRecords: the evidence of a store renders every
// table, the claims and summary.csv as the records do, with the spec's CI
// method and with another one: the evidence made under ci = "auto" and
// rendered with ci = "normal" (or "t") gives what the records give under
// that method. Three stores: a real run of the small spec (ledgers,
// metrics, noise), hand-made records with claims of every side kind, an
// infeasible cell and an excluded pair (claims_test.go), and records with
// traces, diagnostics and noise per node (iterations_test.go) under an
// iterations table, a diagnostics table and a trace claim.
func TestEvidenceRendersAsRecords(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if _, _, err := runAndRender(spectest.MustParse(t, spectest.Valid), run.Options{Jobs: 2, OutDir: dir, Cache: &run.DataCache{}}); err != nil {
		t.Fatal(err)
	}
	traceClaim := `
[[claim]]
id = "rgm-below-clip"
quote = "RGM ends below clipping"
where = "§6"
check = "better"
better = "lower"
quantity = "trace:excess_objective"
a = { mechanism = "RGM" }
b = { mechanism = "Clip" }
`
	iterTables := "[[table]]\nname = \"it\"\nkind = \"iterations\"\ntrace = \"excess_objective\"\npanel_by = \"split\"\nat = [0, \"last\"]\n" +
		"[[table]]\nname = \"d\"\nkind = \"diagnostics\"\ncolumns = [\"n\", \"eta\"]\nnoise_columns = [\"gamma\"]\n" + traceClaim
	cases := []struct {
		name, src string
		recs      func(*spec.Spec) []results.Record
	}{
		{"run", spectest.Valid + "[[table]]\nname = \"privacy\"\nkind = \"privacy\"\n", func(*spec.Spec) []results.Record { return stored(t, dir) }},
		{"claims", claimsSpec + claimBetter + claimLin2, func(s *spec.Spec) []results.Record { return claimsRecords(t, s) }},
		{"iterations", iterSpecSrc + iterTables, func(s *spec.Spec) []results.Record { return iterRecordsComplete(t, s) }},
		// A claim on a [[table]]'s entries reads the tables the evidence
		// builds, as a render's claims read the tables it writes.
		{"table claims", tableClaimsSpec + "[[claim]]\nid = \"r\"\nquote = \"q\"\nwhere = \"w\"\ncheck = \"value\"\nquantity = \"table:t2\"\nrow = \"dedup*\"\nmax = 1200\n",
			func(*spec.Spec) []results.Record { return nil }},
		// A claim on wall_s keeps each cell's wall times with their
		// interval (CellSummary.Wall), which the evidence recomputes.
		{"wall time", claimsSpec + wallClaim, func(s *spec.Spec) []results.Record {
			recs := claimsRecords(t, s)
			for i := range recs {
				recs[i].WallSeconds = 0.01 * float64(1+i%5)
				if recs[i].Mechanism == "adassp" {
					recs[i].WallSeconds *= 9
				}
			}
			return recs
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := spectest.MustParse(t, c.src)
			recs := c.recs(s)
			e := evidenceOf(t, s, recs)
			got, err := e.Outputs(s)
			if err != nil {
				t.Fatal(err)
			}
			sameOutputs(t, got, recordsOutputs(t, s, recs))
			for _, method := range []string{"normal", "t"} {
				other := spectest.MustParse(t, withCIMethod(c.src, method))
				got, err := e.Outputs(other)
				if err != nil {
					t.Fatal(err)
				}
				sameOutputs(t, got, recordsOutputs(t, other, recs))
			}
		})
	}
}

// TestEvidenceFollowsSpecChanges: what the cell keys do not hold is taken
// from the current spec: a renamed mechanism renders under its new label.
// A spec whose grid changed (a new ε) lacks cells in the evidence, a
// *StaleEvidenceError naming them; a table reading a trace iteration the
// evidence did not keep is an error naming it.
func TestEvidenceFollowsSpecChanges(t *testing.T) {
	table := "[[table]]\nname = \"it\"\nkind = \"iterations\"\ntrace = \"excess_objective\"\npanel_by = \"split\"\nat = [0]\n"
	s := spectest.MustParse(t, iterSpecSrc+table)
	e := evidenceOf(t, s, iterRecordsComplete(t, s))

	renamed := spectest.MustParse(t, strings.Replace(iterSpecSrc, `label = "Clip"`, `label = "Clipped"`, 1)+table)
	out, err := e.Outputs(renamed)
	if err != nil {
		t.Fatal(err)
	}
	if cols := out.Tables[0].Columns; !slices.Equal(cols, []string{"RGM", "Clipped", "GD"}) {
		t.Errorf("columns %q after the rename", cols)
	}

	_, err = e.Outputs(spectest.MustParse(t, strings.Replace(iterSpecSrc, "epsilon = [1]", "epsilon = [1, 4]", 1)+table))
	var stale *StaleEvidenceError
	if !errors.As(err, &stale) || stale.Count != 3 || !strings.Contains(err.Error(), "Lin RGM[split=random], ε = 4") {
		t.Errorf("a new ε: %v, want a *StaleEvidenceError naming 3 cells, Lin RGM[split=random], ε = 4 first", err)
	}

	_, err = e.Outputs(spectest.MustParse(t, iterSpecSrc+strings.Replace(table, "at = [0]", "at = [1, \"last\"]", 1)))
	if err == nil || !strings.Contains(err.Error(), "trace excess_objective at the last iteration, t = 1") {
		t.Errorf("a table reading t = 1 and the last iteration of evidence keeping t = 0: %v", err)
	}
	if e.Spec != "iter" || e.Trials != 12 || e.Quick || e.Timing {
		t.Errorf("evidence header %+v", e)
	}
}

// TestEvidenceKeepsTimingOnlyForClaims: wall-clock times (a cell's mean
// wall time, the "wall_…" diagnostics) differ from run to run, so the
// evidence keeps them only when a claim reads one; evidence without them
// refuses a spec whose claim has come to read one.
func TestEvidenceKeepsTimingOnlyForClaims(t *testing.T) {
	timed := func(s *spec.Spec) []results.Record {
		recs := iterRecordsComplete(t, s)
		for i := range recs {
			recs[i].WallSeconds = 0.5
			recs[i].Diagnostics["wall_ns_per_iter"] = results.Float(100 * (i + 1))
		}
		return recs
	}
	timingClaim := "\n[[claim]]\nid = \"slow\"\nquote = \"clipping is slower\"\nwhere = \"App. C\"\ncheck = \"ratio\"\nquantity = \"diagnostic:wall_ns_per_iter\"\na = { mechanism = \"Clip\" }\nb = { mechanism = \"RGM\" }\nmin = 1\n"
	for _, c := range []struct {
		claim string
		keep  bool
	}{
		{"", false},
		{timingClaim, true},
	} {
		s := spectest.MustParse(t, iterSpecSrc+c.claim)
		e := evidenceOf(t, s, timed(s))
		if e.Timing != c.keep {
			t.Errorf("claim %q: Timing %v", c.claim, e.Timing)
		}
		// Evidence made without the times cannot serve a spec whose claim
		// now reads them.
		_, err := e.Outputs(spectest.MustParse(t, iterSpecSrc+timingClaim))
		if c.keep != (err == nil) || err != nil && !strings.Contains(err.Error(), "made without wall-clock times") {
			t.Errorf("claim %q: evidence rendered for a timing claim: %v", c.claim, err)
		}
		for key, cd := range e.d.cells {
			_, has := cd.summary.Diagnostics["wall_ns_per_iter"]
			if has != c.keep || math.IsNaN(cd.summary.WallMean) == c.keep {
				t.Errorf("claim %q, cell %s: wall_ns_per_iter kept %v, wall mean %v", c.claim, key, has, cd.summary.WallMean)
			}
		}
	}
}

// TestEvidenceRuntimeTableWithoutTimes: evidence made without wall-clock
// times (no claim reads one) renders a runtime table's wall-time column as
// "—", the runs and gradient columns as the records give them, and never
// "NaN" (docs/reproduction/objpert.md's runtime sections are rendered so).
func TestEvidenceRuntimeTableWithoutTimes(t *testing.T) {
	s := spectest.MustParse(t, iterSpecSrc+"\n[[table]]\nname = \"runtime\"\nkind = \"runtime\"\n")
	recs := iterRecordsComplete(t, s)
	for i := range recs {
		recs[i].WallSeconds = 0.5
		recs[i].Diagnostics["grad_evals"] = results.Float(100)
	}
	e := evidenceOf(t, s, recs)
	if e.Timing {
		t.Fatal("evidence kept the wall-clock times without a claim reading one")
	}
	outs, err := e.Outputs(s)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, tab := range outs.Tables {
		if tab.Name != "runtime" {
			continue
		}
		found = true
		const colWall = "wall s/trial" // harness/report/kinds/runtimetable's column
		wall := slices.Index(tab.Columns, colWall)
		if wall < 0 {
			t.Fatalf("runtime table without its %q column: %v", colWall, tab.Columns)
		}
		for i, row := range tab.Cells {
			if got := row[wall].String(); got != "—" {
				t.Errorf("row %q: wall time %q, want — (not kept)", tab.Rows[i], got)
			}
			for j, c := range row {
				if j != wall && (!c.Present || math.IsNaN(c.Mean)) {
					t.Errorf("row %q, column %q: %q", tab.Rows[i], tab.Columns[j], c.String())
				}
			}
		}
		var b bytes.Buffer
		if err := tab.WriteMarkdown(&b); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), "NaN") {
			t.Errorf("runtime table prints NaN:\n%s", b.String())
		}
	}
	if !found {
		t.Fatal("no runtime table rendered from the evidence")
	}
}

// TestEvidenceRefusesUnfinishedRuns: evidence stands for a finished run.
func TestEvidenceRefusesUnfinishedRuns(t *testing.T) {
	s := spectest.MustParse(t, iterSpecSrc)
	recs := iterRecordsComplete(t, s)
	_, err := NewEvidence(s, results.FromSlice(recs[1:]))
	if err == nil || !strings.Contains(err.Error(), "11 of 12 trials stored (1 cells short, 0 with none)") {
		t.Errorf("a store short of trials: %v", err)
	}
}

// TestEvidenceStat: a statistic kept without its interval gives back, with
// the interval of any method, exactly the Stat results.Summarize computes
// from the sample (NaN equal to NaN), for samples of 0, 1, 2, 3, 7 and 40
// values, equal values, and values with ±Inf and NaN.
func TestEvidenceStat(t *testing.T) {
	samples := [][]float64{
		nil, {0.1}, {0.1, 0.1, 0.1}, {1, 2}, {3, 4, 5}, {0.9, 1, 1.1, 7e-300, -2, 1e300, 0.3},
		{math.Inf(1), math.Inf(1)}, {1, math.Inf(-1)}, {1, math.NaN(), 2},
	}
	var forty []float64
	for i := range 40 {
		forty = append(forty, math.Sin(float64(i))*1e-3)
	}
	samples = append(samples, forty)
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
	for _, xs := range samples {
		b, err := json.Marshal(evStat(results.Summarize(xs, results.CIAuto)))
		if err != nil {
			t.Fatal(err)
		}
		var back evStat
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%v: %s: %v", xs, b, err)
		}
		for _, ci := range []results.CIMethod{results.CIAuto, results.CINormal, results.CIStudentT} {
			got, want := results.Stat(back).WithCI(ci), results.Summarize(xs, ci)
			g, w := []float64{float64(got.Count), got.Sum, got.Mean, got.SD, got.SE, got.CIHalf, got.CILow, got.CIHigh, got.Median, got.Q1, got.Q3, got.Min, got.Max},
				[]float64{float64(want.Count), want.Sum, want.Mean, want.SD, want.SE, want.CIHalf, want.CILow, want.CIHigh, want.Median, want.Q1, want.Q3, want.Min, want.Max}
			for i := range g {
				if !same(g[i], w[i]) {
					t.Errorf("%v (%s) under %s: field %d is %v, want %v", xs, b, ci, i, g[i], w[i])
				}
			}
		}
	}
	// Every finite number is written in its shortest round-trip form.
	for _, x := range []float64{0.1, 1e-300, 5e-324, math.MaxFloat64, math.Copysign(0, -1), 1 / 3.0} {
		var back evFloat
		b, _ := json.Marshal(evFloat(x))
		if err := json.Unmarshal(b, &back); err != nil || big.NewFloat(float64(back)).Cmp(big.NewFloat(x)) != 0 {
			t.Errorf("%v: %s read back as %v (%v)", x, b, back, err)
		}
	}
}

// TestEvidenceCarriesEverySummaryField: the evidence file encodes each
// field of results.CellSummary and results.Stat by name (evSummary,
// evStat); a field added to either must be added there too (and to
// dropTiming when it is a wall-clock time), or the evidence would render
// it as zero.
func TestEvidenceCarriesEverySummaryField(t *testing.T) {
	for _, c := range []struct {
		typ     reflect.Type
		handled []string
	}{
		{reflect.TypeFor[results.CellSummary](), []string{"Key", "Dataset", "Mechanism", "Label", "Epsilon", "MechParams", "Trials",
			"DataIndependent", "Metrics", "EpsSpentMax", "EpsPerRunMax", "Delta", "Accountant", "Tuning", "Selection", "Assumptions",
			"AlphaMean", "WallMean", "Wall", "Diagnostics", "Noise", "TargetScope", "Traces", "DatasetName"}},
		// The interval's fields are computed again (Stat.WithCI).
		{reflect.TypeFor[results.Stat](), []string{"Count", "Sum", "Mean", "SD", "SE", "CIHalf", "CILow", "CIHigh", "Median", "Q1", "Q3", "Min", "Max"}},
	} {
		for i := range c.typ.NumField() {
			if f := c.typ.Field(i); !slices.Contains(c.handled, f.Name) {
				t.Errorf("%s.%s: not in the evidence file (evidence.go)", c.typ, f.Name)
			}
		}
		if c.typ.NumField() != len(c.handled) {
			t.Errorf("%s has %d fields, the evidence handles %d", c.typ, c.typ.NumField(), len(c.handled))
		}
	}
}

// TestRuntimeTotals: a runtime table with totals = true gives each cell's
// wall times summed over its trials and, per mechanism block, a row over
// all its cells with the mean and the sum of their trials' wall times, as
// the records' wall times add up (the oracle: the sums of the records
// themselves), and without totals its columns are unchanged.
func TestRuntimeTotals(t *testing.T) {
	s := spectest.MustParse(t, iterSpecSrc+"\n[[table]]\nname = \"runtime\"\nkind = \"runtime\"\ntotals = true\n")
	recs := iterRecordsComplete(t, s)
	cellSum, blockSum, blockN := map[string]float64{}, map[string]float64{}, map[string]int{}
	for i := range recs {
		recs[i].WallSeconds = float64(i+1) / 8 // distinct, exact in binary
		cellSum[recs[i].CellKey] += recs[i].WallSeconds
		block := strings.SplitN(recs[i].Label, "[", 2)[0]
		blockSum[block] += recs[i].WallSeconds
		blockN[block]++
	}
	var tab *plotting.Table
	for _, x := range recordsOutputs(t, s, recs).Tables {
		if x.Name == "runtime" {
			tab = x
		}
	}
	if tab == nil {
		t.Fatal("no runtime table")
	}
	if want := []string{"wall s/trial", "runs/trial", "per-example gradients/trial", "wall s, all trials"}; !slices.Equal(tab.Columns, want) {
		t.Fatalf("columns %q, want %q", tab.Columns, want)
	}
	sums := slices.Sorted(maps.Values(cellSum))
	var got []float64
	for i, row := range tab.Rows {
		if strings.Contains(row, "all ε") {
			continue
		}
		got = append(got, tab.Cells[i][3].Mean)
	}
	slices.Sort(got)
	if !slices.Equal(got, sums) {
		t.Errorf("cells' summed wall times %v, want %v", got, sums)
	}
	for _, block := range []string{"RGM", "Clip", "GD"} {
		row := fmt.Sprintf("%s, all ε (%d trials)", block, blockN[block])
		i := slices.Index(tab.Rows, row)
		if i < 0 {
			t.Errorf("no row %q in %q", row, tab.Rows)
			continue
		}
		if c := tab.Cells[i]; c[3].Mean != blockSum[block] || c[0].Mean != blockSum[block]/float64(blockN[block]) || c[1].Present || c[2].Present {
			t.Errorf("row %q: %v, want sum %v and mean %v", row, c, blockSum[block], blockSum[block]/float64(blockN[block]))
		}
	}
	plain := spectest.MustParse(t, iterSpecSrc+"\n[[table]]\nname = \"runtime\"\nkind = \"runtime\"\n")
	for _, x := range recordsOutputs(t, plain, iterRecordsComplete(t, plain)).Tables {
		if x.Name == "runtime" && (len(x.Columns) != 3 || slices.ContainsFunc(x.Rows, func(r string) bool { return strings.Contains(r, "all ε") })) {
			t.Errorf("without totals: columns %q, rows %q", x.Columns, x.Rows)
		}
	}
}
