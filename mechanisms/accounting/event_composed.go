package accounting

import (
	"encoding/json"
	"fmt"
)

// The composition algebra: walk descends into these two kinds; accountants
// see only the leaves, with their multiplicities.

// SelfComposed is Count adaptive repetitions of Event (each repetition may
// depend on the outputs of the previous ones). Count = 0 is a NoOp.
type SelfComposed struct {
	Event Event `json:"event"`
	Count int   `json:"count"`
}

// Composed is the adaptive composition of Events, in order.
type Composed struct {
	Events []Event `json:"events"`
}

// NewComposed returns a Composed event holding a copy of events.
func NewComposed(events ...Event) Composed {
	return Composed{Events: append([]Event(nil), events...)}
}

func init() {
	registerComposite(SelfComposed{Event: Gaussian{Sigma: 1, Sensitivity: 1}, Count: 7})
	registerComposite(Composed{Events: []Event{Laplace{Scale: 1, Sensitivity: 1}, SelfComposed{Event: NoOp{}, Count: 2}}})
}

// Kind implements Event.
func (SelfComposed) Kind() string { return "self_composed" }

// Kind implements Event.
func (Composed) Kind() string { return "composed" }

func (SelfComposed) isEvent() {}
func (Composed) isEvent()     {}

// Validate checks Count ≥ 0 and validates the sub-event.
func (e SelfComposed) Validate() error {
	if e.Count < 0 {
		return fieldErr(e, "count", e.Count, "≥ 0")
	}
	if e.Event == nil {
		return fmt.Errorf("accounting: self_composed: event is missing")
	}
	return Validate(e.Event)
}

// Validate validates every sub-event.
func (e Composed) Validate() error {
	for i, s := range e.Events {
		if s == nil {
			return fmt.Errorf("accounting: composed: events[%d] is missing", i)
		}
		if err := Validate(s); err != nil {
			return fmt.Errorf("composed: events[%d]: %w", i, err)
		}
	}
	return nil
}

// MarshalJSON encodes the event with its "kind".
func (e SelfComposed) MarshalJSON() ([]byte, error) {
	type plain SelfComposed
	return withKind(e.Kind(), plain(e))
}

// MarshalJSON encodes the event with its "kind" (no events: []).
func (e Composed) MarshalJSON() ([]byte, error) {
	type plain Composed
	if e.Events == nil {
		e.Events = []Event{}
	}
	return withKind(e.Kind(), plain(e))
}

func (SelfComposed) decodeJSON(data []byte, path string) (Event, error) {
	var v struct {
		kindTag
		Event json.RawMessage `json:"event"`
		Count int             `json:"count"`
	}
	if err := decodeStrict(data, &v); err != nil {
		return nil, decodeErr(path, "self_composed", err)
	}
	sub, err := unmarshalEvent(v.Event, path+".event")
	if err != nil {
		return nil, err
	}
	return SelfComposed{Event: sub, Count: v.Count}, nil
}

func (Composed) decodeJSON(data []byte, path string) (Event, error) {
	var v struct {
		kindTag
		Events []json.RawMessage `json:"events"`
	}
	if err := decodeStrict(data, &v); err != nil {
		return nil, decodeErr(path, "composed", err)
	}
	out := Composed{Events: make([]Event, len(v.Events))}
	for i, raw := range v.Events {
		sub, err := unmarshalEvent(raw, fmt.Sprintf("%s.events[%d]", path, i))
		if err != nil {
			return nil, err
		}
		out.Events[i] = sub
	}
	return out, nil
}
