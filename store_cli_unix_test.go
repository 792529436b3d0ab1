//go:build unix

package main

import (
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOutputModes checks that every file a run writes (store, manifest, spec
// copy, summary, figures, tables) is readable as the umask allows: 0644 under
// umask 022, not the 0600 of os.CreateTemp (issue 9, item 9).
func TestOutputModes(t *testing.T) {
	spec := writeFile(t, filepath.Join(t.TempDir(), "spec.toml"), cliSpec+`
[[figure]]
name = "mse"
metric = "test_mse"
formats = ["png", "svg"]

[[table]]
name = "mse"
metric = "test_mse"
formats = ["md", "tex", "csv"]
`)
	dir := filepath.Join(t.TempDir(), "out")
	old := syscall.Umask(0o022)
	code, _, errs := runMain(t, "run", spec, "--out", dir)
	code2, _, errs2 := runMain(t, "render", dir)
	syscall.Umask(old)
	if code != 0 || code2 != 0 {
		t.Fatalf("run: exit %d\n%s\nrender: exit %d\n%s", code, errs, code2, errs2)
	}
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files++
		if info.Mode().Perm() != 0o644 {
			rel, _ := filepath.Rel(dir, path)
			t.Errorf("%s: mode %v, want -rw-r--r--", rel, info.Mode().Perm())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// trials.jsonl, .lock, manifest.json, spec.toml, summary.csv, 2 figures, 3 tables
	if files != 10 {
		t.Errorf("found %d files, want 10", files)
	}
}
