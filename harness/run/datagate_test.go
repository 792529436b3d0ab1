package run

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/results"
)

// gateSpec has three datasets (one split afresh in every trial) and a
// dataset-free cell layout: every dataset has the same mechanisms and ε.
const gateSpec = `name = "gate"
seed = 7
trials = 4
epsilon = [0.5, 2]
delta = 1e-6
[[dataset]]
name = "synthetic-linear"
label = "A"
params = { n = 600, d = 4, seed = 1 }
[[dataset]]
name = "synthetic-linear"
label = "B"
params = { n = 500, d = 3, seed = 2 }
split = { resample = true }
[[dataset]]
name = "synthetic-linear"
label = "C"
params = { n = 400, d = 5, seed = 3 }
[[mechanism]]
name = "adassp"
[[mechanism]]
name = "ridge"
`

// TestDatasetsLoadOneAtATime (issue 34, item 5): when the datasets a run
// needs would take more memory than its budget (Options.DataMemory), they
// are loaded one at a time — at most one is ever held (the cache's peak) —
// and each is forgotten once its trials are done; the records are those of
// a run that loads them all at once (which holds all three), timing aside,
// at -j 1 and -j 3. A run interrupted while a dataset waits its turn
// stores nothing for it and returns.
func TestDatasetsLoadOneAtATime(t *testing.T) {
	stripped := func(recs []results.Record) []string {
		var out []string
		for i := range recs {
			b, err := results.AppendRecord(nil, results.WithoutTiming(&recs[i]))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(b))
		}
		slices.Sort(out)
		return out
	}
	var want []string
	for _, tc := range []struct {
		budget int64
		jobs   int
		peak   int
	}{{0, 2, 3}, {1, 1, 1}, {1, 3, 1}, {40_000, 3, 1}} {
		cache := &DataCache{}
		var log bytes.Buffer
		dir := filepath.Join(t.TempDir(), "out")
		rep, err := Run(context.Background(), spectest.MustParse(t, gateSpec), Options{OutDir: dir,
			Cache: cache, Jobs: tc.jobs, DataMemory: tc.budget, Log: &log})
		if err != nil || rep.Ran != 3*3*4 {
			t.Fatalf("budget %d: %v (%+v)", tc.budget, err, rep)
		}
		serial := strings.Contains(log.String(), "loading one dataset at a time")
		if cache.peak != tc.peak || serial != (tc.peak == 1) || tc.peak == 1 && len(cache.resident) != 0 {
			t.Errorf("budget %d, -j %d: at most %d datasets loaded at once, %d at the end (want %d); log:\n%s", tc.budget, tc.jobs, cache.peak, len(cache.resident), tc.peak, log.String())
		}
		recs, err := results.Read(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := stripped(recs)
		if want == nil {
			want = got
		} else if !slices.Equal(got, want) {
			t.Errorf("budget %d, -j %d: the records differ from those of a run loading every dataset at once", tc.budget, tc.jobs)
		}
	}

	// Cancelled while the second dataset waits for the first: the run
	// returns, and nothing of the waiting trials is stored.
	ctx, cancel := context.WithCancel(context.Background())
	s := spectest.MustParse(t, gateSpec)
	r := newRunner(s, spectest.Cells(t, s), Options{Cache: &DataCache{}}, &bytes.Buffer{})
	if err := r.planData([]bool{true, true, true}, 1); err != nil || r.gate == nil {
		t.Fatalf("planData: %v, gate %v", err, r.gate)
	}
	if _, err := r.prepare(ctx, 0, rngs.Streams{}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		_, ok := r.trial(ctx, &r.cells[len(r.cells)-1], 0) // dataset C, while A holds the gate
		done <- fmt.Errorf("trial ok = %v", ok)
	}()
	cancel()
	if err := <-done; err.Error() != "trial ok = false" {
		t.Errorf("a trial waiting for its data when cancelled: %v, want not ok (nothing stored)", err)
	}
}
