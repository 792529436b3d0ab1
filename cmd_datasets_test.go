package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dplab/dplab/datasets"
)

// runCLI runs dplab with args and returns the exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// sharedData returns $DPLAB_DATA or skips.
func sharedData(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("DPLAB_DATA")
	if dir == "" {
		t.Skip("DPLAB_DATA is not set: skipping the checks that need the shared data files")
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Skipf("DPLAB_DATA=%s is not a directory: skipping", dir)
	}
	return dir
}

func TestDatasetsUsageErrors(t *testing.T) {
	cases := [][]string{
		{"datasets"},
		{"datasets", "bogus"},
		{"datasets", "fetch"},
		{"datasets", "fetch", "adult", "--all"},
		{"datasets", "info"},
		{"datasets", "list", "extra"},
		{"datasets", "clean-cache", "extra"},
		{"datasets", "info", "no-such-data"},
		{"datasets", "verify", "no-such-data"},
		{"datasets", "verify", "--data-dir", "/nonexistent/dplab-data"},
		{"datasets", "info", "synthetic-linear", "--set", "bogus=1"},
		{"datasets", "info", "synthetic-linear", "--set", "n=-1"},
	}
	for _, args := range cases {
		code, _, stderr := runCLI(t, args...)
		if code != 2 || !strings.HasPrefix(stderr, "dplab datasets: ") {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and a one-line error", args, code, stderr)
		}
	}
	_, _, stderr := runCLI(t, "datasets", "info", "no-such-data")
	if !strings.Contains(stderr, "synthetic-linear") {
		t.Errorf("unknown dataset error does not list the known names: %q", stderr)
	}
}

// TestDatasetsCleanCache: clean-cache removes the parse cache's entries from
// the user cache directory, says how many, and leaves other files.
func TestDatasetsCleanCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := datasets.ParseCacheDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string]string{"0123.bin": "entry", "keep.txt": "other"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runCLI(t, "datasets", "clean-cache")
	if code != 0 || !strings.HasPrefix(stdout, "removed 1 parse cache files") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 || ents[0].Name() != "keep.txt" {
		t.Errorf("the cache directory holds %v, want keep.txt only", ents)
	}
}

func TestDatasetsListShowsEveryDataset(t *testing.T) {
	code, out, _ := runCLI(t, "datasets", "list", "--data-dir", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, in := range datasets.List() {
		if !strings.Contains(out, in.Name+" ") {
			t.Errorf("list lacks %s", in.Name)
		}
	}
	// Column widths follow the longest name; compare with blanks collapsed.
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"adult binary 45222 × 104", "missing adult/adult.data, adult/adult.test", "synthetic-linear", "built-in"} {
		if !strings.Contains(flat, want) {
			t.Errorf("list output lacks %q:\n%s", want, out)
		}
	}
}

func TestDatasetsInfoOnAGenerator(t *testing.T) {
	code, out, stderr := runCLI(t, "datasets", "info", "synthetic-logistic", "--set", "n=40", "--set", "d=3", "--data-dir", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"task:        binary", "all:   shape 40 × 3", "labels 0: ", "max row norm", "λ_min(XᵀX)"} {
		if !strings.Contains(out, want) {
			t.Errorf("info output lacks %q:\n%s", want, out)
		}
	}
}

// TestDatasetsVerifySharedFilesAreOK is issue 4's "Done when" 2, first half:
// every file of the shared data folder (MANIFEST.md aside) is a registered
// file and verifies OK.
func TestDatasetsVerifySharedFilesAreOK(t *testing.T) {
	t.Parallel()
	dir := sharedData(t)
	code, out, stderr := runCLI(t, "datasets", "verify", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
	ok := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "OK      "):
			ok[strings.TrimPrefix(line, "OK      ")] = true
		case strings.HasPrefix(line, "FAILED"):
			t.Errorf("verify: %s", line)
		}
	}
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(p) == "MANIFEST.md" {
			return err
		}
		n++
		if !ok[p] {
			t.Errorf("%s is not reported OK", p)
		}
		return nil
	})
	if n == 0 || len(ok) != n {
		t.Errorf("%d files reported OK, %d files in %s", len(ok), n, dir)
	}
}

