package strictoml

import (
	"strings"
	"testing"
)

// TestDecodeKVRejectsBadInput: key=value params decode by their fields'
// types (quotes and brackets optional); a malformed pair, a repeated key, a
// negative unsigned, a bad list element and an unknown key are errors.
func TestDecodeKVRejectsBadInput(t *testing.T) {
	type P struct {
		N       int     `toml:"n"`
		X       float64 `toml:"x"`
		S       string  `toml:"s"`
		Classes []int   `toml:"classes"`
		Seed    uint64  `toml:"seed"`
	}
	var p P
	if err := DecodeKV([]string{"n=3", "x=0.5", `s="a b"`, "classes=[1, 7]", "seed=9"})(&p); err != nil {
		t.Fatal(err)
	}
	if p.N != 3 || p.X != 0.5 || p.S != "a b" || len(p.Classes) != 2 || p.Classes[1] != 7 || p.Seed != 9 {
		t.Fatalf("decoded %+v", p)
	}
	for _, bad := range [][]string{{"n"}, {"n=1", "n=2"}, {"seed=-1"}, {"classes=1,x"}, {"zz=1"}} {
		if err := DecodeKV(bad)(&p); err == nil {
			t.Errorf("DecodeKV(%q) succeeded", bad)
		}
	}
	var np struct{}
	if err := DecodeKV([]string{"a=1"})(&np); err == nil || !strings.Contains(err.Error(), "no params") {
		t.Errorf("NoParams: err = %v", err)
	}
}

// TestDecodeKVMessages pins the command line's messages: the key, the
// closest valid key, the valid keys, and a pointer field left nil unless
// given (a param whose zero value is meaningful).
func TestDecodeKVMessages(t *testing.T) {
	type P struct {
		Seed    uint64 `toml:"seed"`
		MaxRows *int   `toml:"max_rows"`
	}
	for _, tc := range []struct{ kv, want string }{
		{"seeed=7", `unknown key "seeed" (did you mean "seed"?) (known: max_rows, seed)`},
		{"max_rows=many", `key "max_rows": "many" is not an integer`},
		{"seed=-1", `key "seed": "-1" is not a non-negative integer`},
	} {
		var p P
		if err := DecodeKV([]string{tc.kv})(&p); err == nil || err.Error() != tc.want {
			t.Errorf("%s: err = %v, want %s", tc.kv, err, tc.want)
		}
	}
	var p P
	if err := DecodeKV([]string{"seed=3"})(&p); err != nil || p.MaxRows != nil || p.Seed != 3 {
		t.Errorf("seed=3: %+v, %v; want MaxRows nil", p, err)
	}
	if err := DecodeKV([]string{"max_rows=0"})(&p); err != nil || p.MaxRows == nil || *p.MaxRows != 0 {
		t.Errorf("max_rows=0: %+v, %v", p, err)
	}
}

// TestDecodeErrorsKeyPaths: every problem of one decode is reported at its
// full key path, [[array]] elements with their index, in sorted key order.
func TestDecodeErrorsKeyPaths(t *testing.T) {
	type Split struct {
		Test float64 `toml:"test"`
	}
	type D struct {
		Name  string `toml:"name"`
		Split Split  `toml:"split"`
	}
	type S struct {
		Trials  int `toml:"trials"`
		Dataset []D `toml:"dataset"`
	}
	raw := map[string]any{
		"trials":  1.5,
		"dataset": []any{map[string]any{"name": "a"}, map[string]any{"split": map[string]any{"tset": 0.2}}},
	}
	var s S
	errs := Decode(raw, &s)
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	want := []string{
		`dataset[1].split.tset: unknown key (did you mean "test"?); valid keys: test`,
		"trials: incompatible types: TOML value has type float; destination has type integer",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
