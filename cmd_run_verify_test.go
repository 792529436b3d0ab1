package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dplab/dplab/datasets"
)

// TestRunRefusesDamagedDataFile: 'dplab run' on a copy of a registered data
// file with one digit changed exits 2, naming the file and the fix; the
// intact copy runs (exit 0). Before the fix the damaged copy ran with exit 0.
func TestRunRefusesDamagedDataFile(t *testing.T) {
	src := sharedData(t)
	e, err := datasets.Lookup("concreteslump")
	if err != nil {
		t.Fatal(err)
	}
	// place writes the files into a new data directory (the process-wide
	// data cache remembers each directory's outcome), changing one digit of
	// the training file when damaged, and returns it.
	place := func(damaged bool) string {
		dir := t.TempDir()
		for _, f := range e.Info.Files {
			b, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(f.Path)))
			if err != nil {
				t.Skipf("%s not in DPLAB_DATA: %v", f.Path, err)
			}
			if damaged && strings.HasSuffix(f.Path, "_train.txt") {
				i := strings.IndexAny(string(b[200:]), "0123456789") + 200
				b[i] ^= 1 // another digit: the file still parses
			}
			p := filepath.Join(dir, filepath.FromSlash(f.Path))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	spec := filepath.Join(t.TempDir(), "verify.toml")
	if err := os.WriteFile(spec, []byte("name = \"verify\"\nseed = 1\ntrials = 1\nepsilon = [1]\ndelta = 1e-6\n\n"+
		"[[dataset]]\nname = \"concreteslump\"\n\n[[mechanism]]\nname = \"ridge\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())

	dir := place(true)
	train := filepath.Join(dir, "gaussmix", "concreteslump_train.txt")
	code, _, stderr := runMain(t, "run", "--data-dir", dir, "--out", filepath.Join(t.TempDir(), "damaged"), "-j", "1", spec)
	if code != 2 || !strings.Contains(stderr, train) || !strings.Contains(stderr, "SHA-256 mismatch") ||
		!strings.Contains(stderr, "dplab datasets fetch concreteslump") {
		t.Fatalf("damaged file: exit %d, stderr:\n%s\nwant exit 2 naming %s and the fix", code, stderr, train)
	}
	if code, _, stderr := runMain(t, "run", "--data-dir", place(false), "--out", filepath.Join(t.TempDir(), "intact"), "-j", "1", spec); code != 0 {
		t.Fatalf("intact file: exit %d, stderr:\n%s", code, stderr)
	}
}
