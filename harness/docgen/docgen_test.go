package docgen

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/harness/report"
	_ "github.com/dplab/dplab/harness/report/kinds" // the figure and table kinds

	"github.com/dplab/dplab/results"
)

// TestParse: sections are found with their kind, keys and line; a marker
// out of place is an error naming the line.
func TestParse(t *testing.T) {
	doc := "# T\n\ntext\n<!-- dplab:begin table spec=a name=b -->\nold\n<!-- dplab:end -->\n" +
		"  <!-- dplab:begin claims specs=a,b -->\n<!-- dplab:end -->\n"
	secs, err := Parse("d.md", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(secs) != 2 || secs[0].String() != "table name=b spec=a" || secs[0].Line != 4 || secs[1].String() != "claims specs=a,b" || secs[1].Line != 7 {
		t.Fatalf("sections %+v", secs)
	}
	if got := doc[secs[0].start:secs[0].end]; got != "old\n" {
		t.Errorf("content %q", got)
	}
	if !slices.Equal(secs[1].specs(), []string{"a", "b"}) {
		t.Errorf("specs %q", secs[1].specs())
	}
	for _, c := range []struct{ doc, want string }{
		{"a\n<!-- dplab:begin table spec=a name=b -->\n", "d.md:2: section \"table name=b spec=a\" is not ended"},
		{"<!-- dplab:end -->\n", "d.md:1: <!-- dplab:end --> without a section begun"},
		{"<!-- dplab:begin table spec=a name=b -->\n<!-- dplab:begin table spec=a name=c -->\n", "d.md:2: a section begins inside the section begun at line 1"},
		{"<!-- dplab:begin chart spec=a -->\n", "d.md:1: section kind \"chart\": want claims, figure, table"},
		{"<!-- dplab:begin figure spec=a -->\n", "d.md:1: figure section: name= missing"},
		{"<!-- dplab:begin table spec=a name=b caption=no -->\n", "d.md:1: table section: caption=no: want caption=yes"},
		{"<!-- dplab:begin table spec=a -->\n", "d.md:1: table section: name= missing"},
		{"<!-- dplab:begin table spec=a name=b nme=c -->\n", "d.md:1: table section: \"nme=c\": want key=value with a key of spec, name"},
		{"<!-- dplab:begin table spec=a spec=c name=b -->\n", "d.md:1: table section: spec given twice"},
		{"text <!-- dplab:end -->\n", "d.md:1: a section marker must be a line of its own"},
	} {
		if _, err := Parse("d.md", []byte(c.doc)); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.doc, err, c.want)
		}
	}
}

// testSpec is the spec of the generator tests: AdaSSP and ridge at two ε,
// 3 trials, a table and a claim. ci is its CI method.
func testSpec(ci string) string {
	return fmt.Sprintf(`name = "t"
seed = 1
trials = 3
ci = %q
epsilon = [0.5, 2]
delta = 1e-6

[[dataset]]
name = "synthetic-linear"
label = "Lin"
params = { n = 400, d = 4, seed = 3 }

[[mechanism]]
name = "adassp"
label = "AdaSSP"
params = { rho = 1e-4 }

[[mechanism]]
name = "ridge"
label = "Ridge"

[[table]]
name = "mse"
metric = "test_mse"

[[figure]]
name = "mse"
metric = "test_mse"

[[claim]]
id = "adassp-close"
quote = "AdaSSP is close to ridge at ε = 2"
where = "§1"
check = "ratio"
quantity = "metric:test_mse"
a = { mechanism = "AdaSSP" }
b = { mechanism = "Ridge" }
epsilon = [2]
max = 1.6
`, ci)
}

