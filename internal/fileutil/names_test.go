package fileutil

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTempSuffixMax: the temporary file beside a file is named after it
// with a suffix of the form TempSuffixMax measures, ".tmp<pid>-<n>", whose
// digits fit its bound.
func TestTempSuffixMax(t *testing.T) {
	path := filepath.Join(t.TempDir(), "table.csv")
	f, err := createTemp(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	suffix, ok := strings.CutPrefix(f.Name(), path)
	m := regexp.MustCompile(`^\.tmp([0-9]{1,7})-([0-9]{1,20})$`).FindStringSubmatch(suffix)
	if !ok || m == nil || len(suffix) > TempSuffixMax {
		t.Fatalf("temporary file %s: want %s.tmp<pid>-<n>, at most %d bytes longer (update TempSuffixMax with the form)", f.Name(), path, TempSuffixMax)
	}
}
