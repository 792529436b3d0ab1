package accounting

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

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

// calKey identifies a calibration: the family's canonical key (familyKey),
// the target and the bracket (the accountant is the Calibrator's).
type calKey struct {
	family string
	t      Target
	b      Bracket
}

// calReference are the noise values at which a family's events are encoded
// to identify it (familyKey).
var calReference = [2]float64{1, 2}

// familyKey returns the canonical key of an event family: the binary
// encoding (appendKey) of its events at the reference noise values 1 and 2,
// which holds every parameter the family fixes (sensitivities, counts,
// rates, a tuning wrapper, …) and how the noise enters. ok is false when an
// event there is nil or holds a non-finite number (as when the key was the
// events' JSON, which has none) or a value appendKey does not encode: the
// calibration is then not memoised. It used to be the events' JSON: 34
// allocations and most of the CPU of a memo hit, which every trial of a
// calibrated mechanism is.
func familyKey(event func(x float64) Event) (key string, ok bool) {
	var buf [512]byte
	b := buf[:0]
	for _, x := range calReference {
		if b, ok = appendEventKey(b, event(x)); !ok {
			return "", false
		}
	}
	return string(b), true
}

// EventKey returns a canonical key of e, for memoising what is computed
// from an event: two events' keys are equal exactly when their JSON is
// (TestFamilyKeyAgreesWithJSON), at a fraction of the cost of encoding it.
// ok is false when e is nil or holds a non-finite number. A key is valid
// within its process only.
func EventKey(e Event) (key string, ok bool) {
	var buf [256]byte
	b, ok := appendEventKey(buf[:0], e)
	if !ok {
		return "", false
	}
	return string(b), true
}

// appendEventKey appends e's key (appendKey of e as an Event, so its
// dynamic type is in it) to b; ok is false for a nil e.
func appendEventKey(b []byte, e Event) (_ []byte, ok bool) {
	if e == nil {
		return b, false
	}
	return appendKey(b, reflect.ValueOf(&e).Elem())
}

// appendKey appends to b an encoding of v that is injective given v's
// static type: each interface's dynamic type by its number (keyTypeID),
// every struct field in order (exported or not), numbers by their bits
// (so −0 ≠ 0, as in JSON), strings, slices and nil-ness of pointers,
// slices and interfaces length- or flag-prefixed, pointers by what they
// point to (not by address: a family that builds a fresh pointer per call
// still hits). ok is false for a non-finite float and for kinds no event
// holds (maps, funcs, channels, complex numbers).
func appendKey(b []byte, v reflect.Value) (_ []byte, ok bool) {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return append(b, 1), true
		}
		return append(b, 0), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.AppendVarint(b, v.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return binary.AppendUvarint(b, v.Uint()), true
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if !finite(f) {
			return b, false
		}
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(f)), true
	case reflect.String:
		return appendKeyString(b, v.String()), true
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return append(b, 0), true
		}
		b = append(b, 1)
		if v.Kind() == reflect.Interface {
			b = binary.AppendUvarint(b, keyTypeID(v.Elem().Type()))
		}
		return appendKey(b, v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			return append(b, 0), true
		}
		b = binary.AppendUvarint(append(b, 1), uint64(v.Len()))
		fallthrough
	case reflect.Array:
		for i := range v.Len() {
			if b, ok = appendKey(b, v.Index(i)); !ok {
				return b, false
			}
		}
		return b, true
	case reflect.Struct:
		for i := range v.NumField() {
			if b, ok = appendKey(b, v.Field(i)); !ok {
				return b, false
			}
		}
		return b, true
	}
	return b, false
}

// keyTypes numbers the dynamic types appendKey meets (reflect.Type →
// uint64, distinct types distinct numbers, for the process's life).
var (
	keyTypes     sync.Map
	keyTypeCount atomic.Uint64
)

// keyTypeID returns t's number in keyTypes, numbering it on first sight.
func keyTypeID(t reflect.Type) uint64 {
	id, ok := keyTypes.Load(t)
	if !ok {
		id, _ = keyTypes.LoadOrStore(t, keyTypeCount.Add(1))
	}
	return id.(uint64)
}

// appendKeyString appends s, length-prefixed, to b.
func appendKeyString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// NewCalibrator returns a Calibrator that accounts with cfg.
func NewCalibrator(cfg Config) *Calibrator {
	return &Calibrator{cfg: cfg}
}

// shared holds SharedCalibrator's Calibrators by their Config's canonical
// key (appendKey).
var shared oncemap.Map[string, *Calibrator]

// SharedCalibrator returns the process's one Calibrator for cfg (configs
// equal field by field share it), so that a spec's validation, its run and
// an audit calibrate each (family, target, bracket) once per process rather
// than once per caller. A calibration is a pure function of the Config,
// the family, the target and the bracket (its search keeps no state across
// calls), so sharing the memo changes no answer. Its memo lives for the
// process: a few dozen bytes per calibration asked for. A cfg with a
// non-finite number (which Calibrate refuses) gets a fresh Calibrator.
func SharedCalibrator(cfg Config) *Calibrator {
	key, ok := ConfigKey(cfg)
	if !ok {
		return NewCalibrator(cfg)
	}
	c, _ := shared.Do(key, func() (*Calibrator, error) {
		cfg.ExtraOrders = slices.Clone(cfg.ExtraOrders) // the caller's slice may change
		return NewCalibrator(cfg), nil
	})
	return c
}

// ConfigKey returns cfg's canonical key, field by field as the memo keys
// of event families (configs equal field by field have equal keys), and
// false for a cfg with a non-finite number.
func ConfigKey(cfg Config) (key string, ok bool) {
	b, ok := appendKey(nil, reflect.ValueOf(cfg))
	return string(b), ok
}

// searches counts the calibration searches (memo misses and unmemoised
// calls) the process has run.
var searches atomic.Int64

// CalibrationSearches returns how many calibration searches the process has
// run (Calibrate calls not answered from a memo), for tests and profiles.
func CalibrationSearches() int64 { return searches.Load() }

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
// Results are memoised under the family's canonical key (its events at
// x = 1 and x = 2, encoded field by field: familyKey), the target and the
// bracket: two calls whose families agree there share the answer, and
// families that differ in any parameter never do. event must be a pure function of x.
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
	searches.Add(1)
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
