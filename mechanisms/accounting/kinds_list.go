package accounting

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// The event kinds as a documented interface: KindFields describes, from the
// kind table, the JSON fields of every kind ("dplab account kinds", the
// generated list in docs/accounting.md). A field's name and optionality come
// from its struct tag (omitempty: optional); its JSON type from its Go type,
// or from the kind's example when the kind encodes it otherwise (a
// Distribution is written as its name).

// KindField is one JSON field of an event kind.
type KindField struct {
	Name string `json:"name"`
	// Type is the JSON type: number, integer, boolean, string, event (a
	// nested event object with its own "kind"), array of events, array of
	// strings, or object (whose Fields are listed).
	Type     string      `json:"type"`
	Required bool        `json:"required"` // dplab always writes it
	Fields   []KindField `json:"fields,omitempty"`
}

// KindInfo is one event kind of the table: its "kind" tag, its fields and a
// valid example as dplab writes it.
type KindInfo struct {
	Kind    string          `json:"kind"`
	Fields  []KindField     `json:"fields"`
	Example json.RawMessage `json:"example"`
}

// KindNames returns the kinds of the table, sorted.
func KindNames() []string {
	var out []string
	for _, k := range kinds() {
		out = append(out, k.kind)
	}
	return out
}

// Kinds describes every kind of the table, sorted by kind.
func Kinds() ([]KindInfo, error) {
	var out []KindInfo
	for _, k := range kinds() {
		ex, err := json.Marshal(k.example)
		if err != nil {
			return nil, fmt.Errorf("accounting: kind %s: %w", k.kind, err)
		}
		var vals map[string]json.RawMessage
		if err := json.Unmarshal(ex, &vals); err != nil {
			return nil, fmt.Errorf("accounting: kind %s: %w", k.kind, err)
		}
		out = append(out, KindInfo{Kind: k.kind, Fields: structFields(reflect.TypeOf(k.example), vals), Example: ex})
	}
	return out, nil
}

var (
	eventType      = reflect.TypeFor[Event]()
	eventSliceType = reflect.TypeFor[[]Event]()
)

// structFields lists the JSON fields of the struct type t; vals are an
// example's encoded values by name (nil for nested objects).
func structFields(t reflect.Type, vals map[string]json.RawMessage) []KindField {
	var out []KindField
	for i := range t.NumField() {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("json")
		if !ok || tag == "-" || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		kf := KindField{Name: name, Required: opts != "omitempty"}
		kf.Type, kf.Fields = jsonType(f.Type, vals[name])
		out = append(out, kf)
	}
	return out
}

// jsonType returns the JSON type of a field of Go type t whose example
// encoding is raw (nil when absent), and the fields of an object.
func jsonType(t reflect.Type, raw json.RawMessage) (string, []KindField) {
	switch {
	case t == eventType:
		return "event", nil
	case t == eventSliceType:
		return "array of events", nil
	case t.Kind() == reflect.Pointer:
		return jsonType(t.Elem(), raw)
	case t.Kind() == reflect.Struct:
		return "object", structFields(t, nil)
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		return "array of strings", nil
	case len(raw) > 0 && raw[0] == '"', t.Kind() == reflect.String:
		return "string", nil
	case t.Kind() == reflect.Bool:
		return "boolean", nil
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return "integer", nil
	case t.Kind() == reflect.Float64:
		return "number", nil
	}
	panic("accounting: no JSON type for " + t.String())
}

// WriteKinds prints every event kind with its fields, one kind a line
// (optional fields end with "?"), then how to use one ("dplab account
// kinds"); asJSON prints the KindInfo list instead.
func WriteKinds(w io.Writer, asJSON bool) error {
	ks, err := Kinds()
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(ks)
	}
	for _, k := range ks {
		fmt.Fprintf(w, "%s: %s\n", k.Kind, fieldList(k.Fields))
	}
	fmt.Fprintln(w, `Every event is a JSON object {"kind": KIND, fields...}; "event" fields nest events.`)
	fmt.Fprintln(w, `Evaluate one with: dplab account json --event '{"kind":"gaussian","sigma":2,"sensitivity":1}' --delta 1e-5`)
	return nil
}

// fieldList renders fields as "name type, name? type, obj {…}".
func fieldList(fs []KindField) string {
	if len(fs) == 0 {
		return "(no fields)"
	}
	parts := make([]string, len(fs))
	for i, f := range fs {
		opt := ""
		if !f.Required {
			opt = "?"
		}
		parts[i] = f.Name + opt + " " + f.Type
		if f.Fields != nil {
			parts[i] += " {" + fieldList(f.Fields) + "}"
		}
	}
	return strings.Join(parts, ", ")
}

// EventSchema returns the JSON Schema (draft 2020-12) of an event, generated
// from the kind table (docs/event.schema.json; go generate writes it): an
// object whose "kind" names a kind of the table and whose other keys are
// exactly that kind's fields, of their types, the required ones present.
func EventSchema() ([]byte, error) {
	ks, err := Kinds()
	if err != nil {
		return nil, err
	}
	defs := map[string]any{}
	names := make([]string, 0, len(ks))
	var branches []any
	for _, k := range ks {
		names = append(names, k.Kind)
		obj := objectSchema(k.Fields)
		obj["properties"].(map[string]any)["kind"] = map[string]any{"const": k.Kind}
		obj["required"] = append([]string{"kind"}, obj["required"].([]string)...)
		defs[k.Kind] = obj
		branches = append(branches, map[string]any{
			"if":   map[string]any{"properties": map[string]any{"kind": map[string]any{"const": k.Kind}}},
			"then": map[string]any{"$ref": "#/$defs/" + k.Kind},
		})
	}
	defs["event"] = map[string]any{
		"type":       "object",
		"required":   []string{"kind"},
		"properties": map[string]any{"kind": map[string]any{"enum": names}},
		"allOf":      branches,
	}
	out, err := json.MarshalIndent(map[string]any{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"title":       "dplab privacy event",
		"description": "A ledger as dplab account json and privacy.event in records write it. Generated from the kind table of mechanisms/accounting by go generate ./mechanisms/accounting; do not edit.",
		"$ref":        "#/$defs/event",
		"$defs":       defs,
	}, "", "  ")
	return append(out, '\n'), err
}

// objectSchema is the schema of an object with the fields fs and no others.
func objectSchema(fs []KindField) map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, f := range fs {
		props[f.Name] = fieldSchema(f)
		if f.Required {
			required = append(required, f.Name)
		}
	}
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

func fieldSchema(f KindField) map[string]any {
	switch f.Type {
	case "event":
		return map[string]any{"$ref": "#/$defs/event"}
	case "array of events":
		return map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/event"}}
	case "array of strings":
		return map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
	case "object":
		return objectSchema(f.Fields)
	}
	return map[string]any{"type": f.Type}
}
