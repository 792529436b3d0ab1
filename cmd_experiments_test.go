package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dplab/dplab/results"
)

// runMain runs the CLI in-process and returns exit code, stdout and stderr.
func runMain(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

const cliSpec = `name = "cli"
seed = 1
trials = 2
epsilon = [1]
delta = 1e-6

[[dataset]]
name = "synthetic-linear"
params = { n = 300, d = 3 }

[[mechanism]]
name = "adassp"
`

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRunBadInput checks that each kind of bad input is one clear error
// naming the file, line and key (or column), with exit code 2 and no panic
// (issue 2, Done when 4).
func TestRunBadInput(t *testing.T) {
	dir := t.TempDir()
	wineSpec := strings.Replace(cliSpec, `name = "synthetic-linear"
params = { n = 300, d = 3 }`, `name = "wine"`, 1)
	// A wine file whose line 3 has a non-numeric cell in column "pH": not
	// the registered file, so its checksum stops the run before parsing.
	badData := filepath.Join(dir, "baddata")
	writeFile(t, filepath.Join(badData, "gaussmix", "winequality-red.csv"),
		`"fixed acidity","volatile acidity","citric acid","residual sugar","chlorides","free sulfur dioxide","total sulfur dioxide","density","pH","sulphates","alcohol","quality"
7.4,0.7,0,1.9,0.076,11,34,0.9978,3.51,0.56,9.4,5
7.8,0.88,0,2.6,0.098,25,67,0.9968,abc,0.68,9.8,5
`)
	// The same cell in a user file (features-csv, not checksummed) is
	// reported by line and column.
	badCSV := writeFile(t, filepath.Join(dir, "user", "features.csv"), "f1,pH,label\n0.1,0.2,1\n0.3,abc,0\n")
	csvSpec := strings.Replace(strings.Replace(cliSpec, `name = "synthetic-linear"
params = { n = 300, d = 3 }`, `name = "features-csv"
params = { path = "`+filepath.ToSlash(badCSV)+`", header = true }`, 1), `name = "adassp"`, `name = "logreg"`, 1)
	tests := []struct {
		name  string
		spec  string
		extra []string
		want  []string
	}{
		{"unknown key", strings.Replace(cliSpec, "trials = 2", "trials = 2\ntrails = 3", 1), nil, []string{"spec.toml:4", "trails", "unknown key"}},
		{"wrong type", strings.Replace(cliSpec, "trials = 2", `trials = "2"`, 1), nil, []string{"spec.toml:3", "trials", "incompatible types"}},
		{"epsilon not positive", strings.Replace(cliSpec, "epsilon = [1]", "epsilon = [0]", 1), nil, []string{"spec.toml:4", "epsilon", "> 0"}},
		{"delta too large", strings.Replace(cliSpec, "delta = 1e-6", "delta = 1.5", 1), nil, []string{"spec.toml:5", "delta", "(0, 1)"}},
		{"unknown mechanism", strings.Replace(cliSpec, `name = "adassp"`, `name = "adasp"`, 1), nil, []string{"spec.toml:12", "mechanism[0].name", `unknown mechanism "adasp"`}},
		{"missing data file", wineSpec, []string{"--data-dir", filepath.Join(dir, "empty")}, []string{"wine", "gaussmix/winequality-red.csv", "dplab datasets fetch wine"}},
		{"damaged data file", wineSpec, []string{"--data-dir", badData}, []string{"gaussmix/winequality-red.csv", "SHA-256 mismatch", "dplab datasets fetch wine"}},
		{"non-numeric CSV cell", csvSpec, nil, []string{"features.csv", "line 3", `"pH"`, `"abc"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := writeFile(t, filepath.Join(t.TempDir(), "spec.toml"), tc.spec)
			args := append([]string{"run", spec, "--out", filepath.Join(t.TempDir(), "out")}, tc.extra...)
			code, _, stderr := runMain(t, args...)
			if code != 2 {
				t.Fatalf("exit code %d, want 2; stderr:\n%s", code, stderr)
			}
			if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine ") {
				t.Fatalf("stderr shows a panic:\n%s", stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not mention %q:\n%s", w, stderr)
				}
			}
		})
	}
}

func TestValidateAndPlan(t *testing.T) {
	spec := writeFile(t, filepath.Join(t.TempDir(), "spec.toml"), cliSpec)
	code, out, errs := runMain(t, "validate", spec)
	if code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("validate: %d\n%s%s", code, out, errs)
	}
	outDir := filepath.Join(t.TempDir(), "out")
	code, out, _ = runMain(t, "plan", spec, "--out", outDir)
	if code != 0 || !strings.Contains(out, "1 cells, 2 trials: 0 stored, 2 to run") {
		t.Fatalf("plan before running: %d\n%s", code, out)
	}
	if code, _, errs = runMain(t, "run", spec, "--out", outDir); code != 0 {
		t.Fatalf("run: %d\n%s", code, errs)
	}
	code, out, _ = runMain(t, "plan", spec, "--out", outDir)
	if code != 0 || !strings.Contains(out, "2 stored, 0 to run") {
		t.Fatalf("plan after running: %d\n%s", code, out)
	}
	code, out, errs = runMain(t, "render", outDir)
	if code != 0 || !strings.Contains(out, "summary.csv") {
		t.Fatalf("render: %d\n%s%s", code, out, errs)
	}
	if code, _, _ = runMain(t, "run"); code != 2 {
		t.Errorf("run without a spec: exit %d, want 2", code)
	}
	if code, _, _ = runMain(t, "run", "--help"); code != 0 {
		t.Errorf("run --help: exit %d, want 0", code)
	}
	for _, c := range commands {
		if code, _, _ = runMain(t, c.Name, "--help"); code != 0 {
			t.Errorf("%s --help: exit %d, want 0", c.Name, code)
		}
	}
	if code, _, _ = runMain(t, "frobnicate"); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
}

// recordSet returns the records of a store, timing and build fields
// stripped, sorted; it fails if a (cell, trial) appears twice.
func recordSet(t *testing.T, dir string) []string {
	t.Helper()
	recs, err := results.Read(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[results.Key]bool{}
	var out []string
	for _, r := range recs {
		if seen[r.Key()] {
			t.Errorf("trial %d of cell %s is stored twice", r.Trial, r.CellKey)
		}
		seen[r.Key()] = true
		r.WallSeconds, r.CodeVersion = 0, ""
		b, _ := json.Marshal(r)
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}

// TestKillAndResume starts a real dplab run, kills it with SIGKILL midway,
// reruns it, and finds every trial stored exactly once with aggregates
// identical to an uninterrupted run (issue 2, Done when 3).
func TestKillAndResume(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "dplab")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	spec := writeFile(t, filepath.Join(t.TempDir(), "spec.toml"), `name = "kill"
seed = 9
trials = 60
epsilon = [0.1, 0.3, 1, 3, 10]
delta = 1e-6
[[dataset]]
name = "synthetic-linear"
params = { n = 20000, d = 60, seed = 1 }
split = { resample = true } # a fresh split per trial: each trial recomputes XᵀX, so the run lasts long enough to be killed
[[mechanism]]
name = "adassp"
[[mechanism]]
name = "ridge"
`)
	killed := filepath.Join(t.TempDir(), "killed")
	cmd := exec.Command(bin, "run", spec, "-j", "2", "--out", killed)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill once some, but not all, trials are stored.
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(killed, results.TrialsFile))
		if n := bytes.Count(b, []byte("\n")); n >= 40 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the run stored fewer than 40 trials in 60 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	b, _ := os.ReadFile(filepath.Join(killed, results.TrialsFile))
	stored := bytes.Count(b, []byte("\n"))
	if stored >= 360 {
		t.Fatalf("the run finished (%d trials) before the kill: make this test's spec heavier", stored)
	}
	t.Logf("killed after %d of 360 trials were stored", stored)
	if out, err := exec.Command(bin, "run", spec, "-j", "2", "--out", killed).CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	clean := filepath.Join(t.TempDir(), "clean")
	if out, err := exec.Command(bin, "run", spec, "-j", "1", "--out", clean).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	a, c := recordSet(t, killed), recordSet(t, clean)
	if len(a) != 360 || len(c) != 360 {
		t.Fatalf("resumed store has %d records, clean %d; want 360", len(a), len(c))
	}
	for i := range a {
		if a[i] != c[i] {
			t.Fatalf("resumed and uninterrupted records differ:\n%s\n%s", a[i], c[i])
		}
	}
	// Identical records give identical aggregates; check the summary too,
	// timing column aside.
	strip := func(dir string) string {
		b, _ := os.ReadFile(filepath.Join(dir, results.SummaryFile))
		var lines []string
		for _, l := range strings.Split(string(b), "\n") {
			f := strings.Split(l, ",")
			if len(f) > 2 {
				f = append(f[:len(f)-2], f[len(f)-1]) // drop wall_s_mean
			}
			lines = append(lines, strings.Join(f, ","))
		}
		return strings.Join(lines, "\n")
	}
	if strip(killed) != strip(clean) {
		t.Fatal("summary.csv of the resumed run differs from the uninterrupted run's")
	}
}
