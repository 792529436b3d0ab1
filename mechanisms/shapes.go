package mechanisms

import (
	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// EventShaper is part of every Mechanism: it states, before
// any data is seen, the shapes of the ledgers its Fit returns, so that a spec
// whose accountant cannot evaluate them (e.g. the exact accountant and
// DP-SGD's Poisson-subsampled Gaussian) is refused by validation instead of
// failing every trial of the run.
//
// A shape is an event whose kinds and composition structure are those of
// Release.Event (before Budget.Wrap); its numbers are representative only
// (valid, but not calibrated). The conformance test checks that the event
// Fit returns on the test configuration has one of the declared shapes.
type EventShaper interface {
	// EventShapes returns every shape of event Fit may return under budget b
	// (the data decides between them, e.g. linear mixing's two branches).
	// It returns an error when Fit refuses b whatever the data, e.g. private
	// tuning (b.Wrap set) of a mechanism whose calibration cannot absorb it.
	EventShapes(b Budget) ([]accounting.Event, error)
}

// Representative numbers of the declared shapes: any valid values do, since
// the accountants' Check depends only on the events' kinds, structure and
// validity.
const (
	shapeNoise = 2.0 // a noise multiplier / γ
	shapeK     = 10  // a sketch size
	shapeSteps = 100 // DP-SGD steps
	shapeQ     = 0.01
)

// DataShape is what is known of a mechanism's training data before it is
// loaded: its task and declared size (Rows, Cols: 0 when not known).
type DataShape struct {
	Task       datasets.Task
	Rows, Cols int
}

// TargetChecker is implemented by a mechanism whose Fit, for some targets,
// cannot meet them whatever the rows are: its noise is a closed form of
// (ε, δ) (a paper's constants), or its calibration searches a bounded grid.
// CheckTarget returns, for budget b on data of shape d, the ledger that
// the fixed constants spend (nil when the noise is calibrated to b, or
// depends on what d leaves unknown), or the error Fit would return:
// an *OutOfRangeError when b lies outside the range where the mechanism's
// formulas or analysis hold, an *accounting.InfeasibleError when its
// calibration cannot meet b. Spec validation refuses out-of-range targets
// and ledgers that no accountant bounds (ε spent = +Inf), and warns of
// infeasible ones; a run records such trials infeasible.
type TargetChecker interface {
	CheckTarget(b Budget, d DataShape) (accounting.Event, error)
}

// OutOfRangeError is a target outside the range in which a mechanism's noise
// formula or its privacy analysis holds (ε too small for the noise to be a
// float64; γ ≤ 1 outside Lemma 1), whatever the data. Validation refuses
// the target; a trial that meets it is recorded infeasible, with Reason.
type OutOfRangeError struct{ Reason string }

func (e *OutOfRangeError) Error() string { return e.Reason }
