package datasets

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/dplab/dplab/internal/suggest"
)

// DecodeKV returns a decode function for Entry.Load that sets params fields
// from "key=value" strings, keys being the fields' toml tags: the command
// line's counterpart of a spec's params table. Decoding is strict: an unknown
// key, a repeated key or a value of the wrong type is an error naming the key.
// Supported field kinds: int, uint64, float64, string, bool and []int
// (written "3,8" or "[3, 8]"), and pointers to them (nil when the key is not
// given: a param whose zero value is meaningful, e.g. higgs's max_rows = 0).
func DecodeKV(pairs []string) func(v any) error {
	return func(v any) error {
		rv := reflect.ValueOf(v)
		if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
			panic("datasets: DecodeKV needs a pointer to a struct")
		}
		st := rv.Elem()
		fields := map[string]reflect.Value{}
		var known []string
		for i := 0; i < st.NumField(); i++ {
			tag, _, _ := strings.Cut(st.Type().Field(i).Tag.Get("toml"), ",")
			if tag != "" && tag != "-" {
				fields[tag] = st.Field(i)
				known = append(known, tag)
			}
		}
		seen := map[string]bool{}
		for _, kv := range pairs {
			key, val, ok := strings.Cut(kv, "=")
			key, val = strings.TrimSpace(key), strings.TrimSpace(val)
			if !ok || key == "" {
				return fmt.Errorf("%q: want key=value", kv)
			}
			f, ok := fields[key]
			if !ok {
				if len(known) == 0 {
					return fmt.Errorf("unknown key %q: this dataset has no params", key)
				}
				return fmt.Errorf("unknown key %q%s (known: %s)", key, suggest.DidYouMean(key, known), strings.Join(known, ", "))
			}
			if seen[key] {
				return fmt.Errorf("key %q given twice", key)
			}
			seen[key] = true
			if err := setField(f, val); err != nil {
				return fmt.Errorf("key %q: %w", key, err)
			}
		}
		return nil
	}
}

func setField(f reflect.Value, val string) error {
	switch f.Kind() {
	case reflect.Int:
		n, err := strconv.Atoi(val)
		if err != nil {
			return fmt.Errorf("%q is not an integer", val)
		}
		f.SetInt(int64(n))
	case reflect.Uint64:
		n, err := strconv.ParseUint(val, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not a non-negative integer", val)
		}
		f.SetUint(n)
	case reflect.Float64:
		x, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", val)
		}
		f.SetFloat(x)
	case reflect.String:
		if uq, err := strconv.Unquote(val); err == nil {
			val = uq
		}
		f.SetString(val)
	case reflect.Bool:
		b, err := strconv.ParseBool(val)
		if err != nil {
			return fmt.Errorf("%q is not true or false", val)
		}
		f.SetBool(b)
	case reflect.Pointer:
		v := reflect.New(f.Type().Elem())
		if err := setField(v.Elem(), val); err != nil {
			return err
		}
		f.Set(v)
	case reflect.Slice:
		if f.Type().Elem().Kind() != reflect.Int {
			panic("datasets: DecodeKV: unsupported slice field")
		}
		val = strings.TrimSuffix(strings.TrimPrefix(val, "["), "]")
		var out []int
		for _, s := range strings.Split(val, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				return fmt.Errorf("%q is not a list of integers", val)
			}
			out = append(out, n)
		}
		f.Set(reflect.ValueOf(out))
	default:
		panic("datasets: DecodeKV: unsupported field kind " + f.Kind().String())
	}
	return nil
}
