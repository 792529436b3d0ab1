package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dplab/dplab/results"
)

// buildDplab returns the dplab binary, built once per test binary (each
// go build relinks: about 2 CPU-seconds, a dozen times in make test-process)
// into a directory TestMain removes. The tests only execute it.
func buildDplab(t *testing.T) string {
	t.Helper()
	dplabBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "dplab-test-bin-")
		if err != nil {
			dplabBin.err = err
			return
		}
		dplabBin.dir, dplabBin.path = dir, filepath.Join(dir, "dplab")
		if out, err := exec.Command("go", "build", "-o", dplabBin.path, ".").CombinedOutput(); err != nil {
			dplabBin.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if dplabBin.err != nil {
		t.Fatal(dplabBin.err)
	}
	return dplabBin.path
}

// dplabBin is buildDplab's binary (or why it could not be built).
var dplabBin struct {
	once      sync.Once
	dir, path string
	err       error
}

// TestMain removes buildDplab's binary, quickAuditGridCopy's run and
// quickRun's runs after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range []string{dplabBin.dir, quickAuditGrid.dir, quickRunsDir.dir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

// readShard returns the records of a shard file.
func readShard(path string) ([]results.Record, error) {
	var recs []results.Record
	err := results.ScanShard(path, nil, func(r *results.Record) { recs = append(recs, *r) })
	return recs, err
}

// busySpec is 6000 cheap trials (a few seconds with -j 2): a store that grows
// by hundreds of records a second, so a second run that opened it without the
// lock would cut records the first is writing.
const busySpec = `name = "busy"
seed = 3
trials = 1000
epsilon = [0.1, 0.3, 1, 3, 10]
delta = 1e-6
[[dataset]]
name = "synthetic-linear"
params = { n = 3000, d = 20, seed = 1 }
split = { resample = true }
[[mechanism]]
name = "adassp"
[[mechanism]]
name = "ridge"
`

// background is a process started by startUntilLines.
type background struct {
	cmd  *exec.Cmd
	out  bytes.Buffer // its stdout and stderr; read it once it has ended
	done chan struct{}
	err  error // Wait's, once done is closed
}

