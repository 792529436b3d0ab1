package run

import (
	"context"
	"fmt"
	"math"
	"runtime/debug"
	"sync"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
)

// residentPerByte is about how much memory a run holds per byte of a
// dataset's values (datasets.Shape.Bytes) while its trials run: the loaded
// data, the fixed split's scaled copies, what the trials share and the
// garbage between collections. Measured (peak RSS less an empty run's 19
// MB, over the bytes) for synthetic-linear with ridge, -j 2: 3.6 at
// n·d = 10⁷ (82 MB: 315 MB peak), 3.5 at 5·10⁷ (408 MB: 1.44 GB), 4.8 at
// 10⁸ (808 MB: 3.88 GB).
const residentPerByte = 5

// planData checks the size of each dataset the run needs against the
// spec's limit (plan.CheckData, in the run's data directory), and decides
// how to load them: all at once, as before, unless together they would
// take more than budget bytes (0: memoryBudget) — then one at a time
// (dataGate).
func (r *runner) planData(need []bool, budget int64) error {
	var total, largest float64
	n := 0
	for i := range r.spec.Datasets {
		if !need[i] {
			continue
		}
		sh, err := plan.CheckData(r.spec, i, r.dataDir)
		if err != nil {
			return &spec.InputError{Err: err}
		}
		b := float64(sh.Bytes()) * residentPerByte
		total, largest, n = total+b, max(largest, b), n+1
	}
	what := "Options.DataMemory"
	if budget <= 0 {
		budget, what = memoryBudget()
	}
	if n < 2 || budget <= 0 || total <= float64(budget) {
		return nil
	}
	r.gate = &dataGate{resident: -1, free: make(chan struct{}), forget: r.forget,
		handed: make([]int, len(need)), finished: make([]int, len(need)), sealed: make([]bool, len(need))}
	bytes := func(x float64) string { return plan.ByteText(int64(min(x, math.MaxInt64))) }
	fmt.Fprintf(r.log, "the %d datasets would take about %s of memory at once, above the %s available to them (%s): loading one dataset at a time (the largest takes about %s)\n",
		n, bytes(total), plan.ByteText(budget), what, bytes(largest))
	return nil
}

// forget drops dataset i's data from the run and the cache (its loaded
// data, fixed split and pre-processed parts) and returns the memory to the
// system: collected now, the next dataset does not grow the heap towards
// the target set while this one was live before its garbage is found.
func (r *runner) forget(i int) {
	r.datasets[i] = datasetMemo{}
	r.cache.forget(r.dataDir, r.spec.Seed, r.spec.Datasets[i])
	debug.FreeOSMemory()
}

// scheduleTrials visits the pending trials in schedule's order; when the
// run loads one dataset at a time, dataset by dataset (each one's cells
// round-robin), telling the gate which dataset each trial needs and when a
// dataset has no trial left to hand out.
func (r *runner) scheduleTrials(cells []plan.Cell, todo func(ci, t int) bool, visit func(ci, t int) bool) {
	trials := func(ci int) int { return cells[ci].Trials }
	if r.gate == nil {
		schedule(len(cells), trials, r.trialRange, todo, visit)
		return
	}
	byData := make([][]int, len(r.spec.Datasets))
	for ci := range cells {
		byData[cells[ci].Dataset] = append(byData[cells[ci].Dataset], ci)
	}
	for di, idx := range byData {
		stopped := false
		schedule(len(idx), func(k int) int { return trials(idx[k]) }, func(k int) (int, int) { return r.trialRange(idx[k]) },
			func(k, t int) bool { return todo(idx[k], t) },
			func(k, t int) bool {
				r.gate.hand(di)
				stopped = !visit(idx[k], t)
				return !stopped
			})
		if stopped {
			return
		}
		r.gate.seal(di)
	}
}

// dataGate keeps at most one dataset of a run loaded: the trials come
// dataset by dataset (scheduleTrials), a dataset is loaded only once the
// one before it is released, and it is released (forgotten, its memory
// returned to the system) when the schedule has handed out its last trial
// and that trial has finished. A nil *dataGate lets every dataset load.
type dataGate struct {
	mu       sync.Mutex
	resident int           // the dataset holding the gate, or -1
	free     chan struct{} // closed when the gate is free
	forget   func(i int)
	handed   []int  // per dataset, the trials handed out
	finished []int  // and finished
	sealed   []bool // no trial of the dataset is left to hand out
}

// acquire waits until no other dataset holds the gate, then gives it to
// dataset i; ctx's error when cancelled first.
func (g *dataGate) acquire(ctx context.Context, i int) error {
	if g == nil {
		return nil
	}
	for {
		g.mu.Lock()
		if g.resident == -1 || g.resident == i {
			g.resident = i
			g.mu.Unlock()
			return nil
		}
		free := g.free
		g.mu.Unlock()
		select {
		case <-free:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// vacate frees the gate of dataset i, whose data did not load (nothing to
// release).
func (g *dataGate) vacate(i int) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.resident == i {
		g.open()
	}
}

// hand counts a trial of dataset i handed out; seal says none is left.
func (g *dataGate) hand(i int) {
	g.mu.Lock()
	g.handed[i]++
	g.mu.Unlock()
}

func (g *dataGate) seal(i int) {
	g.mu.Lock()
	g.sealed[i] = true
	g.releaseIfDone(i)
	g.mu.Unlock()
}

// done counts a finished trial of dataset i.
func (g *dataGate) done(i int) {
	if g == nil {
		return
	}
	g.mu.Lock()
	g.finished[i]++
	g.releaseIfDone(i)
	g.mu.Unlock()
}

// releaseIfDone releases dataset i when it holds the gate and its trials
// are all handed out and finished. (With g.mu held.)
func (g *dataGate) releaseIfDone(i int) {
	if g.resident != i || !g.sealed[i] || g.finished[i] < g.handed[i] {
		return
	}
	g.forget(i)
	g.open()
}

// open frees the gate. (With g.mu held.)
func (g *dataGate) open() {
	g.resident = -1
	close(g.free)
	g.free = make(chan struct{})
}
