package run

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/results"
)

// TestEstimate: Estimate on real trials times every row with trials to run
// (two trials of one cell at least), leaves a row with nothing to run
// untimed, stays within its budget beyond what it always times, and the
// wall estimate is Setup + Slowdown · Σ (ToRun·PerTrial +
// CellsToRun·PerCell) / jobs, with Slowdown ≥ 1 measured on 2 jobs.
func TestEstimate(t *testing.T) {
	s := spectest.MustParse(t, spectest.Valid)
	cells := spectest.Cells(t, s)
	// Store every trial of the last row: nothing of it to run.
	last := cells[len(cells)-1]
	var recs []results.Record
	for _, c := range cells {
		if c.Label == last.Label {
			for i := 0; i < c.Trials; i++ {
				recs = append(recs, results.Record{CellKey: c.Key, Trial: i, Status: results.StatusOK})
			}
		}
	}
	p, err := MakePlan(context.Background(), spectest.Plan(t, s), results.FromSlice(recs))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Estimate(context.Background(), Options{Cache: &DataCache{}, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	var work float64
	for _, row := range p.Rows {
		switch {
		case row.ToRun == 0:
			if row.Cost != nil {
				t.Errorf("%s: nothing to run, but timed: %+v", row.Label, row.Cost)
			}
			continue
		case row.Cost == nil:
			t.Fatalf("%s: %d to run, not timed", row.Label, row.ToRun)
		}
		if row.Cost.Cells < 1 || row.Cost.Timed < 2 || row.Cost.Failed != 0 || row.Cost.PerTrial <= 0 || row.Cost.PerCell < 0 {
			t.Errorf("%s: cost %+v, want ≥ 2 trials of ≥ 1 cell timed", row.Label, row.Cost)
		}
		work += float64(row.ToRun)*float64(row.Cost.PerTrial) + float64(row.CellsToRun)*float64(row.Cost.PerCell)
	}
	smp := p.Sample
	if smp.Jobs != 2 || smp.Slowdown < 1 || smp.Burst < 2 || smp.Spent-smp.Base > max(smp.Budget, 0)+smp.Spent/2 {
		t.Errorf("sample %+v", smp)
	}
	got, ok := p.EstimatedWall(2)
	if want := p.Setup + time.Duration(work*smp.Slowdown/2); !ok || got != want {
		t.Errorf("estimate %v (%v), want %v", got, ok, want)
	}
	if got, _ := p.EstimatedWall(1); got != p.Setup+time.Duration(work) {
		t.Errorf("on 1 job: %v, want %v (no slowdown alone)", got, p.Setup+time.Duration(work))
	}
}

// sweepSpec has a private row of five ε (cells 0–4) and a non-private row
// of one cell (cell 5), ten trials each, and an optional dataset.
const sweepSpec = `name = "sweep"
seed = 1
trials = 10
epsilon = [0.25, 0.5, 1, 2, 4]
delta = 1e-6
[[dataset]]
name = "synthetic-linear"
label = "Lin"
params = { n = 200, d = 3 }
[[mechanism]]
name = "adassp"
label = "AdaSSP"
[[mechanism]]
name = "ridge"
label = "Ridge"
`

// syntheticTrials is a timer of synthetic times: trial t of cell ci takes
// later[ci] (plus oneOff[ci] when t = 0) alone, and slow times as long
// when more than one run at once. It counts what it timed.
type syntheticTrials struct {
	later, oneOff []time.Duration
	slow          float64
	slowCell      map[int]float64 // a cell's own slowdown, when set
	mu            sync.Mutex
	calls         map[[2]int]int // (cell, together) → trials timed
}

func (f *syntheticTrials) time(_ context.Context, ci, t, together int) (time.Duration, bool, bool) {
	d := f.later[ci]
	if t == 0 {
		d += f.oneOff[ci]
	}
	if slow, ok := f.slowCell[ci]; ok && together > 1 {
		d = time.Duration(float64(d) * slow)
	} else if together > 1 {
		d = time.Duration(float64(d) * f.slow)
	}
	f.mu.Lock()
	f.calls[[2]int{ci, together}]++
	f.mu.Unlock()
	return d, false, true
}

// sweepPlan is the plan of sweepSpec with Setup 1 s and a timer of a
// trial 1.5× as long when two run at once, AdaSSP's cells taking later
// (and 8 ms more for a cell's first), Ridge's 2 ms (and 6 ms more).
func sweepPlan(t *testing.T, later ...time.Duration) (*Plan, *syntheticTrials) {
	t.Helper()
	s := spectest.MustParse(t, sweepSpec)
	p, err := MakePlan(context.Background(), spectest.Plan(t, s), results.FromSlice(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rows) != 2 || p.Rows[0].Label != "AdaSSP" || p.Rows[0].CellsToRun != 5 || p.Rows[1].CellsToRun != 1 {
		t.Fatalf("rows %+v", p.Rows)
	}
	p.Setup = time.Second
	ms := time.Millisecond
	return p, &syntheticTrials{
		later:  append(later, 2*ms),
		oneOff: []time.Duration{8 * ms, 8 * ms, 8 * ms, 8 * ms, 8 * ms, 6 * ms},
		slow:   1.5, calls: map[[2]int]int{},
	}
}

// TestEstimateModel: with synthetic trial times (a trial 1.5× as long when
// two run at once) and a budget large enough to time every cell, the
// estimate is exactly Setup + 1.5 · Σ rows (ToRun · mean per-trial time +
// CellsToRun · one-off time) / 2: 1 s + 1.5 · (50·12 ms + 5·8 ms + 10·2
// ms + 6 ms) / 2 = 1.4995 s; the slowdown is measured, not assumed.
// Before, the estimate assumed perfect parallelism (a 2× speedup on 2
// jobs) and timed only a row's first and last cell.
func TestEstimateModel(t *testing.T) {
	ms := time.Millisecond
	// AdaSSP's per-trial time grows with ε: 4, 8, …, 20 ms.
	p, f := sweepPlan(t, 4*ms, 8*ms, 12*ms, 16*ms, 20*ms)
	if err := p.estimate(context.Background(), 2, 1, time.Hour, f.time); err != nil {
		t.Fatal(err)
	}
	if s := p.Sample; s.Slowdown != 1.5 || s.SlowdownSE != 0 || s.Jobs != 2 || s.Burst != 9 {
		// AdaSSP's warm trial (12 ms) 9 times, to last 100 ms; Ridge's is
		// under minWarm.
		t.Errorf("sample %+v, want a slowdown of exactly 1.5 from 9 warm trials (108 ms alone)", s)
	}
	ada, ridge := p.Rows[0].Cost, p.Rows[1].Cost
	if ada.Cells != 5 || ada.PerTrial != 12*ms || ada.PerCell != 8*ms || ada.Timed != 10 {
		t.Errorf("AdaSSP: %+v, want all 5 cells timed (10 trials), 12 ms per trial, 8 ms per cell", ada)
	}
	if ridge.Cells != 1 || ridge.PerTrial != 2*ms || ridge.PerCell != 6*ms {
		t.Errorf("Ridge: %+v, want 2 ms per trial, 6 ms per cell", ridge)
	}
	wall, ok := p.EstimatedWall(2)
	if want := 1499500 * time.Microsecond; !ok || wall != want {
		t.Errorf("estimate %v, want %v", wall, want)
	}
	// Every cell's first two trials alone or in a wave of 2; the burst's
	// warm trials once alone and once together.
	for ci := range 6 {
		if n := f.calls[[2]int{ci, 1}] + f.calls[[2]int{ci, 2}]; n < 2 {
			t.Errorf("cell %d: %d trials timed, want ≥ 2", ci, n)
		}
	}
	// The per-trial spread over the five ε: sd of {4,…,20} ms = √40 ms,
	// standard error √8 ms; the range is two standard errors of the work.
	if want := time.Duration(math.Sqrt(8) * 1e6); ada.SE != want {
		t.Errorf("AdaSSP SE %v, want %v", ada.SE, want)
	}
	work := 50*12e6 + 5*8e6 + 10*2e6 + 6e6
	// Ridge's one cell is given AdaSSP's relative spread.
	cv := math.Sqrt(8) * math.Sqrt(5) / 12
	want := 2 * math.Sqrt(math.Pow(50*math.Sqrt(8)*1e6, 2)+math.Pow(10*cv*2e6, 2)) / work
	if got := p.Sample.RelErr; math.Abs(got-want) > 1e-6*want {
		t.Errorf("relative error %g, want %g", got, want)
	}
}

// TestEstimateBudget: beyond the two trials of one cell per row and the
// one wave of the slowdown it always times, the estimate times more cells
// only within its budget (share of the first prediction, at most the cap;
// the costs here are the same for every ε, so that a wave's predicted cost
// is its cost), and with no budget it times the middle ε of each row only
// and extrapolates from it exactly.
func TestEstimateBudget(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		share float64
		limit time.Duration
	}{{0, time.Hour}, {0.05, time.Hour}, {1, 60 * ms}, {1, 200 * ms}} {
		p, f := sweepPlan(t, 12*ms, 12*ms, 12*ms, 12*ms, 12*ms)
		if err := p.estimate(context.Background(), 2, tc.share, tc.limit, f.time); err != nil {
			t.Fatal(err)
		}
		s := p.Sample
		// Always: AdaSSP's middle cell (8+12+12 ms) and Ridge's (6+2+2 ms)
		// alone, then AdaSSP's warm trial alone until they last 100 ms
		// (9·12 ms; Ridge's is under minWarm) and on two workers at once
		// (1.5 times as long): 42 + 108 + 162 ms.
		if s.Base != 312*ms {
			t.Errorf("%+v: always timed %v, want 312ms", tc, s.Base)
		}
		if s.Spent-s.Base > s.Budget || s.Budget > tc.limit {
			t.Errorf("%+v: spent %v beyond the %v always timed, over the budget %v", tc, s.Spent-s.Base, s.Base, s.Budget)
		}
		// The first prediction: Setup + (50·12 + 5·8 + 10·2 + 6) ms / 2.
		if want := min(time.Duration(tc.share*float64(time.Second+333*ms)), tc.limit); s.Budget != want {
			t.Errorf("%+v: budget %v, want %v", tc, s.Budget, want)
		}
		if tc.share == 0 {
			ada := p.Rows[0].Cost
			if ada.Cells != 1 || ada.PerTrial != 12*ms || f.calls[[2]int{0, 1}]+f.calls[[2]int{4, 1}] != 0 {
				t.Errorf("no budget: AdaSSP %+v, want its middle cell (ε = 1) only", ada)
			}
			if wall, _ := p.EstimatedWall(2); wall != 1499500*time.Microsecond {
				t.Errorf("no budget: estimate %v", wall)
			}
			if !math.IsNaN(s.RelErr) {
				t.Errorf("no budget: relative error %g, want NaN (no row with two cells)", s.RelErr)
			}
		}
		// Each wave of two more AdaSSP cells costs 1.5 · (20 + 12) ms.
		wantCells := map[time.Duration]int{time.Hour: 3, 60 * ms: 3, 200 * ms: 5}[tc.limit]
		if tc.share == 0 {
			wantCells = 1
		}
		if n := p.Rows[0].Cost.Cells; n != wantCells {
			t.Errorf("%+v: %d AdaSSP cells timed, want %d", tc, n, wantCells)
		}
	}
}

// TestEstimateSkipsMissingData: a dataset whose files are absent, optional
// or not, is left out: its rows are not timed and count nothing, Skipped
// names it with the reason, and the estimate of the rest is unchanged.
// Before, a missing required dataset stopped the estimate, and an optional
// one's rows were timed on skip records and counted.
func TestEstimateSkipsMissingData(t *testing.T) {
	for _, optional := range []bool{true, false} {
		src := sweepSpec + "[[dataset]]\nname = \"wine\"\nlabel = \"Wine\"\n"
		if optional {
			src += "optional = true\n"
		}
		s := spectest.MustParse(t, src)
		p, err := MakePlan(context.Background(), spectest.Plan(t, s), results.FromSlice(nil))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Estimate(context.Background(), Options{Cache: &DataCache{}, DataDir: t.TempDir(), Jobs: 1}); err != nil {
			t.Fatalf("optional %v: %v", optional, err)
		}
		if why := p.Skipped["Wine"]; !strings.Contains(why, "winequality-red.csv") {
			t.Errorf("optional %v: skipped %v, want wine's missing file named", optional, p.Skipped)
		}
		var work time.Duration
		for _, row := range p.Rows {
			if row.Dataset == "Wine" {
				if row.Cost != nil {
					t.Errorf("optional %v: wine / %s timed: %+v", optional, row.Label, row.Cost)
				}
				continue
			}
			if row.Cost == nil {
				t.Fatalf("optional %v: %s not timed", optional, row.Label)
			}
			work += time.Duration(row.ToRun)*row.Cost.PerTrial + time.Duration(row.CellsToRun)*row.Cost.PerCell
		}
		if wall, ok := p.EstimatedWall(1); !ok || wall != p.Setup+work {
			t.Errorf("optional %v: estimate %v (%v), want %v without wine", optional, wall, ok, p.Setup+work)
		}
	}
}

// TestEstimateSlowdownShortTrials: a warm trial under minWarm (a memoised
// fit: Ridge's 1 ms, "3× as long" together) does not measure the slowdown
// while a longer one does: it is AdaSSP's 1.5 exactly. When all are that
// short they are used, weighed by their time: (50·1·1.5 + 50·1·2) / 100 =
// 1.75. It is at most the jobs (the trials taking turns on one CPU).
func TestEstimateSlowdownShortTrials(t *testing.T) {
	ms := time.Millisecond
	p, f := sweepPlan(t, 12*ms, 12*ms, 12*ms, 12*ms, 12*ms)
	f.later[5], f.slowCell = ms, map[int]float64{5: 3}
	if err := p.estimate(context.Background(), 2, 0, time.Hour, f.time); err != nil {
		t.Fatal(err)
	}
	if s := p.Sample; s.Slowdown != 1.5 || s.Burst != 9 || f.calls[[2]int{5, 2}] != 0 {
		t.Errorf("sample %+v, calls %v: want a slowdown of 1.5 from AdaSSP's warm trial alone", s, f.calls)
	}
	p, f = sweepPlan(t, ms, ms, ms, ms, ms)
	f.later[5], f.slowCell = ms, map[int]float64{5: 2}
	if err := p.estimate(context.Background(), 2, 0, time.Hour, f.time); err != nil {
		t.Fatal(err)
	}
	if s := p.Sample; s.Slowdown != 1.75 || s.Burst != 100 {
		t.Errorf("all short: sample %+v, want a slowdown of 1.75 from 100 warm trials", s)
	}
	p, f = sweepPlan(t, 12*ms, 12*ms, 12*ms, 12*ms, 12*ms)
	f.slow = 3
	if err := p.estimate(context.Background(), 2, 0, time.Hour, f.time); err != nil {
		t.Fatal(err)
	}
	if s := p.Sample; s.Slowdown != 2 {
		t.Errorf("3× as long together: slowdown %v, want 2 (the jobs)", s.Slowdown)
	}
}

// TestEstimateStrata: the rows of one mechanism on one dataset (here
// AdaSSP's two values of rho) are one stratum: with no budget only its
// row first in plan order is timed and the other takes its costs (0 cells
// of its own; 12 ms a trial where it really takes 20 ms); with a budget,
// the untimed row is timed first and the estimate is exact.
func TestEstimateStrata(t *testing.T) {
	ms := time.Millisecond
	s := spectest.MustParse(t, strings.Replace(sweepSpec, `label = "AdaSSP"`, `label = "AdaSSP"`+"\nparams = { rho = [1e-4, 1e-2] }", 1))
	for _, share := range []float64{0, 1} {
		p, err := MakePlan(context.Background(), spectest.Plan(t, s), results.FromSlice(nil))
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Rows) != 3 {
			t.Fatalf("rows %+v", p.Rows)
		}
		p.Setup = time.Second
		cells := p.grid.Cells()
		f := &syntheticTrials{slow: 1.5, calls: map[[2]int]int{}}
		for _, c := range cells {
			later, oneOff := 2*ms, 6*ms // Ridge
			switch c.Label {
			case p.Rows[0].Label:
				later, oneOff = 12*ms, 8*ms
			case p.Rows[1].Label:
				later, oneOff = 20*ms, 8*ms
			}
			f.later, f.oneOff = append(f.later, later), append(f.oneOff, oneOff)
		}
		if err := p.estimate(context.Background(), 2, share, time.Hour, f.time); err != nil {
			t.Fatal(err)
		}
		second := p.Rows[1].Cost
		wall, _ := p.EstimatedWall(2)
		switch share {
		case 0:
			if second.Cells != 0 || second.PerTrial != 12*ms || wall != 1979500*time.Microsecond {
				t.Errorf("no budget: %s %+v, estimate %v; want the first row's costs, 1.9795s", p.Rows[1].Label, second, wall)
			}
		case 1:
			if second.Cells != 5 || second.PerTrial != 20*ms || wall != 2279500*time.Microsecond {
				t.Errorf("budget: %s %+v, estimate %v; want its own costs, 2.2795s", p.Rows[1].Label, second, wall)
			}
		}
	}
}
