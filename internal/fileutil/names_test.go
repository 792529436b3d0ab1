package fileutil

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTempSuffixMax: the temporary file beside a file is named after it
// with a suffix of the form TempSuffixMax measures, ".tmp<pid>-<n>", whose
// digits fit its bound.
func TestTempSuffixMax(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	const name = "table.csv"
	f, tmp, err := createTemp(root, name, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	suffix, ok := strings.CutPrefix(tmp, name)
	m := regexp.MustCompile(`^\.tmp([0-9]{1,7})-([0-9]{1,20})$`).FindStringSubmatch(suffix)
	if !ok || m == nil || len(suffix) > TempSuffixMax {
		t.Fatalf("temporary file %s: want %s.tmp<pid>-<n>, at most %d bytes longer (update TempSuffixMax with the form)", filepath.Join(dir, tmp), name, TempSuffixMax)
	}
}