// startUntilLines starts bin with args and returns once file holds n
// lines, failing t if the process ends first or 60 s pass. The process is
// killed, if still running, when t ends.
func startUntilLines(t *testing.T, file string, n int, bin string, args ...string) *background {
	t.Helper()
	b := &background{cmd: exec.Command(bin, args...), done: make(chan struct{})}
	b.cmd.Stdout, b.cmd.Stderr = &b.out, &b.out
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { b.err = b.cmd.Wait(); close(b.done) }()
	t.Cleanup(func() {
		b.cmd.Process.Kill()
		<-b.done
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		data, _ := os.ReadFile(file)
		if bytes.Count(data, []byte("\n")) >= n {
			return b
		}
		if !b.running() {
			t.Fatalf("%s ended (%v) before %s held %d lines:\n%s", strings.Join(args, " "), b.err, file, n, b.out.String())
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s held fewer than %d lines after 60 s", file, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// running reports whether the process has not ended yet.
func (b *background) running() bool {
	select {
	case <-b.done:
		return false
	default:
		return true
	}
}

// wait waits for the process to end and returns Wait's error.
func (b *background) wait() error {
	<-b.done
	return b.err
}

// TestSecondRunOnBusyDirRefused starts a real dplab run and, while it runs,
// a second one on the same --out (plain, then with --force). The second must
// exit 1 with the in-use message and change nothing; the first must store
// every trial exactly once, as an uninterrupted run does (issue 9, item 1:
// the second run used to truncate the store under the first, leaving NULs
// and ~20 lost records, and --force left the first writing to an unlinked
// file, with 0 records stored).
func TestSecondRunOnBusyDirRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("runs dplab five times as real processes")
	}
	bin := buildDplab(t)
	spec := writeFile(t, filepath.Join(t.TempDir(), "spec.toml"), busySpec)
	clean := filepath.Join(t.TempDir(), "clean")
	if out, err := exec.Command(bin, "run", spec, "-j", "2", "--out", clean).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	want := recordSet(t, clean)
	if len(want) != 6000 {
		t.Fatalf("uninterrupted run stored %d records, want 6000", len(want))
	}
	for _, extra := range [][]string{nil, {"--force"}} {
		t.Run("second run"+strings.Join(append([]string{""}, extra...), " "), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			// Start the second run once the store is large and growing.
			first := startUntilLines(t, filepath.Join(dir, results.TrialsFile), 1500, bin, "run", spec, "-j", "2", "--out", dir)
			specBefore, err := os.Stat(filepath.Join(dir, "spec.toml"))
			if err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(bin, append([]string{"run", spec, "-j", "1", "--out", dir}, extra...)...).CombinedOutput()
			if !first.running() {
				t.Fatal("the first run ended before the second did: make busySpec heavier")
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Errorf("second run: %v, want exit status 1\n%s", err, out)
			}
			msg := fmt.Sprintf("%s is in use by another dplab run (pid %d)", dir, first.cmd.Process.Pid)
			if !strings.Contains(string(out), msg) {
				t.Errorf("second run's output lacks %q:\n%s", msg, out)
			}
			// Nothing changed: spec.toml is not rewritten (a rewrite is a new
			// file), and no manifest exists until the first run ends.
			if specAfter, err := os.Stat(filepath.Join(dir, "spec.toml")); err != nil || !os.SameFile(specBefore, specAfter) {
				t.Errorf("the second run replaced spec.toml (%v)", err)
			}
			if _, err := os.Stat(filepath.Join(dir, results.ManifestFile)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the second run wrote %s (%v)", results.ManifestFile, err)
			}
			if err := first.wait(); err != nil {
				t.Fatalf("first run: %v\n%s", err, first.out.String())
			}
			got := recordSet(t, dir)
			if len(got) != len(want) {
				t.Fatalf("the store has %d records, want %d", len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("records differ from the uninterrupted run's:\n%s\n%s", got[i], want[i])
				}
			}
			m, err := results.ReadManifest(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Runs) != 1 || m.Runs[0].Status != "complete" || m.Runs[0].TrialsRun != 6000 {
				t.Errorf("manifest runs: %+v, want the first run alone, complete with 6000 trials", m.Runs)
			}
		})
	}
}

// TestSecondShardOnBusyShardRefused starts a real shard run (dplab run
// --shard 0/2) and, while it runs, the same shard again on the same --out.
// The second must exit 1 naming the shard and the first's pid; the first
// must store each of its 3000 trials exactly once, in a shard file of whole
// records, with one run in its manifest (issue 34, item 7: both exited 0
// and the shard file held interleaved bytes, so merge and resume exited 2).
func TestSecondShardOnBusyShardRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("runs dplab twice at once as real processes")
	}
	bin := buildDplab(t)
	spec := writeFile(t, filepath.Join(t.TempDir(), "spec.toml"), busySpec)
	dir := filepath.Join(t.TempDir(), "out")
	shardFile := results.ShardPath(dir, 0, 2)
	first := startUntilLines(t, shardFile, 500, bin, "run", spec, "-j", "2", "--out", dir, "--shard", "0/2")
	// Refused with the first's pid, the second ran while the first held
	// the shard.
	out, err := exec.Command(bin, "run", spec, "-j", "1", "--out", dir, "--shard", "0/2").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("second shard: %v, want exit status 1\n%s", err, out)
	}
	if msg := fmt.Sprintf("%s is in use by another dplab run --shard 0/2 (pid %d)", dir, first.cmd.Process.Pid); !strings.Contains(string(out), msg) {
		t.Errorf("second shard's output lacks %q:\n%s", msg, out)
	}
	if err := first.wait(); err != nil {
		t.Fatalf("first shard: %v\n%s", err, first.out.String())
	}
	var recs []results.Record
	if err := results.ScanShard(shardFile, nil, func(r *results.Record) { recs = append(recs, *r) }); err != nil {
		t.Fatalf("the shard file: %v", err)
	}
	seen := map[results.Key]bool{}
	for i := range recs {
		if recs[i].Status != results.StatusOK || seen[recs[i].Key()] {
			t.Fatalf("record %d: status %s, stored before: %v", i, recs[i].Status, seen[recs[i].Key()])
		}
		seen[recs[i].Key()] = true
	}
	if len(recs) != 3000 {
		t.Errorf("the shard file holds %d records, want 3000", len(recs))
	}
	m, err := results.ReadManifestFile(results.ShardManifestPath(dir, 0, 2))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Runs) != 1 || m.Runs[0].Status != "complete" || m.Runs[0].TrialsRun != 3000 {
		t.Errorf("shard manifest runs: %+v, want the first shard alone, complete with 3000 trials", m.Runs)
	}
}

