package accounting

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dplab/dplab/internal/fielddoc"
)

//go:generate env DPLAB_UPDATE_PARAMDOCS=1 go test -run TestEventSchemaGenerated|TestKindsDocGenerated .

const schemaPath = "../../docs/event.schema.json"

// TestEventSchemaGenerated fails when docs/event.schema.json is not what the
// kind table generates; go generate ./mechanisms/accounting rewrites it.
func TestEventSchemaGenerated(t *testing.T) {
	want, err := EventSchema()
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv(fielddoc.UpdateEnv) != "" {
		if err := os.WriteFile(schemaPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run go generate ./mechanisms/accounting", schemaPath)
	}
}

// kindsTable is docs/accounting.md's generated list of the event kinds.
func kindsTable(t *testing.T) string {
	ks, err := Kinds()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("| kind | fields (`?`: optional) | example |\n|---|---|---|\n")
	for _, k := range ks {
		fmt.Fprintf(&b, "| `%s` | %s | `%s` |\n", k.Kind, fieldList(k.Fields), k.Example)
	}
	return b.String()
}

// TestKindsDocGenerated fails when docs/accounting.md's list of event kinds
// is not the kind table's; go generate ./mechanisms/accounting rewrites it.
func TestKindsDocGenerated(t *testing.T) {
	if err := fielddoc.CheckSection("../../docs/accounting.md", "event-kinds", []byte(kindsTable(t)), "go generate ./mechanisms/accounting"); err != nil {
		t.Error(err)
	}
}

// TestKindsListAgreesWithDecoder: the listed fields of every kind are
// exactly the keys its example writes (required ones always), the strict
// decoder accepts the example, and it rejects each mutation the schema
// rejects (an unknown field, a field of the wrong type, an unknown kind).
func TestKindsListAgreesWithDecoder(t *testing.T) {
	ks, err := Kinds()
	if err != nil {
		t.Fatal(err)
	}
	if names := KindNames(); len(ks) != len(names) || len(names) != len(eventKinds) {
		t.Fatalf("%d kinds listed, %d in the table", len(ks), len(eventKinds))
	}
	for _, k := range ks {
		var vals map[string]json.RawMessage
		if err := json.Unmarshal(k.Example, &vals); err != nil {
			t.Fatal(err)
		}
		for _, f := range k.Fields {
			if _, ok := vals[f.Name]; f.Required && !ok {
				t.Errorf("%s: required field %s not in the example %s", k.Kind, f.Name, k.Example)
			}
		}
		for key := range vals {
			if key != "kind" && !slices.ContainsFunc(k.Fields, func(f KindField) bool { return f.Name == key }) {
				t.Errorf("%s: the example writes %s, not a listed field", k.Kind, key)
			}
		}
		if _, err := UnmarshalEvent(k.Example); err != nil {
			t.Errorf("%s: the decoder rejects the example: %v", k.Kind, err)
		}
		for _, m := range mutations(k) {
			if _, err := UnmarshalEvent(m.data); err == nil {
				t.Errorf("%s: the decoder accepts the mutation %s: %s", k.Kind, m.what, m.data)
			}
		}
	}
}

type mutation struct {
	what string
	data []byte
}

// mutations returns k's example with an unknown field, with each field of
// the wrong type, with each required field missing, and with an unknown
// kind; missing fields are left to the schema (the decoder reads a missing
// field as its zero value).
func mutations(k KindInfo) []mutation {
	var vals map[string]json.RawMessage
	if err := json.Unmarshal(k.Example, &vals); err != nil {
		panic(err)
	}
	enc := func(v map[string]json.RawMessage) []byte { b, _ := json.Marshal(v); return b }
	with := func(key string, raw json.RawMessage) []byte {
		v := map[string]json.RawMessage{}
		for k2, r := range vals {
			v[k2] = r
		}
		if raw == nil {
			delete(v, key)
		} else {
			v[key] = raw
		}
		return enc(v)
	}
	out := []mutation{
		{"unknown field", with("not_a_field", json.RawMessage("1"))},
		{"unknown kind", with("kind", json.RawMessage(`"not_a_kind"`))},
	}
	for _, f := range k.Fields {
		wrong := json.RawMessage(`"text"`)
		if f.Type == "string" {
			wrong = json.RawMessage("1")
		}
		out = append(out, mutation{"wrong type of " + f.Name, with(f.Name, wrong)})
	}
	return out
}

// missing returns k's example without each required field in turn.
func missing(k KindInfo) []mutation {
	var out []mutation
	for _, f := range k.Fields {
		if !f.Required {
			continue
		}
		var v map[string]json.RawMessage
		_ = json.Unmarshal(k.Example, &v)
		delete(v, f.Name)
		b, _ := json.Marshal(v)
		out = append(out, mutation{"missing " + f.Name, b})
	}
	return out
}

// TestEventSchemaValidates checks the committed schema against events: every
// kind's example, every example event in the docs and every event in the
// golden records and committed evidence validate; every mutation (unknown
// field, wrong type, missing required field, unknown kind) is rejected.
func TestEventSchemaValidates(t *testing.T) {
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	v := schemaValidator{root: schema}
	check := func(where string, data []byte) {
		var x any
		if err := json.Unmarshal(data, &x); err != nil {
			t.Errorf("%s: %v", where, err)
			return
		}
		if err := v.validate(schema, x, "$"); err != nil {
			t.Errorf("%s: %s does not validate: %v", where, data, err)
		}
	}
	ks, err := Kinds()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range ks {
		check(k.Kind+" example", k.Example)
		for _, m := range append(mutations(k), missing(k)...) {
			var x any
			_ = json.Unmarshal(m.data, &x)
			if v.validate(schema, x, "$") == nil {
				t.Errorf("%s: the schema accepts the mutation %s: %s", k.Kind, m.what, m.data)
			}
		}
	}
	// Example events in the docs: JSON objects starting {"kind":" .
	docs, _ := filepath.Glob("../../docs/*.md")
	docs = append(docs, "../../README.md")
	start := regexp.MustCompile(`\{"kind":"`)
	n := 0
	for _, path := range docs {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, loc := range start.FindAllIndex(text, -1) {
			if obj := balanced(text[loc[0]:]); obj != nil {
				check(path, obj)
				n++
			}
		}
	}
	// Events in records: every "event" object with a "kind" in the golden
	// outputs and the committed evidence.
	recs, _ := filepath.Glob("../../testdata/golden/quick/*.json")
	ev, _ := filepath.Glob("../../docs/reproduction/evidence/*/*.json")
	m := 0
	for _, path := range append(recs, ev...) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var x any
		if err := json.Unmarshal(data, &x); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		walkEvents(x, func(e any) {
			m++
			if err := v.validate(schema, e, "$"); err != nil {
				b, _ := json.Marshal(e)
				t.Errorf("%s: %s does not validate: %v", path, b, err)
			}
		})
	}
	if n == 0 || m == 0 {
		t.Errorf("found %d doc examples and %d recorded events; want some of each", n, m)
	}
	t.Logf("%d doc examples, %d recorded events validated", n, m)
}

