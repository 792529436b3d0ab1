package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dplab/dplab/results"
)

// TestAuditCommand runs dplab audit on the reference Gaussian mechanism and
// a registered one, and checks its output and its errors.
func TestAuditCommand(t *testing.T) {
	t.Parallel()
	code, out, errs := runMain(t, "audit", "gaussian", "--epsilon", "1", "--delta", "1e-5", "--trials", "2000", "--json")
	if code != 0 {
		t.Fatalf("audit gaussian: exit %d\n%s%s", code, out, errs)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	for _, k := range []string{"mechanism", "claimed_epsilon", "delta", "lower_bound", "confidence", "trials", "ratio", "relation", "verdict"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("--json output lacks %q", k)
		}
	}
	if rep["mechanism"] != "gaussian" || rep["trials"] != 2000.0 || rep["confidence"] != 0.95 || rep["delta"] != 1e-5 {
		t.Errorf("--json output: %v", rep)
	}
	if lo, claimed := rep["lower_bound"].(float64), rep["claimed_epsilon"].(float64); !(lo >= 0 && lo <= claimed) || math.Abs(claimed-1) > 1e-9 {
		t.Errorf("lower bound %v, claimed %v", lo, claimed)
	}
	if !strings.Contains(errs, "4000/4000 runs") {
		t.Errorf("no progress on stderr: %q", errs)
	}

	code, out, errs = runMain(t, "audit", "dpsgd", "--epsilon", "1", "--delta", "1e-5", "--trials", "200", "--params", "learning_rate=0.5")
	if code != 0 {
		t.Fatalf("audit dpsgd: exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{"relation     add_remove", "learning_rate=0.5", "lower bound  ε ≥", "verdict      not refuted"} {
		if !strings.Contains(out, want) {
			t.Errorf("audit dpsgd output lacks %q:\n%s", want, out)
		}
	}

	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"audit"}, "exactly one MECHANISM"},
		{[]string{"audit", "dpsgd", "--epsilon", "1"}, "--epsilon and --delta"},
		{[]string{"audit", "nosuch", "--epsilon", "1", "--delta", "1e-5"}, "nosuch"},
		{[]string{"audit", "ptr-pca-dpgd/nosuch", "--epsilon", "1", "--delta", "1e-5"}, "ptr-pca-dpgd/gradient"},
		{[]string{"audit", "ridge", "--epsilon", "1", "--delta", "1e-5"}, "non-private"},
		{[]string{"audit", "dpsgd", "--epsilon", "1", "--delta", "1e-5", "--params", "bogus=1"}, "bogus"},
		{[]string{"audit", "dpsgd", "--epsilon", "1", "--delta", "1e-5", "--params", "epochs"}, "key=value"},
		{[]string{"audit", "gaussian", "--epsilon", "-1", "--delta", "1e-5"}, "epsilon"},
		{[]string{"audit", "gaussian", "--epsilon", "1", "--delta", "0"}, "delta"},
		{[]string{"audit", "gaussian", "--epsilon", "1", "--delta", "1e-5", "--trials", "2"}, "trials"},
		{[]string{"audit", "gaussian", "--epsilon", "1", "--delta", "1e-5", "--confidence", "1.5"}, "confidence"},
	} {
		code, out, errs := runMain(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.msg) {
			t.Errorf("%v: exit %d, stderr %q (stdout %q), want 2 and %q", c.args, code, errs, out, c.msg)
		}
	}
}

// auditGridSpec is the shipped audit grid the CLI tests run with --quick.
const auditGridSpec = "experiments/audits/audit_grid.toml"

// quickAuditGrid is the one `dplab run auditGridSpec --quick` of a test
// binary (quickAuditGridCopy's; TestMain removes its directory).
var quickAuditGrid struct {
	once      sync.Once
	dir, out  string // the result directory; the run's stdout and stderr
	code      int
	createErr error
}

// quickAuditGridCopy returns a new directory holding a copy of the result
// of `dplab run experiments/audits/audit_grid.toml --quick` (16 audits of
// 300 runs a side: the CLI tests' most expensive fixture, which four tests
// ran each). The grid runs once per test binary, with the first call; each
// caller gets its own copy to resume, lock, link or render.
func quickAuditGridCopy(t *testing.T) string {
	t.Helper()
	g := &quickAuditGrid
	g.once.Do(func() {
		if g.dir, g.createErr = os.MkdirTemp("", "dplab-audit-grid-"); g.createErr != nil {
			return
		}
		var out, errb bytes.Buffer
		g.code = Main(context.Background(), []string{"run", auditGridSpec, "--quick", "--out", filepath.Join(g.dir, "out")}, &out, &errb)
		g.out = out.String() + errb.String()
	})
	if g.createErr != nil {
		t.Fatal(g.createErr)
	}
	if g.code != 0 {
		t.Fatalf("run %s --quick: exit %d\n%s", auditGridSpec, g.code, g.out)
	}
	dir := filepath.Join(t.TempDir(), "audit_grid")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(g.dir, "out"))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestAuditSpecCommand runs the shipped audit grid with --quick as the
