// Package strictoml is dplab's one strict decoder of TOML values: the spec
// (harness/spec), the plug-ins' params tables, the audit's and the command
// line's key=value params all decode through it.
//
// The TOML library parses the source into raw values (tables as
// map[string]any, arrays as []any, string, int64, float64, bool, datetimes);
// Decode then fills the typed structs itself, strictly, so that every
// problem carries its full key path with the index of each [[array]] element
// — "dataset[1].split.test" — which the library's metadata cannot give (it
// keeps one position per key path, and reports a type mismatch only in its
// message text: docs/ARCHITECTURE.md §3.2).
//
// The rules are the library's, made strict: a key needs a field whose toml
// tag (or, for an untagged field, name) is exactly the key; an integer fits
// an integer field only within its range (a negative one never fits an
// unsigned field) and a float field only when exactly representable (|n| ≤
// 2⁵³); a float never fits an integer field; a type implementing
// toml.Unmarshaler receives the raw value, encoding.TextUnmarshaler a string.
package strictoml

import (
	"encoding"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/dplab/dplab/internal/suggest"
)

// Error is a problem at one key path of a decoded value.
type Error struct {
	Key string // "mechanism[0].params.rho"; "" for the value itself
	Err error
}

func (e *Error) Error() string {
	if e.Key == "" {
		return e.Err.Error()
	}
	return e.Key + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Errors lets a toml.Unmarshaler report problems at key paths inside the
// value it decodes (it returns the Decode of its table); the decoder
// prefixes them with the value's own path.
type Errors []*Error

func (k Errors) Error() string { return k[0].Error() }

// UnknownKeyError is a key that names no field of the destination struct.
type UnknownKeyError struct {
	Key   string   // the key as written (the last part of its path)
	Known []string // the struct's keys, sorted
}

func (e *UnknownKeyError) Error() string {
	return fmt.Sprintf("unknown key%s; valid keys: %s", suggest.DidYouMean(e.Key, e.Known), strings.Join(e.Known, ", "))
}

// decoder collects the problems of one decode, in the order met (table keys
// are visited sorted).
type decoder struct {
	errs []*Error
	text bool // values are command-line text: read a string as the field's type
}

func (d *decoder) fail(key string, format string, args ...any) {
	d.errs = append(d.errs, &Error{Key: key, Err: fmt.Errorf(format, args...)})
}

// Decode decodes the raw value raw (as the TOML library parses it) into the
// value v points to and returns every problem found, table keys visited in
// sorted order.
func Decode(raw any, v any) Errors {
	return decode(decoder{}, raw, v)
}

func decode(d decoder, raw any, v any) Errors {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return Errors{{Err: fmt.Errorf("decode into %T: want a non-nil pointer", v)}}
	}
	d.value(raw, rv.Elem(), "")
	return d.errs
}

// DecodeTable decodes a raw params table into the struct v points to,
// through its toml tags. It returns the key of the first problem (an unknown
// key, a wrong type, a value out of range, in sorted key order) with the
// error.
func DecodeTable(values map[string]any, v any) (string, error) {
	if errs := Decode(values, v); len(errs) > 0 {
		return errs[0].Key, errs[0].Err
	}
	return "", nil
}

// DecodeKV returns a decode function (the shape of a plug-in's params
// decoder) that sets the fields of the struct it is given from "key=value"
// strings: the command line's counterpart of a params table. A value is read
// as its field's type: an integer, a float, true or false, a string (quotes
// optional), a list "3,8" or "[3, 8]"; a pointer field stays nil when its
// key is not given. Decoding is strict: a malformed pair, a repeated key, an
// unknown key or a value of the wrong type is an error naming the key.
func DecodeKV(pairs []string) func(v any) error {
	return func(v any) error {
		values := make(map[string]any, len(pairs))
		for _, kv := range pairs {
			key, val, ok := strings.Cut(kv, "=")
			key, val = strings.TrimSpace(key), strings.TrimSpace(val)
			if !ok || key == "" {
				return fmt.Errorf("%q: want key=value", kv)
			}
			if _, dup := values[key]; dup {
				return fmt.Errorf("key %q given twice", key)
			}
			values[key] = val
		}
		errs := decode(decoder{text: true}, values, v)
		if len(errs) == 0 {
			return nil
		}
		var uk *UnknownKeyError
		switch e := errs[0]; {
		case errors.As(e.Err, &uk) && len(uk.Known) == 0:
			return fmt.Errorf("unknown key %q: there are no params", uk.Key)
		case errors.As(e.Err, &uk):
			return fmt.Errorf("unknown key %q%s (known: %s)", uk.Key, suggest.DidYouMean(uk.Key, uk.Known), strings.Join(uk.Known, ", "))
		default:
			return fmt.Errorf("key %q: %w", e.Key, e.Err)
		}
	}
}

