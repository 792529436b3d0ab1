package audit

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// switchingLedger is a test mechanism whose fits after the first probes
// declare a cheaper ledger: the first `probes` fits declare a Gaussian of
// σ = 10, the later ones σ = 0.5 (each release is the zero model: the
// statistic does not matter here). A worker whose declared event depends on
// the seed or the data behaves so.
type switchingLedger struct {
	probes int64
	fits   atomic.Int64
}

func (m *switchingLedger) Fit(_ context.Context, d *datasets.Dataset, _ mechanisms.Budget, _ rngs.Streams) (*mechanisms.Release, error) {
	sigma := 10.0
	if m.fits.Add(1) > m.probes {
		sigma = 0.5
	}
	return &mechanisms.Release{Model: &mechanisms.Linear{Theta: make([]float64, d.Cols())},
		Event: accounting.Gaussian{Sigma: sigma, Sensitivity: 1}}, nil
}

func (m *switchingLedger) EventShapes(mechanisms.Budget) ([]accounting.Event, error) { return nil, nil }

// TestSampleLedgerAccounted: the claimed ε of an audit target is that of
// the probe fits' ledgers; a sampled run whose ledger spends more (here σ
// = 0.5 where the probes declared σ = 10) fails the audit naming both,
// instead of being audited against a claim that is not its own. Before,
// the sampled runs' ledgers were not accounted at all.
func TestSampleLedgerAccounted(t *testing.T) {
	info := mechanisms.Info{Name: "switching", Tasks: []datasets.Task{datasets.Regression}}
	setup, err := SetupOf(info, mechanisms.AuditSetup{})
	if err != nil {
		t.Fatal(err)
	}
	m := &switchingLedger{probes: 3} // NewTargetFor's probe and one per side
	tg, err := NewTargetFor(context.Background(), "switching", m, setup, 1, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	if m.fits.Load() != m.probes {
		t.Fatalf("NewTargetFor fitted %d times, the test assumes %d", m.fits.Load(), m.probes)
	}
	m.probes = 1 << 40 // the next sample declares σ = 10 again: accepted
	if _, err := tg.Sample(context.Background(), 0, rngs.Derive("honest")); err != nil {
		t.Fatalf("a run declaring the probes' ledger: %v", err)
	}
	m.probes = 0
	_, err = tg.Sample(context.Background(), 1, rngs.Derive("cheap"))
	if err == nil || !strings.Contains(err.Error(), "ledger") {
		t.Fatalf("a run declaring σ = 0.5 after probes of σ = 10: error %v, want one naming its ledger", err)
	}
	t.Log(err)
}