// TestRenderDuringRunRefused starts a real dplab run (busySpec, 6000
// trials) and, while it stores trials, runs dplab render on its directory:
// the render must exit 1 naming the run and write nothing, and the outputs
// the run leaves must count every trial (issue 34, item 8: a render that
// overlapped the end of a run rewrote summary.csv, figures and tables from
// 332 of 2,100 trials, both exiting 0).
func TestRenderDuringRunRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("runs dplab and renders beside it as real processes")
	}
	bin := buildDplab(t)
	spec := writeFile(t, filepath.Join(t.TempDir(), "spec.toml"), busySpec)
	dir := filepath.Join(t.TempDir(), "out")
	// The render starts once the store is large and growing.
	run := startUntilLines(t, filepath.Join(dir, results.TrialsFile), 1500, bin, "run", spec, "-j", "2", "--out", dir)
	out, err := exec.Command(bin, "render", dir).CombinedOutput()
	if !run.running() {
		t.Fatal("the run ended before the render did: make busySpec heavier")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("render during the run: %v, want exit status 1\n%s", err, out)
	}
	if msg := fmt.Sprintf("%s is in use by another dplab run (pid %d)", dir, run.cmd.Process.Pid); !strings.Contains(string(out), msg) {
		t.Errorf("the render's output lacks %q:\n%s", msg, out)
	}
	for _, f := range []string{results.SummaryFile, "figures", "tables"} {
		if _, err := os.Stat(filepath.Join(dir, f)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the render wrote %s during the run (%v)", f, err)
		}
	}
	if err := run.wait(); err != nil {
		t.Fatalf("run: %v\n%s", err, run.out.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, results.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, b)
	count := slices.Index(rows[0], "count")
	if len(rows) != 1+6*2 || count < 0 { // 6 cells (5 ε and ridge's), 2 metrics
		t.Fatalf("summary.csv has %d rows: %q", len(rows), rows)
	}
	for _, row := range rows[1:] {
		if row[count] != "1000" {
			t.Errorf("summary.csv row counts %s trials, want 1000: %q", row[count], row)
		}
	}
}

// TestCorruptStoreExit2 checks that a store with a complete line that is not
// a record is bad input (exit 2) naming file and line for run, plan and
// render, and is left untouched; only an unfinished last line is repaired
// (issue 9, item 1: a corrupt last line used to be dropped as torn, and a
// corrupt middle line exited 1).
func TestCorruptStoreExit2(t *testing.T) {
	spec := writeFile(t, filepath.Join(t.TempDir(), "spec.toml"), cliSpec)
	tests := []struct {
		name    string
		corrupt func(lines []string) string // the store's new content from its two lines
		line    int                         // the corrupt line; 0: a torn line, repaired
	}{
		{"unparsable last line", func(l []string) string { return l[0] + l[1] + `{"schema":1,"cell_key":` + "\n" }, 3},
		{"corrupt middle line", func(l []string) string { return l[0] + "{oops\n" + l[1] }, 2},
		{"NUL line", func(l []string) string { return l[0] + l[1] + "\x00\x00\x00\x00\n" }, 3},
		{"torn last line", func(l []string) string { return l[0] + l[1] + `{"schema":1,"cell_key":` }, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			if code, _, errs := runMain(t, "run", spec, "--out", dir); code != 0 {
				t.Fatalf("run: %d\n%s", code, errs)
			}
			path := filepath.Join(dir, results.TrialsFile)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(string(b), "\n")
			if len(lines) != 3 || lines[2] != "" {
				t.Fatalf("store has %d lines, want 2", len(lines)-1)
			}
			content := tc.corrupt(lines[:2])
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.line == 0 {
				code, _, errs := runMain(t, "run", spec, "--out", dir)
				after, _ := os.ReadFile(path)
				if code != 0 || !strings.Contains(errs, "torn last line") || string(after) != lines[0]+lines[1] {
					t.Fatalf("torn line: exit %d, store %q\n%s", code, after, errs)
				}
				return
			}
			where := fmt.Sprintf("%s:%d:", path, tc.line)
			for _, args := range [][]string{{"run", spec, "--out", dir}, {"plan", spec, "--out", dir}, {"render", dir}} {
				code, _, errs := runMain(t, args...)
				if code != 2 || !strings.Contains(errs, where) || !strings.Contains(errs, "corrupt trial record") {
					t.Errorf("dplab %s: exit %d, want 2 with an error naming %s\n%s", args[0], code, where, errs)
				}
				if strings.Contains(errs, "panic") {
					t.Errorf("dplab %s panicked:\n%s", args[0], errs)
				}
			}
			if after, _ := os.ReadFile(path); string(after) != content {
				t.Errorf("the corrupt store was changed:\n%q\nwant\n%q", after, content)
			}
		})
	}
}

