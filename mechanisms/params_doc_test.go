package mechanisms

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dplab/dplab/internal/fielddoc"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// TestParamDocsGenerated fails when params_doc.go is not what the params structs' doc comments
// give; go generate (DPLAB_UPDATE_PARAMDOCS=1) rewrites it.
func TestParamDocsGenerated(t *testing.T) {
	if err := fielddoc.CheckGenerated(".", "mechanisms", "paramDocs", "params_doc.go", "go generate ./mechanisms"); err != nil {
		t.Error(err)
	}
}

// TestEveryParamDocumented: every key of every registered mechanism has a
// doc comment, a default and a range, and no two keys of one mechanism
// collide.
func TestEveryParamDocumented(t *testing.T) {
	for _, info := range List() {
		e, _ := Lookup(info.Name)
		ps := e.Params()
		seen := map[string]bool{}
		for _, p := range ps {
			if seen[p.Key] {
				t.Errorf("%s: key %s appears twice", info.Name, p.Key)
			}
			seen[p.Key] = true
			if p.Doc == "" {
				t.Errorf("%s: %s (%s) has no doc comment", info.Name, p.Key, p.GoName)
			}
			if p.Default == "" {
				t.Errorf("%s: %s (%s) has no `default` tag", info.Name, p.Key, p.GoName)
			}
			if p.Range == "" {
				t.Errorf("%s: %s (%s) has no `range` tag", info.Name, p.Key, p.GoName)
			}
		}
	}
}

// parseDefault parses a `default` tag as a value of type t: a number ("√x"
// for the square root of x), a boolean or, for a string, a word of the
// field's range. ok is false for a default that is a rule or a sentence
// ("int(k_over_d·d)", "the preset's …").
func parseDefault(def, rng string, t reflect.Type) (v reflect.Value, ok bool) {
	v = reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.Float64:
		s, root := strings.CutPrefix(def, "√")
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return v, false
		}
		if root {
			x = math.Sqrt(x)
		}
		v.SetFloat(x)
	case reflect.Int:
		x, err := strconv.ParseInt(def, 10, 64)
		if err != nil {
			return v, false
		}
		v.SetInt(x)
	case reflect.Uint64:
		x, err := strconv.ParseUint(def, 10, 64)
		if err != nil {
			return v, false
		}
		v.SetUint(x)
	case reflect.Bool:
		x, err := strconv.ParseBool(def)
		if err != nil {
			return v, false
		}
		v.SetBool(x)
	case reflect.String:
		if !slices.Contains(strings.Split(rng, " | "), def) {
			return v, false
		}
		v.SetString(def)
	default:
		return v, false
	}
	return v, true
}

// TestParamDefaultsMeanZero holds every literal `default` tag to the code:
// a key left out (the zero value) and the key set to its documented default
// build the same mechanism, whose fit from the same streams gives the same
// model and ledger. Where the default is refused (a key that applies only
// with another key, as the test configuration does not set it), the refusal
// must name the key.
func TestParamDefaultsMeanZero(t *testing.T) {
	checked := 0
	for _, info := range List() {
		e, _ := Lookup(info.Name)
		data := tinyData(t, info.Tasks[0], 200, 8)
		for _, p := range e.allParams() {
			base := reflect.ValueOf(e.example)
			field, _ := base.Type().FieldByName(strings.Split(p.GoName, ".")[1])
			def, ok := parseDefault(p.Default, p.Range, field.Type)
			if !ok {
				t.Logf("%s: %s: default %q is not a literal; not checked", info.Name, p.Key, p.Default)
				continue
			}
			fit := func(x reflect.Value) (string, error) {
				v := reflect.New(base.Type()).Elem()
				v.Set(base)
				v.FieldByIndex(field.Index).Set(x)
				m, _, err := e.Build(func(dst any) error { reflect.ValueOf(dst).Elem().Set(v); return nil })
				if err != nil {
					return "", err
				}
				b := Budget{Epsilon: 2, Delta: 1e-5, Calibrator: accounting.NewCalibrator(accounting.Config{})}
				r, err := m.Fit(context.Background(), data, b, rngs.New(rngs.Derive("defaults", info.Name)))
				if err != nil {
					return "", err
				}
				j, err := json.Marshal([]any{r.Model, r.Event, r.Noise})
				return string(j), err
			}
			applies := len(p.Only) == 0 || slices.Contains(p.Only, info.Name)
			zero, errZero := fit(reflect.Zero(field.Type))
			set, errSet := fit(def)
			if applies && errSet != nil && strings.Contains(errSet.Error(), p.Key+" applies only to [") {
				t.Errorf("%s: %s is documented for %v but refused: %v", info.Name, p.Key, p.Only, errSet)
			}
			if !applies {
				continue
			}
			switch {
			case errZero != nil && errSet != nil:
				t.Logf("%s: %s: the test configuration does not fit: %v", info.Name, p.Key, errZero)
			case errSet != nil && strings.Contains(errSet.Error(), p.Key):
				t.Logf("%s: %s = %s refused with the test configuration: %v", info.Name, p.Key, p.Default, errSet)
			case errSet != nil || errZero != nil:
				t.Errorf("%s: %s: zero value gives error %v, the documented default %s gives %v", info.Name, p.Key, errZero, p.Default, errSet)
			case zero != set:
				t.Errorf("%s: %s = %s fits differently from the key left out (the zero value):\n%s\n%s", info.Name, p.Key, p.Default, set, zero)
			default:
				checked++
			}
		}
	}
	t.Logf("%d (mechanism, key) defaults checked by fitting", checked)
	if checked < 50 {
		t.Errorf("only %d defaults checked; the parser or the test configurations lost coverage", checked)
	}
}

// TestParamDocsNameNoGoIdentifiers: 'dplab mechanisms NAME' prints these docs
// to spec writers, who cannot look up an unexported Go name
// (lowerCamelCase, such as a helper function) or a source file.
func TestParamDocsNameNoGoIdentifiers(t *testing.T) {
	ident := regexp.MustCompile(`\b[a-z]{2,}[A-Z][A-Za-z0-9]*\b|\b\w+\.go\b`) // not math such as nJ
	for field, doc := range paramDocs {
		if !strings.Contains(field, ".") {
			continue // a type's doc, not printed
		}
		if m := ident.FindString(doc); m != "" {
			t.Errorf("%s: the doc names %q: %s", field, m, doc)
		}
	}
}
