package run

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/results"
)

// TestLedgerCheckMatchesRuns checks validation's accountant check against
// what a run does (issue 9, item 5): for every registered mechanism, every
// accountant and tuning none or private, validate refuses the spec exactly
// when a run of it (validation bypassed) fails its trial. The refusal names
// the mechanism block.
func TestLedgerCheckMatchesRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs one trial of each mechanism × accountant × tuning")
	}
	// A numeric param each private mechanism can tune over.
	tuneKey := map[string]string{"dpsgd": "clip", "objpert-output": "clip", "objpert-amp": "clip", "dgd-rgm": "step_factor", "dgd-clip": "clip_factor", "dpgd": "step"}
	// Params a mechanism needs on the 3-feature data (PCA to k < d, PTR's
	// public β) or to run fast.
	baseParams := map[string]string{"dpsgd": "{ epochs = 1 }", "dppca-dpgd": "{ k = 2 }", "ptr-pca-dpgd": "{ k = 2, beta = 0.01 }"}
	cache := &DataCache{}
	for _, info := range mechanisms.List() {
		for _, kind := range []string{"rdp", "pld", "exact"} {
			for _, mode := range []string{spec.TuneNone, spec.TunePrivate} {
				if mode == spec.TunePrivate && !info.Private {
					continue
				}
				name := fmt.Sprintf("%s/%s/%s", info.Name, kind, mode)
				t.Run(name, func(t *testing.T) {
					data := "synthetic-linear"
					if info.Tasks[0] == datasets.Binary {
						data = "synthetic-logistic"
					}
					key := ""
					if mode == spec.TunePrivate {
						key = tuningKey(t, info.Name, tuneKey)
					}
					base := fmt.Sprintf(`name = "ledger"
seed = 1
trials = 1
epsilon = [1]
delta = 1e-5

[[dataset]]
name = %q
params = { n = 300, d = 3 }

[[mechanism]]
name = %q
`, data, info.Name)
					if p, ok := baseParams[info.Name]; ok {
						base += "params = " + p + "\n"
					}
					full := strings.Replace(base, "delta = 1e-5", fmt.Sprintf("delta = 1e-5\naccountant = { kind = %q }", kind), 1)
					if mode == spec.TunePrivate {
						full += fmt.Sprintf("[mechanism.tuning]\nmode = \"private\"\nselect_on = \"test\"\nmean = 3\ncandidates = { %s = [1, 1.5] }\n", key)
					}
					_, verr := plan.Parse("spec.toml", []byte(full))
					var se *spec.SpecError
					if verr != nil && (!errors.As(verr, &se) || !strings.HasPrefix(se.Key, "mechanism[0]")) {
						t.Fatalf("validation error not about mechanism[0]: %v", verr)
					}
					if verr != nil && strings.HasPrefix(se.Key, "mechanism[0].tuning.candidates") {
						t.Fatalf("the test tunes %s's key %q, which validation refuses: %v", info.Name, key, verr)
					}

					// The same spec, validation bypassed: parse the untuned
					// RDP spec and set the accountant and tuning afterwards.
					s := spectest.MustParse(t, base)
					s.Accountant.Kind = kind
					if mode == spec.TunePrivate {
						var cands spec.ParamTable
						if err := cands.UnmarshalTOML(map[string]any{key: []any{1.0, 1.5}}); err != nil {
							t.Fatal(err)
						}
						s.Mechanisms[0].Tuning = spec.TuningSpec{Mode: spec.TunePrivate, Distribution: "poisson", Mean: 3,
							SelectOn: "test", Sample: "grid", Candidates: cands}
					}
					dir := filepath.Join(t.TempDir(), "out")
					rep, rerr := Run(context.Background(), s, Options{OutDir: dir, Cache: cache})
					if rep == nil {
						t.Fatalf("run: %v", rerr)
					}
					failed := rep.Failed > 0
					if (verr != nil) != failed {
						t.Errorf("validate: %v\nrun: %d failed (%v)\nwant validate to refuse exactly the specs whose trials fail", verr, rep.Failed, rerr)
					}
					if verr != nil {
						t.Logf("refused: %v", verr)
					}
				})
			}
		}
	}
}

