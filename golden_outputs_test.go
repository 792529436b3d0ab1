package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/dplab/dplab/harness/plan"
	"html"
	"image"
	"image/draw"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/equivalence"
	"github.com/dplab/dplab/harness/report"
	specpkg "github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/internal/oncemap"
	"github.com/dplab/dplab/plotting"
	"github.com/dplab/dplab/results"
)

// TestQuickSpecOutputsGolden runs the --quick variant of every
// experiments/*.toml through the CLI and compares what it writes with
// testdata/golden/quick/<spec>.json, a SHA-256 per output file, captured
// on main before issue 10's reshaping (records, summary, figures and
// tables must stay byte-identical through it). Timing is not reproducible
// and is removed first: the records' wall_s and code_version, summary.csv's
// wall_s_mean column; files that state wall times (runtime tables,
// time-ratio figures) are listed in timingOutputs and skipped.
//
// PNG figures are hashed by their decoded pixels (pngPixels), not their
// bytes: issue 10's PNG encoder changed how they are compressed, never
// what they show.
//
// Metric values are not hashed but compared with a tolerance: every
// record's metrics, summary.csv's statistics of each (cell, metric) and the
// numbers of the metric tables' CSV files (metricTableFiles) are kept in
// testdata/golden/quick/<spec>.values.json and must equal the golden to
// metricTolerance relative (issue 17: a linear model's MSE from the split's
// sufficient statistics differs from the row-by-row sum by rounding);
// everything else in those files is hashed exactly.
// Each run's evidence (report.Evidence, what the generated docs are
// rendered from) must render its tables, claims and summary.csv as the run
// wrote them (checkEvidence).
// DPLAB_UPDATE_GOLDEN=1 rewrites the goldens (review the diff), only
// after the equivalence check passed (docs/README.md): for a spec whose
// golden would change it logs (go test -v) whether a passing report
// runs/equivalence/<spec>/equivalence.json of make equivalence exists, and
// without one refuses to update it (an error) unless
// DPLAB_UPDATE_GOLDEN_FORCE=1 is also set (goldenUpdateVerdict). A new
// spec's first golden needs none. The specs read the shared datasets;
// without DPLAB_DATA the test skips.
func TestQuickSpecOutputsGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every quick spec (~1 min): not under -short; CI runs it (make test-golden)")
	}
	if os.Getenv("DPLAB_DATA") == "" {
		t.Skip("DPLAB_DATA is not set: the quick specs read the shared datasets")
	}
	specs, err := filepath.Glob("experiments/*.toml")
	if err != nil || len(specs) == 0 {
		t.Fatalf("no specs: %v", err)
	}
	update := os.Getenv("DPLAB_UPDATE_GOLDEN") == "1"
	for _, spec := range specs {
		name := strings.TrimSuffix(filepath.Base(spec), ".toml")
		t.Run(name, func(t *testing.T) {
			// The specs share no state but quickRun's once-per-spec
			// runs: two at a time (-test.parallel, GOMAXPROCS), so the
			// binary uses both cores through each run's serial parts
			// (loading, rendering, these checks).
			t.Parallel()
			dir := quickRun(t, spec)
			checkFigures(t, spec, dir)
			checkCaptions(t, name, dir)
			checkEvidence(t, name, spec, dir)
			checkQuantityLabels(t, dir)
			got, gotValues := outputDigests(t, name, dir)
			path := filepath.Join("testdata", "golden", "quick", name+".json")
			valuesPath := filepath.Join("testdata", "golden", "quick", name+".values.json")
			if update {
				files := map[string][]byte{path: goldenJSON(got), valuesPath: goldenJSON(gotValues)}
				allow, msg := goldenUpdateVerdict(name, equivalenceDir, files, os.Getenv("DPLAB_UPDATE_GOLDEN_FORCE") == "1")
				if !allow {
					t.Error(msg)
					files = nil
				} else if msg != "" {
					t.Log(msg)
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				for p, b := range files {
					if err := os.WriteFile(p, b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			compareValues(t, valuesPath, gotValues)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var want map[string]string
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			for f, h := range want {
				if got[f] != h {
					t.Errorf("%s: digest %.12s, golden %.12s", f, got[f], h)
				}
			}
			for f := range got {
				if _, ok := want[f]; !ok {
					t.Errorf("%s: written but not in the golden", f)
				}
			}
		})
	}
}

// quickRuns holds the result directory of each spec's one --quick run in a
// test binary (quickRun), under quickRunsDir, which TestMain removes.
var (
	quickRuns    oncemap.Map[string, string]
	quickRunsDir struct {
		once sync.Once
		dir  string
		err  error
	}
)

// quickRun returns the result directory of `dplab run spec --quick -j 2`,
// run once per test binary: make test-long runs the golden test and
// TestReportInBrowser in one binary, and the browser test's quick runs are
// four of the golden test's. Callers only read the directory.
func quickRun(t *testing.T, spec string) string {
	t.Helper()
	dir, err := quickRuns.Do(spec, func() (string, error) {
		quickRunsDir.once.Do(func() { quickRunsDir.dir, quickRunsDir.err = os.MkdirTemp("", "dplab-quick-runs-") })
		if quickRunsDir.err != nil {
			return "", quickRunsDir.err
		}
		parent, err := os.MkdirTemp(quickRunsDir.dir, "")
		if err != nil {
			return "", err
		}
		dir := filepath.Join(parent, strings.TrimSuffix(filepath.Base(spec), ".toml"))
		var out, errb bytes.Buffer
		if code := Main(context.Background(), []string{"run", spec, "--quick", "--out", dir, "-j", "2"}, &out, &errb); code != 0 {
			return "", fmt.Errorf("run %s --quick: exit %d: %s", spec, code, errb.String())
		}
		return dir, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// goldenJSON is a golden file's bytes.
func goldenJSON(v map[string]string) []byte {
	b, _ := json.MarshalIndent(v, "", "  ")
	return append(b, '\n')
}

// goldenUpdateVerdict says whether the update mode may write the golden
// files of spec name (path → bytes), and a message when they moved (an
// existing file would change): with a passing equivalence report of the
// spec in dir/<name>/ (dplab equivalence) it may, without one only when
// forced (DPLAB_UPDATE_GOLDEN_FORCE=1). Files that do not exist yet (a new
// spec) or would not change need no report.
func goldenUpdateVerdict(name, dir string, files map[string][]byte, force bool) (bool, string) {
	moved := false
	for p, b := range files {
		old, err := os.ReadFile(p)
		moved = moved || err == nil && !bytes.Equal(old, b)
	}
	if !moved {
		return true, ""
	}
	path := filepath.Join(dir, name, equivalence.ReportFile)
	status, passed := "no equivalence report "+path, false
	if b, err := os.ReadFile(path); err == nil {
		switch r, err := equivalence.ParseReport(path, b); {
		case err != nil:
			status = err.Error()
		case r.Verdict == equivalence.Pass:
			status, passed = fmt.Sprintf("a passing equivalence report %s (new code %s)", path, strings.Join(r.NewCode, ", ")), true
		default:
			status = "a failing equivalence report " + path
		}
	}
	switch {
	case passed:
		return true, fmt.Sprintf("%s: outputs moved; %s: golden updated", name, status)
	case force:
		return true, fmt.Sprintf("%s: outputs moved; %s: golden updated anyway (DPLAB_UPDATE_GOLDEN_FORCE=1)", name, status)
	}
	return false, fmt.Sprintf("%s: outputs moved; %s: golden not updated. Run make equivalence SPECS=%s first (docs/README.md), or set DPLAB_UPDATE_GOLDEN_FORCE=1 as well (a spec without committed evidence cannot be checked: review its diff and force)", name, status, name)
}

// checkFigures draws the figures of the quick run of spec stored in dir
// and fails when a legend covers a data point, a marker or a CI band vertex
// (issue 13: the legend covered objpert_fig4's k = 100 point and the Crime
// panel of gaussmix_fig2), or when a caption line takes more than one line
// in the image (issue 35: the footnote took more than half of
// preprocessing fig3).
func checkFigures(t *testing.T, path, dir string) {
	t.Helper()
	s := loadQuick(t, path)
	recs, err := results.Read(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	figs, err := report.DrawFigures(s, recs)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		covered, err := plotting.LegendCovers(f)
		if err != nil {
			t.Errorf("figure %s: %v", f.Name, err)
		}
		for _, c := range covered {
			t.Errorf("figure %s: %s", f.Name, c)
		}
		if n, err := plotting.CaptionLines(f); err != nil || n > 1 {
			t.Errorf("figure %s: caption line on %d lines (%v): want at most one (%q)", f.Name, n, err, f.Caption.Line)
		}
	}
}

// checkCaptions checks the caption files of the quick run of spec name in
// dir (issue 35): every figure and table has its <name>.caption.md and
// .caption.tex, the LaTeX one in ASCII; and nothing of the footnotes the
// figures and tables carried before issue 35 is lost. Those footnotes are
// frozen in testdata/footnotes/<spec>.json (every figure's and table's
// footnote of the quick runs on main 1fc2701, captured before the change):
// every phrase of each — its parts between "; ", ": ", ", ", parentheses
// and full stops — must appear in the caption file (with the table, whose
// caption line is printed under it, or the figure's SVG, whose legend
// names its curves: a phrase of every curve of a figure or table no longer
// names them), the math markup written as Unicode
// as the caption files write it (plotting.PlainText). Wall-time ratios
// ("3.10×") differ from run to run and are not compared.
func checkCaptions(t *testing.T, name, dir string) {
	t.Helper()
	for _, sub := range []string{"figures", "tables"} {
		entries, _ := os.ReadDir(filepath.Join(dir, sub))
		for _, e := range entries {
			n := e.Name()
			if strings.HasSuffix(n, plotting.CaptionMarkdown) || strings.HasSuffix(n, plotting.CaptionTeX) || strings.HasSuffix(n, ".csv") {
				continue
			}
			stem := strings.TrimSuffix(n, filepath.Ext(n))
			for _, c := range plotting.CaptionFiles {
				b, err := os.ReadFile(filepath.Join(dir, sub, stem+c))
				if err != nil || len(b) == 0 {
					t.Errorf("%s/%s: no caption file %s (%v)", sub, n, stem+c, err)
				}
				for _, r := range string(b) {
					if c == plotting.CaptionTeX && r > 127 {
						t.Errorf("%s/%s%s: non-ASCII %q", sub, stem, c, r)
						break
					}
				}
			}
		}
	}
	b, err := os.ReadFile(filepath.Join("testdata", "footnotes", name+".json"))
	if err != nil {
		t.Fatalf("the footnotes before issue 35: %v", err)
	}
	var before map[string]string
	if err := json.Unmarshal(b, &before); err != nil {
		t.Fatal(err)
	}
	for out, note := range before {
		caption, err := os.ReadFile(filepath.Join(dir, out+plotting.CaptionMarkdown))
		if err != nil {
			t.Errorf("%s: %v", out, err)
			continue
		}
		text := string(caption)
		if tab, err := os.ReadFile(filepath.Join(dir, out+".md")); err == nil {
			text += "\n" + string(tab)
		}
		if svg, err := os.ReadFile(filepath.Join(dir, out+".svg")); err == nil {
			text += "\n" + html.UnescapeString(string(svg)) // the image names its curves in its legend
		}
		text = plotting.PlainText(text)
		for _, p := range phraseSplit.Split(note, -1) {
			p = plotting.PlainText(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(p), ".")))
			if len(p) < 2 || timeRatioPhrase.MatchString(p) {
				continue
			}
			if !strings.Contains(text, p) {
				t.Errorf("%s: the caption files lose %q of the footnote before issue 35", out, p)
			}
		}
	}
}

// phraseSplit cuts a footnote into the phrases checkCaptions looks for;
// timeRatioPhrase matches a wall-time ratio.
var (
	phraseSplit     = regexp.MustCompile(`; |: |, | \(|\)|\. `)
	timeRatioPhrase = regexp.MustCompile(`[0-9]×`)
)

// timingOutputs names the outputs (spec/file) whose content states wall
// times, so they differ from run to run: the caption files of the GaussMix
// figures with a "faster by" time ratio, the objective-perturbation runtime
// tables and the RGM time-per-iteration tables.
var timingOutputs = map[string]bool{}

func init() {
	for _, f := range []string{
		"gaussmix_fig2/figures/fig2-test-mse", "gaussmix_fig3/figures/fig3-test-error",
		"gaussmix_fig4/figures/fig4-test-mse", "gaussmix_fig5/figures/fig5-test-error",
	} {
		// The time ratio is in the caption files (issue 35), no longer
		// in the image.
		timingOutputs[f+plotting.CaptionMarkdown], timingOutputs[f+plotting.CaptionTeX] = true, true
	}
	for _, d := range []string{"adult", "synthetic-h", "synthetic-l"} {
		for _, ext := range []string{".csv", ".md", ".tex"} {
			timingOutputs["objpert_fig2/tables/runtime-"+d+ext] = true
		}
	}
	for _, s := range []string{"rgm_fig1", "rgm_fig1_code"} { // wall_ns_per_iter
		for _, ext := range []string{".csv", ".md", ".tex"} {
			timingOutputs[s+"/tables/time-per-iteration"+ext] = true
		}
	}
}

// timingPrefixes are the output path prefixes (spec/file) of the per-dataset
// tables that state wall times: the side-by-side suites' ranking tables
// (wall s/trial of winner and runner-up) and runtime tables.
var timingPrefixes = []string{
	"compare_regression/tables/ranking", "compare_regression/tables/runtime",
	"compare_classification/tables/ranking", "compare_classification/tables/runtime",
}

func timingPrefixed(path string) bool {
	return slices.ContainsFunc(timingPrefixes, func(p string) bool { return strings.HasPrefix(path, p) })
}

// metricTolerance is the relative difference allowed between a metric value
// (or a summary statistic of one, or a table's number) and its golden,
// relative to the larger of the two or, for a summary statistic, of the
// golden mean of its (cell, metric) row, for a table's number of the
// largest number of its row.
const metricTolerance = 1e-12

// compareValues compares the metric values of a run (outputDigests) with
// the golden file at path: the same keys, each value equal as text or both
// numbers within metricTolerance (values keyed ".../<stat>" of summary.csv
// relative to the row's mean too).
func compareValues(t *testing.T, path string, got map[string]string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]string
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	// A table cell's scale is the largest |value| of its row (a mean beside
	// its interval's half-width).
	rowScale := map[string]float64{}
	for k, w := range want {
		if strings.HasPrefix(k, "tables/") {
			if x, err := strconv.ParseFloat(w, 64); err == nil && !math.IsInf(x, 0) && !math.IsNaN(x) {
				row := k[:strings.LastIndexByte(k, '/')]
				rowScale[row] = math.Max(rowScale[row], math.Abs(x))
			}
		}
	}
	bad := 0
	for k, w := range want {
		scale := want[summaryMeanKey(k)]
		if strings.HasPrefix(k, "tables/") {
			scale = strconv.FormatFloat(rowScale[k[:strings.LastIndexByte(k, '/')]], 'g', -1, 64)
		}
		g, ok := got[k]
		if !ok {
			t.Errorf("value %s: in the golden, not written", k)
			bad++
		} else if !closeValues(g, w, scale) {
			t.Errorf("value %s: %s, golden %s (tolerance %g relative)", k, g, w, metricTolerance)
			bad++
		}
		if bad > 20 {
			t.Fatalf("more than 20 values differ from %s", path)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("value %s: written but not in the golden", k)
		}
	}
}

// summaryMeanKey returns the key of the mean of a summary.csv statistic's
// row ("" for a record's metric).
func summaryMeanKey(k string) string {
	if !strings.HasPrefix(k, "summary.csv/") {
		return ""
	}
	return k[:strings.LastIndexByte(k, '/')] + "/mean"
}

// closeValues reports whether two values are equal as text or are numbers
// within metricTolerance relative to the larger of them and |scale| (a
// number, or "" for none).
func closeValues(a, b, scale string) bool {
	if a == b {
		return true
	}
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	if err1 != nil || err2 != nil || math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
		return false
	}
	ref := math.Max(math.Abs(x), math.Abs(y))
	if s, err := strconv.ParseFloat(scale, 64); err == nil && !math.IsNaN(s) && !math.IsInf(s, 0) {
		ref = math.Max(ref, math.Abs(s))
	}
	return math.Abs(x-y) <= metricTolerance*ref
}

// summaryStats are the summary.csv columns computed from a metric's
// values: compared with metricTolerance, not hashed.
var summaryStats = []string{"mean", "sd", "se", "ci_low", "ci_high", "median", "q1", "q3", "min", "max"}

// outputDigests returns a SHA-256 per output file of the result directory,
// after removing what timing makes irreproducible, and the metric values
// (records' metrics and summary.csv's statistics) taken out of the hashed
// content, by key.
func outputDigests(t *testing.T, spec, dir string) (map[string]string, map[string]string) {
	t.Helper()
	out := map[string]string{}
	values := map[string]string{}
	metricTables := metricTableFiles(t, spec, dir)
	var claims map[string]string // the claims files' digests, made once
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".lock" || rel == "manifest.json" || rel == "spec.toml" || timingOutputs[spec+"/"+rel] || timingPrefixed(spec+"/"+rel):
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		switch rel {
		case report.ClaimsMarkdown, report.ClaimsCSV, report.ClaimsJSON:
			if claims == nil {
				claims = claimsDigests(t, dir, values)
			}
			out[rel] = claims[rel]
			return nil
		case "trials.jsonl":
			b = canonicalRecords(t, b, values)
		case "summary.csv":
			b = summaryValues(t, dropColumn(t, b, "wall_s_mean"), values)
		default:
			switch {
			case metricTables[rel]:
				b = tableValues(t, rel, b, values)
			case strings.HasSuffix(rel, ".png"):
				b = pngPixels(t, rel, b)
			}
		}
		sum := sha256.Sum256(b)
		out[rel] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, values
}

// pngPixels returns what a PNG figure shows: its size and its pixels as
// 8-bit non-premultiplied RGBA, row by row, decoded by image/png. A PNG's
// bytes also depend on how its encoder compresses (PNG filters, deflate's
// matches and blocks), which no one sees; its pixels are hashed instead.
func pngPixels(t *testing.T, rel string, b []byte) []byte {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	nrgba := image.NewNRGBA(img.Bounds())
	draw.Draw(nrgba, nrgba.Rect, img, img.Bounds().Min, draw.Src)
	return append(fmt.Appendf(nil, "%d×%d\n", nrgba.Rect.Dx(), nrgba.Rect.Dy()), nrgba.Pix...)
}

// canonicalRecords returns the records without their timing fields (and
// the wall-clock diagnostics, keys "wall_…") and without their metrics,
// which go to values as "trials.jsonl/<cell_key>#<trial>/<metric>", one
// canonical JSON line each, sorted (the order of appends depends on -j), with
// the data directory (which a skipped dataset's record names) written as
// $DPLAB_DATA: CI clones the repository wherever it likes.
func canonicalRecords(t *testing.T, b []byte, values map[string]string) []byte {
	t.Helper()
	dataDir, _ := json.Marshal(datasets.DataDir(""))
	dataDir = bytes.Trim(dataDir, `"`)
	var lines []string
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		l = bytes.ReplaceAll(l, dataDir, []byte("$DPLAB_DATA"))
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "wall_s")
		delete(m, "code_version")
		if metrics, ok := m["metrics"].(map[string]any); ok {
			for name, v := range metrics {
				key := fmt.Sprintf("trials.jsonl/%v#%v/%s", m["cell_key"], m["trial"], name)
				if _, dup := values[key]; dup {
					t.Fatalf("two records of %s", key)
				}
				j, _ := json.Marshal(v)
				values[key] = strings.Trim(string(j), `"`)
			}
			delete(m, "metrics")
		}
		if diag, ok := m["diagnostics_nonprivate"].(map[string]any); ok {
			for k := range diag {
				if results.IsTimingKey(k) { // a wall-clock measurement (results.Record.Diagnostics)
					delete(diag, k)
				}
			}
		}
		c, _ := json.Marshal(m) // map keys sorted: canonical
		lines = append(lines, string(c))
	}
	sort.Strings(lines)
	return []byte(strings.Join(lines, "\n"))
}

