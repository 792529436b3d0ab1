package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dplab/dplab/datasets"
	specpkg "github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/results"
)

// TestQuickSpecsSpendWithinTarget checks the records of the --quick runs of
// experiments/gaussmix_*.toml (issue 5's figures) and objpert_*.toml
// (issue 6, Done when 5) for what their goldens cannot say (the golden test
// pins the records' digests, so it takes whatever a regenerated golden
// holds): no trial failed; every private trial spent at most its target
// (GaussMix to 1e-9 relative: the paper and accountant calibrations never
// overshoot, preset "code" reproduces the authors' constants and is exempt;
// ObjPert exactly, oracle tuning exempt); no GaussMix trial was skipped;
// an ObjPert spec with datasets ran trials; Gisette, absent from the shared
// data, is recorded as skipped, not dropped. It reads the runs quickRun
// shares with TestQuickSpecOutputsGolden (one run per spec per test binary:
// make test-long runs both in one binary, so this test adds no run), and
// replaces harness/report's TestGaussMixQuickSpecs and TestObjPertQuickSpecs,
// which ran the same specs again under make test. The specs read the shared
// datasets; without DPLAB_DATA the test skips.
func TestQuickSpecsSpendWithinTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every GaussMix and ObjPert quick run (~1 min): not under -short; CI runs it (make test-long)")
	}
	if os.Getenv("DPLAB_DATA") == "" {
		t.Skip("DPLAB_DATA is not set: the quick specs read the shared datasets")
	}
	gaussmix, err := filepath.Glob("experiments/gaussmix_*.toml")
	if err != nil || len(gaussmix) < 5 {
		t.Fatalf("gaussmix specs %v, %v", gaussmix, err)
	}
	objpert, err := filepath.Glob("experiments/objpert_*.toml")
	if err != nil || len(objpert) < 5 {
		t.Fatalf("objpert specs %v, %v", objpert, err)
	}
	for _, path := range append(gaussmix, objpert...) {
		name := strings.TrimSuffix(filepath.Base(path), ".toml")
		t.Run(name, func(t *testing.T) {
			recs, err := results.Read(quickRun(t, path), nil)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(name, "gaussmix_") {
				checkGaussMixQuick(t, recs)
			} else {
				checkObjPertQuick(t, path, recs)
			}
		})
	}
}

// checkGaussMixQuick: no GaussMix trial failed or was skipped, and each one
// not of preset "code" spent at most its target to 1e-9 relative.
func checkGaussMixQuick(t *testing.T, recs []results.Record) {
	t.Helper()
	for _, r := range recs {
		if r.Status == results.StatusFailed || r.Status == results.StatusSkipped {
			t.Errorf("%s on %s at ε = %v trial %d: %s: %s", r.Label, r.Dataset, float64(r.Epsilon), r.Trial, r.Status, r.Error)
			continue
		}
		if r.MechParams["preset"] == "code" {
			continue // the authors' constants are reported as spent, above target
		}
		if float64(r.Privacy.EpsSpent) > float64(r.Privacy.EpsTarget)*(1+1e-9) {
			t.Errorf("%s on %s at ε = %v spent %v", r.Label, r.Dataset, float64(r.Epsilon), float64(r.Privacy.EpsSpent))
		}
	}
}

// checkObjPertQuick: no ObjPert trial failed, a spec with datasets ran
// trials, every trial not tuned by the oracle spent at most its target, and
// Gisette, when its files are absent, is recorded as skipped.
func checkObjPertQuick(t *testing.T, path string, recs []results.Record) {
	t.Helper()
	s := loadQuick(t, path)
	ok, gisetteSkipped := 0, false
	for _, r := range recs {
		switch r.Status {
		case results.StatusFailed:
			t.Errorf("%s on %s at ε = %v trial %d failed: %s", r.Label, r.Dataset, float64(r.Epsilon), r.Trial, r.Error)
		case results.StatusSkipped:
			gisetteSkipped = gisetteSkipped || r.Dataset == "Gisette"
		case results.StatusOK:
			ok++
			if r.Privacy.Tuning != specpkg.TuneOracle && float64(r.Privacy.EpsSpent) > float64(r.Privacy.EpsTarget) {
				t.Errorf("%s on %s at ε = %v spent %v", r.Label, r.Dataset, float64(r.Epsilon), float64(r.Privacy.EpsSpent))
			}
		}
	}
	if len(s.Datasets) > 0 && ok == 0 {
		t.Errorf("no trial ran (%d records)", len(recs))
	}
	if s.DatasetIndex("Gisette") >= 0 {
		if _, err := os.Stat(filepath.Join(datasets.DataDir(""), "gisette")); err != nil && !gisetteSkipped {
			t.Errorf("Gisette absent but not recorded as skipped")
		}
	}
}
