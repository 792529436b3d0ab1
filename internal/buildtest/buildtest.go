// Package buildtest builds the package under test with one extra source file
// (go build -overlay), for tests showing that a half-written plug-in is a
// compile error rather than a runtime failure.
package buildtest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// FailsWith builds the package in the test's working directory with code
// added as the file name, and fails t unless the build fails with output
// containing want. It skips t when no go command is available.
func FailsWith(t *testing.T, name, code, want string) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	pkg, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, name)
	if err := os.WriteFile(src, []byte(code), 0o666); err != nil {
		t.Fatal(err)
	}
	ov, err := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(pkg, name): src}})
	if err != nil {
		t.Fatal(err)
	}
	ovPath := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ovPath, ov, 0o666); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goBin, "build", "-overlay", ovPath, ".")
	cmd.Dir = pkg
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the package compiled with %s added; want a build error containing %q", name, want)
	}
	if !strings.Contains(string(out), want) {
		t.Errorf("compiler output:\n%s\nwant it to contain %q", out, want)
	}
}