// claimsDigests returns the digests of the claims files of dir (claims.md,
// claims.csv, claims.json), after checking that the three say the same:
// claims.md and claims.csv are claims.json's encodings (Claims.Markdown,
// CSV). Every number of a point (the sides' means, half-widths and
// trials, the checked value and its interval, the paper's value) goes to
// values as "claims.json/<claim>/<point>/<field>", compared with
// metricTolerance, except the numbers of a timing claim (wall-clock: they
// differ from run to run), which are dropped with the verdict, summary,
// counts and outcomes they decide; the digests are those of the three
// encodings of the claims without their numbers, so verdicts, outcomes,
// labels and texts are hashed exactly (a timing claim's but its verdicts).
func claimsDigests(t *testing.T, dir string, values map[string]string) map[string]string {
	t.Helper()
	c, err := report.ReadClaims(dir)
	if err != nil {
		t.Fatal(err)
	}
	encodings := func(c *report.Claims) map[string][]byte {
		js, err := c.JSON()
		if err != nil {
			t.Fatal(err)
		}
		csv, err := c.CSV()
		if err != nil {
			t.Fatal(err)
		}
		return map[string][]byte{report.ClaimsMarkdown: c.Markdown(), report.ClaimsCSV: csv, report.ClaimsJSON: js}
	}
	for name, b := range encodings(c) {
		file, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(file, b) {
			t.Errorf("%s is not claims.json's encoding", name)
		}
	}
	nan := results.Float(math.NaN())
	take := func(key string, x *results.Float, timing bool) {
		if !timing && !math.IsNaN(float64(*x)) {
			values[key] = results.StatNum(float64(*x))
		}
		*x = nan
	}
	for ci := range c.Claims {
		cl := &c.Claims[ci]
		if cl.Timing {
			cl.Verdict, cl.Summary, cl.Held, cl.Tied, cl.Contradicting = "timing", "timing", 0, 0, 0
		}
		for pi := range cl.Points {
			p := &cl.Points[pi]
			key := fmt.Sprintf("claims.json/%s/%d/", cl.ID, pi)
			for name, side := range map[string]*report.ClaimSide{"a": p.A, "b": p.B} {
				if side == nil {
					continue
				}
				take(key+name+"_mean", &side.Mean, cl.Timing)
				take(key+name+"_half", &side.Half, cl.Timing)
				if !cl.Timing {
					values[key+name+"_n"] = strconv.Itoa(side.N)
				}
				side.N = 0
			}
			if cl.Timing && p.Outcome != report.NotRun {
				p.Outcome = "timing"
			}
			take(key+"estimate", &p.Estimate, cl.Timing)
			take(key+"low", &p.Low, cl.Timing)
			take(key+"high", &p.High, cl.Timing)
			take(key+"paper", &p.Paper, cl.Timing)
		}
	}
	out := map[string]string{}
	for name, b := range encodings(c) {
		sum := sha256.Sum256(b)
		out[name] = hex.EncodeToString(sum[:])
	}
	return out
}

