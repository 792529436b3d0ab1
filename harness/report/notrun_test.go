package report

import (
	"context"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/harness/run"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/results"
)

// floorMech ("test-floor", registered for this package's tests) calibrates
// a noise scale whose ledger does not depend on it: one Gaussian release
// with σ = 1 at sensitivity 1. Its ε at δ is a floor: a smaller target is
// unreachable (Budget.Calibrate returns *accounting.InfeasibleError), a
// larger one is met at once. It releases the zero model.
type floorMech struct{}

// floorParams are test-floor's (empty) params.
type floorParams struct{}

func (floorParams) Validate() error { return nil }

func init() {
	mechanisms.Register(mechanisms.Info{Name: "test-floor", Title: "test: ε floor", Ref: "none",
		Tasks: []datasets.Task{datasets.Regression}, Private: true, Version: 1, Relation: accounting.RelationAddRemove, Events: []string{"gaussian"}},
		func(floorParams) (mechanisms.Mechanism, error) { return floorMech{}, nil }, floorParams{})
}

func floorEvent(float64) accounting.Event { return accounting.Gaussian{Sigma: 1, Sensitivity: 1} }

func (floorMech) EventShapes(mechanisms.Budget) ([]accounting.Event, error) {
	return []accounting.Event{floorEvent(1)}, nil
}

func (floorMech) Fit(_ context.Context, train *datasets.Dataset, b mechanisms.Budget, _ rngs.Streams) (*mechanisms.Release, error) {
	if _, err := b.Calibrate(floorEvent, accounting.Bracket{}); err != nil {
		return nil, err
	}
	return &mechanisms.Release{Model: &mechanisms.Linear{Theta: make([]float64, train.Cols())}, Event: floorEvent(1), Calibrated: true}, nil
}

// TestInfeasibleCells: a cell whose target ε is below the smallest its
// mechanism reaches is recorded infeasible (with that smallest ε), is not a
// failure (the run succeeds), is settled (a rerun does not repeat it, the plan counts it stored), and
// is shown as infeasible in the tables and footnotes rather than dropped or
// reported as incomplete. Before infeasible trials existed, they failed the
// run.
func TestInfeasibleCells(t *testing.T) {
	src := strings.Replace(spectest.Valid, `name = "adassp"
label = "AdaSSP"
params = { rho = 1e-4 }`, `name = "test-floor"
label = "Floor"`, 1)
	src += `
[[table]]
name = "ranking"
kind = "ranking"
metric = "test_mse"
`
	s := spectest.MustParse(t, src)
	dir := filepath.Join(t.TempDir(), "out")
	cache := &run.DataCache{}
	rep, outs, err := runAndRender(s, run.Options{Jobs: 2, OutDir: dir, Cache: cache})
	if err != nil {
		t.Fatalf("run with infeasible cells failed: %v", err)
	}
	// Targets 0.5 and 2 at δ = min(1e-6, 0.01/n): the Gaussian with σ = 1
	// spends ε ≈ 5.6 there, so both private cells are infeasible.
	recs := stored(t, dir)
	floor, err := accounting.Config{}.Epsilon(floorEvent(1), float64(recs[0].Privacy.Delta))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Infeasible != 6 || rep.Failed != 0 || rep.Ran != 3 {
		t.Fatalf("report: %d infeasible, %d failed, %d ok; want 6, 0, 3 (ridge)", rep.Infeasible, rep.Failed, rep.Ran)
	}
	var inf int
	for _, r := range recs {
		if r.Status != results.StatusInfeasible {
			continue
		}
		inf++
		// The calibration's floor is ε at its largest scale, where the
		// ledger is the same Gaussian: the accountant's ε of it.
		if got := float64(r.Diagnostics[results.InfeasibleFloor]); math.Abs(got-floor.Epsilon) > 1e-9*floor.Epsilon || !strings.Contains(r.Error, "unreachable") {
			t.Errorf("record %s ε=%v: floor %v, want %v; error %q", r.Label, r.Epsilon, got, floor.Epsilon, r.Error)
		}
	}
	if inf != 6 {
		t.Fatalf("%d infeasible records, want 6", inf)
	}
	again, err := run.Run(context.Background(), spectest.MustParse(t, src), run.Options{Jobs: 2, OutDir: dir, Cache: cache})
	if err != nil || again.Ran+again.Infeasible+again.Failed != 0 || again.Stored != 9 {
		t.Fatalf("rerun: ran %d, infeasible %d, stored %d (%v); want nothing rerun, 9 stored", again.Ran, again.Infeasible, again.Stored, err)
	}
	plan, err := run.MakePlan(context.Background(), spectest.Plan(t, spectest.MustParse(t, src)), results.FromDir(dir, nil))
	if err != nil || plan.Stored != 9 || plan.Infeasible != 6 || plan.Total != 9 {
		t.Fatalf("plan: %d of %d stored, %d infeasible (%v); want 9 of 9, 6", plan.Stored, plan.Total, plan.Infeasible, err)
	}
	eps3 := strconv.FormatFloat(floor.Epsilon, 'g', 3, 64)
	want := "infeasible (smallest ε " + eps3 + ")"
	read := func(name string) string {
		for _, p := range outs {
			if filepath.Base(p) == name {
				return withCaption(t, p)
			}
		}
		t.Fatalf("%s not written (%v)", name, outs)
		return ""
	}
	mse := read("mse.md")
	if strings.Count(mse, want) != 2 || !strings.Contains(mse, "INFEASIBLE") || strings.Contains(mse, "INCOMPLETE") {
		t.Errorf("mse.md: want %q in both rows, an INFEASIBLE note and no INCOMPLETE:\n%s", want, mse)
	}
	ranking := read("ranking.md")
	if strings.Count(ranking, "Floor (smallest ε "+eps3+")") != 2 {
		t.Errorf("ranking.md: want Floor listed infeasible at both ε:\n%s", ranking)
	}
}

