package run

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/results"
)

// verifySpec runs the non-private ridge once on Concrete Slump (two small
// registered files, gaussmix/concreteslump_{train,mask}.txt).
const verifySpec = `name = "verify"
seed = 1
trials = 1
epsilon = [1]
delta = "1e-6"

[[dataset]]
name = "concreteslump"

[[mechanism]]
name = "ridge"
`

// copyRegistered copies the dataset's registered files from $DPLAB_DATA into
// a fresh data directory, with modification times an hour ago (outside the
// verification cache's racy window), and returns the directory. It skips
// without DPLAB_DATA.
func copyRegistered(t *testing.T, name string) string {
	t.Helper()
	src := os.Getenv("DPLAB_DATA")
	if src == "" {
		t.Skip("DPLAB_DATA is not set: the test copies a registered data file")
	}
	e, err := datasets.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	for _, f := range e.Info.Files {
		b, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Skipf("%s not in DPLAB_DATA: %v", f.Path, err)
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// flipByte changes the first digit at or after offset i of the file at p
// into another digit (x ^ 1: 0↔1, 2↔3, …), in place, so the file still
// parses, and returns the file's new SHA-256.
func flipByte(t *testing.T, p string, i int) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for i < len(b) && (b[i] < '0' || b[i] > '9') {
		i++
	}
	if i == len(b) {
		t.Fatalf("%s: no digit after offset %d", p, i)
	}
	b[i] ^= 0x01
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestRunRefusesCorruptDataFile: a registered data file with one changed
// byte stops the run before any trial with an *InputError (exit 2) naming
// the file, the registered and the actual SHA-256 and the fix; before the
// fix the run succeeded and the manifest recorded the damaged file's hash.
func TestRunRefusesCorruptDataFile(t *testing.T) {
	dir := copyRegistered(t, "concreteslump")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	p := filepath.Join(dir, "gaussmix", "concreteslump_train.txt")
	actual := flipByte(t, p, 100)
	out := filepath.Join(t.TempDir(), "out")
	rep, err := Run(context.Background(), spectest.MustParse(t, verifySpec), Options{OutDir: out, DataDir: dir, Cache: &DataCache{}, Jobs: 1})
	var in *spec.InputError
	if !errors.As(err, &in) {
		t.Fatalf("run on a damaged file: err = %v (report %+v), want an *InputError", err, rep)
	}
	for _, want := range []string{p, "02d656757c818802065b8cd553fc80bd30212799d522de96c82d24b26fa70457", actual, "dplab datasets fetch concreteslump"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if rep != nil && rep.Ran+rep.Failed > 0 {
		t.Errorf("%d trials ran on the damaged file", rep.Ran+rep.Failed)
	}
}

// TestRunVerifiedDataCache: an intact copy runs; the manifest records the
// stored-byte SHA-256 of each verified file; a second run in a new process
// (a fresh DataCache reading the cache file) hashes no file and reads the
// dataset from the parse cache that the first run stored.
func TestRunVerifiedDataCache(t *testing.T) {
	dir := copyRegistered(t, "concreteslump")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	cacheFile := datasets.DefaultVerifyCachePath()
	for run := 0; run < 2; run++ {
		out := filepath.Join(t.TempDir(), "out")
		cache := &DataCache{}
		if _, err := Run(context.Background(), spectest.MustParse(t, verifySpec), Options{OutDir: out, DataDir: dir, Cache: cache, Jobs: 1}); err != nil {
			t.Fatal(err)
		}
		if want := int64(2 * (1 - run)); cache.verifyCache().Hashed() != want {
			t.Errorf("run %d: hashed %d files, want %d", run, cache.verifyCache().Hashed(), want)
		}
		if p := cache.parseCache(); p.Misses() != int64(1-run) || p.Hits() != int64(run) || p.Dir() != datasets.DefaultParseCacheDir() {
			t.Errorf("run %d: parse cache %s: %d misses, %d hits; want the parse stored by run 0 and read back by run 1", run, p.Dir(), p.Misses(), p.Hits())
		}
		if cache.verifyCache().Path() != cacheFile {
			t.Errorf("cache file %q, want %q", cache.verifyCache().Path(), cacheFile)
		}
		m, err := results.ReadManifest(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, rel := range []string{"gaussmix/concreteslump_train.txt", "gaussmix/concreteslump_mask.txt"} {
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(b)
			if got := m.Datasets[rel]; got != hex.EncodeToString(sum[:]) {
				t.Errorf("run %d: manifest %s = %q, want %x", run, rel, got, sum)
			}
		}
	}
	if b, err := os.ReadFile(cacheFile); err != nil || !strings.Contains(string(b), "concreteslump_train.txt") {
		t.Errorf("cache file %s: %v, %.200s", cacheFile, err, b)
	}
}
