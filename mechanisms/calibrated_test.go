package mechanisms

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// TestCalibratedClaims: a fit claims calibration (Release.Calibrated)
// exactly when it calibrated its noise to the budget with the Calibrator,
// and a claiming fit's ledger meets the target (CheckSpent passes); fits
// with a paper's constants do not claim it. The configurations and claims
// are each mechanism's Info.Calibration; a non-private mechanism is fitted
// with its defaults and must not claim, a private one must declare at
// least one configuration.
func TestCalibratedClaims(t *testing.T) {
	for _, info := range List() {
		claims := info.Calibration
		switch {
		case info.Private && len(claims) == 0:
			t.Errorf("%s: a private mechanism declares no Info.Calibration claim", info.Name)
		case !info.Private && len(claims) > 0:
			t.Errorf("%s: a non-private mechanism declares Info.Calibration claims", info.Name)
		case !info.Private:
			claims = []CalibrationClaim{{Calibrated: false}}
		}
		for _, c := range claims {
			checkCalibrationClaim(t, info, c)
		}
	}
}

// checkCalibrationClaim fits info's mechanism with the claim's params and
// checks Release.Calibrated and CheckSpent.
func checkCalibrationClaim(t *testing.T, info Info, c CalibrationClaim) {
	t.Helper()
	e, err := Lookup(info.Name)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := e.Build(func(v any) error { return decodeClaimParams(c.Params, v) })
	if err != nil {
		t.Errorf("%s (%s): %v", info.Name, c.Params, err)
		return
	}
	b := Budget{Epsilon: 2, Delta: 1e-5, Calibrator: accounting.NewCalibrator(accounting.Config{})}
	rel, err := m.Fit(context.Background(), tinyData(t, info.Tasks[0], 400, 5), b, rngs.New(rngs.Derive("calibrated", info.Name)))
	if err != nil {
		t.Errorf("%s (%s): %v", info.Name, c.Params, err)
		return
	}
	if rel.Calibrated != c.Calibrated {
		t.Errorf("%s (%s): Calibrated = %v, want %v", info.Name, c.Params, rel.Calibrated, c.Calibrated)
	}
	g, err := accounting.Config{}.Epsilon(rel.Event, b.Delta)
	if err != nil {
		t.Fatal(err)
	}
	if err := rel.CheckSpent(g.Epsilon, b.Epsilon); err != nil {
		t.Errorf("%s (%s): %v", info.Name, c.Params, err)
	}
}

// decodeClaimParams decodes a claim's params, the body of a TOML inline
// table, into the params struct v; an unknown key is an error.
func decodeClaimParams(params string, v any) error {
	var doc struct{ P toml.Primitive }
	md, err := toml.Decode("P = {"+params+"}", &doc)
	if err != nil {
		return err
	}
	if err := md.PrimitiveDecode(doc.P, v); err != nil {
		return err
	}
	if u := md.Undecoded(); len(u) > 0 {
		return fmt.Errorf("unknown params %v", u)
	}
	return nil
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