// testRecords are ok records of the test spec's cells: test_mse of AdaSSP
// 3, 4, 5 at ε = 0.5 and 0.9, 1.2, 1.5 at ε = 2, ridge's 1, 1, 1.
func testRecords(t *testing.T, src string) []results.Record {
	s := spectest.MustParse(t, src)
	mse := map[string][]float64{"AdaSSP/0.5": {3, 4, 5}, "AdaSSP/2": {0.9, 1.2, 1.5}, "Ridge/+Inf": {1, 1, 1}}
	var recs []results.Record
	for _, c := range spectest.Cells(t, s) {
		xs := mse[fmt.Sprintf("%s/%g", s.Mechanisms[c.Mechanism].Label, c.Epsilon)]
		for trial, x := range xs {
			recs = append(recs, results.Record{Schema: results.SchemaVersion, Experiment: s.Name, CellKey: c.Key, Dataset: "Lin",
				Mechanism: c.Entry.Info.Name, Label: c.Label, Epsilon: results.Float(c.Epsilon), Trial: trial, Status: results.StatusOK,
				Metrics: map[string]results.Float{"test_mse": results.Float(x)},
				Privacy: results.Privacy{EpsTarget: results.Float(c.Epsilon), EpsSpent: results.Float(c.Epsilon), Delta: 1e-6, Accountant: "rdp"}})
		}
	}
	return recs
}

// testDoc is a document with prose around a claims and a table section.
const testDoc = "# Doc\n\nProse before.\n\n<!-- dplab:begin claims specs=t -->\n<!-- dplab:end -->\n\nProse between.\n\n" +
	"<!-- dplab:begin table spec=t name=mse -->\nhand-typed\n<!-- dplab:end -->\n\nProse after.\n"

