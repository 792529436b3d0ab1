package mechanisms

import (
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
