package main

import (
	"path/filepath"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"

	"github.com/dplab/dplab/datasets"
)

// TestPlanEstimateTimesUnderRunGC: plan --estimate times its trials under
// the garbage-collector setting dplab run gives them (boundGC's
// runGCPercent, the headroom not reached by these small fits), not Go's
// default of 100, at which gaussmix_fig5's Gaussian mixing trials took
// 1.5–2 times as long in the estimate as in the run. The GC percent is
// read from runtime/metrics inside the trials' fits (AdaSSP's memoised
// statistics, seen through datasets.ObserveMemos).
func TestPlanEstimateTimesUnderRunGC(t *testing.T) {
	var mu sync.Mutex
	seen := map[uint64]int{}
	sample := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	stop := datasets.ObserveMemos(func(c datasets.MemoCall) {
		if !strings.HasPrefix(c.Key, "mechanisms/") {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		metrics.Read(sample)
		seen[sample[0].Value.Uint64()]++
	})
	defer stop()
	spec := writeFile(t, filepath.Join(t.TempDir(), "spec.toml"), cliSpec)
	code, out, errs := runMain(t, "plan", spec, "--out", filepath.Join(t.TempDir(), "out"), "--estimate", "-j", "1", "--keep=false")
	if code != 0 {
		t.Fatalf("plan --estimate: exit %d\n%s%s", code, out, errs)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 {
		t.Fatal("no fit's memoised statistic was seen: the test no longer observes the estimate's trials")
	}
	for gogc, n := range seen {
		if gogc != runGCPercent {
			t.Errorf("%d calls from the estimate's fits ran at GOGC %d, want the run's %d", n, gogc, runGCPercent)
		}
	}
}
