package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// writePkg writes files (name → source) into a new directory and returns it.
func writePkg(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestShortTestsFollowsCalls: a test reading testing.Short() itself, through
// a helper two calls deep, through a method, through a function-valued
// variable and under a renamed import is listed; a test reaching none is
// not, nor a helper or a Testify function.
func TestShortTestsFollowsCalls(t *testing.T) {
	dir := writePkg(t, map[string]string{
		"a.go": `package a

type cfg struct{}

func (cfg) trials() int { return pick() }
`,
		"a_test.go": `package a

import "testing"

func pick() int {
	if testing.Short() {
		return 1
	}
	return 10
}

func helper() int { return pick() }

var viaVar = func() bool { return helper() > 1 }

func TestDirect(t *testing.T)   { _ = testing.Short() }
func TestDeep(t *testing.T)     { _ = helper() }
func TestMethod(t *testing.T)   { _ = cfg{}.trials() }
func TestVar(t *testing.T)      { _ = viaVar() }
func TestPlain(t *testing.T)    { _ = 1 + 1 }
func Testify(t *testing.T)      { _ = testing.Short() }
func TestHelper(t *testing.T, x int) { _ = testing.Short() }
`,
		"b_test.go": `package a_test

import tt "testing"

func TestRenamed(t *tt.T) {
	if tt.Short() {
		t.Skip()
	}
}

func TestOther(t *tt.T) {}
`,
	})
	got, err := ShortTests(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"TestDeep", "TestDirect", "TestMethod", "TestRenamed", "TestVar"}
	if !slices.Equal(got, want) {
		t.Errorf("ShortTests = %q, want %q", got, want)
	}
}

// TestShortTestsEveryTest: when a TestMain, an init function or a
// package-level initializer reaches testing.Short(), every test is to run
// again ("*"); a package with no such test lists none.
func TestShortTestsEveryTest(t *testing.T) {
	for name, src := range map[string]string{
		"TestMain": `package a
import "testing"
func TestMain(m *testing.M) { if testing.Short() { return }; m.Run() }
func TestX(t *testing.T) {}
`,
		"init": `package a
import "testing"
func setup() { _ = testing.Short() }
func init() { setup() }
func TestX(t *testing.T) {}
`,
		"initializer": `package a
import "testing"
func n() int { if testing.Short() { return 1 }; return 2 }
var table = []func() int{n}
func TestX(t *testing.T) {}
`,
	} {
		got, err := ShortTests(writePkg(t, map[string]string{"a_test.go": src}))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, []string{"*"}) {
			t.Errorf("%s: ShortTests = %q, want [*]", name, got)
		}
	}
	got, err := ShortTests(writePkg(t, map[string]string{"a_test.go": "package a\nimport \"testing\"\nfunc TestX(t *testing.T) {}\n"}))
	if err != nil || len(got) != 0 {
		t.Errorf("no Short: ShortTests = %q, %v; want none", got, err)
	}
}

// TestShortTestsRefusesBadSource: a file that does not parse is an error
// naming it, not a silent empty list (which would run no long test).
func TestShortTestsRefusesBadSource(t *testing.T) {
	dir := writePkg(t, map[string]string{"a_test.go": "package a\nfunc {"})
	if _, err := ShortTests(dir); err == nil {
		t.Error("no error for a file that does not parse")
	}
}