// TestOutForeignDirRefused checks that run, plan and render refuse, with
// exit 2 naming the directory, an --out that is a file, a path below a file
// or a directory of files that are not dplab's, and write nothing there
// (issue 9, item 9: rendering overwrote foreign files such as a summary.csv
// of one's own).
func TestOutForeignDirRefused(t *testing.T) {
	spec := writeFile(t, filepath.Join(t.TempDir(), "spec.toml"), cliSpec)
	foreign := t.TempDir()
	writeFile(t, filepath.Join(foreign, "summary.csv"), "my,own\n1,2\n")
	writeFile(t, filepath.Join(foreign, "spec.toml"), cliSpec)
	writeFile(t, filepath.Join(foreign, "notes", "todo.txt"), "keep me\n")
	file := writeFile(t, filepath.Join(t.TempDir(), "file"), "not a directory\n")
	belowFile := filepath.Join(file, "results")
	for _, target := range []string{foreign, file, belowFile} {
		root := target
		if target == belowFile {
			root = file
		}
		before := snapshot(t, root)
		for _, args := range [][]string{{"run", spec, "--out", target}, {"plan", spec, "--out", target}, {"render", spec, "--out", target}, {"render", target}} {
			if args[1] != foreign && args[0] == "render" && len(args) == 2 {
				continue // not a directory: render takes it for a spec
			}
			code, _, errs := runMain(t, args...)
			if code != 2 || !strings.Contains(errs, target+" is not a dplab run's result directory") {
				t.Errorf("dplab %s: exit %d, want 2 naming %s as not a result directory\n%s", strings.Join(args, " "), code, target, errs)
			}
		}
		if after := snapshot(t, root); after != before {
			t.Errorf("%s changed:\n%s\nwant\n%s", root, after, before)
		}
	}
	// An empty directory, and one dplab made, are fine.
	empty := t.TempDir()
	if code, _, errs := runMain(t, "run", spec, "--out", empty); code != 0 {
		t.Fatalf("run into an empty directory: exit %d\n%s", code, errs)
	}
	if code, _, errs := runMain(t, "run", spec, "--out", empty); code != 0 {
		t.Fatalf("rerun into a result directory: exit %d\n%s", code, errs)
	}
}

