package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dplab/dplab/results"
)

// subsetSpec has two mechanisms and two ε: four private cells and the
// non-private reference.
const subsetSpec = `name = "subset"
seed = 1
trials = 2
epsilon = [0.5, 2]
delta = 1e-6

[[dataset]]
name = "synthetic-linear"
label = "Synth"
params = { n = 300, d = 3 }

[[mechanism]]
name = "adassp"
label = "AdaSSP"
params = { rho = 1e-4 }

[[mechanism]]
name = "ridge"
label = "Ridge"

[[figure]]
name = "mse"
metric = "test_mse"
`

// lastRun returns the last run the manifest of dir records.
func lastRun(t *testing.T, dir string) results.Run {
	t.Helper()
	m, err := results.ReadManifest(dir)
	if err != nil || len(m.Runs) == 0 {
		t.Fatalf("manifest of %s: %v, %d runs", dir, err, len(m.Runs))
	}
	return m.Runs[len(m.Runs)-1]
}

// TestSetFlag: --set overrides reach validate, plan and run; the run
// records them in the manifest and saves the overridden spec, which
// renders in place; a second run with another override runs only the
// cells whose keys changed. Bad overrides are bad input (exit 2) naming
// the flag and its path.
func TestSetFlag(t *testing.T) {
	tmp := t.TempDir()
	specPath := writeFile(t, filepath.Join(tmp, "subset.toml"), subsetSpec)
	out := filepath.Join(tmp, "out")
	code, stdout, stderr := runMain(t, "validate", specPath, "--set", "trials=3", "--set", `mechanism[label="AdaSSP"].params.rho=[1e-3, 1e-2]`)
	if code != 0 || !strings.Contains(stdout, "(5 cells × 3 trials)") {
		t.Fatalf("validate --set: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runMain(t, "plan", specPath, "--out", out, "--set", "trials=3")
	if code != 0 || !strings.Contains(stdout, "3 cells, 9 trials") {
		t.Fatalf("plan --set: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runMain(t, "run", specPath, "--out", out, "-j", "1", "--set", "trials=3")
	if code != 0 || !strings.Contains(stdout, "9 run") {
		t.Fatalf("run --set: exit %d\n%s%s", code, stdout, stderr)
	}
	if got := lastRun(t, out).Set; !slices.Equal(got, []string{"trials=3"}) {
		t.Errorf("manifest set = %q, want [trials=3]", got)
	}
	saved, err := os.ReadFile(filepath.Join(out, "spec.toml"))
	if err != nil || !strings.Contains(string(saved), "trials = 3") || !strings.Contains(string(saved), `--set "trials=3"`) {
		t.Errorf("spec.toml is not the overridden spec:\n%s", saved)
	}
	if code, stdout, stderr = runMain(t, "render", out); code != 0 || strings.Contains(stderr, "INCOMPLETE") || strings.Contains(stderr, "incomplete") {
		t.Errorf("render of the overridden run: exit %d\n%s%s", code, stdout, stderr)
	}
	// Only AdaSSP's params change: its two cells get new keys, the
	// reference's three trials stay.
	code, stdout, stderr = runMain(t, "run", specPath, "--out", out, "-j", "1", "--set", "trials=3", "--set", `mechanism[label="AdaSSP"].params.rho=1e-3`)
	if code != 0 || !strings.Contains(stdout, "3 stored before, 6 run") {
		t.Errorf("second run: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, c := range []struct {
		cmd  string
		set  string
		want string
	}{
		{"run", "trialz=3", `key trialz: unknown key (did you mean "trials"?)`},
		{"plan", `trials="x"`, "key trials: incompatible types"},
		{"validate", `mechanism[label="Nope"].params.rho=1`, `--set mechanism[label="Nope"].params.rho=1: mechanism[label="Nope"]: no [[mechanism]] has label = "Nope"; label values: [0] "AdaSSP", [1] "Ridge"`},
		{"validate", `mechanism[name="adassp"].params.rhoo=1`, `unknown key (did you mean "rho"?)`},
		{"render", "epsilon=[0.5, 2", "is not a TOML value"},
		{"run", "epsilon=[-1]", "every ε must be finite and > 0 (set by --set epsilon=[-1])"},
	} {
		args := []string{c.cmd, specPath, "--set", c.set}
		if c.cmd == "run" || c.cmd == "plan" || c.cmd == "render" {
			args = append(args, "--out", filepath.Join(tmp, "bad"))
		}
		code, stdout, stderr := runMain(t, args...)
		if code != 2 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "subset.toml") {
			t.Errorf("%s --set %s: exit %d, want 2 and %q\n%s%s", c.cmd, c.set, code, c.want, stdout, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "bad")); err == nil {
		t.Error("a refused --set left a result directory")
	}
	if code, _, stderr := runMain(t, "render", out, "--set", "trials=2"); code != 2 || !strings.Contains(stderr, "--set overrides a SPEC.toml") {
		t.Errorf("render DIR --set: exit %d\n%s", code, stderr)
	}
}
