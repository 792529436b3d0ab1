package spec

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

const overrideSpec = `name = "t"
seed = 1
trials = 20
epsilon = [0.1, 1]

[[dataset]]
name = "synthetic-linear"
label = "Synth"

[[mechanism]]
name = "adassp"
label = "AdaSSP"
params = { rho = 1e-4 }

[[mechanism]]
name = "adassp"
label = "AdaSSP"
params = { rho = 1e-3 }

[[mechanism]]
name = "ridge"
label = "Ridge"
params = { lambda = 1e-6 }
`

func decodeSet(t *testing.T, src string, sets ...string) (*Spec, error) {
	t.Helper()
	return Decode("t.toml", []byte(src), LoadOptions{Set: sets})
}

// TestSetOverrides applies --set overrides to a spec's document: a key
// replaced, a list, a key added in a selected [[mechanism]], a table
// created; the decoded spec reads them, the original source is untouched.
func TestSetOverrides(t *testing.T) {
	unique := strings.Replace(overrideSpec, `label = "AdaSSP"
params = { rho = 1e-3 }`, `label = "AdaSSP 2"
params = { rho = 1e-3 }`, 1)
	s, err := decodeSet(t, unique, "trials=50", "epsilon=[0.5, 1, 2]",
		`mechanism[label="AdaSSP"].params.rho=[1e-3, 1e-2]`, `mechanism[2].params.lambda=0.5`,
		`mechanism[label="AdaSSP 2"].params.calibration="accountant"`, "quick.trials=2")
	if err != nil {
		t.Fatal(err)
	}
	if s.Trials != 50 || !reflect.DeepEqual(s.Epsilon.List, []any{0.5, int64(1), int64(2)}) {
		t.Errorf("trials %d, epsilon %v; want 50, [0.5 1 2]", s.Trials, s.Epsilon.List)
	}
	if got := s.Mechanisms[0].Params.Values["rho"].List; !reflect.DeepEqual(got, []any{1e-3, 1e-2}) {
		t.Errorf("mechanism[0] rho = %#v", got)
	}
	if got := s.Mechanisms[2].Params.Values["lambda"].List; !reflect.DeepEqual(got, []any{0.5}) {
		t.Errorf("mechanism[2] lambda = %#v", got)
	}
	if got := s.Mechanisms[1].Params.Values["calibration"].List; !reflect.DeepEqual(got, []any{"accountant"}) {
		t.Errorf("mechanism[1] calibration = %#v", got)
	}
	if s.Quick == nil || s.Quick.Trials != 2 {
		t.Errorf("quick = %+v, want trials 2", s.Quick)
	}
	if len(s.Overrides) != 6 {
		t.Errorf("Overrides = %q", s.Overrides)
	}
	// The spec's Source is the document with the overrides: decoded alone
	// it is the same spec.
	again, err := Decode("spec.toml", s.Source, LoadOptions{})
	if err != nil {
		t.Fatalf("the overridden source does not decode: %v\n%s", err, s.Source)
	}
	if again.Trials != 50 || !reflect.DeepEqual(again.Mechanisms, s.Mechanisms) || !reflect.DeepEqual(again.Quick, s.Quick) {
		t.Errorf("the overridden source decodes to another spec:\n%s", s.Source)
	}
	plain, _ := decodeSet(t, unique)
	if plain.SHA256 == s.SHA256 {
		t.Error("an overridden spec has the original's SHA-256")
	}
}

