package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/report"
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
	if code, _, stderr := runMain(t, "render", out, "--set", "trials=2"); code != 2 || !strings.Contains(stderr, "--out, --quick and --set apply to a SPEC.toml") {
		t.Errorf("render DIR --set: exit %d\n%s", code, stderr)
	}
}

// TestPrune: after the spec drops ε = 0.5, dplab prune lists AdaSSP's
// old cell (a dry run: the store's bytes unchanged), --apply removes
// exactly its trials and keeps every other line, a rerun then runs
// nothing, and bad input is refused.
func TestPrune(t *testing.T) {
	tmp := t.TempDir()
	specPath := writeFile(t, filepath.Join(tmp, "subset.toml"), subsetSpec)
	out := filepath.Join(tmp, "out")
	if code, stdout, stderr := runMain(t, "run", specPath, "--out", out, "-j", "1"); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	store := filepath.Join(out, results.TrialsFile)
	before, _ := os.ReadFile(store)
	writeFile(t, specPath, strings.Replace(subsetSpec, "epsilon = [0.5, 2]", "epsilon = [2]", 1))
	if code, stdout, stderr := runMain(t, "run", specPath, "--out", out, "-j", "1"); code != 0 || !strings.Contains(stdout, "4 stored before, 0 run") {
		t.Fatalf("run of the edited spec: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr := runMain(t, "prune", out)
	if code != 0 || !strings.Contains(stdout, "Synth / AdaSSP (adassp) ε = 0.5: 2 trial(s)") ||
		!strings.Contains(stdout, "2 stored trial(s) of 1 cell(s) are no longer in subset (4 kept); dry run") {
		t.Fatalf("prune (dry run): exit %d\n%s%s", code, stdout, stderr)
	}
	if after, _ := os.ReadFile(store); string(after) != string(before) {
		t.Fatal("a dry run changed the store")
	}
	code, stdout, stderr = runMain(t, "prune", out, "--apply")
	if code != 0 || !strings.Contains(stdout, "removed 2 stored trial(s) of 1 cell(s)") {
		t.Fatalf("prune --apply: exit %d\n%s%s", code, stdout, stderr)
	}
	after, _ := os.ReadFile(store)
	var want []string
	for _, l := range strings.SplitAfter(string(before), "\n") {
		if l != "" && !strings.Contains(l, `"epsilon":0.5,`) {
			want = append(want, l)
		}
	}
	if len(want) != 4 || string(after) != strings.Join(want, "") {
		t.Errorf("the store after prune --apply is not the old one without ε = 0.5's lines:\n%s\nwant (%d lines):\n%s", after, len(want), strings.Join(want, ""))
	}
	if code, stdout, stderr = runMain(t, "run", specPath, "--out", out, "-j", "1"); code != 0 || !strings.Contains(stdout, "4 stored before, 0 run") {
		t.Errorf("run after prune: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, _ = runMain(t, "prune", specPath, "--out", out, "--yes"); code != 0 || !strings.Contains(stdout, "nothing to prune") {
		t.Errorf("prune SPEC --yes of a pruned store: exit %d\n%s", code, stdout)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"prune", filepath.Join(tmp, "none")}, 2, "no such file"},
		{[]string{"prune", specPath, "--out", filepath.Join(tmp, "empty")}, 2, "holds no stored trials"},
		{[]string{"prune", out, "--set", "trials=3"}, 2, "--out, --quick and --set apply to a SPEC.toml"},
		{[]string{"prune", out, specPath}, 2, "prune takes one RESULTDIR or SPEC.toml"},
	} {
		if code, stdout, stderr := runMain(t, c.args...); code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, want %d and %q\n%s%s", c.args, code, c.code, c.want, stdout, stderr)
		}
	}
}

