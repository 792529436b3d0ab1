package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/docgen"
	"github.com/dplab/dplab/harness/equivalence"
	"github.com/dplab/dplab/results"
)

// equivSpec is a tiny spec with a claim: AdaSSP against ridge on
// synthetic data, 30 trials of 2 ε (ridge, non-private, is one cell).
const equivSpec = `name = "equiv"
seed = 3
trials = 30
epsilon = [0.1, 1]
delta = 1e-6
ci = "t"
metrics = ["test_mse"]

[[dataset]]
name = "synthetic-linear"
params = { n = 400, d = 3, noise = 0.1, seed = 7 }
split = { test = 0.25 }
scale = { x = "max-row-norm", y = "max-abs" }

[[mechanism]]
name = "adassp"
label = "AdaSSP"
params = { rho = 1e-4 }

[[mechanism]]
name = "ridge"
label = "Ridge"
params = { lambda = 1e-6 }

[[claim]]
id = "ridge-beats-adassp"
quote = "the non-private fit is better"
where = "test"
check = "better"
quantity = "metric:test_mse"
a = { mechanism = "Ridge" }
b = { mechanism = "AdaSSP" }
`

// readReport reads the equivalence report of spec name under out.
func readReport(t *testing.T, out, name string) *equivalence.Report {
	t.Helper()
	path := filepath.Join(out, name, equivalence.ReportFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := equivalence.ParseReport(path, b)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestEquivalenceEndToEnd makes the committed evidence of a tiny spec
// from one run (as dplab docs --refresh does), then checks with dplab
// equivalence: a rerun of the spec by the check (the same seed and code)
// is identical; a run of independent trials (trials 30–59 of the same
// cells, renumbered 0–29: other trial seeds) passes with means that
// differ; the committed evidence with ε spent moved by 1e-6 relative
// fails with exit 1, naming the field.
func TestEquivalenceEndToEnd(t *testing.T) {
	tmp := t.TempDir()
	specs, evidence, out := filepath.Join(tmp, "specs"), filepath.Join(tmp, "evidence"), filepath.Join(tmp, "equivalence")
	if err := os.MkdirAll(specs, 0o755); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(specs, "equiv.toml")
	if err := os.WriteFile(spec, []byte(equivSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	runA := filepath.Join(tmp, "a")
	if code, _, errs := runMain(t, "run", spec, "--out", runA, "-j", "2"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	if err := docgen.New(docgen.Config{Specs: specs, Evidence: evidence}).Refresh("equiv", runA); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--specs", specs, "--evidence", evidence, "--out", out, "-j", "2"}

	// The check runs the spec itself: the same code and seed.
	code, stdout, errs := runMain(t, append([]string{"equivalence"}, flags...)...)
	if code != 0 {
		t.Fatalf("equivalence of a rerun: exit %d\n%s\n%s", code, stdout, errs)
	}
	r := readReport(t, out, "equiv")
	if r.Verdict != equivalence.Pass || r.Metrics.Compared != 3 || r.Metrics.Identical != 3 || len(r.Privacy) != 0 ||
		len(r.Claims) != 1 || r.Claims[0].Changed || r.Claims[0].Old != "holds" {
		t.Fatalf("rerun: %+v\n%s", r, stdout)
	}
	if !strings.Contains(stdout, "equiv: PASS") {
		t.Errorf("stdout:\n%s", stdout)
	}

	// Independent trials of the same cells.
	runB0, runB := filepath.Join(tmp, "b0"), filepath.Join(tmp, "b")
	if code, _, errs := runMain(t, "run", spec, "--out", runB0, "--trials", "60", "-j", "2"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	recs, err := results.Read(runB0, nil)
	if err != nil {
		t.Fatal(err)
	}
	var store []byte
	for i := range recs {
		if recs[i].Trial >= 30 {
			recs[i].Trial -= 30
			if store, err = results.AppendRecord(store, &recs[i]); err != nil {
				t.Fatal(err)
			}
			store = append(store, '\n')
		}
	}
	if err := os.MkdirAll(runB, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runB, results.TrialsFile), store, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, errs = runMain(t, append([]string{"equivalence", "equiv", "--run", runB}, flags...)...)
	if code != 0 {
		t.Fatalf("equivalence of independent trials: exit %d\n%s\n%s", code, stdout, errs)
	}
	r = readReport(t, out, "equiv")
	if r.Verdict != equivalence.Pass || r.Metrics.Compared != 3 || r.Metrics.Identical == 3 || len(r.Privacy) != 0 || r.Claims[0].Changed {
		t.Fatalf("independent trials: %+v\n%s", r, stdout)
	}

	// A privacy quantity moved by 1e-6 relative in the committed evidence.
	path := filepath.Join(evidence, "equiv", docgen.EvidenceFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`"eps_spent_max":([0-9.e+-]+)`)
	m := re.FindSubmatchIndex(b)
	if m == nil {
		t.Fatalf("no eps_spent_max in %s", path)
	}
	x, err := strconv.ParseFloat(string(b[m[2]:m[3]]), 64)
	if err != nil {
		t.Fatal(err)
	}
	moved := append(append(append([]byte(nil), b[:m[2]]...), strconv.FormatFloat(x*(1+1e-6), 'g', -1, 64)...), b[m[3]:]...)
	if bytes.Equal(moved, b) {
		t.Fatal("nothing moved")
	}
	if err := os.WriteFile(path, moved, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, errs = runMain(t, append([]string{"equivalence", "equiv", "--run", runB}, flags...)...)
	if code != 1 || !strings.Contains(stdout, "equiv: FAIL") || !strings.Contains(stdout, "privacy quantity eps_spent_max changed") ||
		!strings.Contains(errs, "not equivalent to the committed evidence: equiv") {
		t.Fatalf("moved ε spent: exit %d\n%s\n%s", code, stdout, errs)
	}
}

// TestGoldenUpdateNeedsEquivalence: the golden test's update mode writes
// a moved golden only with a passing equivalence report of the spec, or
// when forced; an unchanged or new golden needs none.
func TestGoldenUpdateNeedsEquivalence(t *testing.T) {
	dir := t.TempDir()
	golden, reports := filepath.Join(dir, "s.json"), filepath.Join(dir, "eq")
	if err := os.WriteFile(golden, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	report := func(verdict string) {
		if err := os.MkdirAll(filepath.Join(reports, "s"), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := (&equivalence.Report{Spec: "s", Verdict: verdict, NewCode: []string{"v2"}}).JSON()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(reports, "s", equivalence.ReportFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string, files map[string][]byte, force, wantAllow bool, wantMsg string) {
		t.Helper()
		allow, msg := goldenUpdateVerdict("s", reports, files, force)
		if allow != wantAllow || !strings.Contains(msg, wantMsg) || (wantMsg == "") != (msg == "") {
			t.Errorf("%s: allow %v, message %q; want %v and %q", what, allow, msg, wantAllow, wantMsg)
		}
	}
	same := map[string][]byte{golden: []byte("old\n")}
	moved := map[string][]byte{golden: []byte("new\n")}
	fresh := map[string][]byte{filepath.Join(dir, "new.json"): []byte("x\n")}
	check("unchanged", same, false, true, "")
	check("a new spec", fresh, false, true, "")
	check("moved, no report", moved, false, false, "no equivalence report")
	check("moved, no report, forced", moved, true, true, "DPLAB_UPDATE_GOLDEN_FORCE=1")
	report(equivalence.Fail)
	check("moved, failing report", moved, false, false, "a failing equivalence report")
	report(equivalence.Pass)
	check("moved, passing report", moved, false, true, "a passing equivalence report")
}