// setup writes the test spec (CI method ci), the evidence of testRecords
// and testDoc in a new directory and returns its Config and the
// document's path.
func setup(t *testing.T, ci string) (Config, string) {
	t.Helper()
	dir := t.TempDir()
	cfg := Config{Specs: filepath.Join(dir, "experiments"), Evidence: filepath.Join(dir, "docs", "evidence")}
	for _, d := range []string{cfg.Specs, filepath.Join(cfg.Evidence, "t")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src := testSpec(ci)
	if err := os.WriteFile(filepath.Join(cfg.Specs, "t.toml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ev, err := report.NewEvidence(spectest.MustParse(t, src), results.FromSlice(testRecords(t, src)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ev.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg.Evidence, "t", EvidenceFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	doc := filepath.Join(dir, "docs", "doc.md")
	if err := os.WriteFile(doc, []byte(testDoc), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg, doc
}

// generate runs the generator over doc and returns its files.
func generate(t *testing.T, cfg Config, doc string) []*File {
	t.Helper()
	g := New(cfg)
	names, err := g.Specs([]string{doc})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names, []string{"t"}) {
		t.Fatalf("specs %q", names)
	}
	files, err := g.Generate([]string{doc}, names)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// tableLines returns the lines of s that are Markdown table rows.
func tableLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "|") {
			out = append(out, l)
		}
	}
	return out
}

// renderOracle renders the records of the test spec (ci = "auto") into a
// new directory, what the generated sections are compared with, and
// returns the spec's source, the directory and a reader of its files.
func renderOracle(t *testing.T) (src, out string, read func(string) string) {
	t.Helper()
	src, out = testSpec("auto"), t.TempDir()
	if _, err := report.RenderRecords(spectest.MustParse(t, src), out, testRecords(t, src), nil); err != nil {
		t.Fatal(err)
	}
	return src, out, func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
}

// TestGenerateAndCheck: the sections of a document are regenerated from
// the evidence as a render of the records writes them (the table's rows
// are those of tables/mse.md, the verdict that of claims.json), the
// prose is kept, the evidence folder gets summary.csv and claims.md as
// the render writes them, and a second pass finds nothing stale. Then the
// spec's CI method changes (a scratch edit, as the issue asks): the check
// names the table section, with the old and new rows, and the files; a
// hand edit of a generated number is found too.
func TestGenerateAndCheck(t *testing.T) {
	cfg, doc := setup(t, "auto")
	files := generate(t, cfg, doc)
	if len(files) != 3 || len(Check(files)) != 4 {
		t.Fatalf("%d files, %d stale: want the document (2 sections), summary.csv and claims.md, all new", len(files), len(Check(files)))
	}
	if _, err := Write(files); err != nil {
		t.Fatal(err)
	}
	if stale := Check(generate(t, cfg, doc)); len(stale) != 0 {
		t.Fatalf("stale right after writing: %v", stale)
	}

	// The oracle: what a render of the records writes.
	src, out, read := renderOracle(t)
	got, table := read(doc), read(filepath.Join(out, "tables", "mse.md"))
	if !slices.Equal(tableLines(strings.Split(got, "Prose between")[1]), tableLines(table)) || len(tableLines(table)) != 4 {
		t.Errorf("table section:\n%s\nwant the rows of\n%s", got, table)
	}
	var claims report.Claims
	if err := json.Unmarshal([]byte(read(filepath.Join(out, report.ClaimsJSON))), &claims); err != nil {
		t.Fatal(err)
	}
	row := fmt.Sprintf("| adassp-close ([t](evidence/t/claims.md)) | “AdaSSP is close to ridge at ε = 2” | §1 | paper gives no value | AdaSSP / Ridge in metric test_mse: %s | **%s** |",
		claims.Claims[0].Measured(), claims.Claims[0].Summary)
	if !strings.Contains(got, row) || claims.Claims[0].Verdict != report.Tie {
		t.Errorf("claims section:\n%s\nwant the row\n%s (verdict %s)", got, row, claims.Claims[0].Verdict)
	}
	for _, prose := range []string{"# Doc\n\nProse before.\n\n<!-- dplab:begin claims specs=t -->\n", "Prose between.", "<!-- dplab:end -->\n\nProse after.\n"} {
		if !strings.Contains(got, prose) {
			t.Errorf("prose %q lost:\n%s", prose, got)
		}
	}
	if read(filepath.Join(cfg.Evidence, "t", report.ClaimsMarkdown)) != read(filepath.Join(out, report.ClaimsMarkdown)) {
		t.Errorf("evidence/t/claims.md is not the render's")
	}
	// summary.csv but its last column but one, wall_s_mean (the evidence
	// keeps no wall time without a timing claim).
	noWall := func(csv string) string {
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(csv), "\n") {
			f := strings.Split(l, ",")
			out = append(out, strings.Join(slices.Delete(f, len(f)-2, len(f)-1), ","))
		}
		return strings.Join(out, "\n")
	}
	rendered := read(filepath.Join(out, results.SummaryFile))
	if !strings.Contains(rendered, ",wall_s_mean,cell_key\n") {
		t.Fatalf("summary.csv's columns changed: %s", rendered)
	}
	if g, w := noWall(read(filepath.Join(cfg.Evidence, "t", results.SummaryFile))), noWall(rendered); g != w {
		t.Errorf("evidence/t/summary.csv is not the render's:\n%s\nwant\n%s", g, w)
	}

	// The scratch edit: ci = "normal".
	if err := os.WriteFile(filepath.Join(cfg.Specs, "t.toml"), []byte(testSpec("normal")), 0o644); err != nil {
		t.Fatal(err)
	}
	stale := Check(generate(t, cfg, doc))
	var names []string
	for _, s := range stale {
		names = append(names, fmt.Sprintf("%s:%d %s", filepath.Base(s.Path), s.Line, s.Section))
	}
	want := []string{"doc.md:5 claims specs=t", "doc.md:17 table name=mse spec=t", "claims.md:0 ", "summary.csv:0 "}
	if !slices.Equal(names, want) {
		t.Fatalf("stale after ci = \"normal\": %q, want %q", names, want)
	}
	// Each changed line once, "-" as held, "+" as generated, after its
	// line in the section.
	for i, l := range []string{"-    4 | | adassp-close", "**tie** |", "+    4 | | adassp-close", "**holds** |",
		"-    6 | | 0.5 | 4.0 ± 2.5 |", "+    6 | | 0.5 | 4.0 ± 1.1 |", "-    7 | | 2 | 1.20 ± 0.75 |", "+    7 | | 2 | 1.20 ± 0.34 |"} {
		if d := stale[i/4].Diff; !strings.Contains(d, l) {
			t.Errorf("the diff lacks %q:\n%s", l, d)
		}
	}
	if d := stale[1].Diff; strings.Count(d, "\n") != 6 {
		t.Errorf("the table's diff shows other lines than the two rows and the interval's line:\n%s", d)
	}
	if s := stale[1].String(); !strings.Contains(s, "doc.md:17: section table name=mse spec=t differs from what make docs generates") {
		t.Errorf("message %q", s)
	}

	// A hand edit of a generated number, with the spec as it was.
	if err := os.WriteFile(filepath.Join(cfg.Specs, "t.toml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(doc, []byte(strings.Replace(got, "4.0 ± 2.5", "4.0 ± 2.4", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if stale := Check(generate(t, cfg, doc)); len(stale) != 1 || stale[0].Section != "table name=mse spec=t" {
		t.Errorf("after a hand edit: %v", stale)
	}
}

// TestGenerateErrors: a section naming what does not exist is an error
// naming the document, the line and the section.
func TestGenerateErrors(t *testing.T) {
	cfg, doc := setup(t, "auto")
	for _, c := range []struct{ section, want string }{
		{"table spec=t name=mes", `doc.md:1: section table name=mes spec=t: spec t renders no table "mes" (did you mean "mse"?) (its tables: mse)`},
		{"table spec=u name=mse", "doc.md:1: section table name=mse spec=u: " + filepath.Join(cfg.Specs, "u.toml")},
		{"claims specs=t,../t", `doc.md:1: section claims specs=t,../t: spec "../t": want a spec's name`},
		{"table spec=t name=mse rows=0.7", `doc.md:1: section table name=mse rows=0.7 spec=t: no row of table mse of t contains "0.7" (its rows: 0.5; 2)`},
	} {
		if err := os.WriteFile(doc, []byte("<!-- dplab:begin "+c.section+" -->\n<!-- dplab:end -->\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := New(cfg).Generate([]string{doc}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.section, err, c.want)
		}
	}
	if err := os.Remove(filepath.Join(cfg.Evidence, "t", EvidenceFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := New(cfg).Generate(nil, []string{"t"}); err == nil || !strings.Contains(err.Error(), "no evidence of t") {
		t.Errorf("without evidence: %v", err)
	}
}

// TestTableRows: rows= keeps the rows whose label contains its text.
func TestTableRows(t *testing.T) {
	cfg, doc := setup(t, "auto")
	if err := os.WriteFile(doc, []byte("<!-- dplab:begin table spec=t name=mse rows=0.5 -->\n<!-- dplab:end -->\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := New(cfg).Generate([]string{doc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tableLines(string(files[0].New)), []string{"| ε | AdaSSP |", "|---|---:|", "| 0.5 | 4.0 ± 2.5 |"}; !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
}

// TestFigureAndCaptionSections: a figure section draws the spec's figure
// from the evidence into img/<spec>-<name>.svg beside the document, the
// same bytes as a render of the records writes (figures/<name>.svg), with
// the render's caption; caption=yes puts the render's table caption under
// the table; a changed figure file is stale, an unknown figure an error.
func TestFigureAndCaptionSections(t *testing.T) {
	cfg, doc := setup(t, "auto")
	text := "# Doc\n\n<!-- dplab:begin figure spec=t name=mse -->\n<!-- dplab:end -->\n\n<!-- dplab:begin table spec=t name=mse caption=yes -->\n<!-- dplab:end -->\n"
	if err := os.WriteFile(doc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := New(cfg).Generate([]string{doc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	svgPath := filepath.Join(filepath.Dir(doc), "img", "t-mse.svg")
	if len(files) != 2 || files[1].Path != svgPath || files[1].Old != nil {
		t.Fatalf("files %v: want the document and a new %s", files, svgPath)
	}
	if _, err := Write(files); err != nil {
		t.Fatal(err)
	}
	_, out, read := renderOracle(t)
	if read(svgPath) != read(filepath.Join(out, "figures", "mse.svg")) {
		t.Errorf("%s is not the render's figures/mse.svg", svgPath)
	}
	got := read(doc)
	for _, want := range []string{"![](img/t-mse.svg)\n\n" + read(filepath.Join(out, "figures", "mse.caption.md")),
		// The table's caption without its title, which the table states.
		"| 2 | 1.20 ± 0.75 |\n\n" + strings.Replace(read(filepath.Join(out, "tables", "mse.caption.md")), "**Test MSE — Lin (y / max|y|).** ", "", 1)} {
		if !strings.Contains(got, want) {
			t.Errorf("the document lacks\n%s\n----\n%s", want, got)
		}
	}
	if err := os.WriteFile(svgPath, []byte(strings.Replace(read(svgPath), "<svg", "<svg data-x=\"1\"", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err = New(cfg).Generate([]string{doc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if stale := Check(files); len(stale) != 1 || stale[0].Path != svgPath {
		t.Errorf("after editing the figure: stale %v, want %s", stale, svgPath)
	}
	if err := os.WriteFile(doc, []byte("<!-- dplab:begin figure spec=t name=mes -->\n<!-- dplab:end -->\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := New(cfg).Generate([]string{doc}, nil); err == nil || !strings.Contains(err.Error(), `spec t has no figure "mes" (did you mean "mse"?)`) {
		t.Errorf("unknown figure: %v", err)
	}
}

// TestWallTimesNameTheirRun: evidence that keeps wall-clock times (a claim
// reads one) and the runs that stored them says, under the claims and
// under a table with a wall-time column, which run they are of: its date,
// trials, -j and load averages; evidence without times says nothing.
func TestWallTimesNameTheirRun(t *testing.T) {
	cfg, doc := setup(t, "auto")
	src := strings.Replace(testSpec("auto"), "[[claim]]", `[[table]]
name = "rt"
kind = "runtime"

[[claim]]
id = "timed"
quote = "AdaSSP takes time"
where = "§2"
check = "value"
quantity = "wall_s"
a = { mechanism = "AdaSSP" }
min = 0

[[claim]]`, 1)
	if err := os.WriteFile(filepath.Join(cfg.Specs, "t.toml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	recs := testRecords(t, src)
	for i := range recs {
		recs[i].WallSeconds = 0.25
	}
	ev, err := report.NewEvidence(spectest.MustParse(t, src), results.FromSlice(recs))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 12, 7, 1, 15, 20, 0, time.UTC)
	ev.Runs = report.RunsOf(&results.Manifest{Runs: []results.Run{
		{Start: start.Add(-time.Hour), End: start.Add(-time.Hour)}, // ran nothing: left out
		{Start: start.Add(27 * time.Millisecond), End: start.Add(6 * time.Second), Jobs: 2, TrialsRun: 9, Load: []float64{16.66, 16.69}}}})
	b, err := ev.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg.Evidence, "t", EvidenceFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	text := "<!-- dplab:begin claims specs=t -->\n<!-- dplab:end -->\n<!-- dplab:begin table spec=t name=rt -->\n<!-- dplab:end -->\n<!-- dplab:begin table spec=t name=mse -->\n<!-- dplab:end -->\n"
	if err := os.WriteFile(doc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := New(cfg).Generate([]string{doc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const run = "wall-clock times are of the run of 2026-12-07 01:15:20–01:15:26 UTC, 9 trials at -j 2, load average 16.66 at its start and 16.69 at its end._"
	got := string(files[0].New)
	parts := strings.Split(got, "<!-- dplab:end -->")
	if !strings.Contains(parts[0], "; t's "+run) || !strings.Contains(parts[1], "; "+run) || strings.Contains(parts[2], "wall-clock") {
		t.Errorf("want the run under the claims and the runtime table only:\n%s", got)
	}
}
