package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/results"
)

// TestResumeLoadsOnlyDatasetsWithPendingTrials: a run loads a dataset only
// when some of its trials are still to run. Each dataset here is a user CSV
// file that the test deletes once its trials are stored; before, every run
// loaded every dataset, so a resume with nothing (or only another dataset's
// trials) to run failed on the deleted file. A dataset with pending trials
// is still loaded before any trial runs, and its missing file stops the run.
func TestResumeLoadsOnlyDatasetsWithPendingTrials(t *testing.T) {
	dir := t.TempDir()
	csv := func(name string) string {
		var b strings.Builder
		b.WriteString("f1,f2,label\n")
		for i := range 40 {
			fmt.Fprintf(&b, "%g,%g,%d\n", float64(i%7)/7, float64(i%5)/5, i%2)
		}
		p := filepath.Join(dir, name+".csv")
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := csv("a"), csv("b")
	dataset := func(label, path string) string {
		return fmt.Sprintf("\n[[dataset]]\nname = \"features-csv\"\nlabel = %q\nparams = { path = %q, header = true }\n", label, filepath.ToSlash(path))
	}
	mkSpec := func(trials int, datasets ...string) *spec.Spec {
		src := fmt.Sprintf("name = \"lazy\"\nseed = 3\ntrials = %d\nepsilon = [1]\ndelta = 1e-6\n", trials) +
			strings.Join(datasets, "") + "\n[[mechanism]]\nname = \"logreg\"\n"
		return spectest.MustParse(t, src)
	}
	out := filepath.Join(t.TempDir(), "out")
	run := func(s *spec.Spec) (*Report, error) {
		return Run(context.Background(), s, Options{OutDir: out, DataDir: dir, Cache: &DataCache{}, Jobs: 2})
	}
	if rep, err := run(mkSpec(2, dataset("A", a))); err != nil || rep.Ran != 2 {
		t.Fatalf("first run: %v (%+v)", err, rep)
	}
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	// A's trials are stored: only B's run, and A's file is not needed.
	rep, err := run(mkSpec(2, dataset("A", a), dataset("B", b)))
	if err != nil || rep.Ran != 2 || rep.Stored != 2 {
		t.Fatalf("run with B added: %v (%+v), want B's 2 trials run and A's 2 stored", err, rep)
	}
	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	// Nothing to run: no data needed.
	rep, err = run(mkSpec(2, dataset("A", a), dataset("B", b)))
	if err != nil || rep.PendingBefore != 0 || rep.Stored != 4 {
		t.Fatalf("resume of a finished run: %v (%+v), want nothing pending and 4 stored", err, rep)
	}
	// A third trial is pending on each dataset: A's missing file stops the
	// run before any trial.
	rep, err = run(mkSpec(3, dataset("A", a), dataset("B", b)))
	var in *spec.InputError
	if !errors.As(err, &in) || !strings.Contains(err.Error(), "a.csv") {
		t.Fatalf("a pending trial on a deleted file: err = %v, want an *InputError naming a.csv", err)
	}
	if rep != nil && rep.Ran+rep.Failed > 0 {
		t.Errorf("%d trials ran before the missing file was reported", rep.Ran+rep.Failed)
	}
}

// TestSkippedDatasetCountedOnce: the trials of an optional dataset without
// its files are skipped, not run: the progress bar counts only the trials
// run ("6/6 trials"), and the report says 6 run and 6 skipped, one count
// for each, with trial 0 of each skipped cell storing the reason. Before,
// the bar also counted those trial-0 records ("8/8 trials" beside "6 run,
// 6 skipped"; the --quick objpert_fig2 run: "63/63" beside "54 run, 18
// skipped") (issue 34, item 17).
func TestSkippedDatasetCountedOnce(t *testing.T) {
	s := spectest.MustParse(t, `name = "skip"
seed = 3
trials = 3
epsilon = [1, 2]
delta = 1e-6
[[dataset]]
name = "synthetic-linear"
params = { n = 200, d = 3 }
[[dataset]]
name = "wine"
optional = true
[[mechanism]]
name = "adassp"
`)
	var log strings.Builder
	off := false
	dir := filepath.Join(t.TempDir(), "out")
	rep, err := Run(context.Background(), s, Options{OutDir: dir, DataDir: t.TempDir(),
		Cache: &DataCache{}, Jobs: 2, Log: &log, Progress: &off})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ran != 6 || rep.Skipped != 6 || rep.PendingBefore != 6 {
		t.Errorf("report: %d run, %d skipped, %d pending before; want 6, 6, 6", rep.Ran, rep.Skipped, rep.PendingBefore)
	}
	if !strings.Contains(log.String(), "\n6/6 trials ") && !strings.HasPrefix(log.String(), "6/6 trials ") {
		t.Errorf("progress does not end at 6/6 trials:\n%s", log.String())
	}
	recs, err := results.Read(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	skips := 0
	for _, r := range recs {
		if r.Status == "skipped" {
			skips++
			if r.Trial != 0 || !strings.Contains(r.Error, "winequality-red.csv") {
				t.Errorf("skip record: trial %d, error %q", r.Trial, r.Error)
			}
		}
	}
	if skips != 2 {
		t.Errorf("%d skip records, want one per skipped cell (2)", skips)
	}
}

// TestFixedSplitReleasesLoadedData (issue 37, peak RSS): a dataset's loaded
// rows are dropped from the cache once every dataset of the run loaded as
// it is (same name and params) has made its fixed split, which copies
// them; a dataset split afresh in every trial keeps them. Before, the
// loaded rows stayed beside their scaled copies for the whole run
// (objpert_fig2 held Adult and Synthetic-H twice: 70 MB of its ~150 MB
// live heap). The spec is gateSpec (A, B resampled, C) with A split again
// in halves.
func TestFixedSplitReleasesLoadedData(t *testing.T) {
	s := spectest.MustParse(t, gateSpec+`[[dataset]]
name = "synthetic-linear"
label = "A, halves"
params = { n = 600, d = 4, seed = 1 }
split = { test = 0.5 }
`)
	cache := &DataCache{}
	r := newRunner(s, spectest.Cells(t, s), Options{Cache: cache}, &bytes.Buffer{})
	// held reports whether the cache holds dataset i's loaded data.
	held := func(i int) bool {
		key, hit := loadKey(r.dataDir, s.Datasets[i]), true
		cache.m.Do(key, func() (any, error) { hit = false; return nil, nil })
		if !hit {
			cache.m.Delete(key)
		}
		return hit
	}
	for i, want := range []bool{true, true, false, false} { // held after dataset i is ready
		m := r.ready(context.Background(), i)
		if m.err != nil {
			t.Fatal(m.err)
		}
		if held(i) != want {
			t.Errorf("after dataset %q is ready: loaded data held %v, want %v", s.Datasets[i].Label, held(i), want)
		}
		if s.Datasets[i].Split.Resample != (m.loaded != nil) || s.Datasets[i].Split.Resample == (m.fixed != nil) {
			t.Errorf("dataset %q: the run keeps loaded %v, fixed split %v", s.Datasets[i].Label, m.loaded != nil, m.fixed != nil)
		}
	}

	// A whole run (which readies the datasets in preload) ends with only
	// B's loaded data held. (The records are unchanged: the quick specs'
	// goldens, TestQuickSpecOutputsGolden.)
	cache = &DataCache{}
	r.cache = cache
	if rep, err := Run(context.Background(), s, Options{OutDir: filepath.Join(t.TempDir(), "out"), Cache: cache, Jobs: 2}); err != nil || rep.Ran == 0 || rep.Ran != rep.Total {
		t.Fatalf("run: %v (%+v)", err, rep)
	}
	if held(0) || !held(1) || held(2) || held(3) {
		t.Errorf("after the run: loaded data held %v, %v, %v, %v; want only B's", held(0), held(1), held(2), held(3))
	}
}
