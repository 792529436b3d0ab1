package run

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/results"
)

// overspendParams configures "test-overspend", a mechanism registered for
// the runner's tests: one Gaussian release calibrated to the budget, whose
// noise is then divided by Overspend (0 or 1: honest). NoClaim makes it
// leave Release.Calibrated false, as a paper's fixed constants do.
type overspendParams struct {
	BoundX    float64 `toml:"bound_x"` // unused (a key TestLedgerCheckMatchesRuns tunes over)
	Overspend float64 `toml:"overspend"`
	NoClaim   bool    `toml:"no_claim"`
	// Scope is the release's TargetScope ("" for none).
	Scope string `toml:"scope"`
	// Steps > 0 makes the release carry a trace "excess_objective" of
	// Steps + 1 values 1/(t + 1), t = 0 … Steps.
	Steps int `toml:"steps"`
}

func (p overspendParams) Validate() error {
	if p.Overspend < 0 {
		return fmt.Errorf("overspend = %v, want ≥ 0", p.Overspend)
	}
	return nil
}

type overspendMech struct{ p overspendParams }

// overspendFits counts the fits of "test-overspend" begun in this process.
var overspendFits atomic.Int64

// overspendSpec is the head of a spec called name: trials per cell at
// ε = 1 on synthetic-linear data (n = 100, d = 3), to which the caller adds
// its [[mechanism]] blocks.
func overspendSpec(name string, trials int) string {
	return fmt.Sprintf("name = %q\nseed = 1\ntrials = %d\nepsilon = [1]\ndelta = 1e-5\n"+
		"[[dataset]]\nname = \"synthetic-linear\"\nparams = { n = 100, d = 3 }\n", name, trials)
}

func init() {
	mechanisms.Register(mechanisms.Info{Name: "test-overspend", Title: "test: calibrated, then overspends", Ref: "none",
		Tasks: []datasets.Task{datasets.Regression}, Private: true, Version: 1},
		func(p overspendParams) (mechanisms.Mechanism, error) { return &overspendMech{p}, nil }, overspendParams{})
}

func overspendEvent(sigma float64) accounting.Event {
	return accounting.Gaussian{Sigma: sigma, Sensitivity: 1}
}

// EventShapes implements mechanisms.Mechanism.
func (*overspendMech) EventShapes(mechanisms.Budget) ([]accounting.Event, error) {
	return []accounting.Event{overspendEvent(2)}, nil
}

// Fit implements mechanisms.Mechanism.
func (m *overspendMech) Fit(ctx context.Context, train *datasets.Dataset, b mechanisms.Budget, _ rngs.Streams) (*mechanisms.Release, error) {
	overspendFits.Add(1)
	sigma, err := b.Calibrate(overspendEvent, accounting.Bracket{})
	if err != nil {
		return nil, err
	}
	if m.p.Overspend > 1 {
		sigma /= m.p.Overspend
	}
	rel := &mechanisms.Release{Model: &mechanisms.Linear{Theta: make([]float64, train.Cols())},
		Event: overspendEvent(sigma), Calibrated: !m.p.NoClaim, TargetScope: m.p.Scope}
	if m.p.Steps > 0 {
		tr := make([]float64, m.p.Steps+1)
		for t := range tr {
			tr[t] = 1 / float64(t+1)
		}
		rel.Trace = map[string][]float64{"excess_objective": tr}
	}
	return rel, nil
}

// TestTargetScopeAndTraces: the runner copies Release.TargetScope into
// privacy.target_scope and Release.Trace into traces. A release with a
// target scope that spends more than ε target is recorded ok, without the
// overspend note, even when it claims Calibrated (its ε was a target for
// something else than the ledger's (ε, δ)); ε spent is still the
// accountant's. Trace values by hand: 1/(t + 1).
func TestTargetScopeAndTraces(t *testing.T) {
	src := overspendSpec("scoped", 2) + `[[mechanism]]
name = "test-overspend"
label = "scoped, claims"
params = { overspend = 2, scope = "per-step RDP ε at α = 2", steps = 3 }
[[mechanism]]
name = "test-overspend"
label = "scoped"
params = { overspend = 2, no_claim = true, scope = "per-step RDP ε at α = 2" }
`
	dir := filepath.Join(t.TempDir(), "out")
	rep, err := Run(context.Background(), spectest.MustParse(t, src), Options{OutDir: dir, Cache: &DataCache{}})
	if err != nil || rep.Failed != 0 || rep.Ran != 4 {
		t.Fatalf("run: %+v, %v; want 4 ok trials", rep, err)
	}
	recs, err := results.Read(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		spent, target := float64(r.Privacy.EpsSpent), float64(r.Privacy.EpsTarget)
		if r.Status != results.StatusOK || !(spent > target) || r.Privacy.TuningNote != "" || r.Privacy.TargetScope != "per-step RDP ε at α = 2" {
			t.Errorf("%s: %s, ε %v of %v, note %q, scope %q; want ok, overspent, no note, the scope", r.Label, r.Status, spent, target, r.Privacy.TuningNote, r.Privacy.TargetScope)
		}
		tr := r.Traces["excess_objective"]
		switch r.Label {
		case "scoped, claims":
			want := []results.Float{1, 0.5, 1.0 / 3, 0.25}
			if len(tr) != len(want) {
				t.Fatalf("%s: trace %v, want %v", r.Label, tr, want)
			}
			for i := range want {
				if tr[i] != want[i] {
					t.Errorf("%s: trace[%d] = %v, want %v", r.Label, i, tr[i], want[i])
				}
			}
		case "scoped":
			if r.Traces != nil {
				t.Errorf("%s: traces %v, want none", r.Label, r.Traces)
			}
		}
	}
}

