package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dplab/dplab/results"
)

// xorCSVs writes two CSV files of 400 rows of two features in [−1, 1]:
// regression targets y = x0² + sin(x1), and binary labels 1 when
// x0·x1 > 0 (no linear model beats chance on them). It returns their
// absolute paths.
func xorCSVs(t *testing.T) (reg, bin string) {
	t.Helper()
	dir := t.TempDir()
	var r, b strings.Builder
	r.WriteString("a,b,y\n")
	b.WriteString("a,b,y\n")
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for i := range 400 {
		x0, x1 := math.Sin(float64(3*i+1)), math.Cos(float64(7*i+2))
		fmt.Fprintf(&r, "%s,%s,%s\n", g(x0), g(x1), g(x0*x0+math.Sin(x1)))
		label := 0
		if x0*x1 > 0 {
			label = 1
		}
		fmt.Fprintf(&b, "%s,%s,%d\n", g(x0), g(x1), label)
	}
	reg, bin = filepath.Join(dir, "reg.csv"), filepath.Join(dir, "xor.csv")
	if err := os.WriteFile(reg, []byte(r.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return reg, bin
}

// TestExternalPredictionsRun runs mechanisms/external/testdata/predict.py
// (output "predictions") through dplab run on regression and XOR-labelled
// data (features unscaled, so that the worker knows their labels), with
// good and malformed replies swept. The good trials' metrics equal those
// the worker computed in NumPy from its own predictions and the rows of
// the evaluation file (test rows, then the training rows, which it checks
// against the training file); each malformed reply (wrong length, NaN,
// float32, a missing file) fails its trial only, with what was wrong and
// the worker's command in the record's error; a rerun retries the failed
// trials and keeps the good ones, stored once. (Fails before: output is
// an unknown key of [mechanism.external].)
func TestExternalPredictionsRun(t *testing.T) {
	t.Parallel()
	py := pythonWithNumPy()
	if py == "" {
		t.Skip("no python3 that imports numpy (apt-get install python3-numpy): the predictions worker needs one")
	}
	reg, bin := xorCSVs(t)
	// -short: two malformed replies (every kind is
	// TestMalformedPredictions's, in mechanisms/external); each restarts a
	// NumPy worker.
	trials, behaves := 1, `["ok", "short", "nan", "float32", "missing"]`
	if testing.Short() {
		behaves = `["ok", "short", "nan"]`
	}
	script, _ := filepath.Abs(filepath.Join("mechanisms", "external", "testdata", "predict.py"))
	src := fmt.Sprintf(`name = "predictions"
seed = 3
trials = %d
epsilon = [1]
delta = "1e-5"

[[dataset]]
name = "features-csv-regression"
label = "reg"
params = { path = %q, header = true, label = "y" }
scale = { x = "none", y = "none" }

[[dataset]]
name = "features-csv"
label = "xor"
params = { path = %q, header = true, label = "y" }
scale = { x = "none" }

[[mechanism]]
name = "external"
label = "Predict"
params = { behave = %s, oracle = true }
[mechanism.external]
command = [%q, %q]
mode = "declare"
output = "predictions"
timeout = 30
`, trials, reg, bin, behaves, py, script)
	spec := filepath.Join(t.TempDir(), "pred.toml")
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	code, _, errs := runMain(t, "run", spec, "--out", dir, "-j", "2")
	if code == 0 {
		t.Fatalf("a run with failed trials exited 0\n%s", errs)
	}
	want := map[string]string{
		"short":   "shape [399]: want (400,)",
		"nan":     "is NaN",
		"float32": `dtype "<f4": want '<f8'`,
		"missing": "nowhere.npy: no such file",
	}
	nb := strings.Count(behaves, ",") + 1
	all, bad := 2*trials*nb, 2*trials*(nb-1) // two datasets
	recs := readRecords(t, dir)
	if len(recs) != all {
		t.Fatalf("%d records, want %d\n%s", len(recs), all, errs)
	}
	rel := func(a, b float64) float64 { return math.Abs(a-b) / math.Max(math.Abs(b), 1e-300) }
	for _, r := range recs {
		b := r.MechParams["behave"].(string)
		if b != "ok" {
			if r.Status != results.StatusFailed || !strings.Contains(r.Error, want[b]) || !strings.Contains(r.Error, "predict.py") {
				t.Errorf("%s %s trial %d: status %s, error %q; want failed with %q, naming the worker", r.Dataset, b, r.Trial, r.Status, r.Error, want[b])
			}
			continue
		}
		if r.Status != results.StatusOK {
			t.Errorf("%s ok trial %d: %s %s", r.Dataset, r.Trial, r.Status, r.Error)
			continue
		}
		d, m := r.Diagnostics, r.Metrics
		if d["train_rows_match"] != 1 {
			t.Errorf("%s: the evaluation file's last rows are not the training rows", r.Dataset)
		}
		switch r.Dataset {
		case "reg":
			if rel(float64(m["test_mse"]), float64(d["oracle_test_mse"])) > 1e-9 || rel(float64(m["train_mse"]), float64(d["oracle_train_mse"])) > 1e-9 {
				t.Errorf("reg: metrics %v, the worker's %v", m, d)
			}
		case "xor":
			if m["test_accuracy"] != d["oracle_test_accuracy"] || m["train_accuracy"] != d["oracle_train_accuracy"] || m["test_error"] != 1-m["test_accuracy"] {
				t.Errorf("xor: metrics %v, the worker's %v", m, d)
			}
			if !(m["test_accuracy"] > 0.8) {
				t.Errorf("xor: test accuracy %v of a non-linear predictor of the labels, want > 0.8", m["test_accuracy"])
			}
		}
	}
	// A rerun retries the failed trials only: the good ones stay, once.
	runMain(t, "run", spec, "--out", dir, "-j", "2")
	recs = readRecords(t, dir)
	ok := 0
	for _, r := range recs {
		if r.Status == results.StatusOK {
			ok++
		}
	}
	if len(recs) != all+bad || ok != all-bad {
		t.Errorf("after a rerun: %d records (%d ok), want %d (%d ok)", len(recs), ok, all+bad, all-bad)
	}
}

// TestExternalNonlinearExample runs examples/external/nonlinear.toml
// (--quick under -short): DP-SGD on random Fourier features in a NumPy
// worker of output "predictions" beside dplab's DP-SGD. Every trial
// succeeds; the worker's records carry the DP-SGD ledger it declared,
// which dplab account json re-accounts to the stored ε, within the
// target; its test accuracy, computed by dplab from the worker's
// predictions, beats predicting the majority label (53% of the labels are
// ones) on average.
func TestExternalNonlinearExample(t *testing.T) {
	dir := runExternalExample(t, "nonlinear.toml")
	seen, sum := 0, 0.0
	for _, r := range readRecords(t, dir) {
		if r.Status != results.StatusOK {
			t.Errorf("%s trial %d: %s %s", r.Label, r.Trial, r.Status, r.Error)
			continue
		}
		if r.Mechanism != "external" {
			continue
		}
		seen++
		if !strings.Contains(string(r.Privacy.Event), `"poisson_sampled_gaussian"`) {
			t.Errorf("ledger %s, want the DP-SGD one", r.Privacy.Event)
		}
		if got := accountJSON(t, r); math.Abs(got-float64(r.Privacy.EpsSpent)) > 1e-9*got || !(got <= float64(r.Privacy.EpsTarget)*(1+1e-9)) {
			t.Errorf("dplab account json gives ε = %v, the record %v (target %v)", got, r.Privacy.EpsSpent, r.Privacy.EpsTarget)
		}
		acc := float64(r.Metrics["test_accuracy"])
		if !(acc >= 0 && acc <= 1) {
			t.Errorf("ε = %v trial %d: test accuracy %v", r.Epsilon, r.Trial, acc)
		}
		sum += acc
	}
	if seen == 0 || !(sum/float64(seen) > 0.6) {
		t.Errorf("%d records of the random-features worker, mean test accuracy %v: want > 0.6", seen, sum/float64(seen))
	}
}

// runExternalExample runs examples/external/<name> (--quick under -short)
// with a python3 that imports numpy first on PATH (or skips), -j 2, and
// returns its result directory; a non-zero exit fails the test.
func runExternalExample(t *testing.T, name string) string {
	t.Helper()
	numpyOnPath(t)
	dir := t.TempDir()
	args := []string{"run", filepath.Join("examples", "external", name), "--out", dir, "-j", "2"}
	if testing.Short() {
		args = append(args, "--quick")
	}
	if code, _, errs := runMain(t, args...); code != 0 {
		t.Fatalf("dplab run %s: exit %d\n%s", name, code, errs)
	}
	return dir
}
