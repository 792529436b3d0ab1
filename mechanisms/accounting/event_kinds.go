package accounting

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// The event kind table: every event kind registers itself, from the init
// of its own file, with a valid example (which the conformance tests
// enumerate: JSON round trip, validation, every accountant) and its JSON
// decoder. JSON: every event marshals to an object with its "kind" tag
// first and its fields in snake_case; nested events marshal recursively.
// UnmarshalEvent decodes such an object back through the table (strictly:
// unknown kinds and keys are errors).

// eventKind is one entry of the kind table.
type eventKind struct {
	kind    string
	example Event // a valid instance, for the conformance tests
	decode  func(data []byte, path string) (Event, error)
	form    *form // its command-line form in "dplab account" (registerForm); nil: json only
}

// eventKinds is the kind table, filled by the init functions of the event
// files and read-only afterwards.
var eventKinds = map[string]eventKind{}

// eventDecoder is implemented by kinds whose JSON needs more than their
// fields (nested events, named enumerations): decodeJSON decodes data (an
// object with the "kind" tag) found at path.
type eventDecoder interface {
	decodeJSON(data []byte, path string) (Event, error)
}

// registerLeaf adds a leaf event kind to the table. A kind that lacks
// leafEvent's methods (its relation, its RDP curve, MarshalJSON) does not
// compile here. A duplicate kind panics (a programming error).
func registerLeaf[E leafEvent](example E) { addKind(leafKind(example)) }

// registerComposite adds one of the composition algebra's kinds (Composed,
// SelfComposed: walk descends into them), which decode their sub-events.
func registerComposite[E interface {
	Event
	MarshalJSON() ([]byte, error)
	eventDecoder
}](example E) {
	addKind(eventKind{kind: example.Kind(), example: example, decode: example.decodeJSON})
}

// leafKind returns the table entry of a leaf kind: decoded by its own
// decodeJSON when it has one, else field by field.
func leafKind[E leafEvent](example E) eventKind {
	k := eventKind{kind: example.Kind(), example: example, decode: fieldDecoder[E](example.Kind())}
	if d, ok := any(example).(eventDecoder); ok {
		k.decode = d.decodeJSON
	}
	return k
}

func addKind(k eventKind) {
	if k.kind == "" {
		panic("accounting: event kind without a name")
	}
	if _, dup := eventKinds[k.kind]; dup {
		panic("accounting: duplicate event kind " + k.kind)
	}
	eventKinds[k.kind] = k
}

// kinds returns the table sorted by kind.
func kinds() []eventKind {
	out := make([]eventKind, 0, len(eventKinds))
	for _, k := range eventKinds {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].kind < out[j].kind })
	return out
}

// withKind encodes v (a struct without a MarshalJSON method) as a JSON
// object with the "kind" tag first.
func withKind(kind string, v any) ([]byte, error) {
	fields, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	head := fmt.Sprintf(`{"kind":%q`, kind)
	if bytes.Equal(fields, []byte("{}")) {
		return []byte(head + "}"), nil
	}
	return append([]byte(head+","), fields[1:]...), nil
}

// fieldDecoder returns the decoder of a kind whose JSON is its "kind" tag
// and its exported fields: it decodes strictly into a struct holding a
// "kind" field and E's fields (built once, by reflection), then copies the
// fields into an E.
func fieldDecoder[E Event](kind string) func(data []byte, path string) (Event, error) {
	t := reflect.TypeFor[E]()
	fields := []reflect.StructField{{Name: "Kind", Type: reflect.TypeFor[string](), Tag: `json:"kind"`}}
	for i := range t.NumField() {
		f := t.Field(i)
		fields = append(fields, reflect.StructField{Name: f.Name, Type: f.Type, Tag: f.Tag})
	}
	flat := reflect.StructOf(fields)
	return func(data []byte, path string) (Event, error) {
		v := reflect.New(flat)
		if err := decodeStrict(data, v.Interface()); err != nil {
			return nil, decodeErr(path, kind, err)
		}
		var e E
		ev := reflect.ValueOf(&e).Elem()
		for i := range t.NumField() {
			ev.Field(i).Set(v.Elem().Field(i + 1))
		}
		return e, nil
	}
}

// decodeStrict decodes data into v, rejecting unknown keys and trailing data.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after the event object")
	}
	return nil
}

func decodeErr(path, kind string, err error) error {
	return fmt.Errorf("accounting: decode %s (kind %q): %w", path, kind, err)
}

// kindTag is the "kind" field of the decoders' structs.
type kindTag struct {
	Kind string `json:"kind"`
}

// UnmarshalEvent decodes an event written by json.Marshal (an object with a
// "kind" tag), recursively, and validates it. Unknown kinds or keys are errors.
func UnmarshalEvent(data []byte) (Event, error) {
	e, err := unmarshalEvent(data, "event")
	if err != nil {
		return nil, err
	}
	if err := Validate(e); err != nil {
		return nil, err
	}
	return e, nil
}

// unmarshalEvent decodes the event at path through the kind table.
func unmarshalEvent(data []byte, path string) (Event, error) {
	var head kindTag
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("accounting: decode %s: %w", path, err)
	}
	if head.Kind == "" {
		return nil, fmt.Errorf("accounting: decode %s: missing \"kind\"", path)
	}
	k, ok := eventKinds[head.Kind]
	if !ok {
		return nil, fmt.Errorf("accounting: decode %s: unknown event kind %q (want %s; dplab account kinds lists their fields)", path, head.Kind, strings.Join(KindNames(), ", "))
	}
	return k.decode(data, path)
}