// summaryValues moves summary.csv's statistics columns (summaryStats) into
// values as "summary.csv/<cell_key>/<metric>/<column>" and returns the CSV
// with those cells empty.
func summaryValues(t *testing.T, b []byte, values map[string]string) []byte {
	t.Helper()
	rows := readCSV(t, b)
	if len(rows) == 0 {
		return b
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, r := range rows[1:] {
		prefix := "summary.csv/" + r[col["cell_key"]] + "/" + r[col["metric"]] + "/"
		for _, stat := range summaryStats {
			i, ok := col[stat]
			if !ok {
				t.Fatalf("summary.csv has no %q column", stat)
			}
			if _, dup := values[prefix+stat]; dup {
				t.Fatalf("two summary rows of %s", prefix)
			}
			values[prefix+stat], r[i] = r[i], ""
		}
	}
	return writeCSV(rows)
}

// metricTableFiles returns the CSV files under dir/tables of the spec's
// tables that show a metric (kind "epsilon", the default, with a metric
// key): "tables/<name>.csv" or, split per dataset, "tables/<name>-….csv".
// Other tables (privacy, calibration, diagnostics) stay hashed exactly.
func metricTableFiles(t *testing.T, spec, dir string) map[string]bool {
	t.Helper()
	s, err := plan.Load(filepath.Join("experiments", spec+".toml"))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "tables", "*.csv"))
	out := map[string]bool{}
	for _, tab := range s.Tables {
		if _, ok := tab.Params["metric"]; !ok || (tab.Kind != "" && tab.Kind != "epsilon") {
			continue
		}
		for _, f := range files {
			base := strings.TrimSuffix(filepath.Base(f), ".csv")
			if base == tab.Name || strings.HasPrefix(base, tab.Name+"-") {
				out["tables/"+filepath.Base(f)] = true
			}
		}
	}
	return out
}

