package accounting

import (
	"fmt"
	"math"
)

// UnsupportedError is returned by an accountant's Check and Compose when an
// event (or a sub-event of it) cannot be evaluated by that accountant. Sub is
// the offending sub-event.
type UnsupportedError struct {
	Accountant string // accountant name ("rdp", "pld", "exact"); may be empty
	Sub        Event
	Reason     string
}

func (e *UnsupportedError) Error() string {
	who := "this accountant"
	if e.Accountant != "" {
		who = "the " + e.Accountant + " accountant"
	}
	kind := "<nil>"
	if e.Sub != nil {
		kind = e.Sub.Kind()
	}
	if e.Reason != "" {
		return fmt.Sprintf("accounting: %s cannot evaluate event %s: %s", who, kind, e.Reason)
	}
	return fmt.Sprintf("accounting: %s cannot evaluate event %s", who, kind)
}

// InfeasibleError is returned by calibration when no noise level reaches the
// target: Floor is the smallest ε found (ε decreases with the noise towards
// this floor) and X the parameter value at which it was reached. Order > 0
// marks an RDP target (ε at that order, no δ), as RGMCalibrate's. Reason,
// when set, says why instead, for a search that stops without a floor
// (CalibrateAMP's grid of λ); Floor and X are NaN then.
type InfeasibleError struct {
	Target Target
	Floor  float64
	X      float64
	Order  float64
	Reason string
}

func (e *InfeasibleError) Error() string {
	if e.Reason != "" {
		return "accounting: " + e.Reason
	}
	if e.Order > 0 {
		return fmt.Sprintf("accounting: target RDP ε = %g at order α = %g is unreachable: the smallest achievable RDP ε at that order is %.6g",
			e.Target.Epsilon, e.Order, e.Floor)
	}
	return fmt.Sprintf("accounting: target ε = %g at δ = %g is unreachable: the smallest achievable ε is %.6g (reached at %.6g)",
		e.Target.Epsilon, e.Target.Delta, e.Floor, e.X)
}

// DomainError reports an RDP order outside an event's valid order range
// (Lo, Hi).
type DomainError struct {
	Sub    Event
	Alpha  float64
	Lo, Hi float64
}

func (e *DomainError) Error() string {
	return fmt.Sprintf("accounting: order α = %g is outside the domain (%g, %g) of the %s RDP curve", e.Alpha, e.Lo, e.Hi, e.Sub.Kind())
}

// checkNumber turns a NaN into an error; +Inf passes (it means no guarantee).
func checkNumber(what string, x float64) (float64, error) {
	if math.IsNaN(x) {
		return 0, fmt.Errorf("accounting: %s is NaN (numerical failure)", what)
	}
	return x, nil
}
