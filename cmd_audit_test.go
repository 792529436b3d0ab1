package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dplab/dplab/audit"
	"github.com/dplab/dplab/results"
)

// TestAuditCommand runs dplab audit on the reference Gaussian mechanism and
// a registered one, and checks its output and its errors.
func TestAuditCommand(t *testing.T) {
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

// TestAuditSpecCommand runs the shipped audit spec with --quick.
func TestAuditSpecCommand(t *testing.T) {
	out := t.TempDir()
	code, stdout, errs := runMain(t, "audit", "experiments/audits/audit_grid.toml", "--quick", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, errs)
	}
	for _, f := range []string{"audits.jsonl", "spec.toml", "figures/audit.png", "figures/audit.svg", "tables/audit.md", "tables/audit.csv"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if code, _, errs := runMain(t, "audit", filepath.Join(out, "missing.toml")); code != 2 || !strings.Contains(errs, "missing.toml") {
		t.Errorf("missing spec: exit %d, %q", code, errs)
	}
	// As dplab run does, it refuses a directory of other files (here a
	// run's result directory, which it names as one), and writes nothing
	// there.
	runDir := t.TempDir()
	spec := writeFile(t, filepath.Join(t.TempDir(), "cli.toml"), cliSpec)
	if code, _, errs := runMain(t, "run", spec, "--out", runDir); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errs)
	}
	before := snapshot(t, runDir)
	code, _, errs = runMain(t, "audit", "experiments/audits/audit_grid.toml", "--quick", "--out", runDir)
	if want := runDir + " is not an audit result directory: it is a run's (it holds trials.jsonl); choose a new or empty directory"; code != 2 || !strings.Contains(errs, want) {
		t.Errorf("audit into a run's directory: exit %d, want 2 and %q\n%s", code, want, errs)
	}
	if after := snapshot(t, runDir); after != before {
		t.Errorf("the refused audit changed %s", runDir)
	}
	// One audit at a time per directory: while another holds its lock, a
	// second exits 1 naming it and changes nothing (two audits appended
	// the same cells, and one could cut the other's line being written).
	lock, err := results.LockDir(out, audit.LockFile)
	if err != nil {
		t.Fatal(err)
	}
	before = snapshot(t, out)
	code, _, errs = runMain(t, "audit", "experiments/audits/audit_grid.toml", "--quick", "--out", out)
	lock.Unlock()
	if want := out + " is in use by another dplab audit"; code != 1 || !strings.Contains(errs, want) {
		t.Errorf("audit of a locked directory: exit %d, want 1 and %q\n%s", code, want, errs)
	}
	if after := snapshot(t, out); after != before {
		t.Errorf("the refused audit changed %s", out)
	}
}