// snapshot lists every file under root with its mode and content.
func snapshot(t *testing.T, root string) string {
	t.Helper()
	var sb strings.Builder
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b := []byte{}
		if !d.IsDir() {
			if b, err = os.ReadFile(path); err != nil {
				return err
			}
		}
		fmt.Fprintf(&sb, "%s %v %q\n", path, info.Mode(), b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

// TestRunRefusesUnmergedShards: an unsharded run on a directory whose shard
// files hold trials not merged yet would run them again (and a later merge
// would hold two records of each): it refuses with exit 2 saying to merge,
// plan says the same, and after dplab merge the run goes on with the rest.
func TestRunRefusesUnmergedShards(t *testing.T) {
	spec := writeFile(t, filepath.Join(t.TempDir(), "spec.toml"), cliSpec)
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, errs := runMain(t, "run", spec, "--out", dir, "--shard", "0/2"); code != 0 {
		t.Fatalf("shard 0/2: exit %d\n%s", code, errs)
	}
	shardFile := results.ShardPath(dir, 0, 2)
	shardRecs, err := readShard(shardFile)
	if err != nil || len(shardRecs) == 0 {
		t.Fatalf("shard 0/2 wrote %d records: %v", len(shardRecs), err)
	}
	code, out, errs := runMain(t, "run", spec, "--out", dir)
	if want := fmt.Sprintf("%d trial(s) finished by shards are not merged into trials.jsonl yet (shard-0-of-2.jsonl): run 'dplab merge %s' first", len(shardRecs), dir); code != 2 || !strings.Contains(errs, want) {
		t.Fatalf("run beside unmerged shards: exit %d, want 2 and %q\n%s%s", code, want, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, results.TrialsFile)); err == nil {
		if recs, _ := results.Read(dir, nil); len(recs) != 0 {
			t.Errorf("the refused run stored %d records", len(recs))
		}
	}
	code, out, _ = runMain(t, "plan", spec, "--out", dir)
	if want := fmt.Sprintf("%d of the trials to run are finished in shard files not merged yet (shard-0-of-2.jsonl)", len(shardRecs)); code != 0 || !strings.Contains(out, want) {
		t.Errorf("plan: exit %d, want %q\n%s", code, want, out)
	}
	runMain(t, "merge", dir) // exit 1: shard 1/2's trials are gaps
	code, out, errs = runMain(t, "run", spec, "--out", dir)
	if want := fmt.Sprintf("%d stored before", len(shardRecs)); code != 0 || !strings.Contains(out, want) {
		t.Fatalf("run after the merge: exit %d, want %q\n%s%s", code, want, out, errs)
	}
	if code, out, _ = runMain(t, "plan", spec, "--out", dir); code != 0 || strings.Contains(out, "not merged") {
		t.Errorf("plan after the merge: exit %d, or it still reports unmerged trials:\n%s", code, out)
	}
}

// TestForceRefusesShardRecords: run --force on a directory whose shard files
// hold records of the forced cells refuses (exit 2, store untouched): the
// rerun would drop those cells from the store but not from DIR/shards, so a
// later dplab merge added every old record back as a duplicate of the rerun's
// and the last merged, the old one, was used. Once DIR/shards is deleted the
// forced run goes ahead.
func TestForceRefusesShardRecords(t *testing.T) {
	spec := writeFile(t, filepath.Join(t.TempDir(), "spec.toml"), cliSpec)
	dir := filepath.Join(t.TempDir(), "out")
	runShards(t, spec, dir, "0/2", "1/2")
	if code, _, errs := runMain(t, "merge", dir); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, errs)
	}
	before := snapshot(t, dir)
	code, out, errs := runMain(t, "run", spec, "--out", dir, "--force")
	want := fmt.Sprintf("--force reruns 2 trial(s) whose earlier records stay in shard files (shard-0-of-2.jsonl, shard-1-of-2.jsonl): a later 'dplab merge %s' would add them back beside the rerun's; delete or move %s first", dir, filepath.Join(dir, results.ShardsDir))
	if code != 2 || !strings.Contains(errs, want) {
		t.Fatalf("run --force beside merged shards: exit %d, want 2 and %q\n%s%s", code, want, out, errs)
	}
	if after := snapshot(t, dir); after != before {
		t.Errorf("the refused run changed %s", dir)
	}
	if err := os.RemoveAll(filepath.Join(dir, results.ShardsDir)); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runMain(t, "run", spec, "--out", dir, "--force"); code != 0 || !strings.Contains(out, "0 stored before, 2 run") {
		t.Fatalf("run --force without shards: exit %d, want 0 and 2 run\n%s%s", code, out, errs)
	}
}

// TestRunRefusesAnotherExperimentsDir: a run whose --out holds only another
// experiment's trials refuses (exit 2) and leaves that directory as it was
// (it mixed its records in and replaced the spec copy and summary); a
// renamed spec, whose cells are stored there, resumes.
func TestRunRefusesAnotherExperimentsDir(t *testing.T) {
	tmp := t.TempDir()
	spec := writeFile(t, filepath.Join(tmp, "spec.toml"), cliSpec)
	dir := filepath.Join(tmp, "out")
	if code, _, errs := runMain(t, "run", spec, "--out", dir); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errs)
	}
	other := writeFile(t, filepath.Join(tmp, "other.toml"), strings.Replace(strings.Replace(cliSpec, `name = "cli"`, `name = "other"`, 1), "n = 300", "n = 301", 1))
	before := snapshot(t, dir)
	code, _, errs := runMain(t, "run", other, "--out", dir)
	if want := `holds 2 trial(s) of experiment "cli" and none of "other"`; code != 2 || !strings.Contains(errs, want) {
		t.Errorf("run of another experiment: exit %d, want 2 and %q\n%s", code, want, errs)
	}
	if after := snapshot(t, dir); after != before {
		t.Errorf("the refused run changed %s", dir)
	}
	renamed := writeFile(t, filepath.Join(tmp, "renamed.toml"), strings.Replace(cliSpec, `name = "cli"`, `name = "cli_v2"`, 1))
	if code, out, errs := runMain(t, "run", renamed, "--out", dir); code != 0 || !strings.Contains(out, "2 stored before, 0 run") {
		t.Errorf("renamed spec: exit %d\n%s%s", code, out, errs)
	}
}

