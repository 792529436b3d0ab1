package mechanisms

import (
	"context"
	"strings"
	"testing"

	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// TestCalibratedClaims: a fit claims calibration (Release.Calibrated)
// exactly when it calibrated its noise to the budget with the Calibrator,
// and a claiming fit's ledger meets the target (CheckSpent passes); fits
// with a paper's constants do not claim it.
func TestCalibratedClaims(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(v any) // params beyond the defaults; nil: defaults
		want bool
	}{
		{"adassp", nil, false}, // AdaSSP's box
		{"adassp", func(v any) { v.(*AdaSSPParams).Calibration = "accountant" }, true},
		{"dpsgd", func(v any) { v.(*DPSGDParams).Epochs = 2 }, true},
		{"objpert-output", nil, true},
		{"objpert-amp", nil, true},
		{"objpert-kifer", nil, true},
		{"objpert-kifer", func(v any) { v.(*ObjPertKiferParams).Preset = presetCode }, false},
		{"linear-mixing", nil, false}, // Theorem 1
		{"linear-mixing", func(v any) { v.(*LinearMixingParams).Calibration = calAccountant }, true},
		{"sheffet17", nil, false},
		{"sheffet17-renyi", nil, false},
		{"sheffet17-renyi", func(v any) { v.(*Sheffet17Params).Calibration = calAccountant }, true},
		{"ridge", nil, false},
		{"dgd", nil, false},
		{"dgd-rgm", nil, false}, // per-step RDP target ([HMB23] §6)
		{"dgd-rgm", func(v any) { p := v.(*DGDParams); p.EpsilonScope, p.Mu = scopeTotal, 1 }, true},
		{"dgd-rgm", func(v any) { v.(*DGDParams).Preset = presetCode }, false},
		{"dgd-clip", nil, false},
		{"dgd-clip", func(v any) { p := v.(*DGDParams); p.EpsilonScope, p.Mu = scopeTotal, 1 }, true},
		{"dpgd", func(v any) { v.(*DPGDParams).Iterations = 20 }, true},
		{"ssp", nil, true},
		{"dppca-dpgd", func(v any) { v.(*PCADPGDParams).K = 2 }, true},
		{"ptr-pca-dpgd", func(v any) { p := v.(*PCADPGDParams); p.K, p.Beta = 2, 0.01 }, true},
	} {
		e, err := Lookup(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := e.Build(func(v any) error {
			if tc.set != nil {
				tc.set(v)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		b := Budget{Epsilon: 2, Delta: 1e-5, Calibrator: accounting.NewCalibrator(accounting.Config{})}
		rel, err := m.Fit(context.Background(), tinyData(t, e.Info.Tasks[0], 400, 5), b, rngs.New(rngs.Derive("calibrated", tc.name)))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if rel.Calibrated != tc.want {
			t.Errorf("%s (%v): Calibrated = %v, want %v", tc.name, tc.set != nil, rel.Calibrated, tc.want)
		}
		g, err := accounting.Config{}.Epsilon(rel.Event, b.Delta)
		if err != nil {
			t.Fatal(err)
		}
		if err := rel.CheckSpent(g.Epsilon, b.Epsilon); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// TestCheckSpent: only a calibrated release fails, and only above the
// target's relative slack 1e-9 (accounting.CalibrationTolerance); the error
// names spent and target.
func TestCheckSpent(t *testing.T) {
	cal := &Release{Calibrated: true}
	for _, tc := range []struct {
		rel          *Release
		spent, want  float64
		fails        bool
		spentInError string
	}{
		{cal, 1, 1, false, ""},
		{cal, 1 + 0.5e-9, 1, false, ""},
		{cal, 1 + 2e-9, 1, true, "ε = 1.000000002"},
		{cal, 1.25, 1, true, "ε = 1.25"},
		{&Release{}, 1.25, 1, false, ""}, // a paper's constants: a note, not a failure
		{nil, 1.25, 1, false, ""},
	} {
		err := tc.rel.CheckSpent(tc.spent, tc.want)
		if (err != nil) != tc.fails || (err != nil && (!strings.Contains(err.Error(), tc.spentInError) || !strings.Contains(err.Error(), "calibrated to ε = 1,"))) {
			t.Errorf("CheckSpent(%v, %v) of %+v = %v", tc.spent, tc.want, tc.rel, err)
		}
	}
}

// TestBudgetCalibrateKeysByChargedEvent: one Calibrator shared across cells
// (as a run shares it) gives a wrapped (tuned) family and the bare family
// different noise, and DP-SGD schedules that differ only in their step
// count different noise multipliers: no hand-built key to forget a part.
func TestBudgetCalibrateKeysByChargedEvent(t *testing.T) {
	cal := accounting.NewCalibrator(accounting.Config{})
	b := Budget{Epsilon: 1, Delta: 1e-5, Calibrator: cal}
	bare, err := b.Calibrate(dpsgdEvent(0.01, 100), accounting.Bracket{})
	if err != nil {
		t.Fatal(err)
	}
	longer, err := b.Calibrate(dpsgdEvent(0.01, 400), accounting.Bracket{})
	if err != nil {
		t.Fatal(err)
	}
	tuned := b
	tuned.Wrap = func(e accounting.Event) accounting.Event {
		return accounting.RepeatAndSelect{Event: e, Distribution: accounting.Poisson, Mean: 3}
	}
	wrapped, err := tuned.Calibrate(dpsgdEvent(0.01, 100), accounting.Bracket{})
	if err != nil {
		t.Fatal(err)
	}
	if !(longer > bare && wrapped > bare) {
		t.Errorf("noise multipliers: 100 steps %v, 400 steps %v, tuned 100 steps %v; want the last two above the first", bare, longer, wrapped)
	}
	again, err := b.Calibrate(dpsgdEvent(0.01, 100), accounting.Bracket{})
	if err != nil || again != bare {
		t.Errorf("same family again: %v, %v; want %v", again, err, bare)
	}
}