var (
	unmarshalerType     = reflect.TypeFor[toml.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// value decodes raw into rv (settable) at key path path.
func (d *decoder) value(raw any, rv reflect.Value, path string) {
	if reflect.PointerTo(rv.Type()).Implements(unmarshalerType) {
		if err := rv.Addr().Interface().(toml.Unmarshaler).UnmarshalTOML(raw); err != nil {
			if ke, ok := err.(Errors); ok {
				for _, e := range ke {
					d.errs = append(d.errs, &Error{Key: joinPath(path, e.Key), Err: e.Err})
				}
				return
			}
			d.errs = append(d.errs, &Error{Key: path, Err: err})
		}
		return
	}
	if s, ok := raw.(string); ok && d.text {
		v, err := fromText(s, rv.Type())
		if err != nil {
			d.errs = append(d.errs, &Error{Key: path, Err: err})
			return
		}
		raw = v
	}
	if s, ok := raw.(string); ok && reflect.PointerTo(rv.Type()).Implements(textUnmarshalerType) {
		if err := rv.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			d.errs = append(d.errs, &Error{Key: path, Err: err})
		}
		return
	}
	src := reflect.ValueOf(raw)
	switch rv.Kind() {
	case reflect.Pointer:
		elem := reflect.New(rv.Type().Elem())
		d.value(raw, elem.Elem(), path)
		rv.Set(elem)
	case reflect.Interface:
		if raw == nil || !src.Type().AssignableTo(rv.Type()) {
			d.mismatch(raw, rv, path)
			return
		}
		rv.Set(src)
	case reflect.String:
		s, ok := raw.(string)
		if !ok {
			d.mismatch(raw, rv, path)
			return
		}
		rv.SetString(s)
	case reflect.Bool:
		b, ok := raw.(bool)
		if !ok {
			d.mismatch(raw, rv, path)
			return
		}
		rv.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := integer(src)
		switch {
		case !ok:
			d.mismatch(raw, rv, path)
		case rv.OverflowInt(n):
			d.fail(path, "%d is out of the range of %s", n, rv.Type())
		default:
			rv.SetInt(n)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := integer(src)
		switch {
		case !ok:
			d.mismatch(raw, rv, path)
		case n < 0 || rv.OverflowUint(uint64(n)):
			d.fail(path, "%d is out of the range of %s", n, rv.Type())
		default:
			rv.SetUint(uint64(n))
		}
	case reflect.Float32, reflect.Float64:
		switch {
		case src.IsValid() && (src.Kind() == reflect.Float64 || src.Kind() == reflect.Float32):
			x := src.Float()
			if rv.OverflowFloat(x) && !math.IsInf(x, 0) {
				d.fail(path, "%g is out of the range of %s", x, rv.Type())
				return
			}
			rv.SetFloat(x)
		default:
			n, ok := integer(src)
			if !ok {
				d.mismatch(raw, rv, path)
				return
			}
			// An integer stands for a float only where the float holds it
			// exactly (the TOML library's rule too: decode.go,
			// maxSafeFloat64Int).
			if n < -1<<53 || n > 1<<53 {
				d.fail(path, "integer %d is not exactly a %s; write it as a float", n, rv.Type())
				return
			}
			rv.SetFloat(float64(n))
		}
	case reflect.Slice:
		if !src.IsValid() || src.Kind() != reflect.Slice && src.Kind() != reflect.Array {
			d.mismatch(raw, rv, path)
			return
		}
		out := reflect.MakeSlice(rv.Type(), src.Len(), src.Len())
		tables := isTable(rv.Type().Elem())
		for i := 0; i < src.Len(); i++ {
			elemPath := path
			if tables {
				elemPath = fmt.Sprintf("%s[%d]", path, i)
			}
			d.value(src.Index(i).Interface(), out.Index(i), elemPath)
		}
		rv.Set(out)
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			d.fail(path, "cannot decode into %s (keys must be strings)", rv.Type())
			return
		}
		keys, ok := tableKeys(src)
		if !ok {
			d.mismatch(raw, rv, path)
			return
		}
		out := reflect.MakeMapWithSize(rv.Type(), len(keys))
		for _, k := range keys {
			elem := reflect.New(rv.Type().Elem()).Elem()
			d.value(src.MapIndex(reflect.ValueOf(k)).Interface(), elem, joinPath(path, k))
			out.SetMapIndex(reflect.ValueOf(k).Convert(rv.Type().Key()), elem)
		}
		rv.Set(out)
	case reflect.Struct:
		if _, isTime := rv.Interface().(time.Time); isTime {
			t, ok := raw.(time.Time)
			if !ok {
				d.mismatch(raw, rv, path)
				return
			}
			rv.Set(reflect.ValueOf(t))
			return
		}
		keys, ok := tableKeys(src)
		if !ok {
			d.mismatch(raw, rv, path)
			return
		}
		fields := structFields(rv.Type())
		for _, k := range keys {
			index, ok := fields.lookup(k)
			key := joinPath(path, k)
			if !ok {
				d.errs = append(d.errs, &Error{Key: key, Err: &UnknownKeyError{Key: k, Known: fields.keys()}})
				continue
			}
			d.value(src.MapIndex(reflect.ValueOf(k)).Interface(), fieldByIndex(rv, index), key)
		}
	default:
		d.fail(path, "cannot decode into %s", rv.Type())
	}
}

// fromText reads the command-line text s as a raw value for a field of type
// t (DecodeKV).
func fromText(s string, t reflect.Type) (any, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return s, nil
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", s)
		}
		return n, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a non-negative integer", s)
		}
		return n, nil
	case reflect.Float32, reflect.Float64:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", s)
		}
		return x, nil
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not true or false", s)
		}
		return b, nil
	case reflect.String:
		if uq, err := strconv.Unquote(s); err == nil {
			return uq, nil
		}
		return s, nil
	case reflect.Slice, reflect.Array:
		var out []any
		for _, e := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"), ",") {
			out = append(out, strings.TrimSpace(e))
		}
		return out, nil
	}
	return s, nil
}

