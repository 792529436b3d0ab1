//go:build unix

package main

import (
	"bytes"
	"io/fs"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/dplab/dplab/results"
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
	// and the figure's and the table's caption files (.caption.md, .caption.tex)
	if files != 14 {
		t.Errorf("found %d files, want 14", files)
	}
}

// TestWriteErrorReportsWhatIsStored runs dplab under a file-size limit
// (RLIMIT_FSIZE: a write past it fails with EFBIG, as on a full disk) so
// that appending to its store fails midway: the run must exit non-zero and
// its report line must count the records in the store, not the trials it
// handed to the store, and say how many finished trials were not stored
// (issue 34, item 10: "1295 run, 0 failed … (0.0s)" while 1,290 records
// were stored).
func TestWriteErrorReportsWhatIsStored(t *testing.T) {
	if testing.Short() {
		t.Skip("runs dplab as a real process under a file-size limit")
	}
	bin := buildDplab(t)
	spec := writeFile(t, filepath.Join(t.TempDir(), "spec.toml"), busySpec)
	dir := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(bin, "run", spec, "-j", "2", "--out", dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// The child inherits the limit at fork; this process restores its own
	// at once.
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	limit := old
	limit.Cur = 256 << 10 // about 250 records of busySpec's 6000
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limit); err != nil {
		t.Fatal(err)
	}
	err := cmd.Start()
	if rerr := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); rerr != nil {
		t.Fatal(rerr)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Fatalf("the run succeeded under a 256 KB file-size limit:\n%s%s", stdout.String(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "file too large") {
		t.Errorf("the run's error does not name the failed write:\n%s", stderr.String())
	}
	recs, err := results.Read(dir, nil) // a torn last line is not a record
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]int{}
	for _, r := range recs {
		stored[r.Status]++
	}
	m := regexp.MustCompile(`(\d+) stored before, (\d+) run, (\d+) failed, (\d+) skipped`).FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("no report line:\n%s", stdout.String())
	}
	if m[1] != "0" || m[2] != strconv.Itoa(stored[results.StatusOK]) || m[3] != strconv.Itoa(stored[results.StatusFailed]) || m[4] != "0" {
		t.Errorf("report line %q; the store holds %d ok and %d failed records (%d in all)", m[0], stored[results.StatusOK], stored[results.StatusFailed], len(recs))
	}
	if lost := regexp.MustCompile(`; ([1-9]\d*) finished trial\(s\) not stored \(a write failed\)`); !lost.MatchString(stdout.String()) {
		t.Errorf("the report line does not say how many finished trials were not stored:\n%s", stdout.String())
	}
}
