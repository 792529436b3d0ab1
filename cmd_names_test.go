package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/run"
)

// longNamesSpec is a spec whose name, figure, table and two dataset labels
// are as long as the caller makes them: the epsilon table is split per
// dataset (two regression datasets), so its files are named
// <table>-<dataset part>.
func longNamesSpec(name, figure, table, label string) string {
	return fmt.Sprintf(`name = %q
seed = 1
trials = 1
epsilon = [1]
delta = 1e-6
[[dataset]]
name = "synthetic-linear"
label = %q
params = { n = 200, d = 3, seed = 1 }
[[dataset]]
name = "synthetic-linear"
label = %q
params = { n = 200, d = 3, seed = 2 }
[[mechanism]]
name = "ridge"
[[figure]]
name = %q
metric = "test_mse"
[[table]]
name = %q
metric = "test_mse"
`, name, label+" one", label+" two", figure, table)
}

// TestLongNamesFitOrAreRefused (issue 34, item 10): a name that would make
// a file name longer than the file system's 255 bytes is refused when the
// spec is loaded, naming its key and line, not after the trials (a
// 251-character figure name failed only at rendering): the spec's name
// with -quick, a figure's with its longest extension (its caption file's,
// .caption.tex) and the temporary suffix of the file it is first written to, a table's also with the part a split
// table adds for a dataset or a panel. A dataset label of any length fits:
// the part of a file name that stands for it is at most 64 bytes. At the
// longest names allowed, a --quick run writes every file.
func TestLongNamesFitOrAreRefused(t *testing.T) {
	// A figure's and a table's longest file is its caption file,
	// <name>.caption.tex (issue 35).
	const nameMax, figMax, tableMax = 255 - 6, 255 - len(".caption.tex") - 32, 255 - 65 - len(".caption.tex") - 32
	label := strings.Repeat("A very long dataset label ", 12) // 312 bytes
	tmp := t.TempDir()
	auditSrc, err := os.ReadFile("experiments/audits/audit_grid.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ key, name, figure, table string }{
		{"name", strings.Repeat("n", nameMax+1), "f", "t"},
		{"figure[0].name", "n", strings.Repeat("f", figMax+1), "t"},
		{"figure[0].name", "n", strings.Repeat("f", 251), "t"},
		{"table[0].name", "n", "f", strings.Repeat("t", tableMax+1)},
	} {
		path := writeFile(t, filepath.Join(tmp, "long.toml"), longNamesSpec(tc.name, tc.figure, tc.table, label))
		line := map[string]string{"name": ":1:", "figure[0].name": ":17:", "table[0].name": ":20:"}[tc.key]
		for _, cmd := range []string{"validate", "run"} {
			out := filepath.Join(tmp, "out")
			args := []string{cmd, path}
			if cmd == "run" {
				args = append(args, "--out", out)
			}
			code, _, stderr := runMain(t, args...)
			if code != 2 || !strings.Contains(stderr, path+line+" key "+tc.key+": the name is") || !strings.Contains(stderr, "above the 255 bytes a file name may have") {
				t.Errorf("%s with a %d/%d/%d-byte name/figure/table: exit %d, want 2 naming %s at %s:\n%s", cmd, len(tc.name), len(tc.figure), len(tc.table), code, tc.key, line, stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s: refused after creating %s", cmd, out)
				os.RemoveAll(out)
			}
		}
	}

	// The longest names allowed, and long labels, are written.
	wd := t.TempDir()
	t.Chdir(wd)
	name, figure, table := strings.Repeat("n", nameMax), strings.Repeat("f", figMax), strings.Repeat("t", tableMax)
	path := writeFile(t, filepath.Join(tmp, "longest.toml"), longNamesSpec(name, figure, table, label))
	if code, _, stderr := runMain(t, "run", path, "--quick"); code != 0 {
		t.Fatalf("run --quick: exit %d\n%s", code, stderr)
	}
	dir := filepath.Join(wd, run.DefaultRoot, name+"-quick")
	for _, want := range []string{"figures/" + figure + ".png", "figures/" + figure + ".svg", "figures/" + figure + ".caption.tex",
		"tables/" + table + "-*[0-9a-f].tex", "tables/" + table + "-*[0-9a-f].md", "tables/" + table + "-*.caption.tex"} {
		if m, _ := filepath.Glob(filepath.Join(dir, want)); len(m) != map[bool]int{true: 2, false: 1}[strings.Contains(want, "*")] {
			t.Errorf("%s: found %d files", want, len(m))
		}
	}
	err = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && len(info.Name()) > 255 {
			t.Errorf("%s: %d bytes", info.Name(), len(info.Name()))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	// An audit grid's name, too (checked before anything runs; dplab
	// audit SPEC.toml is dplab run SPEC.toml).
	long := strings.Replace(string(auditSrc), `name = "audit_grid"`, fmt.Sprintf("name = %q", strings.Repeat("a", nameMax+1)), 1)
	auditPath := writeFile(t, filepath.Join(tmp, "audit.toml"), long)
	if code, _, stderr := runMain(t, "audit", auditPath, "--quick", "--out", filepath.Join(tmp, "audit")); code != 2 || !strings.Contains(stderr, auditPath+":5: key name: the name is") {
		t.Errorf("audit with a %d-byte name: exit %d:\n%s", nameMax+1, code, stderr)
	}
}