// balanced returns the JSON object at the start of text (up to its matching
// brace outside strings), or nil.
func balanced(text []byte) []byte {
	depth, inStr := 0, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return text[:i+1]
			}
		case c == '\n':
			return nil
		}
	}
	return nil
}

// walkEvents calls f on every value of a key "event" that is an object with
// a "kind", without descending into it (its sub-events are its own).
func walkEvents(x any, f func(any)) {
	switch x := x.(type) {
	case map[string]any:
		for key, v := range x {
			if o, ok := v.(map[string]any); ok && key == "event" {
				if _, ok := o["kind"].(string); ok {
					f(o)
					continue
				}
			}
			walkEvents(v, f)
		}
	case []any:
		for _, v := range x {
			walkEvents(v, f)
		}
	}
}

// schemaValidator validates JSON values against the subset of JSON Schema
// 2020-12 that EventSchema generates: $ref to #/$defs/NAME, type (object,
// array, string, number, integer, boolean), properties, required,
// additionalProperties false, items, enum, const, allOf and if/then.
type schemaValidator struct{ root map[string]any }

func (v schemaValidator) validate(s map[string]any, x any, at string) error {
	for key := range s {
		switch key {
		case "$schema", "title", "description", "$defs", "$ref", "type", "properties", "required",
			"additionalProperties", "items", "enum", "const", "allOf", "if", "then":
		default:
			return fmt.Errorf("schema keyword %q outside the validated subset", key)
		}
	}
	if ref, ok := s["$ref"].(string); ok {
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		def, ok2 := v.root["$defs"].(map[string]any)[name].(map[string]any)
		if !ok || !ok2 {
			return fmt.Errorf("unresolved $ref %s", ref)
		}
		if err := v.validate(def, x, at); err != nil {
			return err
		}
	}
	if typ, ok := s["type"].(string); ok && !hasType(x, typ) {
		return fmt.Errorf("%s: %v is not of type %s", at, x, typ)
	}
	if c, ok := s["const"]; ok && c != x {
		return fmt.Errorf("%s: %v, want %v", at, x, c)
	}
	if e, ok := s["enum"].([]any); ok && !slices.Contains(e, x) {
		return fmt.Errorf("%s: %v not one of %v", at, x, e)
	}
	if obj, ok := x.(map[string]any); ok {
		props, _ := s["properties"].(map[string]any)
		for _, r := range asSlice(s["required"]) {
			if _, ok := obj[r.(string)]; !ok {
				return fmt.Errorf("%s: missing required %s", at, r)
			}
		}
		for key, val := range obj {
			p, ok := props[key].(map[string]any)
			if !ok {
				if s["additionalProperties"] == false {
					return fmt.Errorf("%s: unknown field %s", at, key)
				}
				continue
			}
			if err := v.validate(p, val, at+"."+key); err != nil {
				return err
			}
		}
	}
	if arr, ok := x.([]any); ok {
		if items, ok := s["items"].(map[string]any); ok {
			for i, e := range arr {
				if err := v.validate(items, e, fmt.Sprintf("%s[%d]", at, i)); err != nil {
					return err
				}
			}
		}
	}
	for _, b := range asSlice(s["allOf"]) {
		if err := v.validate(b.(map[string]any), x, at); err != nil {
			return err
		}
	}
	if cond, ok := s["if"].(map[string]any); ok && v.validate(cond, x, at) == nil {
		if then, ok := s["then"].(map[string]any); ok {
			return v.validate(then, x, at)
		}
	}
	return nil
}

func asSlice(x any) []any { s, _ := x.([]any); return s }

func hasType(x any, typ string) bool {
	switch x := x.(type) {
	case map[string]any:
		return typ == "object"
	case []any:
		return typ == "array"
	case string:
		return typ == "string"
	case bool:
		return typ == "boolean"
	case float64:
		return typ == "number" || typ == "integer" && x == math.Trunc(x)
	}
	return false
}

// TestUnknownKindListsValid: an event of an unknown kind is an error that
// lists every kind of the table.
func TestUnknownKindListsValid(t *testing.T) {
	_, err := UnmarshalEvent([]byte(`{"kind":"gauss","sigma":1}`))
	if err == nil {
		t.Fatal("an unknown kind decodes")
	}
	for _, k := range KindNames() {
		if !strings.Contains(err.Error(), k) {
			t.Errorf("error %q does not name the kind %s", err, k)
		}
	}
}