// tableValues moves the numeric cells of a metric table's CSV
// (full-precision means and interval half-widths) into values as
// "<rel>/<row>/<column>" (0-based, the header is row 0) and returns the CSV
// with those cells empty; the .md and .tex versions round them and stay
// hashed.
func tableValues(t *testing.T, rel string, b []byte, values map[string]string) []byte {
	t.Helper()
	rows := readCSV(t, b)
	for i, r := range rows {
		for j, cell := range r {
			if _, err := strconv.ParseFloat(cell, 64); err == nil {
				values[fmt.Sprintf("%s/%d/%d", rel, i, j)], r[j] = cell, ""
			}
		}
	}
	return writeCSV(rows)
}

// dropColumn removes the named column from a CSV file.
func dropColumn(t *testing.T, b []byte, name string) []byte {
	t.Helper()
	rows := readCSV(t, b)
	if len(rows) == 0 {
		return b
	}
	col := -1
	for i, h := range rows[0] {
		if h == name {
			col = i
		}
	}
	for i, r := range rows {
		if col >= 0 && col < len(r) {
			rows[i] = append(r[:col:col], r[col+1:]...)
		}
	}
	return writeCSV(rows)
}

// readCSV parses a CSV output file.
func readCSV(t *testing.T, b []byte) [][]string {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// writeCSV formats rows as CSV.
func writeCSV(rows [][]string) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.WriteAll(rows)
	return buf.Bytes()
}

// loadQuick loads the spec at path with its [quick] settings applied, as
// a --quick run does.
func loadQuick(t *testing.T, path string) *specpkg.Spec {
	t.Helper()
	s, err := report.Load(path, specpkg.LoadOptions{})
	if err == nil {
		s, err = plan.ApplyQuick(s)
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}
