package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/dplab/dplab/results"
)

// shardSpec is a small spec with uneven work: two mechanisms, a reference
// cell, 3 ε and 5 trials (35 trials: not a multiple of the 4 shards).
const shardSpec = `name = "sharded"
seed = 11
trials = 5
epsilon = [0.3, 1, 3]
delta = 1e-6
[[dataset]]
name = "synthetic-linear"
label = "Lin"
params = { n = 600, d = 5, seed = 2 }
[[mechanism]]
name = "adassp"
label = "AdaSSP"
[[mechanism]]
name = "adassp"
label = "AdaSSP calibrated"
params = { calibration = "accountant" }
[[mechanism]]
name = "ridge"
label = "Ridge"
[[figure]]
name = "mse"
metric = "test_mse"
`

// TestShardProcessesMergeMatchSingleRun (issue 15, Done when 1): the spec
// run as 4 shards by 4 concurrent dplab processes, then merged, stores the
// records of one -j 1 run, timing aside; a second merge adds nothing; with
// one shard's file deleted, merge exits non-zero naming exactly that
// shard's trials (dataset / label / ε / trial) and the shard.
func TestShardProcessesMergeMatchSingleRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds dplab and runs 4 shard processes: not under -short; CI runs it in make test-process")
	}
	bin := buildDplab(t)
	spec := writeFile(t, filepath.Join(t.TempDir(), "spec.toml"), shardSpec)
	single := filepath.Join(t.TempDir(), "single")
	if out, err := exec.Command(bin, "run", spec, "-j", "1", "--out", single).CombinedOutput(); err != nil {
		t.Fatalf("single run: %v\n%s", err, out)
	}
	want := recordSet(t, single)
	if len(want) != 35 {
		t.Fatalf("single run stored %d records, want 35", len(want))
	}
	dir := filepath.Join(t.TempDir(), "sharded")
	procs := make([]*exec.Cmd, 4)
	outs := make([]*bytes.Buffer, 4)
	for i := range procs {
		outs[i] = &bytes.Buffer{}
		procs[i] = exec.Command(bin, "run", spec, "-j", "1", "--out", dir, "--shard", fmt.Sprintf("%d/4", i))
		procs[i].Stdout, procs[i].Stderr = outs[i], outs[i]
		if err := procs[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, p := range procs {
		if err := p.Wait(); err != nil {
			t.Fatalf("shard %d: %v\n%s", i, err, outs[i])
		}
	}
	if _, err := os.Stat(filepath.Join(dir, results.TrialsFile)); err == nil {
		t.Fatal("a shard wrote the directory's store")
	}
	// Keep a copy of the shards for the gap check below.
	gapDir := filepath.Join(t.TempDir(), "gap")
	copyDir(t, filepath.Join(dir, results.ShardsDir), filepath.Join(gapDir, results.ShardsDir))

	for round := range 2 {
		out, err := exec.Command(bin, "merge", dir).CombinedOutput()
		if err != nil {
			t.Fatalf("merge %d: %v\n%s", round, err, out)
		}
		wantAdded := "35 added"
		if round == 1 {
			wantAdded = "0 added"
		}
		if !strings.Contains(string(out), wantAdded) || !strings.Contains(string(out), "no gaps") {
			t.Fatalf("merge %d output lacks %q:\n%s", round, wantAdded, out)
		}
		if got := recordSet(t, dir); !slices.Equal(got, want) {
			t.Fatalf("merge %d: the merged shards differ from the -j 1 run:\n%s\n%s", round, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	for _, f := range []string{"summary.csv", "spec.toml", "manifest.json", "figures/mse.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("merge did not write %s: %v", f, err)
		}
	}
	// dplab render works on the merged directory as after an unsharded run.
	if out, err := exec.Command(bin, "render", dir).CombinedOutput(); err != nil {
		t.Errorf("render of the merged directory: %v\n%s", err, out)
	}

	// Delete shard 2's records: merge names exactly its trials.
	lost, err := readShard(results.ShardPath(gapDir, 2, 4))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(results.ShardPath(gapDir, 2, 4)); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "merge", gapDir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); err == nil || code != 1 {
		t.Fatalf("merge with a shard missing: exit %d (%v), want 1\n%s%s", code, err, stdout.String(), stderr.String())
	}
	var wantLines, gotLines []string
	for _, r := range lost {
		eps := "non-private"
		if r.Label != "Ridge" {
			eps = fmt.Sprintf("ε=%g", float64(r.Epsilon))
		}
		wantLines = append(wantLines, fmt.Sprintf("  Lin / %s / %s / trial %d: missing", r.Label, eps, r.Trial))
	}
	for _, l := range strings.Split(stdout.String(), "\n") {
		if strings.HasPrefix(l, "  ") {
			gotLines = append(gotLines, l)
		}
	}
	sort.Strings(wantLines)
	sort.Strings(gotLines)
	if len(lost) == 0 || !slices.Equal(gotLines, wantLines) {
		t.Fatalf("merge named\n%s\nwant\n%s", strings.Join(gotLines, "\n"), strings.Join(wantLines, "\n"))
	}
	if !strings.Contains(stdout.String(), fmt.Sprintf("shard 2/4 (no shard file) should have produced %d trial(s)", len(lost))) ||
		!strings.Contains(stdout.String(), "--array=2") {
		t.Fatalf("merge does not name shard 2/4:\n%s", stdout.String())
	}
	if _, err := os.Stat(filepath.Join(gapDir, "summary.csv")); err == nil {
		t.Error("merge rendered despite missing trials")
	}
}

// copyDir copies the regular files of src into dst (created).
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runShards runs the shards ("i/N") of spec into dir in this process,
// failing t on a non-zero exit.
func runShards(t *testing.T, spec, dir string, shards ...string) {
	t.Helper()
	for _, sh := range shards {
		if code, _, errs := runMain(t, "run", spec, "--out", dir, "--shard", sh); code != 0 {
			t.Fatalf("run --shard %s: exit %d\n%s", sh, code, errs)
		}
	}
}

// TestMergeRefusesConflictsAndShardsWithoutManifest (issue 34, item 9): a
// shard record whose test_mse and ε spent were edited beside the original
// fails the merge with exit 2 naming the trial, both files and the fields,
// and nothing is appended; a shard file without its manifest (here another
// spec's, copied in) is refused with exit 2 naming it, before anything is
// written. Before, the first merged with a "DIFFER" warning and used the
// edited record, and the second appended the other spec's records.
func TestMergeRefusesConflictsAndShardsWithoutManifest(t *testing.T) {
	tmp := t.TempDir()
	spec := writeFile(t, filepath.Join(tmp, "cli.toml"), cliSpec)
	other := writeFile(t, filepath.Join(tmp, "other.toml"), strings.Replace(strings.Replace(cliSpec, `name = "cli"`, `name = "other"`, 1), "epsilon = [1]", "epsilon = [2]", 1))
	tampered := filepath.Join(tmp, "tampered")
	runShards(t, spec, tampered, "0/2", "1/2")
	b, err := os.ReadFile(results.ShardPath(tampered, 0, 2))
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(b), &r); err != nil {
		t.Fatal(err)
	}
	r["metrics"].(map[string]any)["test_mse"] = 1e-9
	r["privacy"].(map[string]any)["eps_spent"] = 0.001
	r["wall_s"] = 123.0
	line, _ := json.Marshal(r)
	f, err := os.OpenFile(results.ShardPath(tampered, 1, 2), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(append(line, '\n'))
	f.Close()
	code, out, errs := runMain(t, "merge", tampered)
	want := fmt.Sprintf("trial %.0f (cell %s): shards/shard-0-of-2.jsonl, shards/shard-1-of-2.jsonl differ in metrics.test_mse, privacy.eps_spent", r["trial"], r["cell_key"])
	if code != 2 || !strings.Contains(errs, "1 trial(s) have records that differ beyond timing") || !strings.Contains(errs, want) {
		t.Errorf("merge with an edited record: exit %d, want 2 and %q\n%s%s", code, want, out, errs)
	}
	if recs, err := results.Read(tampered, nil); err != nil || len(recs) != 0 {
		t.Errorf("the refused merge appended %d record(s) (%v)", len(recs), err)
	}

	orphan := filepath.Join(tmp, "orphan")
	runShards(t, spec, orphan, "0/2", "1/2")
	foreign := filepath.Join(tmp, "foreign")
	runShards(t, other, foreign, "0/3")
	b, err = os.ReadFile(results.ShardPath(foreign, 0, 3))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, results.ShardPath(orphan, 0, 3), string(b))
	before := snapshot(t, orphan)
	code, out, errs = runMain(t, "merge", orphan)
	if want := results.ShardPath(orphan, 0, 3) + " has no manifest"; code != 2 || !strings.Contains(errs, want) {
		t.Errorf("merge with a shard file without manifest: exit %d, want 2 and %q\n%s%s", code, want, out, errs)
	}
	if after := snapshot(t, orphan); after != before {
		t.Error("the refused merge changed the directory")
	}
	if err := os.Remove(results.ShardPath(orphan, 0, 3)); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runMain(t, "merge", orphan); code != 0 {
		t.Errorf("merge without the foreign file: exit %d\n%s%s", code, out, errs)
	}
}