// outputsSpec is cliSpec with a figure and a table, so that render writes
// figures/ and tables/.
const outputsSpec = cliSpec + `
[[figure]]
name = "mse"
metric = "test_mse"
formats = ["svg"]

[[table]]
name = "mse"
metric = "test_mse"
formats = ["md"]
`

// TestCorruptManifestRepaired (issue 34, item 10): a manifest.json that does
// not parse no longer stops render, which warns naming it and renders the
// stored trials as the variant (here --quick) they are of; the next run
// warns and rewrites it from itself, and a merge rebuilds it from the
// shards' manifests. Before, render exited 1 every time and every run left
// the file as it was, until it was deleted by hand.
func TestCorruptManifestRepaired(t *testing.T) {
	spec := writeFile(t, filepath.Join(t.TempDir(), "spec.toml"), outputsSpec+"\n[quick]\ntrials = 1\n")
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, errs := runMain(t, "run", spec, "--quick", "--out", dir); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errs)
	}
	manifest := filepath.Join(dir, results.ManifestFile)
	corrupt := func(path string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(`{"experiment": "cli", "runs": [`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	corrupt(manifest)
	code, out, errs := runMain(t, "render", dir)
	if code != 0 || !strings.Contains(errs, "warning: results: "+manifest+" is not a readable manifest") || !strings.Contains(out, "wrote "+filepath.Join(dir, "figures", "mse.svg")) {
		t.Errorf("render with a corrupt manifest: exit %d, want 0, a warning naming it and the figure\n%s%s", code, out, errs)
	}
	if strings.Contains(errs, "incomplete") {
		t.Errorf("render took the --quick trials for an incomplete full run:\n%s", errs)
	}
	code, _, errs = runMain(t, "run", spec, "--quick", "--out", dir)
	if code != 0 || !strings.Contains(errs, manifest+" is not a readable manifest") || !strings.Contains(errs, "rewriting it from this run") {
		t.Errorf("rerun with a corrupt manifest: exit %d, want 0 and a warning that it is rewritten\n%s", code, errs)
	}
	m, err := results.ReadManifest(dir)
	if err != nil || len(m.Runs) != 1 || !m.Runs[0].Quick || m.Experiment != "cli" {
		t.Fatalf("the rewritten manifest: %+v, %v; want one --quick run of cli", m, err)
	}
	if code, _, errs := runMain(t, "render", dir); code != 0 || strings.Contains(errs, "warning") {
		t.Errorf("render after the rerun: exit %d\n%s", code, errs)
	}

	// A merged directory's manifest is rebuilt from the shards'.
	sharded := filepath.Join(t.TempDir(), "sharded")
	runShards(t, spec, sharded, "0/2", "1/2")
	if code, _, errs := runMain(t, "merge", sharded); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, errs)
	}
	corrupt(filepath.Join(sharded, results.ManifestFile))
	if code, _, errs := runMain(t, "merge", sharded); code != 0 || !strings.Contains(errs, "rebuilding it from the shards' manifests") {
		t.Errorf("merge with a corrupt manifest: exit %d\n%s", code, errs)
	}
	if m, err := results.ReadManifest(sharded); err != nil || len(m.Runs) != 2 {
		t.Errorf("the rebuilt manifest: %+v, %v; want the 2 shard runs", m, err)
	}
	// A shard's corrupt manifest stops the merge (it alone says what spec
	// the shard ran) until the shard's rerun rewrites it.
	corrupt(results.ShardManifestPath(sharded, 0, 2))
	if code, _, errs := runMain(t, "merge", sharded); code != 2 || !strings.Contains(errs, "rerun shard 0/2 to completion") {
		t.Errorf("merge with a corrupt shard manifest: exit %d, want 2 and the shard to rerun\n%s", code, errs)
	}
	if code, _, errs := runMain(t, "run", spec, "--out", sharded, "--shard", "0/2"); code != 0 || !strings.Contains(errs, "rewriting it from this run") {
		t.Errorf("rerun of shard 0/2: exit %d\n%s", code, errs)
	}
	if code, _, errs := runMain(t, "merge", sharded); code != 0 {
		t.Errorf("merge after the shard's rerun: exit %d\n%s", code, errs)
	}
}