// mismatch records a value whose TOML type does not fit rv.
func (d *decoder) mismatch(raw any, rv reflect.Value, path string) {
	d.fail(path, "incompatible types: TOML value has type %s; destination has type %s", TypeName(raw), destType(rv.Type()))
}

// integer returns src as an int64 when it is a Go integer that fits one.
func integer(src reflect.Value) (int64, bool) {
	if !src.IsValid() {
		return 0, false
	}
	switch src.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return src.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if u := src.Uint(); u <= math.MaxInt64 {
			return int64(u), true
		}
	}
	return 0, false
}

// tableKeys returns the sorted keys of a table value (a map with string
// keys).
func tableKeys(src reflect.Value) ([]string, bool) {
	if !src.IsValid() || src.Kind() != reflect.Map || src.Type().Key().Kind() != reflect.String {
		return nil, false
	}
	keys := make([]string, 0, src.Len())
	for _, k := range src.MapKeys() {
		keys = append(keys, k.String())
	}
	slices.Sort(keys)
	return keys, true
}

// isTable reports whether values of type t are decoded from TOML tables:
// array elements of such a type are [[array]] elements, named with their
// index in key paths.
func isTable(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct || t.Kind() == reflect.Map
}

// TypeName names the TOML type of a raw value, as error messages say it.
func TypeName(raw any) string {
	src := reflect.ValueOf(raw)
	if !src.IsValid() {
		return "nothing"
	}
	if _, ok := integer(src); ok {
		return "integer"
	}
	switch src.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Float32, reflect.Float64:
		return "float"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map:
		return "table"
	}
	if _, ok := raw.(time.Time); ok { // local dates and times too (toml.LocalDate…)
		return "datetime"
	}
	return fmt.Sprintf("%T", raw)
}

// destType names the TOML type a Go type takes.
func destType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "float"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "table"
	case reflect.Pointer:
		return destType(t.Elem())
	}
	return t.String()
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// fieldSet maps a struct type's TOML keys to field index paths (through
// embedded structs).
type fieldSet struct {
	tagged   map[string][]int // by toml tag: matched exactly
	untagged map[string][]int // by lower-cased field name (the library's rule)
}

func (f fieldSet) lookup(key string) ([]int, bool) {
	if i, ok := f.tagged[key]; ok {
		return i, true
	}
	i, ok := f.untagged[strings.ToLower(key)]
	return i, ok
}

// keys returns every key of the set, sorted.
func (f fieldSet) keys() []string {
	out := make([]string, 0, len(f.tagged)+len(f.untagged))
	for k := range f.tagged {
		out = append(out, k)
	}
	for k := range f.untagged {
		out = append(out, k)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

var fieldCache sync.Map // reflect.Type -> fieldSet

// structFields returns the decodable fields of struct type t: exported,
// not tagged "-"; an untagged embedded struct contributes its own fields.
func structFields(t reflect.Type) fieldSet {
	if f, ok := fieldCache.Load(t); ok {
		return f.(fieldSet)
	}
	fs := fieldSet{tagged: map[string][]int{}, untagged: map[string][]int{}}
	// set keeps the shallowest field for a key: an outer field hides an
	// embedded struct's field of the same name, as in Go.
	set := func(m map[string][]int, key string, index []int) {
		if old, ok := m[key]; !ok || len(index) < len(old) {
			m[key] = index
		}
	}
	var walk func(t reflect.Type, prefix []int)
	walk = func(t reflect.Type, prefix []int) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			index := append(slices.Clone(prefix), i)
			tag, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			switch {
			case tag == "-":
			case f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct:
				walk(f.Type, index)
			case !f.IsExported():
			case tag != "":
				set(fs.tagged, tag, index)
			default:
				set(fs.untagged, strings.ToLower(f.Name), index)
			}
		}
	}
	walk(t, nil)
	fieldCache.Store(t, fs)
	return fs
}

// fieldByIndex returns the field of v at index, allocating nil embedded
// pointers on the way.
func fieldByIndex(v reflect.Value, index []int) reflect.Value {
	for _, i := range index {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	return v
}

// Keys returns the keys a struct of type t decodes, sorted.
func Keys(t reflect.Type) []string { return structFields(t).keys() }