// TestSetBadInput: every bad --set is an error naming the flag and its
// path, never a panic or a silent no-op.
func TestSetBadInput(t *testing.T) {
	for _, c := range []struct {
		set  string
		want []string // substrings of the error
	}{
		{"trialz=5", []string{"key trialz", "unknown key", "did you mean", "set by --set trialz=5"}},
		{`trials="many"`, []string{"key trials", "incompatible types", "set by --set trials=\"many\""}},
		{`mechanism[label="AdaSSP"].params.rho=1`, []string{`--set mechanism[label="AdaSSP"].params.rho=1`, "2 [[mechanism]] have label = \"AdaSSP\"", "elements [0 1]"}},
		{`mechanism[label="adassp"].params.rho=1`, []string{`no [[mechanism]] has label = "adassp"`, `[0] "AdaSSP", [1] "AdaSSP", [2] "Ridge"`}},
		{`mechanism[7].label="x"`, []string{"no element 7", "3 [[mechanism]] (0 to 2)"}},
		{`mechanism.label="x"`, []string{"holds 3 tables", "mechanism[0]"}},
		{`trials[0]=1`, []string{"trials is a integer, not an array of tables"}},
		{`trials.x=1`, []string{"trials is a integer, not a table"}},
		{"trials=", []string{"no VALUE"}},
		{"trials=fifty", []string{"VALUE fifty is not a TOML value", `name='"x"'`}},
		{"epsilon=[0.5, 1", []string{"not a TOML value"}},
		{"trials", []string{"want PATH=VALUE"}},
		{"=3", []string{"a key is missing"}},
		{`mechanism[label=].x=1`, []string{"selector [label=]"}},
		{`mechanism[label="AdaSSP"=1`, []string{"no ']' closes"}},
		{`mechanism[1]=3`, []string{"mechanism[1] is a table: its VALUE must be an inline table"}},
		{`mechanism[0].params.rho="x"`, nil}, // decodes (params are raw): validation refuses it later
	} {
		_, err := decodeSet(t, overrideSpec, c.set)
		if c.want == nil {
			if err != nil {
				t.Errorf("--set %s: %v", c.set, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("--set %s: no error", c.set)
			continue
		}
		var se *SpecError
		if !errors.As(err, &se) || se.File != "t.toml" {
			t.Errorf("--set %s: %T %v, want a *SpecError naming t.toml", c.set, err, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("--set %s: %v\nwant it to contain %q", c.set, err, w)
			}
		}
	}
}

// TestSetShippedSpecsRoundTrip: for every shipped spec, the document an
// override gives (written by the TOML encoder) decodes to the same raw
// document as the original's with the override (so a run's saved
// spec.toml renders as it ran), and the original's untouched keys keep
// their values.
func TestSetShippedSpecsRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("../../experiments/*.toml")
	audits, _ := filepath.Glob("../../experiments/audits/*.toml")
	files = append(files, audits...)
	if len(files) < 10 {
		t.Fatalf("found %d shipped specs", len(files))
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Decode(f, src, LoadOptions{Set: []string{"seed=12345"}})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		var want, got map[string]any
		if _, err := toml.Decode(string(src), &want); err != nil {
			t.Fatal(err)
		}
		want["seed"] = int64(12345)
		if _, err := toml.Decode(string(s.Source), &got); err != nil {
			t.Errorf("%s: the overridden source does not parse: %v", f, err)
			continue
		}
		if !reflect.DeepEqual(normalize(want), normalize(got)) {
			t.Errorf("%s: the overridden source is another document", f)
		}
	}
}

// normalize turns arrays of tables ([]map[string]any) into []any, the
// one difference between an [[array]] and an inline array of tables.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	case []map[string]any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}

// FuzzSetOverride: no --set argument panics; one that applies gives a
// source that decodes again.
func FuzzSetOverride(f *testing.F) {
	for _, s := range []string{"trials=5", `mechanism[label="AdaSSP"].params.rho=[1]`, `mechanism[2].params."a.b"=1`,
		`quick.params.'x'.y={a=1}`, `a[`, `a["]"=1]=2`, `mechanism[0]={name="ridge"}`, `'`, `"\`, `x[0][label=1]=1`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		s, err := Decode("t.toml", []byte(overrideSpec), LoadOptions{Set: []string{arg}})
		if err != nil {
			return
		}
		if _, err := Decode("spec.toml", s.Source, LoadOptions{}); err != nil {
			t.Fatalf("--set %q: the overridden source does not decode: %v\n%s", arg, err, s.Source)
		}
	})
}

// TestSetSHA256Canonical: a spec's SHA-256 under --set depends on what the
// overrides set, not on how the path or the flags were typed (shards of one
// run typed two ways must merge); a different value changes it.
func TestSetSHA256Canonical(t *testing.T) {
	a, err := Decode("./t.toml", []byte(overrideSpec), LoadOptions{Set: []string{"epsilon=[1,2]", `mechanism[label="Ridge"].params.lambda=0.5`}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Decode("t.toml", []byte(overrideSpec), LoadOptions{Set: []string{"epsilon=[1, 2]", `mechanism[2].params.lambda=5e-1`}})
	if err != nil {
		t.Fatal(err)
	}
	if a.SHA256 != b.SHA256 {
		t.Errorf("the same overrides typed two ways give SHA-256 %s and %s:\n%s\n%s", a.SHA256, b.SHA256, a.Source, b.Source)
	}
	c, err := Decode("t.toml", []byte(overrideSpec), LoadOptions{Set: []string{"epsilon=[1, 3]", `mechanism[2].params.lambda=5e-1`}})
	if err != nil {
		t.Fatal(err)
	}
	if c.SHA256 == a.SHA256 {
		t.Error("another override gives the same SHA-256")
	}
}

// TestSetChainedSelectors: a segment's selectors narrow together and then
// must select exactly one element: [label="AdaSSP"][1] picks the second
// AdaSSP; an index outside what the others select says so, not that the
// element does not exist.
func TestSetChainedSelectors(t *testing.T) {
	s, err := decodeSet(t, overrideSpec, `mechanism[label="AdaSSP"][1].params.rho=0.5`)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Mechanisms[1].Params.Values["rho"].List; !reflect.DeepEqual(got, []any{0.5}) {
		t.Errorf("mechanism[1] rho = %v, want [0.5]", got)
	}
	if got := s.Mechanisms[0].Params.Values["rho"].List; !reflect.DeepEqual(got, []any{1e-4}) {
		t.Errorf("mechanism[0] rho = %v, want [0.0001] unchanged", got)
	}
	_, err = decodeSet(t, overrideSpec, `mechanism[label="AdaSSP"][2].params.rho=0.5`)
	if err == nil || !strings.Contains(err.Error(), `element 2 is not among those mechanism[label="AdaSSP"] selects (elements [0 1])`) || strings.Contains(err.Error(), "there is no element") {
		t.Errorf("[label=\"AdaSSP\"][2]: %v", err)
	}
}

// TestCanonicalSet: one override typed in different ways has one canonical
// form; different keys, selectors or values do not.
func TestCanonicalSet(t *testing.T) {
	canon := func(arg string) string {
		c, err := CanonicalSet(arg)
		if err != nil {
			t.Fatalf("%s: %v", arg, err)
		}
		return c
	}
	for _, same := range [][]string{
		{"epsilon=[0.5,2]", "epsilon=[ 0.5, 2.0 ]", "epsilon=[5e-1, 2]"},
		{`mechanism[label="AdaSSP"].params.rho=1e-3`, `mechanism[label='AdaSSP'].params.rho=0.001`, `mechanism[label="AdaSSP"]."params".rho=1e-3`},
		{`"a b"=1`, `'a b'=1.0`},
	} {
		for _, arg := range same[1:] {
			if canon(arg) != canon(same[0]) {
				t.Errorf("%s → %s, %s → %s: want one form", same[0], canon(same[0]), arg, canon(arg))
			}
		}
	}
	for _, pair := range [][2]string{
		{"epsilon=[0.5,2]", "epsilon=[0.5,1]"},
		{"trials=2", `trials="2"`},
		{`mechanism[0].params.rho=1`, `mechanism[label="A"].params.rho=1`},
		{"delta=1e-5", "epsilon=1e-5"},
	} {
		if canon(pair[0]) == canon(pair[1]) {
			t.Errorf("%s and %s: both %s", pair[0], pair[1], canon(pair[0]))
		}
	}
	if _, err := CanonicalSet("no-equals"); err == nil {
		t.Error("a malformed --set: no error")
	}
}
