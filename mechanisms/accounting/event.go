package accounting

import (
	"fmt"
	"math"
)

// Event describes what a mechanism did, in the form an accountant evaluates.
// Events are immutable value types; the set is closed (the interface is
// sealed). Every event states its mechanism completely and the neighbouring
// relation its guarantee refers to. Meanings never change: new behaviour gets
// a new event.
//
// Each kind lives in one file (event_<kind>.go) that declares the type, its
// methods and its entry in the kind table (event_kinds.go): a leaf kind
// implements leafEvent (its relation and its RDP curve, plus the PLD and
// exact accountants' methods when they evaluate it), and Composed and
// SelfComposed, the composition algebra, are walked by walk.
type Event interface {
	// Kind is the event's JSON "kind" tag, e.g. "gaussian".
	Kind() string
	// Validate reports whether the event (and every sub-event) is well
	// formed; accountants and UnmarshalEvent validate before anything else.
	Validate() error
	isEvent()
}

// Neighbouring relations. An event's guarantee holds for datasets that are
// neighbours under its relation; an accountant composes only events whose
// relations agree (events that take their sensitivity as an input, such as
// Gaussian and Laplace, adopt the relation of the ledger they are in).
const (
	// RelationAddRemove: the datasets differ by adding or removing one record.
	RelationAddRemove = "add_remove"
	// RelationZeroOut: one record is replaced by the all-zero record.
	RelationZeroOut = "zero_out"
	// RelationReplaceOne: one record is replaced by an arbitrary record.
	RelationReplaceOne = "replace_one"
)

// RelationText is how prose writes a relation: "add/remove", "zero-out",
// "replace-one"; an unknown relation as given.
func RelationText(rel string) string {
	switch rel {
	case RelationAddRemove:
		return "add/remove"
	case RelationZeroOut:
		return "zero-out"
	case RelationReplaceOne:
		return "replace-one"
	}
	return rel
}

// leafEvent is what every leaf event kind implements; registerLeaf requires
// it, so a leaf kind without one of these methods does not compile.
type leafEvent interface {
	Event
	// MarshalJSON writes the event with its "kind" tag first (withKind).
	MarshalJSON() ([]byte, error)
	// relation returns the neighbouring relation the leaf's guarantee is
	// for, or "" when its sensitivity is an input and it adopts the
	// ledger's relation.
	relation() string
	// The RDP accountant evaluates every leaf.
	rdpEvent
}

// wrapper is a leaf event built on another event (RepeatAndSelect): the
// accountants evaluate it as one leaf; deep walks (relations, placement
// rules) also visit the leaves of the event it wraps.
type wrapper interface {
	leafEvent
	wrapped() Event
}

// walk calls visit on every leaf of e, in order, with its multiplicity:
// count times the product of the counts of the SelfComposed events above it
// (a leaf under a zero count is visited with count 0; accountants skip it).
// It descends into Composed and SelfComposed; any other event is a leaf. With
// deep, it then also descends into the event a wrapper wraps, visiting those
// leaves with wrapped = true. It stops at the first error.
//
// It is the one traversal of the composition algebra (dp_accounting's
// _maybe_compose): accountants see leaves only.
func walk(e Event, count float64, deep bool, visit func(leaf Event, count float64, wrapped bool) error) error {
	return walkIn(e, count, deep, false, visit)
}

func walkIn(e Event, count float64, deep, wrapped bool, visit func(Event, float64, bool) error) error {
	switch e := e.(type) {
	case Composed:
		for _, s := range e.Events {
			if err := walkIn(s, count, deep, wrapped, visit); err != nil {
				return err
			}
		}
		return nil
	case SelfComposed:
		return walkIn(e.Event, count*float64(e.Count), deep, wrapped, visit)
	}
	if err := visit(e, count, wrapped); err != nil {
		return err
	}
	if w, ok := e.(wrapper); ok && deep {
		return walkIn(w.wrapped(), count, deep, true, visit)
	}
	return nil
}

// unsupportedLeaf returns an *UnsupportedError for the first leaf of e
// (with deep, inside wrappers too) that supports rejects.
func unsupportedLeaf(accountant string, e Event, deep bool, supports func(Event) bool, reason string) error {
	return walk(e, 1, deep, func(l Event, _ float64, _ bool) error {
		if !supports(l) {
			return &UnsupportedError{Accountant: accountant, Sub: l, Reason: reason}
		}
		return nil
	})
}

// finite reports whether x is a finite float.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func fieldErr(e Event, field string, v any, want string) error {
	return fmt.Errorf("accounting: %s: %s = %v, want %s", e.Kind(), field, v, want)
}

// Validate validates any event (nil is an error).
func Validate(e Event) error {
	if e == nil {
		return fmt.Errorf("accounting: event is missing")
	}
	return e.Validate()
}

// relationOf returns the neighbouring relation a leaf fixes ("" for leaves
// that adopt the ledger's relation).
func relationOf(e Event) string {
	if l, ok := e.(leafEvent); ok {
		return l.relation()
	}
	return ""
}

// LedgerRelation returns the neighbouring relation of an event tree: the
// relation fixed by its relation-specific leaves, RelationAddRemove when none
// fixes one, and an *UnsupportedError naming the first leaf whose relation
// disagrees with the earlier ones.
func LedgerRelation(e Event) (string, error) {
	rel := ""
	err := walk(e, 1, true, func(l Event, _ float64, _ bool) error {
		r := relationOf(l)
		if r == "" {
			return nil
		}
		if rel != "" && r != rel {
			return &UnsupportedError{Sub: l, Reason: fmt.Sprintf("its neighbouring relation %s differs from %s of the rest of the ledger", r, rel)}
		}
		rel = r
		return nil
	})
	if err != nil {
		return "", err
	}
	if rel == "" {
		rel = RelationAddRemove
	}
	return rel, nil
}

// Leaves calls visit for each leaf of e with its multiplicity, descending
// into Composed, SelfComposed and the event a wrapper (RepeatAndSelect)
// wraps: the composition walker, for callers outside the accountants.
func Leaves(e Event, visit func(leaf Event, count float64)) {
	_ = walk(e, 1, true, func(leaf Event, count float64, _ bool) error {
		visit(leaf, count)
		return nil
	})
}
