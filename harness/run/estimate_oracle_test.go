package run

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/results"
)

// busyParams configures "test-wait", a non-private mechanism registered
// for the estimate's tests whose Fit waits MS milliseconds: its per-trial
// cost is known. It sleeps rather than spins, so that the test costs no
// CPU (the test suite is CPU-bound) and the wait is the same on a busy
// host. Serial makes every fit hold one lock while it waits, so that
// concurrent trials take turns: no speedup on any jobs.
type busyParams struct {
	MS     float64 `toml:"ms"`
	Serial bool    `toml:"serial"`
}

func (p busyParams) Validate() error {
	// 0 (unset) waits not at all: the conformance tests that run every
	// registered mechanism with its zero params (TestLedgerCheckMatchesRuns)
	// run this one too.
	if !(p.MS >= 0) || math.IsInf(p.MS, 1) {
		return fmt.Errorf("ms = %v, want finite and ≥ 0", p.MS)
	}
	return nil
}

type busyMech struct{ p busyParams }

// busyLock is held by a serial test-wait fit while it waits.
var busyLock sync.Mutex

func init() {
	mechanisms.Register(mechanisms.Info{Name: "test-wait", Title: "test: waits a set time", Ref: "none",
		Tasks: []datasets.Task{datasets.Regression}, Version: 1},
		func(p busyParams) (mechanisms.Mechanism, error) { return &busyMech{p}, nil }, busyParams{MS: 1})
}

// Fit implements mechanisms.Mechanism.
func (m *busyMech) Fit(ctx context.Context, train *datasets.Dataset, _ mechanisms.Budget, _ rngs.Streams) (*mechanisms.Release, error) {
	if m.p.Serial {
		busyLock.Lock()
		defer busyLock.Unlock()
	}
	select {
	case <-time.After(time.Duration(m.p.MS * float64(time.Millisecond))):
	case <-ctx.Done():
	}
	return &mechanisms.Release{Model: &mechanisms.Linear{Theta: make([]float64, train.Cols())}, Event: accounting.NonPrivate{}}, nil
}

// EventShapes implements mechanisms.Mechanism.
func (*busyMech) EventShapes(mechanisms.Budget) ([]accounting.Event, error) {
	return []accounting.Event{accounting.NonPrivate{}}, nil
}

// busySpec has test-wait (50 ms a trial; one cell: non-private) on two
// small synthetic datasets, two strata, trials each.
func busySpec(t *testing.T, trials int, serial bool) (*spec.Spec, *Plan) {
	t.Helper()
	src := fmt.Sprintf(`name = "wait"
seed = 1
trials = %d
epsilon = [1]
delta = 1e-5
[[dataset]]
name = "synthetic-linear"
label = "L3"
params = { n = 100, d = 3 }
[[dataset]]
name = "synthetic-linear"
label = "L4"
params = { n = 100, d = 4 }
[[mechanism]]
name = "test-wait"
label = "wait"
params = { ms = 50, serial = %v }
`, trials, serial)
	s := spectest.MustParse(t, src)
	p, err := MakePlan(context.Background(), spectest.Plan(t, s), results.FromSlice(nil))
	if err != nil {
		t.Fatal(err)
	}
	return s, p
}

// TestEstimateBusyOracle: on trials whose cost is known (test-wait: 50
// ms, 6 trials on each of two datasets), the estimated trials' wall time
// is the closed form within ±15%: 12·50 ms = 600 ms on 1 job; 300 ms on 2
// jobs (the waits overlap: a speedup of 2); 600 ms on 2 jobs when the fits
// hold one lock (they take turns: the measured slowdown is 2, no speedup,
// where perfect scaling would predict 300 ms). The whole estimate, writes
// and the last sync included, is within ±15% of an actual run's elapsed
// time on 2 jobs. A busy host delays a waiting trial's wake-up (by 17 ms
// at load 43 on 2 cores), so each case may take three attempts: a wrong
// model fails all three.
func TestEstimateBusyOracle(t *testing.T) {
	// The closed form leaves out a trial's own CPU work (a split, an
	// evaluation), which a host loaded far beyond its CPUs stretches by its
	// dilation (×28 at load 27 on 2 cores): there it does not hold.
	if l, ok := results.LoadAverage(); ok && l > 4*float64(runtime.NumCPU()) {
		t.Skipf("load average %.1f on %d CPUs: the closed form needs a host not loaded far beyond its CPUs", l, runtime.NumCPU())
	}
	const trials = 6
	for _, tc := range []struct {
		jobs   int
		serial bool
		want   time.Duration
	}{{1, false, 600 * time.Millisecond}, {2, false, 300 * time.Millisecond}, {2, true, 600 * time.Millisecond}} {
		name := fmt.Sprintf("-j %d, serial %v", tc.jobs, tc.serial)
		var errs []string
		for range 3 {
			if errs = busyAttempt(t, trials, tc.jobs, tc.serial, tc.want); len(errs) == 0 {
				break
			}
		}
		for _, e := range errs {
			t.Errorf("%s: %s", name, e)
		}
	}
}

// busyAttempt estimates busySpec on jobs and, when serial, runs it, and
// returns what is off.
func busyAttempt(t *testing.T, trials, jobs int, serial bool, want time.Duration) []string {
	var errs []string
	s, p := busySpec(t, trials, serial)
	// A budget of four times the prediction: enough for the slowdown's
	// burst of waiting trials (the host's loop, the fallback, would not see the
	// lock) in a test this short.
	if err := p.Estimate(context.Background(), Options{Cache: &DataCache{}, Jobs: jobs, EstimateShare: 4}); err != nil {
		t.Fatal(err)
	}
	got, _, ok := p.TrialsWall(jobs)
	if !ok || got < want*85/100 || got > want*115/100 {
		errs = append(errs, fmt.Sprintf("trials estimated %v (%v), want %v ± 15%% (slowdown %.2f, dilation %.2f; rows %+v, %+v)", got, ok, want, p.Sample.Slowdown, p.Sample.Dilation, p.Rows[0].Cost, p.Rows[1].Cost))
	}
	if !serial {
		return errs
	}
	wall, _ := p.EstimatedWall(jobs)
	rep, err := Run(context.Background(), s, Options{OutDir: filepath.Join(t.TempDir(), "out"), Cache: &DataCache{}, Jobs: jobs})
	if err != nil || rep.Ran != 2*trials {
		t.Fatalf("run %+v, %v", rep, err)
	}
	if r := float64(wall) / float64(rep.Elapsed); r < 0.85 || r > 1.15 {
		errs = append(errs, fmt.Sprintf("estimated %v, the run took %v: ratio %.2f, want 1 ± 0.15", wall, rep.Elapsed, r))
	}
	return errs
}