// TestExcludedPairs: a (mechanism, dataset) pair the spec leaves out
// (exclude) has no cells and no trials, and the tables say so — "not run"
// in its column and the reason in the footnote — instead of an empty entry
// or an INCOMPLETE warning.
func TestExcludedPairs(t *testing.T) {
	src := strings.Replace(spectest.Valid, `params = { rho = 1e-4 }`, `params = { rho = 1e-4 }
exclude = { "Lin2" = "too slow on Lin2 (measured)" }`, 1)
	src = strings.Replace(src, `[[mechanism]]`, `[[dataset]]
name = "synthetic-linear"
label = "Lin2"
params = { n = 300, d = 3, seed = 4 }

[[mechanism]]`, 1)
	s := spectest.MustParse(t, src)
	if n := len(spectest.Cells(t, s)); n != 4 {
		t.Fatalf("%d cells, want 4 (AdaSSP × 2 ε on Lin, Ridge on both)", n)
	}
	dir := filepath.Join(t.TempDir(), "out")
	rep, outs, err := runAndRender(s, run.Options{Jobs: 2, OutDir: dir, Cache: &run.DataCache{}})
	if err != nil || rep.Total != 12 {
		t.Fatalf("run: %d trials (%v), want 12", rep.Total, err)
	}
	var lin2 string
	for _, p := range outs {
		if filepath.Base(p) == "mse-lin2.md" {
			lin2 = withCaption(t, p)
		}
	}
	if strings.Count(lin2, "not run (see note)") != 2 || !strings.Contains(lin2, "NOT RUN (left out by the spec): AdaSSP on Lin2: too slow on Lin2 (measured)") ||
		strings.Contains(lin2, "INCOMPLETE") {
		t.Errorf("mse-lin2.md: want AdaSSP 'not run' at both ε, the reason, no INCOMPLETE:\n%s", lin2)
	}
}
