package main

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dplab/dplab/results"
)

// pythonWithNumPy returns a python3 that imports numpy (/usr/bin/python3
// first: the distribution's python3-numpy, which CI installs), or "". It
// looks once per test binary (each look starts Python and imports NumPy):
// a test that puts another python3 first on PATH does so for itself only,
// and /usr/bin/python3 is looked up by its path.
var pythonWithNumPy = sync.OnceValue(func() string {
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(p); err == nil && exec.Command(path, "-c", "import numpy").Run() == nil {
			return path
		}
	}
	return ""
})

// numpyOnPath puts a python3 with NumPy first on PATH for the test (the
// example spec's command is "python3"), or skips.
func numpyOnPath(t *testing.T) {
	t.Helper()
	py := pythonWithNumPy()
	if py == "" {
		t.Skip("no python3 that imports numpy (apt-get install python3-numpy): the external examples need one")
	}
	t.Setenv("PATH", filepath.Dir(py)+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// readRecords returns the records of a result directory.
func readRecords(t *testing.T, dir string) []results.Record {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, results.TrialsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []results.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var r results.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// accountJSON re-accounts a record's ledger with dplab account json and
// returns its ε.
func accountJSON(t *testing.T, r results.Record) float64 {
	t.Helper()
	code, out, errs := runMain(t, "account", "json", "--event", string(r.Privacy.Event), "--delta", strconv.FormatFloat(float64(r.Privacy.Delta), 'g', -1, 64), "--json")
	if code != 0 {
		t.Fatalf("dplab account json: %s", errs)
	}
	var a struct{ Epsilon float64 }
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatal(err)
	}
	return a.Epsilon
}

// TestExternalExample runs examples/external/compare.toml (--quick under
// -short; whole in long mode, which CI runs after installing
// python3-numpy): both Python workers' trials succeed, each record carries the ledger its
// worker declared (the calibrate-mode one: the family at the calibrated
// noise), dplab account json on it gives the stored ε, and the manifest
// records the commands and their files' SHA-256.
func TestExternalExample(t *testing.T) {
	dir := runExternalExample(t, "compare.toml")
	kinds := map[string]string{"Output-perturbed ridge (Python)": "with_relation", "DP-SGD (NumPy)": "self_composed"}
	seen := map[string]int{}
	for _, r := range readRecords(t, dir) {
		if r.Status != results.StatusOK {
			t.Errorf("%s trial %d: %s %s", r.Label, r.Trial, r.Status, r.Error)
			continue
		}
		want, ok := kinds[r.Label]
		if !ok {
			continue
		}
		seen[r.Label]++
		var head struct{ Kind string }
		json.Unmarshal(r.Privacy.Event, &head)
		if head.Kind != want {
			t.Errorf("%s: ledger %s, want a %s event", r.Label, r.Privacy.Event, want)
		}
		if got := accountJSON(t, r); math.Abs(got-float64(r.Privacy.EpsSpent)) > 1e-9*got || !(got <= float64(r.Privacy.EpsTarget)*(1+1e-9)) {
			t.Errorf("%s: dplab account json gives ε = %v, the record %v (target %v)", r.Label, got, r.Privacy.EpsSpent, r.Privacy.EpsTarget)
		}
	}
	for label := range kinds {
		if seen[label] == 0 {
			t.Errorf("no record of %s", label)
		}
	}
	m, err := results.ReadManifestFile(filepath.Join(dir, results.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if x := m.External["DP-SGD (NumPy)"]; x.Mode != "declare" || len(x.SHA256["dpsgd_numpy.py"]) != 64 || len(x.SHA256["../../python/dplab_worker.py"]) != 64 {
		t.Errorf("manifest's external entry %+v", x)
	}
}

// behaveSpec is a spec of one external block running
// mechanisms/external/testdata/behave.py, with its behave params swept.
func behaveSpec(t *testing.T, behaves string, trials int) string {
	t.Helper()
	py := pythonWithNumPy() // the distribution's starts fastest; behave.py needs no NumPy
	if py == "" {
		var err error
		if py, err = exec.LookPath("python3"); err != nil {
			t.Skip("no python3: the external-worker tests run real processes")
		}
	}
	script, _ := filepath.Abs(filepath.Join("mechanisms", "external", "testdata", "behave.py"))
	src := `name = "behave"
seed = 3
trials = ` + strconv.Itoa(trials) + `
epsilon = [1]
delta = "1e-5"

[[dataset]]
name = "synthetic-linear"
params = { n = 100, d = 3 }

[[mechanism]]
name = "external"
label = "Behave"
params = { behave = ` + behaves + ` }
[mechanism.external]
command = [` + strconv.Quote(py) + `, ` + strconv.Quote(script) + `]
mode = "declare"
timeout = 1
`
	path := filepath.Join(t.TempDir(), "behave.toml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestExternalWorkerFailuresInRecords runs real worker processes that
// overspend, exit mid-trial, hang past the timeout and write garbage, beside
// good ones, at -j 1 and -j 2: only the bad cells' trials fail, each with
// the reason and the worker's stderr tail in the record's error; the
// overspending ones also keep the declared ledger and its ε; every good
// trial succeeds (on restarted workers), and its ledger re-accounted by
// dplab account json gives the stored ε. A rerun retries the failed trials
// and leaves the good ones stored once. (-short: -j 2 and one trial per
// cell.)
func TestExternalWorkerFailuresInRecords(t *testing.T) {
	trials, jobList := 2, []string{"1", "2"}
	if testing.Short() {
		trials, jobList = 1, []string{"2"}
	}
	for _, jobs := range jobList {
		t.Run("j"+jobs, func(t *testing.T) {
			spec := behaveSpec(t, `["ok", "overspend", "exit", "hang", "garbage"]`, trials)
			dir := t.TempDir()
			code, _, errs := runMain(t, "run", spec, "--out", dir, "-j", jobs)
			if code == 0 {
				t.Fatalf("a run with failed trials exited 0")
			}
			want := map[string]string{
				"overspend": "spends ε =",
				"exit":      "behave: exiting mid-trial",
				"hang":      "behave: hanging",
				"garbage":   "behave: garbage",
			}
			recs := readRecords(t, dir)
			if len(recs) != 5*trials {
				t.Fatalf("%d records, want %d\n%s", len(recs), 5*trials, errs)
			}
			for _, r := range recs {
				b := r.MechParams["behave"].(string)
				if b == "ok" {
					if r.Status != results.StatusOK {
						t.Errorf("good trial %d failed: %s", r.Trial, r.Error)
						continue
					}
					if got := accountJSON(t, r); math.Abs(got-float64(r.Privacy.EpsSpent)) > 1e-9*got {
						t.Errorf("ok: dplab account json gives ε = %v, the record %v", got, r.Privacy.EpsSpent)
					}
					continue
				}
				if r.Status != results.StatusFailed || !strings.Contains(r.Error, want[b]) {
					t.Errorf("%s trial %d: status %s, error %q; want failed with %q", b, r.Trial, r.Status, r.Error, want[b])
				}
				if b == "overspend" {
					if got := accountJSON(t, r); !(got > 1) || math.Abs(got-float64(r.Privacy.EpsSpent)) > 1e-9*got {
						t.Errorf("overspend: record ε %v, dplab account json %v", r.Privacy.EpsSpent, got)
					}
				} else if !strings.Contains(r.Error, "stderr tail") {
					t.Errorf("%s: no stderr tail in %q", b, r.Error)
				}
			}
			// A rerun retries the failed trials only.
			runMain(t, "run", spec, "--out", dir, "-j", jobs)
			if n := len(readRecords(t, dir)); n != 9*trials {
				t.Errorf("after a rerun: %d records, want %d + %d retried", n, 5*trials, 4*trials)
			}
		})
	}
}

// TestNumPyDPSGDAgreesWithBuiltin runs the NumPy DP-SGD example
// (examples/external/dpsgd_numpy.py, declare mode: it chooses its own noise
// with a looser RDP conversion) and dplab's dpsgd with the same schedule
// (plain SGD, batch, clip, epochs, learning rate) on the same split and ε,
// 30 trials each: at every ε their mean test accuracies differ by less
// than 2.576 standard errors of the difference (within its 99% interval), and the NumPy one
// spends no more than its target. Long mode (a few seconds of trials).
func TestNumPyDPSGDAgreesWithBuiltin(t *testing.T) {
	if testing.Short() {
		t.Skip("long mode: 120 trials, half of them in a Python worker")
	}
	numpyOnPath(t)
	script, _ := filepath.Abs(filepath.Join("examples", "external", "dpsgd_numpy.py"))
	src := `name = "agree"
seed = 11
trials = 30
epsilon = [1, 4]
delta = "1e-5"

[[dataset]]
name = "synthetic-logistic"

[[mechanism]]
name = "external"
label = "NumPy"
params = { epochs = 5, batch = 100, clip = 1.0, learning_rate = 0.5 }
[mechanism.external]
command = ["python3", ` + strconv.Quote(script) + `]
mode = "declare"

[[mechanism]]
name = "dpsgd"
label = "Go"
params = { epochs = 5, batch = 100, clip = 1.0, learning_rate = 0.5, optimizer = "sgd" }
`
	path := filepath.Join(t.TempDir(), "agree.toml")
	os.WriteFile(path, []byte(src), 0o644)
	dir := t.TempDir()
	if code, _, errs := runMain(t, "run", path, "--out", dir, "-j", "2"); code != 0 {
		t.Fatalf("dplab run: %s", errs)
	}
	acc := map[string][]float64{}
	for _, r := range readRecords(t, dir) {
		if r.Status != results.StatusOK {
			t.Fatalf("%s: %s", r.Label, r.Error)
		}
		if !(float64(r.Privacy.EpsSpent) <= float64(r.Privacy.EpsTarget)) {
			t.Errorf("%s: ε spent %v > target %v", r.Label, r.Privacy.EpsSpent, r.Privacy.EpsTarget)
		}
		k := r.Label + "@" + strconv.FormatFloat(float64(r.Epsilon), 'g', -1, 64)
		acc[k] = append(acc[k], float64(r.Metrics["test_accuracy"]))
	}
	for _, eps := range []string{"1", "4"} {
		a, b := acc["NumPy@"+eps], acc["Go@"+eps]
		ma, va := meanVar(a)
		mb, vb := meanVar(b)
		se := math.Sqrt(va/float64(len(a)) + vb/float64(len(b)))
		t.Logf("ε = %s: NumPy %.4f, Go %.4f, difference %.4f, SE %.4f", eps, ma, mb, ma-mb, se)
		if len(a) != 30 || len(b) != 30 || math.Abs(ma-mb) > 2.576*se {
			t.Errorf("ε = %s: NumPy %.4f (%d trials) vs built-in %.4f (%d): difference %.4f beyond the 99%% interval ±%.4f", eps, ma, len(a), mb, len(b), ma-mb, 2.576*se)
		}
	}
}

func meanVar(x []float64) (mean, variance float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		variance += (v - mean) * (v - mean)
	}
	return mean, variance / float64(len(x)-1)
}

// TestExternalAudit runs the audit grid examples/external/audit.toml
// --quick (500 runs per side): the honest NumPy DP-SGD's lower bound stays
// below the ε its ledger claims, and the under-noised variant (a tenth of
// the declared noise) is caught: its lower bound exceeds its claim and the
// run exits non-zero. Long mode (about 10 s of worker fits).
func TestExternalAudit(t *testing.T) {
	if testing.Short() {
		t.Skip("long mode: 2000 fits in a Python worker")
	}
	numpyOnPath(t)
	dir := t.TempDir()
	code, _, errs := runMain(t, "run", filepath.Join("examples", "external", "audit.toml"), "--quick", "--out", dir, "-j", "2")
	if code == 0 || !strings.Contains(errs, "VIOLATION: DP-SGD (NumPy, under-noised)") {
		t.Errorf("exit %d; want a violation of the under-noised variant\n%s", code, errs)
	}
	got := map[string][2]float64{}
	for _, r := range readRecords(t, dir) {
		if r.Status != results.StatusOK {
			t.Fatalf("%s: %s", r.Label, r.Error)
		}
		got[r.Label] = [2]float64{float64(r.Metrics["audit_lower_bound"]), float64(r.Metrics["audit_claimed_epsilon"])}
	}
	t.Logf("lower bound, claimed: %v", got)
	if h := got["DP-SGD (NumPy)"]; !(h[1] > 0 && h[0] < h[1]) {
		t.Errorf("honest NumPy DP-SGD: lower bound %v, claimed %v: want below", h[0], h[1])
	}
	if b := got["DP-SGD (NumPy, under-noised)"]; !(b[1] > 0 && b[0] > b[1]) {
		t.Errorf("under-noised NumPy DP-SGD: lower bound %v, claimed %v: want above (caught)", b[0], b[1])
	}
}

// besideSpec writes into tmp/spec a spec (subsetSpec with an external
// block, label "Behave", in place of Ridge) whose worker, behave.py, lies
// beside it and is named relatively, puts a python3 first on PATH (or
// skips) and returns the spec's path.
func besideSpec(t *testing.T, tmp string) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 on PATH: the external worker (stdlib only) needs one")
	}
	t.Setenv("PATH", filepath.Dir(py)+string(os.PathListSeparator)+os.Getenv("PATH"))
	src, err := os.ReadFile(filepath.Join("mechanisms", "external", "testdata", "behave.py"))
	if err != nil {
		t.Fatal(err)
	}
	specDir := filepath.Join(tmp, "spec")
	writeFile(t, filepath.Join(specDir, "behave.py"), string(src))
	return writeFile(t, filepath.Join(specDir, "ext.toml"), strings.Replace(subsetSpec, `[[mechanism]]
name = "ridge"
label = "Ridge"`, `[[mechanism]]
name = "external"
label = "Behave"
[mechanism.external]
command = ["python3", "behave.py"]
mode = "declare"
timeout = 30`, 1))
}

// runBeside runs besideSpec's spec (written into tmp) into tmp/out -j 1
// and returns the spec's path and the result directory.
func runBeside(t *testing.T, tmp, out string) (specPath, dir string) {
	t.Helper()
	specPath = besideSpec(t, tmp)
	dir = filepath.Join(tmp, out)
	if code, stdout, stderr := runMain(t, "run", specPath, "--out", dir, "-j", "1"); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	return specPath, dir
}

// TestExternalShardMerge runs a spec whose external worker lies beside it
// once whole and once as 2 shards, then merges the shards: the merge finds
// no gap, stores the whole run's records (timing aside), and its manifest
// records the external command and the SHA-256 of its files as the whole
// run's does; render and report of the merged directory work, with no
// trial missing; shards that ran different worker files are refused.
// Before, merge loaded the shards' spec copy, whose worker
// script did not resolve beside it: the external cells got other keys and
// merge reported every external trial missing; and the merged manifest had
// no external section.
func TestExternalShardMerge(t *testing.T) {
	tmp := t.TempDir()
	specPath, single := runBeside(t, tmp, "single")
	sharded := filepath.Join(tmp, "sharded")
	runShards(t, specPath, sharded, "0/2", "1/2")
	code, stdout, stderr := runMain(t, "merge", sharded)
	if code != 0 || !strings.Contains(stdout, "no gaps") {
		t.Fatalf("merge: exit %d\n%s%s", code, stdout, stderr)
	}
	// behave.py's diagnostics carry its pid, the one field that differs.
	pid := regexp.MustCompile(`"pid":[0-9]+`)
	noPID := func(recs []string) []string {
		for i, r := range recs {
			recs[i] = pid.ReplaceAllString(r, `"pid":0`)
		}
		return recs
	}
	if got, want := noPID(recordSet(t, sharded)), noPID(recordSet(t, single)); !slices.Equal(got, want) {
		t.Errorf("the merged shards differ from the whole run:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	ms, err := results.ReadManifest(single)
	if err != nil {
		t.Fatal(err)
	}
	mm, err := results.ReadManifest(sharded)
	if err != nil {
		t.Fatal(err)
	}
	if x := ms.External["Behave"]; len(x.SHA256["behave.py"]) != 64 || !reflect.DeepEqual(mm.External, ms.External) {
		t.Errorf("merged manifest's external section %+v, the whole run's %+v", mm.External, ms.External)
	}
	code, stdout, stderr = runMain(t, "render", sharded)
	if code != 0 || strings.Contains(stdout+stderr, "INCOMPLETE") {
		t.Errorf("render of the merged directory: exit %d\n%s%s", code, stdout, stderr)
	}
	html := filepath.Join(tmp, "report.html")
	if code, stdout, stderr := runMain(t, "report", sharded, "-o", html); code != 0 || strings.Contains(readFile(t, html), "INCOMPLETE") {
		t.Errorf("report of the merged directory: exit %d\n%s%s", code, stdout, stderr)
	}
	// Shards that ran different worker files do not merge.
	edited := filepath.Join(tmp, "edited")
	runShards(t, specPath, edited, "0/2")
	script := filepath.Join(filepath.Dir(specPath), "behave.py")
	writeFile(t, script, readFile(t, script)+"# edited\n")
	runShards(t, specPath, edited, "1/2")
	if code, stdout, stderr := runMain(t, "merge", edited); code != 2 || !strings.Contains(stderr, "ran different setups") || !strings.Contains(stderr, "external workers") {
		t.Errorf("merge of shards that ran different worker files: exit %d, want 2 naming the external workers\n%s%s", code, stdout, stderr)
	}
}

// TestExternalResultDirKeys runs a spec whose external worker's script
// lies beside it into a result directory elsewhere, then renders and
// prunes that directory: its spec copy keys the external cells on the
// files the run hashed (the manifest's), so render finds every trial and
// prune none stale. Before, the copy's script arguments resolved against
// the result directory: the cells' keys changed, render showed them
// missing and prune --apply would delete every external trial.
func TestExternalResultDirKeys(t *testing.T) {
	_, out := runBeside(t, t.TempDir(), "out")
	code, stdout, stderr := runMain(t, "render", out)
	if code != 0 || strings.Contains(stdout+stderr, "INCOMPLETE") {
		t.Fatalf("render %s: exit %d\n%s%s", out, code, stdout, stderr)
	}
	for _, line := range strings.Split(stdout, "\n") {
		if f, ok := strings.CutPrefix(line, "wrote "); ok {
			if b, _ := os.ReadFile(f); strings.Contains(string(b), "INCOMPLETE") {
				t.Errorf("render of the result directory: %s says INCOMPLETE", f)
			}
		}
	}
	if code, stdout, stderr := runMain(t, "prune", out); code != 0 || !strings.Contains(stdout, "nothing to prune") {
		t.Errorf("prune %s: exit %d, want nothing to prune\n%s%s", out, code, stdout, stderr)
	}
}

// TestPruneRefusesExternalWithoutRecordedHashes: a result directory whose
// manifest no longer records its external workers' SHA-256 (here it was
// corrupted) keys the external cells of its spec copy on the files found
// beside the copy, which are not the run's: prune --apply refuses, naming
// the block, unless --force, and the store is unchanged. Before, every
// external trial was listed stale and removed.
func TestPruneRefusesExternalWithoutRecordedHashes(t *testing.T) {
	_, out := runBeside(t, t.TempDir(), "out")
	writeFile(t, filepath.Join(out, results.ManifestFile), "{")
	store := filepath.Join(out, results.TrialsFile)
	before := readFile(t, store)
	code, stdout, stderr := runMain(t, "prune", out, "--apply")
	if code != 2 || !strings.Contains(stderr, `"Behave"`) || !strings.Contains(stderr, "--force") {
		t.Errorf("prune --apply: exit %d, want 2 naming the external block and --force\n%s%s", code, stdout, stderr)
	}
	if readFile(t, store) != before {
		t.Error("the refused prune changed the store")
	}
}