// TestOnlyFlag: --only runs only the matching cells (a non-private
// reference matches every ε), prints and records in the manifest what it
// left out, resumes like any run; render --only draws the subset alone
// in DIR/subset and its captions say SUBSET; a filter matching nothing, an unknown
// dimension or a malformed one is bad input listing the valid values.
func TestOnlyFlag(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	specPath := writeFile(t, filepath.Join(tmp, "subset.toml"), subsetSpec)
	out := filepath.Join(tmp, "out")
	code, stdout, stderr := runMain(t, "run", specPath, "--out", out, "-j", "1", "--only", "epsilon=2", "--only", "mechanism=adassp")
	if code != 0 || !strings.Contains(stdout, "1 cells, 2 trials: 0 stored before, 2 run") ||
		!strings.Contains(stdout, "--only epsilon=2 --only mechanism=adassp: ran the 1 matching cell(s); left out 2 cell(s) (4 trials)") {
		t.Fatalf("run --only: exit %d\n%s%s", code, stdout, stderr)
	}
	r := lastRun(t, out)
	if !slices.Equal(r.Only, []string{"epsilon=2", "mechanism=adassp"}) || r.LeftOutCells != 2 || r.LeftOutTrials != 4 {
		t.Errorf("manifest: only %q, left out %d cells, %d trials; want [epsilon=2 mechanism=adassp], 2, 4", r.Only, r.LeftOutCells, r.LeftOutTrials)
	}
	recs, err := results.Read(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if rec.Label != "AdaSSP" || float64(rec.Epsilon) != 2 {
			t.Errorf("run --only stored a trial of %s at ε = %v", rec.Label, rec.Epsilon)
		}
	}
	if len(recs) != 2 {
		t.Errorf("run --only stored %d trials, want 2", len(recs))
	}
	// The reference has no ε: an ε filter keeps it.
	code, stdout, stderr = runMain(t, "plan", specPath, "--out", out, "--only", "epsilon=2")
	if code != 0 || !strings.Contains(stdout, "2 cells, 4 trials: 2 stored, 2 to run") || !strings.Contains(stdout, "would run the 2 matching cell(s); left out 1 cell(s) (2 trials)") {
		t.Errorf("plan --only: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr = runMain(t, "run", specPath, "--out", out, "-j", "1"); code != 0 || !strings.Contains(stdout, "3 cells, 6 trials: 2 stored before, 4 run") {
		t.Fatalf("full run after --only: exit %d\n%s%s", code, stdout, stderr)
	}
	if r := lastRun(t, out); r.Only != nil || r.LeftOutCells != 0 {
		t.Errorf("a run without --only recorded %q", r.Only)
	}
	caption := filepath.Join(out, "figures", "mse.caption.md")
	code, stdout, stderr = runMain(t, "render", out, "--only", "mechanism=Ridge")
	if code != 0 || !strings.Contains(stdout, "drew the 1 matching cell(s); left out 2 cell(s) (4 trials)") {
		t.Fatalf("render --only: exit %d\n%s%s", code, stdout, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(out, "subset", "figures", "mse.caption.md"))
	summary, _ := os.ReadFile(filepath.Join(out, "subset", "summary.csv"))
	if !strings.Contains(string(b), "SUBSET (--only mechanism=Ridge)") || !strings.Contains(string(b), "(1 of the spec's 3 cells)") ||
		strings.Contains(string(summary), "AdaSSP") || !strings.Contains(string(summary), "Ridge") {
		t.Errorf("render --only: caption\n%s\nsummary.csv\n%s", b, summary)
	}
	if code, _, stderr = runMain(t, "render", out); code != 0 {
		t.Fatalf("render: exit %d\n%s", code, stderr)
	}
	if b, _ = os.ReadFile(caption); strings.Contains(string(b), "SUBSET") {
		t.Errorf("a render without --only says SUBSET:\n%s", b)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", specPath, "--only", "dataset=wine"}, `--only dataset=wine: matches no cell of subset; dataset values: "Synth" (synthetic-linear)`},
		{[]string{"run", specPath, "--only", "mechanism=adasp"}, `--only mechanism=adasp: matches no cell of subset; mechanism values: "AdaSSP" (adassp), "Ridge" (ridge)`},
		{[]string{"plan", specPath, "--only", "epsilon=3"}, "--only epsilon=3: matches no cell of subset; epsilon values: 0.5, 2"},
		{[]string{"run", specPath, "--only", "epsilon=x"}, `"x" is not an ε`},
		{[]string{"run", specPath, "--only", "datset=Synth"}, `unknown dimension "datset" (did you mean "dataset"?); dimensions: dataset, epsilon, mechanism, params.KEY`},
		{[]string{"run", specPath, "--only", "mechanism"}, "--only mechanism: want DIMENSION=VALUE"},
		{[]string{"render", out, "--only", "params.rho=1"}, "--only params.rho=1: matches no cell of subset; params values: 0.0001"},
		{[]string{"run", specPath, "--only", "mechanism=Ridge", "--only", "params.rho=1e-4"}, "no cell of subset matches all of mechanism=Ridge, params.rho=1e-4 (each matches some)"},
		{[]string{"run", specPath, "--only", "epsilon=2", "--shard", "1/2"}, "--only and --shard"},
	} {
		args := append(c.args, "--out", filepath.Join(tmp, "bad"))
		if c.args[0] == "render" {
			args = c.args
		}
		if code, stdout, stderr := runMain(t, args...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, want 2 and %q\n%s%s", c.args, code, c.want, stdout, stderr)
		}
	}
}

// TestRenderOnlyWritesSubsetFolder: render --only leaves the result
// directory's full outputs (summary.csv, claims) untouched and writes the
// subset's outputs to DIR/subset, whose claims name the filter in
// claims.json and open claims.md and claims.csv with the SUBSET banner.
func TestRenderOnlyWritesSubsetFolder(t *testing.T) {
	tmp := t.TempDir()
	src := subsetSpec + `
[[claim]]
id = "adassp-better"
quote = "AdaSSP beats ridge"
where = "§1"
check = "better"
quantity = "metric:test_mse"
a = { mechanism = "AdaSSP" }
b = { mechanism = "Ridge" }
`
	specPath := writeFile(t, filepath.Join(tmp, "subset.toml"), src)
	out := filepath.Join(tmp, "out")
	if code, stdout, stderr := runMain(t, "run", specPath, "--out", out, "-j", "1"); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	full := map[string]string{}
	for _, f := range []string{"summary.csv", "claims.json", "claims.md", "claims.csv", "figures/mse.caption.md"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		full[f] = string(b)
	}
	code, stdout, stderr := runMain(t, "render", out, "--only", "epsilon=2")
	if code != 0 || !strings.Contains(stdout, filepath.Join(out, "subset", "claims.json")) {
		t.Fatalf("render --only: exit %d\n%s%s", code, stdout, stderr)
	}
	for f, want := range full {
		if b, _ := os.ReadFile(filepath.Join(out, f)); string(b) != want {
			t.Errorf("render --only changed the full run's %s", f)
		}
	}
	c, err := report.ReadClaims(filepath.Join(out, "subset"))
	if err != nil || !slices.Equal(c.Only, []string{"epsilon=2"}) {
		t.Fatalf("subset claims.json: %v, only %q", err, c.Only)
	}
	for _, f := range []string{"claims.md", "claims.csv"} {
		if b, _ := os.ReadFile(filepath.Join(out, "subset", f)); !strings.Contains(string(b), "SUBSET (--only epsilon=2)") {
			t.Errorf("subset %s has no SUBSET banner:\n%s", f, b)
		}
	}
	if strings.Contains(full["claims.md"], "SUBSET") {
		t.Error("the full claims.md says SUBSET")
	}
}

// TestPruneApplyGuards: prune --apply refuses, unless --force, to remove
// trials when no stored trial is of a cell of the spec, or when a run the
// manifest records used another --quick or --set than this prune's (the
// trials of the other variant would all go); the store is unchanged.
func TestPruneApplyGuards(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	src := subsetSpec + `
[quick]
trials = 1
mechanisms = ["AdaSSP"]
params.AdaSSP = { rho = 1e-3 }
`
	specPath := writeFile(t, filepath.Join(tmp, "subset.toml"), src)
	out := filepath.Join(tmp, "out")
	for _, args := range [][]string{{}, {"--quick"}} {
		if code, stdout, stderr := runMain(t, append([]string{"run", specPath, "--out", out, "-j", "1"}, args...)...); code != 0 {
			t.Fatalf("run %q: exit %d\n%s%s", args, code, stdout, stderr)
		}
	}
	store := filepath.Join(out, results.TrialsFile)
	before, _ := os.ReadFile(store)
	for _, c := range []struct {
		args []string
		want string
	}{
		// The last run was --quick: the directory's spec is the quick one.
		{[]string{"prune", out, "--apply"}, "run 1 in the manifest ran without --quick, this prune is of the --quick variant"},
		{[]string{"prune", specPath, "--out", out, "--apply"}, "run 2 in the manifest ran with --quick, this prune is of the full variant"},
	} {
		code, stdout, stderr := runMain(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "--force") {
			t.Errorf("%q: exit %d, want 2 and %q\n%s%s", c.args, code, c.want, stdout, stderr)
		}
		if after, _ := os.ReadFile(store); string(after) != string(before) {
			t.Fatalf("%q changed the store", c.args)
		}
	}
	// A spec none of whose cells is stored: every trial would go.
	out2 := filepath.Join(tmp, "out2")
	if code, stdout, stderr := runMain(t, "run", specPath, "--out", out2, "-j", "1", "--only", "mechanism=AdaSSP"); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	before, _ = os.ReadFile(filepath.Join(out2, results.TrialsFile))
	code, stdout, stderr := runMain(t, "prune", specPath, "--out", out2, "--set", "epsilon=[2]", "--yes")
	if code != 2 || !strings.Contains(stderr, `run 1 in the manifest ran with --set [], this prune with --set ["epsilon=[2]"]`) {
		t.Errorf("prune --set of a store run without: exit %d\n%s%s", code, stdout, stderr)
	}
	writeFile(t, specPath, strings.Replace(src, "rho = 1e-4", "rho = 1e-2", 1))
	code, stdout, stderr = runMain(t, "prune", specPath, "--out", out2, "--apply")
	if code != 2 || !strings.Contains(stderr, "no stored trial is of a cell of subset: every one would be removed") || !strings.Contains(stderr, "--force") {
		t.Errorf("prune --apply of a store with no trial kept: exit %d\n%s%s", code, stdout, stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(out2, results.TrialsFile)); string(after) != string(before) {
		t.Fatal("a refused prune changed the store")
	}
	code, stdout, stderr = runMain(t, "prune", specPath, "--out", out2, "--apply", "--force")
	if code != 0 || !strings.Contains(stdout, "removed 4 stored trial(s) of 2 cell(s)") {
		t.Errorf("prune --apply --force: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestPruneGuardComparesCanonicalSets: prune --apply's guard compares the
// runs' --set overrides with the prune's in canonical form
// (spec.CanonicalSet), so the same override typed differently
// ('epsilon=[0.5,2]' against 'epsilon=[ 0.5, 2.0 ]') does not refuse the
// prune, while another value still does. Before, the texts as typed were
// compared and the prune was refused.
func TestPruneGuardComparesCanonicalSets(t *testing.T) {
	tmp := t.TempDir()
	specPath := writeFile(t, filepath.Join(tmp, "subset.toml"), subsetSpec)
	out := filepath.Join(tmp, "out")
	if code, stdout, stderr := runMain(t, "run", specPath, "--out", out, "-j", "1", "--set", "epsilon=[0.5,2]"); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	writeFile(t, specPath, strings.Replace(subsetSpec, "rho = 1e-4", "rho = 1e-2", 1)) // AdaSSP's cells go stale
	code, stdout, stderr := runMain(t, "prune", specPath, "--out", out, "--set", "epsilon=[0.5, 1]", "--apply")
	if code != 2 || !strings.Contains(stderr, `ran with --set ["epsilon=[0.5,2]"], this prune with --set ["epsilon=[0.5, 1]"]`) {
		t.Errorf("prune with another --set value: exit %d, want 2\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runMain(t, "prune", specPath, "--out", out, "--set", "epsilon=[ 0.5, 2.0 ]", "--apply")
	if code != 0 || !strings.Contains(stdout, "removed 4 stored trial(s) of 2 cell(s)") {
		t.Errorf("prune with the run's --set typed differently: exit %d, want the stale AdaSSP trials removed\n%s%s", code, stdout, stderr)
	}
}
