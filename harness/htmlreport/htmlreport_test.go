package htmlreport

import (
	"context"
	"errors"
	"fmt"
	stdhtml "html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/harness/report"
	"github.com/dplab/dplab/harness/run"
	"github.com/dplab/dplab/plotting"
	"github.com/dplab/dplab/results"
)

// makeResultDir runs the shared small spec (AdaSSP and ridge on synthetic
// data, 2 ε, 3 trials) into a new result folder and renders it.
func makeResultDir(t *testing.T) string {
	t.Helper()
	return runSpec(t, spectest.Valid)
}

// runSpec runs the spec src into a new result folder and renders it.
func runSpec(t *testing.T, src string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "t")
	s := spectest.MustParse(t, src)
	if _, err := run.Run(context.Background(), s, run.Options{OutDir: dir, Jobs: 2, Args: []string{"run", "t.toml"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := report.Render(s, dir, nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestBuildShowsEveryPart builds a page from a real run and checks it
// against the folder's own files and records: every figure inlined as a data
// URI and nothing loaded from elsewhere, every table, one summary and one
// ledger row per cell with the records' mean metric and largest ε spent,
// the manifest and the spec.
func TestBuildShowsEveryPart(t *testing.T) {
	dir := makeResultDir(t)
	page, err := Build([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	srcs := regexp.MustCompile(`(?i)\b(?:src|href)="([^"]*)"`).FindAllStringSubmatch(html, -1)
	nImg := 0
	for _, m := range srcs {
		switch {
		case strings.HasPrefix(m[1], "data:image/"):
			nImg++
		case m[1] == "data:,", strings.HasPrefix(m[1], "#"):
		default:
			t.Errorf("reference to %q: the page must be self-contained", m[1])
		}
	}
	figs, _ := filepath.Glob(filepath.Join(dir, "figures", "*.svg"))
	if nImg != len(figs) || nImg == 0 {
		t.Errorf("%d inlined images for %d figures", nImg, len(figs))
	}
	// Each figure is shown at 1.5 times its print width on a screen.
	for _, p := range figs {
		b, _ := os.ReadFile(p)
		m := regexp.MustCompile(`<svg width="([0-9.]+)pt"`).FindSubmatch(b)
		if m == nil {
			t.Fatalf("%s: no width in pt", p)
		}
		pt, _ := strconv.ParseFloat(string(m[1]), 64)
		want := fmt.Sprintf(`class="scaled" style="--w: %dpx"`, int(math.Round(1.5*pt*4/3)))
		if !strings.Contains(html, want) {
			t.Errorf("%s (%g pt wide): no image with %s", p, pt, want)
		}
	}
	tables, _ := filepath.Glob(filepath.Join(dir, "tables", "*.md"))
	for _, p := range tables {
		if strings.HasSuffix(p, ".caption.md") { // a table's caption file, not a table
			continue
		}
		id := `id="r1-table-` + strings.TrimSuffix(filepath.Base(p), ".md") + `"`
		if !strings.Contains(html, id) {
			t.Errorf("table %s missing (%s)", p, id)
		}
	}
	// TOC links resolve to ids on the page.
	for _, m := range regexp.MustCompile(`href="#([^"]+)"`).FindAllStringSubmatch(html, -1) {
		if !strings.Contains(html, `id="`+m[1]+`"`) {
			t.Errorf("link #%s resolves to nothing", m[1])
		}
	}
	recs, err := results.Read(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Per cell, the mean test MSE and the largest ε spent, from the records.
	sum, n, spent := map[string]float64{}, map[string]float64{}, map[string]float64{}
	for _, r := range recs {
		sum[r.CellKey] += float64(r.Metrics["test_mse"])
		n[r.CellKey]++
		spent[r.CellKey] = math.Max(spent[r.CellKey], float64(r.Privacy.EpsSpent))
	}
	rows := regexp.MustCompile(`(?s)<table class="sortable" id="r1-cells-table">.*?<tbody>(.*?)</tbody>`).FindStringSubmatch(html)
	if rows == nil {
		t.Fatal("no summary table")
	}
	if got := strings.Count(rows[1], "<tr>"); got != len(n) {
		t.Errorf("summary: %d rows for %d cells", got, len(n))
	}
	for key := range n {
		mean := num(sum[key] / n[key])
		if !strings.Contains(rows[1], `">`+mean) {
			t.Errorf("cell %s: mean test MSE %s not in the summary", key, mean)
		}
		if !strings.Contains(rows[1], `data-sort="`+keyOf(spent[key])+`"><span class="n">`+num(spent[key])+`</span>`) {
			t.Errorf("cell %s: ε spent %s not in the summary", key, num(spent[key]))
		}
	}
	text := stdhtml.UnescapeString(html)
	for _, want := range []string{`id="r1-ledger"`, "ε per component", "rdp", `id="r1-provenance"`, `"spec_sha256"`, `name = "t"`, "@media print"} {
		if !strings.Contains(text, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if again, err := Build([]string{dir}, Options{}); err != nil || string(again) != html {
		t.Errorf("a second build differs (err %v)", err)
	}
}

// TestBuildErrors: a missing path, a file, and a directory without a store
// are each a *NotResultError naming the path; nothing is built.
func TestBuildErrors(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "f.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(tmp, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(tmp, "nope"), "no such directory"},
		{file, "a file, not a directory"},
		{empty, "no trials.jsonl"},
	} {
		_, err := Build([]string{tc.path}, Options{})
		var nr *NotResultError
		if !errors.As(err, &nr) || nr.Path != tc.path || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a *NotResultError saying %q", tc.path, err, tc.want)
		}
	}
	if _, err := Build(nil, Options{}); err == nil {
		t.Error("no directories: no error")
	}
}

// TestBuildKeepsFolderOrder: folders are loaded concurrently, but the page
// shows them in the order given, and when several paths are bad the error
// is the first bad one's, as loading them one by one would give.
func TestBuildKeepsFolderOrder(t *testing.T) {
	dir := makeResultDir(t)
	var dirs []string
	for _, name := range []string{"b", "a", "c"} {
		d := filepath.Join(t.TempDir(), name)
		if err := os.CopyFS(d, os.DirFS(dir)); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	page, err := Build(dirs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Folder i's section runs from its id to the next folder's, and names
	// its own directory and no other.
	html := string(page)
	at := make([]int, len(dirs)+1)
	at[len(dirs)] = len(html)
	for i := range dirs {
		if at[i] = strings.Index(html, `id="r`+strconv.Itoa(i+1)+`"`); at[i] < 0 {
			t.Fatalf("no section r%d", i+1)
		}
	}
	for i := range dirs {
		if at[i+1] < at[i] {
			t.Fatalf("section r%d comes after r%d", i+1, i+2)
		}
		section := html[at[i]:at[i+1]]
		for j, d := range dirs {
			if got := strings.Contains(section, stdhtml.EscapeString(d)); got != (i == j) {
				t.Errorf("section r%d names %s: %v", i+1, d, got)
			}
		}
	}
	file := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	nope := filepath.Join(t.TempDir(), "nope")
	for range 5 {
		_, err := Build(append(slices.Clone(dirs), file, nope, dirs[0]), Options{})
		var nr *NotResultError
		if !errors.As(err, &nr) || nr.Path != file {
			t.Fatalf("err = %v, want the *NotResultError of %s", err, file)
		}
	}
}

// TestParseMarkdownTable reads back what plotting writes: the title, the
// header, escaped bars in text cells, bold best entries, and the note.
func TestParseMarkdownTable(t *testing.T) {
	tab := &plotting.Table{Name: "x", Title: "T", RowHeader: "ε", Columns: []string{"a|b", "c"}, Better: plotting.Lower,
		Rows:    []string{"0.5", "2"},
		Cells:   [][]plotting.Entry{{{Mean: 1, Present: true}, {Mean: 2, Present: true}}, {{Present: true, Text: "p | q"}, {}}},
		Caption: plotting.Caption{Line: "Accountant: rdp"}}
	var b strings.Builder
	if err := tab.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	got := parseMarkdownTable("x", b.String())
	if got.Title != "T" || !slices.Equal(got.Header, []string{"ε", "a|b", "c"}) || len(got.Rows) != 2 || len(got.Notes) != 1 || !strings.HasPrefix(got.Notes[0], "Accountant: rdp.") {
		t.Fatalf("parsed %+v from\n%s", got, b.String())
	}
	want := [][]tableCell{{{Text: "0.5"}, {Text: "1", Bold: true}, {Text: "2"}}, {{Text: "2"}, {Text: "p | q"}, {Text: "—"}}}
	for i := range want {
		if !slices.Equal(got.Rows[i], want[i]) {
			t.Errorf("row %d: %+v, want %+v", i, got.Rows[i], want[i])
		}
	}
}

// TestSummaryLegendsMatchFigures: the page's summary names each cell as the
// folder's figures do: a mechanism behind non-private pre-processing is
// marked so ("(pre-processed: pca-rank[k=2])"), and an accounted tuning's
// non-private selection, beside a plain mechanism of the same label stem.
// (The summary used to mark tuning only, so "DP-GD" behind PCA read like
// the DP-GD beside it.)
func TestSummaryLegendsMatchFigures(t *testing.T) {
	const src = `name = "legends"
seed = 3
trials = 2
epsilon = [1]
delta = 1e-5
[[dataset]]
name = "lowrank-logistic"
params = { n = 200, d = 6, k = 2 }
scale = { x = "none" }
split = { validation = 0.2 }
[[mechanism]]
name = "dpgd"
label = "DP-GD"
params = { iterations = 5 }
preprocess = [{ name = "pca-rank", k = 2 }]
[mechanism.pipeline]
collection = { gap_k = 0.05 }
on_violation = "group"
[[mechanism]]
name = "dpgd"
label = "DP-GD alone"
params = { iterations = 5 }
[[mechanism]]
name = "dpsgd"
label = "DP-SGD"
params = { epochs = 1, batch = 32 }
[mechanism.tuning]
mode = "private"
mean = 2
candidates = { learning_rate = [0.1, 1] }
[[figure]]
name = "acc"
metric = "test_accuracy"
`
	dir := runSpec(t, src)
	page, err := Build([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile(`(?s)<table class="sortable" id="r1-cells-table">.*?<tbody>(.*?)</tbody>`).FindStringSubmatch(string(page))
	if rows == nil {
		t.Fatal("no summary table")
	}
	text := stdhtml.UnescapeString(rows[1])
	svg, err := os.ReadFile(filepath.Join(dir, "figures", "acc.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"DP-GD (pre-processed: pca-rank[k=2])", "DP-GD alone", "DP-SGD (tuning accounted, selection not private)"} {
		if !strings.Contains(text, ">"+want+"<") {
			t.Errorf("summary lacks the cell %q", want)
		}
		if !strings.Contains(stdhtml.UnescapeString(string(svg)), ">"+want+"<") {
			t.Errorf("figure legend lacks %q: the test's premise is off", want)
		}
	}
}

// TestScreenWidth: an SVG figure is shown on screens at 1.5 times its print
// width (pt → 4/3 px); a root element without a width in points, or an
// absurd one, keeps the figure's own size.
func TestScreenWidth(t *testing.T) {
	for _, tc := range []struct {
		svg  string
		want int
	}{
		{`<?xml version="1.0"?>` + "\n" + `<svg width="302.4pt" height="330.05pt" viewBox="0 0 302.4 330.05">`, 605},
		{`<svg height="10pt" width="604.8pt">`, 1210},
		{`<svg width="400px" height="300px">`, 0},
		{`<svg viewBox="0 0 10 10">`, 0},
		{`<svg width="1e9pt">`, 0},
		{`<svg width="0pt">`, 0},
		{``, 0},
	} {
		if got := screenWidth([]byte(tc.svg)); got != tc.want {
			t.Errorf("screenWidth(%q) = %d, want %d", tc.svg, got, tc.want)
		}
	}
}