// TestDatasetsVerifyCorruptedCopy is "Done when" 2, second half: a copy with
// one flipped byte is reported with the expected and actual checksums, and
// verify exits with code 2.
func TestDatasetsVerifyCorruptedCopy(t *testing.T) {
	shared := sharedData(t)
	dir := t.TempDir()
	for _, rel := range []string{"gaussmix/yacht_train.txt", "gaussmix/yacht_mask.txt"} {
		b, err := os.ReadFile(filepath.Join(shared, rel))
		if err != nil {
			t.Skipf("no %s in %s: %v", rel, shared, err)
		}
		if strings.HasSuffix(rel, "train.txt") {
			b[100] ^= 0x02
		}
		os.MkdirAll(filepath.Join(dir, "gaussmix"), 0o755)
		if err := os.WriteFile(filepath.Join(dir, rel), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	flipped, _ := os.ReadFile(filepath.Join(dir, "gaussmix/yacht_train.txt"))
	sum := sha256.Sum256(flipped)
	actual := hex.EncodeToString(sum[:])
	const expected = "dc2871f60f28086c6b12738fc053647f13b29d770013baaf6d3f5806e219b3cb" // MANIFEST §3
	code, out, stderr := runCLI(t, "datasets", "verify", "yacht", "--data-dir", dir)
	if code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	want := "FAILED  " + filepath.Join(dir, "gaussmix/yacht_train.txt") + ": SHA-256 mismatch of the content: expected " + expected + ", actual " + actual
	if !strings.Contains(out, want) {
		t.Errorf("verify output lacks\n%s\ngot:\n%s", want, out)
	}
	if !strings.Contains(out, "OK      "+filepath.Join(dir, "gaussmix/yacht_mask.txt")) || !strings.Contains(stderr, "1 file(s) failed verification") {
		t.Errorf("stdout:\n%s\nstderr: %s", out, stderr)
	}
}

// TestDatasetsVerifyUnverifiedFile: a present file without a registered
// checksum (HIGGS) is hashed and reported as not checksum-verified, with
// exit 0, by verify and info.
func TestDatasetsVerifyUnverifiedFile(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "higgs"), 0o755)
	row := "1.0" + strings.Repeat(",0.5", 28) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "higgs", "HIGGS.csv"), []byte(row+row), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "datasets", "verify", "higgs", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d, want 0: %s", code, stderr)
	}
	if !strings.Contains(out, "UNVERIFIED "+filepath.Join(dir, "higgs", "HIGGS.csv")) || !strings.Contains(out, "1 file(s) not checksum-verified") {
		t.Errorf("verify output:\n%s", out)
	}
	code, out, _ = runCLI(t, "datasets", "info", "higgs", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "present, NOT checksum-verified") {
		t.Errorf("info (exit %d):\n%s", code, out)
	}
}

// TestDatasetsFetchFromAMirror serves the shared folder over HTTP (a mirror
// laid out like a data directory) and fetches two datasets into an empty
// directory: every file is downloaded, verified and then reported present.
func TestDatasetsFetchFromAMirror(t *testing.T) {
	shared := sharedData(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(shared)))
	defer srv.Close()
	dir := t.TempDir()
	code, out, stderr := runCLI(t, "datasets", "fetch", "boston", "elevators", "--mirror", srv.URL, "--data-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, rel := range []string{"gaussmix/housing.txt", "gaussmix/elevators_train.txt.gz", "gaussmix/elevators_mask.txt"} {
		if !strings.Contains(out, "downloaded  "+filepath.Join(dir, rel)+"  from "+srv.URL) {
			t.Errorf("fetch output lacks the download of %s:\n%s", rel, out)
		}
	}
	code, out, _ = runCLI(t, "datasets", "fetch", "boston", "--mirror", srv.URL, "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "present     "+filepath.Join(dir, "gaussmix/housing.txt")) {
		t.Errorf("second fetch: exit %d\n%s", code, out)
	}
	if code, out, _ := runCLI(t, "datasets", "verify", "boston", "elevators", "--data-dir", dir); code != 0 || !strings.Contains(out, "3 OK, 0 failed, 0 absent") {
		t.Errorf("verify after fetch: exit %d\n%s", code, out)
	}
}

func TestDatasetsFetchWithoutSourceSaysWhereToPlaceTheFile(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCLI(t, "datasets", "fetch", "synthetic-l", "--data-dir", dir)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	want := "place it at " + filepath.Join(dir, "synthetic", "synthetic_l.csv")
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr %q lacks %q", stderr, want)
	}
	code, out, _ := runCLI(t, "datasets", "fetch", "synthetic-linear", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "nothing to fetch") {
		t.Errorf("generator fetch: exit %d, %q", code, out)
	}
	// A user file has no source either; before, fetching it printed
	// nothing at all.
	code, out, _ = runCLI(t, "datasets", "fetch", "features-csv", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "features-csv: your own file") || !strings.Contains(out, "nothing to fetch") {
		t.Errorf("user-file fetch: exit %d, %q", code, out)
	}
}
