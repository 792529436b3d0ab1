package mechanisms

import (
	"context"
	"math"
	"strconv"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// TestObjPertAMPCalibratesOncePerProcess: validation's target check and
// the fits of a run, each with its own Calibrator as plan and run have
// theirs, search [RKW23]'s λ grid once per process and accountant (fails
// before: the fits searched again, three searches where one is due), and
// the (σ, λ) every fit charges is CalibrateAMP's computed afresh (the
// oracle), bit for bit; another accountant configuration is its own
// search with its own answer.
func TestObjPertAMPCalibratesOncePerProcess(t *testing.T) {
	searches := 0
	prev := calibrateAMP
	calibrateAMP = func(cal *accounting.Calibrator, tg accounting.Target, c, beta, tau, sigmaOut, f float64) (accounting.AMP, error) {
		searches++
		return prev(cal, tg, c, beta, tau, sigmaOut, f)
	}
	t.Cleanup(func() { calibrateAMP = prev })
	const eps, delta = 0.4375, 1e-6 // a target no other test asks for
	ampMemo.DeleteFunc(func(k ampKey) bool { return k.t == accounting.Target{Epsilon: eps, Delta: delta} })
	train := tinyData(t, datasets.Binary, 60, 3)
	shape := DataShape{Task: datasets.Binary, Rows: train.Rows(), Cols: train.Cols()}
	for i, cfg := range []accounting.Config{{}, {Orders: "grid"}} {
		budget := func() Budget {
			return Budget{Epsilon: eps, Delta: delta, Accounting: cfg, Calibrator: accounting.NewCalibrator(cfg)}
		}
		want, err := accounting.CalibrateAMP(accounting.NewCalibrator(cfg), accounting.Target{Epsilon: eps, Delta: delta}, math.Sqrt2, ampBeta, 0.01, 0.15, 1.3)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := (&ObjPertAMP{}).CheckTarget(budget(), shape); err != nil {
			t.Fatal(err)
		}
		for trial := range 2 {
			r, err := (&ObjPertAMP{}).Fit(context.Background(), train, budget(), rngs.New(rngs.Derive("amp-memo", strconv.Itoa(trial))))
			if err != nil {
				t.Fatal(err)
			}
			if got, ok := r.Event.(accounting.AMP); !ok || got != want {
				t.Errorf("accountant %+v, fit %d: event %+v, CalibrateAMP afresh %+v", cfg, trial, r.Event, want)
			}
		}
		if searches != i+1 {
			t.Errorf("accountant %+v: %d searches of the λ grid in all after a target check and two fits, want %d (one per accountant)", cfg, searches, i+1)
		}
	}
}
