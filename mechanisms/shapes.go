package mechanisms

import (
	"github.com/dplab/dplab/mechanisms/accounting"
)

// EventShaper is implemented by every registered mechanism: it states, before
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

// EventShapes implements EventShaper.
func (*Ridge) EventShapes(Budget) ([]accounting.Event, error) {
	return []accounting.Event{accounting.NonPrivate{}}, nil
}

// EventShapes implements EventShaper.
func (*LogReg) EventShapes(Budget) ([]accounting.Event, error) {
	return []accounting.Event{accounting.NonPrivate{}}, nil
}

// EventShapes implements EventShaper.
func (*AdaSSP) EventShapes(Budget) ([]accounting.Event, error) {
	return []accounting.Event{adasspEvent(shapeNoise)}, nil
}

// EventShapes implements EventShaper.
func (*DPSGD) EventShapes(Budget) ([]accounting.Event, error) {
	return []accounting.Event{dpsgdEvent(shapeQ, shapeSteps)(shapeNoise)}, nil
}

// EventShapes implements EventShaper.
func (*ObjPertOutput) EventShapes(Budget) ([]accounting.Event, error) {
	return []accounting.Event{outputPertEvent(shapeNoise)}, nil
}

// EventShapes implements EventShaper.
func (*ObjPertAMP) EventShapes(b Budget) ([]accounting.Event, error) {
	if b.Wrap != nil {
		return nil, errAMPWrapped
	}
	op := accounting.ObjectivePerturbation{Sigma: shapeNoise, Lambda: 2 * ampBeta, Beta: ampBeta, L: 1}
	return []accounting.Event{accounting.AMP{ObjPert: op, Tau: 0.01, SigmaOut: 0.15}}, nil
}

// EventShapes implements EventShaper.
func (*ObjPertKifer) EventShapes(Budget) ([]accounting.Event, error) {
	return []accounting.Event{accounting.Composed{Events: []accounting.Event{
		accounting.ApproxDP{Epsilon: 1, Delta: 1e-6}, accounting.Gaussian{Sigma: shapeNoise, Sensitivity: 1}}}}, nil
}

// EventShapes implements EventShaper.
func (l *LinearMixing) EventShapes(b Budget) ([]accounting.Event, error) {
	if l.p.Calibration != calAccountant && b.Wrap != nil {
		return nil, errPaperWrapped
	}
	s := lmSetup{k: shapeK, gamma: shapeNoise, tau: 1, etaStd: 1, c2: 1}
	s1 := s
	s1.branch1 = true
	return []accounting.Event{s.event(), s1.event()}, nil
}

// EventShapes implements EventShaper.
func (m *Sheffet17) EventShapes(b Budget) ([]accounting.Event, error) {
	if m.renyi && m.p.Calibration != calAccountant && b.Wrap != nil {
		return nil, errPaperWrapped
	}
	s := sheffetSetup{k: shapeK, gamma: shapeNoise, threshold: shapeNoise, scale: 1, shift: 1, c2: 1}
	return []accounting.Event{s.event()}, nil
}