// TestCalibratedOverspendFailsTrial: a release that claims calibration
// (Release.Calibrated) but whose ledger spends more than the target is a
// failed trial whose error names spent and target; the same overspend
// without the claim (a paper's constants) is recorded with the note; the
// honest calibrated release is recorded as is.
func TestCalibratedOverspendFailsTrial(t *testing.T) {
	src := overspendSpec("overspend", 2) + `[[mechanism]]
name = "test-overspend"
label = "honest"
[[mechanism]]
name = "test-overspend"
label = "claims"
params = { overspend = 2 }
[[mechanism]]
name = "test-overspend"
label = "paper"
params = { overspend = 2, no_claim = true }
`
	dir := filepath.Join(t.TempDir(), "out")
	rep, err := Run(context.Background(), spectest.MustParse(t, src), Options{OutDir: dir, Cache: &DataCache{}})
	if rep == nil || rep.Failed != 2 || err == nil {
		t.Fatalf("run: %+v, %v; want the 2 trials of \"claims\" failed", rep, err)
	}
	recs, err := results.Read(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		spent, target := float64(r.Privacy.EpsSpent), float64(r.Privacy.EpsTarget)
		switch r.Label {
		case "honest":
			if r.Status != results.StatusOK || spent > target || r.Privacy.TuningNote != "" {
				t.Errorf("honest: %s, ε %v of %v, note %q, %s", r.Status, spent, target, r.Privacy.TuningNote, r.Error)
			}
		case "claims":
			want := fmt.Sprintf("calibrated to ε = 1, but the ledger spends ε = %g", spent)
			if r.Status != results.StatusFailed || !(spent > target) || !strings.Contains(r.Error, want) {
				t.Errorf("claims: %s, ε %v of %v, error %q; want failed with %q", r.Status, spent, target, r.Error, want)
			}
		case "paper":
			if r.Status != results.StatusOK || !(spent > target) || r.Privacy.TuningNote != "ε spent exceeds the target" {
				t.Errorf("paper: %s, ε %v of %v, note %q; want ok with the note", r.Status, spent, target, r.Privacy.TuningNote)
			}
		default:
			t.Errorf("unexpected record %q", r.Label)
		}
	}
}

// TestReleaseAssumptionsRecorded: what a fit states it read from the data
// without noise (Release.Assumptions: dgd-rgm's relative sensitivities, the
// node split) reaches the record's privacy.assumptions, after the spec's
// own (the dataset's), each once.
func TestReleaseAssumptionsRecorded(t *testing.T) {
	src := `name = "assume"
seed = 1
trials = 2
epsilon = [0.5]
delta = 1e-5
[[dataset]]
name = "synthetic-linear"
params = { n = 200, d = 3 }
split = { all = true }
scale = { x = "none", y = "none" }
[[mechanism]]
name = "dgd-rgm"
params = { iterations = 3, mu = 1 }
`
	dir := filepath.Join(t.TempDir(), "out")
	var recs []results.Record
	rep, err := Run(context.Background(), spectest.MustParse(t, src), Options{OutDir: dir, Cache: &DataCache{},
		Records: func(r *results.Record) { recs = append(recs, *r) }})
	if err != nil || rep.Ran != 2 || len(recs) != 2 {
		t.Fatalf("run: %+v, %d records, %v", rep, len(recs), err)
	}
	for _, r := range recs {
		joined := strings.Join(r.Privacy.Assumptions, " | ")
		if !strings.Contains(joined, "η") || !strings.Contains(joined, "node") {
			t.Errorf("trial %d: assumptions %q lack the release's (η, the node split)", r.Trial, r.Privacy.Assumptions)
		}
		seen := map[string]bool{}
		for _, a := range r.Privacy.Assumptions {
			if seen[a] {
				t.Errorf("trial %d: assumption %q twice", r.Trial, a)
			}
			seen[a] = true
		}
	}
}
