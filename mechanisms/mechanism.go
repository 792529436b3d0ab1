package mechanisms

import (
	"context"
	"fmt"
	"math"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
	"gonum.org/v1/gonum/floats"
)

// Budget is the privacy target of one fit and how its spending is evaluated.
type Budget struct {
	Epsilon, Delta float64
	// Accounting evaluates events (the spec's accountant).
	Accounting accounting.Config
	// Calibrator memoises calibrations across the trials of a run (keyed
	// by the charged event family, so one Calibrator serves every dataset
	// and cell); nil means a fresh one per call. It must account with
	// Accounting.
	Calibrator *accounting.Calibrator
	// Wrap maps the mechanism's own event to the event actually charged, e.g.
	// RepeatAndSelect for private hyperparameter tuning. Nil is the identity.
	Wrap func(accounting.Event) accounting.Event
	// CellSeed seeds the draws that every trial of a cell shares, for
	// mechanisms that reproduce code drawing some noise once per ε rather
	// than per trial (adassp's preset "code"). The runner derives it from
	// the spec's seed and the cell key; the zero value means no cell, and
	// such draws are then made per fit from the fit's own streams.
	CellSeed rngs.Seed
}

// Target returns the (ε, δ) target.
func (b Budget) Target() accounting.Target {
	return accounting.Target{Epsilon: b.Epsilon, Delta: b.Delta}
}

// Charged returns the event charged for a fit whose own event is e.
func (b Budget) Charged(e accounting.Event) accounting.Event {
	if b.Wrap == nil {
		return e
	}
	return b.Wrap(e)
}

// Calibrate returns the smallest noise parameter x in the bracket (zero:
// found by doubling) such that the charged event Wrap(event(x)) meets the
// budget. The calibrator memoises it under the charged family itself (see
// accounting.Calibrator.Calibrate): event must be a pure function of x. A
// mechanism that calibrates its release this way sets Release.Calibrated.
func (b Budget) Calibrate(event func(x float64) accounting.Event, br accounting.Bracket) (float64, error) {
	return b.calibrator().Calibrate(func(x float64) accounting.Event { return b.Charged(event(x)) }, b.Target(), br)
}

// calibrator returns the budget's Calibrator, or a fresh one for its
// accountant.
func (b Budget) calibrator() *accounting.Calibrator {
	if b.Calibrator != nil {
		return b.Calibrator
	}
	return accounting.NewCalibrator(b.Accounting)
}

// Model is a fitted predictor.
type Model interface {
	// Predict returns the prediction for feature vector x: the regression
	// value, or for a binary task a score whose sign decides the label
	// (positive means 1).
	Predict(x []float64) float64
}

// Linear is the model x ↦ θᵀx + b.
type Linear struct {
	Theta     []float64
	Intercept float64
}

// Predict implements Model.
func (m *Linear) Predict(x []float64) float64 { return floats.Dot(m.Theta, x) + m.Intercept }

// Release is what a fit returns.
type Release struct {
	Model Model
	// Event is what this fit spent, before Budget.Wrap. Non-private fits
	// return accounting.NonPrivate{}.
	Event accounting.Event
	// Noise holds the noise parameters for the record (sigma, gamma, lambda...).
	Noise map[string]float64
	// Stats holds work counters (iterations, grad_evals, ...).
	Stats map[string]float64
	// Calibrated is set by a fit that calibrated its noise to the budget
	// with the Calibrator (Budget.Calibrate, accounting.CalibrateAMP): its
	// charged event meets the target, and a record whose accounted ε
	// exceeds the target is a failure (CheckSpent), not a note. Fits that
	// reproduce a paper's constants (preset "code", calibration "paper",
	// AdaSSP's box) leave it false: they may overspend, and the record
	// says so.
	Calibrated bool
	// Trace holds per-iteration values of an iterative fit, by name (e.g.
	// "excess_objective"): index t is the value after t steps, t = 0 the
	// starting point. They are evaluation quantities computed from the
	// training data without noise, as a train-split metric is, and are
	// never released; the runner copies them into the record's traces.
	// Nil for fits that are not iterative.
	Trace map[string][]float64
	// TargetScope says what the budget's ε meant to this fit when it is not
	// a target for the (ε, δ) the whole fit spends, e.g. "per-step RDP ε at
	// α = 2" for a paper that calibrates each step to an RDP budget. The
	// record states it, figures and tables caption it, and the ε recorded
	// as spent remains the accountant's (ε, δ) of the whole ledger. Empty:
	// the budget is the (ε, δ) target of the whole fit.
	TargetScope string
	// Assumptions lists what this fit's guarantee rests on but its ledger
	// does not account for, in words for the record: statistics the fit
	// read from the private data without noise (e.g. [HMB23]'s η, R_rel
	// and clipping thresholds), or a data-dependent partition treated as
	// fixed. The runner appends them to the record's privacy.assumptions.
	// Nil: nothing beyond what the runner states itself.
	Assumptions []string
}

// SmoothRDPer is implemented by mechanisms with a smooth-RDP result
// ([HSS24] Def. 3, Table 1): given an event one of their fits returned
// (before Budget.Wrap), SmoothRDP returns the SRDP curve of that release —
// the same noise, compared on datasets at distance τ that may differ in
// every row. Behind a non-private, data-dependent pre-processor, Theorem 2
// combines it with the event's RDP (accounting.Preprocessed); a mechanism
// without it gets group privacy (or a private pre-processor), never
// Theorem 2. It must be a pure function of the event.
type SmoothRDPer interface {
	SmoothRDP(e accounting.Event) (*accounting.SRDP, error)
}

// CheckSpent returns an error when a calibrated release's ledger, accounted
// by the runner, spends more than the target: ε spent > ε target·(1 + 1e-9)
// (the relative slack of calibration, accounting.CalibrationTolerance).
// It returns nil for releases that are not Calibrated.
func (r *Release) CheckSpent(spent, target float64) error {
	if r == nil || !r.Calibrated || !(spent > target*(1+accounting.CalibrationTolerance)) {
		return nil
	}
	return fmt.Errorf("the noise was calibrated to ε = %g, but the ledger spends ε = %g", target, spent)
}

// Mechanism is a (private or reference) learner.
type Mechanism interface {
	// Fit trains on train with target budget b, drawing randomness only from
	// rs. It must not modify train. It returns ctx.Err() promptly when ctx
	// is cancelled.
	Fit(ctx context.Context, train *datasets.Dataset, b Budget, rs rngs.Streams) (*Release, error)
	// Every mechanism declares its ledgers' shapes before any data
	// (shapes.go): a mechanism without them does not compile at its
	// registration.
	EventShaper
}

// checkLinear reports a model that produced a non-finite parameter, which
// is a numerical failure of the fit rather than a result.
func checkLinear(name string, m *Linear) error {
	const why = "the fit overflowed float64 (at a tiny ε the noise can be that large); a numerical failure, not a result"
	for i, v := range m.Theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: coefficient %d is %v: %s", name, i, v, why)
		}
	}
	if math.IsNaN(m.Intercept) || math.IsInf(m.Intercept, 0) {
		return fmt.Errorf("%s: the intercept is %v: %s", name, m.Intercept, why)
	}
	return nil
}