// tuningKey is the params key TestLedgerCheckMatchesRuns tunes over
// candidates [1, 1.5] for the mechanism name: overrides' entry, else
// bound_x when the mechanism has it, else its first float key whose range
// is "> 0", so that a new mechanism's private tuning is tested without an
// entry here.
func tuningKey(t *testing.T, name string, overrides map[string]string) string {
	t.Helper()
	if k, ok := overrides[name]; ok {
		return k
	}
	e, err := mechanisms.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	first := ""
	for _, f := range e.Params() {
		if f.Key == "bound_x" {
			return f.Key
		}
		if first == "" && f.Type == "float" && f.Range == "> 0" {
			first = f.Key
		}
	}
	if first == "" {
		t.Fatalf("%s has no float key with range > 0 to tune: give one in TestLedgerCheckMatchesRuns' tuneKey", name)
	}
	return first
}

// TestPlanCountsTrials checks that MakePlan counts stored trials per cell
// rather than visiting every trial index: 2·10⁹ trials plan in well under a
// second (visiting them took minutes), with stored and to-run counts exact.
func TestPlanCountsTrials(t *testing.T) {
	s, err := plan.ParseWith("t.toml", []byte(strings.Replace(spectest.Valid, "trials = 3", "trials = 700000000", 1)),
		spec.LoadOptions{Limits: spec.Limits{MaxTrials: 1e10}})
	if err != nil {
		t.Fatal(err)
	}
	cells := spectest.Cells(t, s)
	recs := []results.Record{
		{CellKey: cells[0].Key, Trial: 0, Status: results.StatusOK},
		{CellKey: cells[0].Key, Trial: 5, Status: results.StatusOK},
		{CellKey: cells[0].Key, Trial: 5, Status: results.StatusOK}, // a retry: counted once
		{CellKey: cells[1].Key, Trial: 1, Status: results.StatusFailed},
		{CellKey: "gone", Trial: 0, Status: results.StatusOK},
	}
	start := time.Now()
	p, err := MakePlan(context.Background(), spectest.Plan(t, s), results.FromSlice(recs))
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Errorf("MakePlan took %v", elapsed)
	}
	if p.Cells != 3 || p.Total != 2100000000 || p.Stored != 2 || p.Stale != 1 || p.Rows[0].Stored != 2 || p.Rows[0].ToRun != 1399999998 {
		t.Errorf("plan %+v", p)
	}
}

// TestRunStreamsPending checks that Run does not list its pending trials:
// a cancelled run of 5·10⁷ pending trials allocates little, under 100 MB
// (the list took 16 bytes per trial, and 10⁹ trials ran out of memory);
// under -short 5·10⁶ trials and 10 MB, the same 2 bytes a trial.
func TestRunStreamsPending(t *testing.T) {
	trials, limit := 50000000, uint64(100<<20)
	if testing.Short() {
		trials, limit = 5000000, 10<<20
	}
	s := spectest.MustParse(t, strings.Replace(strings.Replace(spectest.Valid, "trials = 3", fmt.Sprintf("trials = %d", trials), 1), "[0.5, 2]", "[1]", 1))
	s.Mechanisms = s.Mechanisms[:1]
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rep, err := Run(ctx, s, Options{OutDir: filepath.Join(t.TempDir(), "out"), Cache: &DataCache{}})
	runtime.ReadMemStats(&after)
	if err == nil || rep == nil || !rep.Interrupted || rep.PendingBefore != trials {
		t.Fatalf("report %+v, %v", rep, err)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("a cancelled run of %d trials allocated %.1f MB", trials, float64(alloc)/(1<<20))
	if alloc > limit {
		t.Errorf("a cancelled run of %d trials allocated %d MB, above %d MB", trials, alloc>>20, limit>>20)
	}
}
