package report

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/run"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/results"
)

// TestObjPertQuickSpecs runs the --quick variant of every objpert_*.toml
// spec (issue 6, Done when 5), as CI does with DPLAB_DATA set: every trial
// succeeds, every private trial spent at most its target, Gisette (absent
// from the shared data) is reported as skipped, and the figures and tables
// are written. Without the data files the test is skipped.
func TestObjPertQuickSpecs(t *testing.T) {
	specs, _ := filepath.Glob("../../experiments/objpert_*.toml")
	if len(specs) < 5 {
		t.Fatalf("found %d objpert specs, want ≥ 5", len(specs))
	}
	for _, path := range specs {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".toml"), func(t *testing.T) {
			s, err := plan.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if s, err = plan.ApplyQuick(s); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "out")
			rep, _, err := runAndRender(s, run.Options{Jobs: 2, OutDir: dir, Cache: &run.DataCache{}})
			var missing *datasets.MissingError
			if errors.As(err, &missing) {
				t.Skipf("data not available (set DPLAB_DATA): %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Datasets) > 0 && (rep.Ran == 0 || rep.Failed != 0) {
				t.Fatalf("%+v", rep)
			}
			recs, err := results.Read(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				if r.Status == results.StatusOK && r.Privacy.Tuning != spec.TuneOracle && float64(r.Privacy.EpsSpent) > float64(r.Privacy.EpsTarget) {
					t.Errorf("%s at ε = %v spent %v", r.Label, r.Epsilon, r.Privacy.EpsSpent)
				}
			}
			if s.DatasetIndex("Gisette") >= 0 {
				if _, err := os.Stat(filepath.Join(datasets.DataDir(""), "gisette")); err != nil {
					if _, ok := rep.SkipReasons["Gisette"]; !ok {
						t.Errorf("Gisette absent but not reported skipped: %v", rep.SkipReasons)
					}
				}
			}
			for _, f := range s.Figures {
				if _, err := os.Stat(filepath.Join(dir, "figures", f.Name+".png")); err != nil {
					t.Errorf("figure %s not written: %v", f.Name, err)
				}
			}
		})
	}
}
