package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/experiments/report"
	"github.com/dplab/dplab/experiments/spec"
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
// DPLAB_UPDATE_GOLDEN=1 rewrites the goldens (review the diff). The specs
// read the shared datasets; without DPLAB_DATA the test skips.
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
			dir := filepath.Join(t.TempDir(), "out")
			if code, _, errs := runMain(t, "run", spec, "--quick", "--out", dir, "-j", "2"); code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			checkLegends(t, spec, dir)
			got := outputDigests(t, name, dir)
			path := filepath.Join("testdata", "golden", "quick", name+".json")
			if update {
				b, _ := json.MarshalIndent(got, "", "  ")
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
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

// checkLegends draws the figures of the quick run of spec stored in dir
// and fails when a legend covers a data point, a marker or a CI band vertex
// (issue 13: the legend covered objpert_fig4's k = 100 point and the Crime
// panel of gaussmix_fig2).
func checkLegends(t *testing.T, path, dir string) {
	t.Helper()
	s, err := report.Load(path, spec.LoadOptions{})
	if err == nil {
		err = s.ApplyQuick()
	}
	if err != nil {
		t.Fatal(err)
	}
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
	}
}

// timingOutputs names the outputs (spec/file) whose content states wall
// times, so they differ from run to run: the GaussMix figures with a
// "faster by" time ratio, the objective-perturbation runtime tables and the
// RGM time-per-iteration tables.
var timingOutputs = map[string]bool{}

func init() {
	for _, f := range []string{
		"gaussmix_fig2/figures/fig2-test-mse", "gaussmix_fig3/figures/fig3-test-error",
		"gaussmix_fig4/figures/fig4-test-mse", "gaussmix_fig5/figures/fig5-test-error",
	} {
		timingOutputs[f+".png"], timingOutputs[f+".svg"] = true, true
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

// outputDigests returns a SHA-256 per output file of the result directory,
// after removing what timing makes irreproducible.
func outputDigests(t *testing.T, spec, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
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
		case "trials.jsonl":
			b = canonicalRecords(t, b)
		case "summary.csv":
			b = dropColumn(t, b, "wall_s_mean")
		}
		sum := sha256.Sum256(b)
		out[rel] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// canonicalRecords returns the records without their timing fields (and
// the wall-clock diagnostics, keys "wall_…"), one
// canonical JSON line each, sorted (the order of appends depends on -j), with
// the data directory (which a skipped dataset's record names) written as
// $DPLAB_DATA: CI clones the repository wherever it likes.
func canonicalRecords(t *testing.T, b []byte) []byte {
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
		if diag, ok := m["diagnostics_nonprivate"].(map[string]any); ok {
			for k := range diag {
				if strings.HasPrefix(k, "wall_") { // a wall-clock measurement (results.Record.Diagnostics)
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

// dropColumn removes the named column from a CSV file.
func dropColumn(t *testing.T, b []byte, name string) []byte {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		return b
	}
	col := -1
	for i, h := range rows[0] {
		if h == name {
			col = i
		}
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	for _, r := range rows {
		if col >= 0 && col < len(r) {
			r = append(r[:col:col], r[col+1:]...)
		}
		_ = w.Write(r)
	}
	w.Flush()
	return buf.Bytes()
}
