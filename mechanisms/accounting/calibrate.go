package accounting

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/dplab/dplab/internal/oncemap"
)

// Target is an (ε, δ) privacy target.
type Target struct{ Epsilon, Delta float64 }

// Validate checks ε > 0 (finite) and δ ∈ [0, 1).
func (t Target) Validate() error {
	if !finite(t.Epsilon) || t.Epsilon <= 0 {
		return fmt.Errorf("accounting: target ε = %v, want a finite value > 0", t.Epsilon)
	}
	if !(t.Delta >= 0 && t.Delta < 1) {
		return fmt.Errorf("accounting: target δ = %v, want a value in [0, 1)", t.Delta)
	}
	return nil
}

// Bracket is a search interval for a noise parameter. The zero Bracket
// means: find one by doubling from 1 (lower end 0).
type Bracket struct{ Lo, Hi float64 }

// CalibrationTolerance is the relative tolerance of Calibrate: the returned
// x is within CalibrationTolerance·x of the smallest feasible value.
const CalibrationTolerance = 1e-9

// maxDoubling bounds the doubling search for an upper bracket end (2^30, as
// dp_accounting's calibrate_dp_mechanism).
const maxDoubling = 1 << 30

// Calibrator finds the smallest noise parameter whose accounted ε meets a
// target, with an accountant built from its Config, and memoises results
// by the event family itself (see Calibrate). It is safe for concurrent
// use; one Calibrator may serve a whole run (every dataset and cell).
type Calibrator struct {
	cfg  Config
	memo oncemap.Map[calKey, float64]
}

// calKey identifies a calibration: the family's canonical encoding, the
// target and the bracket (the accountant is the Calibrator's).
type calKey struct {
	family string
	t      Target
	b      Bracket
}

// calReference are the noise values at which a family's events are encoded
// to identify it (familyKey).
var calReference = [2]float64{1, 2}

// familyKey returns the canonical encoding of an event family: the JSON of
// its events at the reference noise values 1 and 2, which holds every
// parameter the family fixes (sensitivities, counts, rates, a tuning
// wrapper, …) and how the noise enters. ok is false when an event there is
// nil or does not encode (a non-finite field): the calibration is then not
// memoised.
func familyKey(event func(x float64) Event) (key string, ok bool) {
	var b []byte
	for _, x := range calReference {
		e := event(x)
		if e == nil {
			return "", false
		}
		j, err := json.Marshal(e)
		if err != nil {
			return "", false
		}
		b = append(append(b, j...), '\n')
	}
	return string(b), true
}

// NewCalibrator returns a Calibrator that accounts with cfg.
func NewCalibrator(cfg Config) *Calibrator {
	return &Calibrator{cfg: cfg}
}

// Config returns the accountant configuration of the calibrator.
func (c *Calibrator) Config() Config { return c.cfg }

// Calibrate returns the smallest x (to relative tolerance
// CalibrationTolerance) with ε(event(x)) ≤ t.Epsilon at δ = t.Delta, where ε
// must not increase with x (x is a noise level). The returned x is always
// re-checked to meet the target: it never overshoots. b bounds the search;
// the zero Bracket searches upward from 1 by doubling (lower end 0, never
// evaluated). An unreachable target returns *InfeasibleError with the
// smallest ε found. An x at which event(x) fails validation (too little
// noise to be a mechanism, e.g. GaussMix with γ ≤ 1) counts as infeasible.
//
// Results are memoised under the family's canonical encoding (its events'
// JSON at x = 1 and x = 2), the target and the bracket: two calls whose
// families agree there share the answer, and families that differ in any
// parameter never do. event must be a pure function of x.
func (c *Calibrator) Calibrate(event func(x float64) Event, t Target, b Bracket) (float64, error) {
	if err := t.Validate(); err != nil {
		return 0, err
	}
	if err := c.cfg.Validate(); err != nil {
		return 0, err
	}
	if b != (Bracket{}) && !(b.Lo >= 0 && b.Hi > b.Lo && finite(b.Hi)) {
		return 0, fmt.Errorf("accounting: bracket [%v, %v], want 0 ≤ lo < hi < ∞", b.Lo, b.Hi)
	}
	family, memo := familyKey(event)
	if !memo {
		return c.calibrate(event, t, b)
	}
	// Concurrent trials of a cell wait for the first one's search.
	return c.memo.Do(calKey{family, t, b}, func() (float64, error) { return c.calibrate(event, t, b) })
}

// EpsilonAt returns the ε the calibrator's accountant certifies for e at δ.
func (c *Calibrator) EpsilonAt(e Event, delta float64) (float64, error) {
	g, err := c.cfg.Epsilon(e, delta)
	return g.Epsilon, err
}

func (c *Calibrator) calibrate(event func(float64) Event, t Target, b Bracket) (float64, error) {
	// An event that fails validation at x (e.g. GaussMix with γ ≤ 1) has too
	// little noise to be a mechanism: it counts as infeasible, +Inf. So does
	// one whose PLD needs a larger grid than the accountant allows (the grid
	// shrinks as the noise grows: a 10^5-fold Gaussian at σ = 1 needs 10^9
	// points, at σ = 100 a few thousand); it is the error only if no x fits.
	var invalid, tooBig error
	// Memoized: the bracket's upper end and the returned point are asked
	// for again (a repeated point's side effects on invalid and tooBig do
	// not matter: the doubling loop never repeats a point).
	f := Memoize(func(x float64) (float64, error) {
		e := event(x)
		if e == nil {
			return 0, fmt.Errorf("accounting: calibration: event(%g) is nil", x)
		}
		if err := Validate(e); err != nil {
			invalid = err
			return math.Inf(1), nil
		}
		eps, err := c.EpsilonAt(e, t.Delta)
		var se *SizeError
		if errors.As(err, &se) {
			tooBig = err
			return math.Inf(1), nil
		}
		return eps, err
	})
	lo, hi := b.Lo, b.Hi
	if b == (Bracket{}) {
		lo, hi = 0, 1
		for {
			invalid = nil
			eps, err := f(hi)
			if err != nil {
				return 0, err
			}
			if eps <= t.Epsilon {
				break
			}
			if hi >= maxDoubling {
				if invalid != nil {
					return 0, invalid
				}
				if tooBig != nil && math.IsInf(eps, 1) {
					return 0, tooBig
				}
				return 0, &InfeasibleError{Target: t, Floor: eps, X: hi}
			}
			lo, hi = hi, 2*hi
		}
	} else {
		invalid = nil
		eps, err := f(hi)
		if err != nil {
			return 0, err
		}
		if invalid != nil {
			return 0, invalid
		}
		if tooBig != nil && math.IsInf(eps, 1) {
			return 0, tooBig
		}
		if !(eps <= t.Epsilon) {
			return 0, &InfeasibleError{Target: t, Floor: eps, X: hi}
		}
	}
	x, err := SmallestFeasible(f, t.Epsilon, lo, hi, CalibrationTolerance)
	if err != nil {
		return 0, err
	}
	// Re-check (SmallestFeasible only returns evaluated feasible points).
	eps, err := f(x)
	if err != nil {
		return 0, err
	}
	if !(eps <= t.Epsilon) {
		return 0, errors.New("accounting: internal error: calibrated value overshoots the target")
	}
	return x, nil
}

// IsInfeasible reports whether err is an *InfeasibleError and returns it.
func IsInfeasible(err error) (*InfeasibleError, bool) {
	var ie *InfeasibleError
	ok := errors.As(err, &ie)
	return ie, ok
}