// ordinary spec it is: dplab run stores one trial per (mechanism, ε) cell
// in trials.jsonl (no audits.jsonl), renders the "audit" figure and table,
// resumes without rerunning, takes the directory's lock as any run, and
// dplab audit SPEC.toml is the same run. (Before issue 36 the audit grid
// had its own spec format and store: dplab run refused it.)
func TestAuditSpecCommand(t *testing.T) {
	t.Parallel()
	out := quickAuditGridCopy(t)
	for _, f := range []string{results.TrialsFile, "spec.toml", results.ManifestFile, "figures/audit.png", "figures/audit.svg", "tables/audit.md", "tables/audit.csv"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "audits.jsonl")); err == nil {
		t.Error("an audit grid wrote a second store, audits.jsonl")
	}
	recs, err := results.Read(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 16 { // 4 mechanisms × 4 ε
		t.Fatalf("%d records, want 16", len(recs))
	}
	for _, r := range recs {
		lo, claimed := r.Metrics["audit_lower_bound"], r.Metrics["audit_claimed_epsilon"]
		if r.Status != results.StatusOK || r.Diagnostics["audit_runs"] != 300 || !(lo >= 0 && lo <= claimed) || r.Privacy.EpsSpent != claimed {
			t.Errorf("record %s at ε = %v: status %s, metrics %v, ε spent %v", r.Label, r.Epsilon, r.Status, r.Metrics, r.Privacy.EpsSpent)
		}
	}
	table, err := os.ReadFile(filepath.Join(out, "tables", "audit.md"))
	if err != nil || !strings.Contains(string(table), "| target ε | Gaussian (reference) claimed | Gaussian (reference) audited |") {
		t.Errorf("tables/audit.md: %v\n%s", err, table)
	}
	// Resumed: nothing reruns; dplab audit SPEC.toml is the same run.
	for _, cmd := range []string{"run", "audit"} {
		code, stdout, errs := runMain(t, cmd, auditGridSpec, "--quick", "--out", out)
		if code != 0 || !strings.Contains(stdout, "16 stored before, 0 run") {
			t.Errorf("%s again: exit %d, want 0 and 16 stored\n%s%s", cmd, code, stdout, errs)
		}
	}
	if code, _, errs := runMain(t, "audit", filepath.Join(out, "missing.toml")); code != 2 || !strings.Contains(errs, "missing.toml") {
		t.Errorf("missing spec: exit %d, %q", code, errs)
	}
	// Another experiment's directory is refused as by any run, unchanged.
	runDir := t.TempDir()
	spec := writeFile(t, filepath.Join(t.TempDir(), "cli.toml"), cliSpec)
	if code, _, errs := runMain(t, "run", spec, "--out", runDir); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errs)
	}
	before := snapshot(t, runDir)
	if code, _, errs := runMain(t, "run", auditGridSpec, "--quick", "--out", runDir); code != 2 {
		t.Errorf("audit grid into another experiment's directory: exit %d, want 2\n%s", code, errs)
	}
	if after := snapshot(t, runDir); after != before {
		t.Errorf("the refused audit changed %s", runDir)
	}
	// One run at a time per directory: the run's lock, as for any run.
	held, err := results.Open(out, nil, nil) // holds the lock as a running run does
	if err != nil {
		t.Fatal(err)
	}
	before = snapshot(t, out)
	code, _, errs := runMain(t, "run", auditGridSpec, "--quick", "--out", out)
	if err := held.Close(); err != nil {
		t.Fatal(err)
	}
	if want := out + " is in use"; code != 1 || !strings.Contains(errs, want) {
		t.Errorf("audit of a locked directory: exit %d, want 1 and %q\n%s", code, want, errs)
	}
	if after := snapshot(t, out); after != before {
		t.Errorf("the refused audit changed %s", out)
	}
}

// TestValidateAuditGridBuildsTargets: dplab validate refuses an audit grid
// whose target cannot be built (an unknown mechanism, a bad param) as dplab
// run does, naming the [[mechanism]] block and its line (fails before:
// validate printed "ok" and only run refused it).
func TestValidateAuditGridBuildsTargets(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, block, want string }{
		{"unknown target", "[[mechanism]]\nname = \"nosuch\"\n", `"nosuch"`},
		{"bad param", "[[mechanism]]\nname = \"gaussian\"\nparams = { nosuch = 1 }\n", "nosuch"},
	} {
		path := filepath.Join(dir, "ag.toml")
		src := "name = \"ag\"\nseed = 1\ndelta = 1e-5\nepsilon = [1]\n[audit]\nruns = 100\n" + tc.block
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := runMain(t, "validate", path)
		if code != 2 || !strings.Contains(errs, "mechanism[0]") || !strings.Contains(errs, tc.want) || strings.Contains(out, "ok ") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 naming mechanism[0] and %s", tc.name, code, out, errs, tc.want)
		}
	}
	// The shipped grid still validates.
	if code, out, errs := runMain(t, "validate", "experiments/audits/audit_grid.toml"); code != 0 || !strings.Contains(out, "ok ") {
		t.Errorf("audit_grid.toml: exit %d, %q %q", code, out, errs)
	}
}
