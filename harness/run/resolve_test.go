package run

import (
	"context"
	"github.com/dplab/dplab/harness/plan"
	"path/filepath"
	"testing"

	"github.com/dplab/dplab/harness/internal/spectest"
)

// TestRunLeavesSpecTrials (issue 36): a run of a --quick spec with a
// --trials override runs the override's count per cell and leaves the
// spec's count as it was. Run used to set s.Trials to the override, so
// that a second run of the same spec without one ran the override's count
// again (fails before: s.Trials was 4 after the run, and the second run
// counted 4 trials per cell, not 2).
func TestRunLeavesSpecTrials(t *testing.T) {
	s, err := plan.ApplyQuick(spectest.MustParse(t, spectest.Valid+"\n[quick]\ntrials = 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	cells := len(spectest.Cells(t, s))
	dir := filepath.Join(t.TempDir(), "out")
	rep, err := Run(context.Background(), s, Options{OutDir: dir, Jobs: 2, Trials: 4, Cache: &DataCache{}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Trials != 2 {
		t.Errorf("after a run with Trials 4 the spec's trials are %d, want its 2", s.Trials)
	}
	if rep.Total != 4*cells || rep.Ran != 4*cells {
		t.Errorf("with Trials 4: %d trials, %d run; want %d of %d cells × 4", rep.Total, rep.Ran, 4*cells, cells)
	}
	// The same spec without an override: its own 2 per cell, all stored;
	// the other 2 per cell are beyond its count.
	rep, err = Run(context.Background(), s, Options{OutDir: dir, Jobs: 2, Cache: &DataCache{}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Total != 2*cells || rep.Ran != 0 || rep.Beyond != 2*cells {
		t.Errorf("without an override: %d trials, %d run, %d beyond; want %d, 0 and %d", rep.Total, rep.Ran, rep.Beyond, 2*cells, 2*cells)
	}
}
