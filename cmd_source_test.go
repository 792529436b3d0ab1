package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/spec"
)

// TestCommandsBoundTOML (issue 34, item 6): every command that reads a TOML
// file (run, plan, validate and submit a spec; render and report a result
// folder's spec.toml; audit an audit spec) refuses one nested deeper than
// spec.MaxNesting or larger than spec.MaxSourceBytes, naming the file and
// the limit, before the TOML library parses it. (The nesting here, 1,000
// inline tables, is parsed in a fraction of a second by the library, so
// that code without the bound fails this test quickly; at 16,000 it ran
// past 60 s.) dplab report still shows the folder's records, with the spec
// error in place of its text.
func TestCommandsBoundTOML(t *testing.T) {
	tmp := t.TempDir()
	deep := "name = \"cli\"\nx = " + strings.Repeat("{a = ", 1000) + "1" + strings.Repeat("}", 1000) + "\n"
	big := cliSpec + strings.Repeat("# padding\n", spec.MaxSourceBytes/10)
	dir := filepath.Join(tmp, "res")
	if code, _, stderr := runMain(t, "run", writeFile(t, filepath.Join(tmp, "cli.toml"), cliSpec), "--out", dir); code != 0 {
		t.Fatalf("run: %d %s", code, stderr)
	}
	for _, tc := range []struct{ name, src, want string }{
		{"deep", deep, "above the limit of 32"},
		{"big", big, "above the limit of 262144 bytes"},
	} {
		path := writeFile(t, filepath.Join(tmp, tc.name+".toml"), tc.src)
		for _, args := range [][]string{
			{"validate", path}, {"plan", path}, {"run", path, "--out", filepath.Join(tmp, "out")},
			{"submit", "slurm", path, "--shards", "2", "--dry-run"}, {"audit", path, "--out", filepath.Join(tmp, "audit")},
		} {
			code, _, stderr := runMain(t, args...)
			if code != 2 || !strings.Contains(stderr, path) || !strings.Contains(stderr, tc.want) {
				t.Errorf("%s: exit %d, want 2 naming %s and %q:\n%s", strings.Join(args[:1], " "), code, path, tc.want, stderr)
			}
		}
		writeFile(t, filepath.Join(dir, "spec.toml"), tc.src)
		if code, _, stderr := runMain(t, "render", dir); code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("render %s spec.toml: exit %d, want 2 and %q:\n%s", tc.name, code, tc.want, stderr)
		}
		out := filepath.Join(tmp, tc.name+".html")
		if code, _, stderr := runMain(t, "report", dir, "-o", out); code != 0 {
			t.Errorf("report %s spec.toml: exit %d: %s", tc.name, code, stderr)
			continue
		}
		page, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(page), tc.want) || strings.Contains(string(page), "# padding") {
			t.Errorf("report %s spec.toml: the page does not show the error %q (or shows the file)", tc.name, tc.want)
		}
	}
}
