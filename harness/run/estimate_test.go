package run

import (
	"cmp"
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
// trials' wall estimate on 2 jobs is Slowdown · Σ (ToRun·PerTrial +
// CellsToRun·PerCell + Shared) / 2, and less than half the dearest trial
// more (its list schedule's end), with Slowdown ≥ 1 measured on 2 jobs.
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
	// A share large enough for a later trial of every row: the host's
	// loop alone (200 ms on 2 jobs) outlasts these six trials of ~0.4 ms
	// by far.
	if err := p.Estimate(context.Background(), Options{Cache: &DataCache{}, Jobs: 2, EstimateShare: 1000}); err != nil {
		t.Fatal(err)
	}
	// The trials' list schedule on 2 workers ends within half the
	// dearest trial (a row's first, with its one-off and shared work) of
	// the work over 2 (Graham 1966: the last to end starts by then).
	var work, longest float64
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
		// The statistics the cells share count once (RowCost.Shared).
		work += float64(row.ToRun)*float64(row.Cost.PerTrial) + float64(row.CellsToRun)*float64(row.Cost.PerCell) + float64(row.Cost.Shared)
		longest = max(longest, float64(row.Cost.PerTrial+row.Cost.PerCell+row.Cost.Shared))
	}
	smp := p.Sample
	if smp.Jobs != 2 || smp.Slowdown < 1 || (smp.Burst < 2 && !smp.SlowdownOnLoop) || smp.Spent-smp.Base > smp.Budget+smp.Spent/2 {
		t.Errorf("sample %+v", smp)
	}
	if got, _, ok := p.TrialsWall(2); !ok || got < time.Duration(work*smp.Slowdown/2) || got > time.Duration((work+longest)*smp.Slowdown/2) {
		t.Errorf("trials on 2 jobs %v (%v), want %v to %v", got, ok, time.Duration(work*smp.Slowdown/2), time.Duration((work+longest)*smp.Slowdown/2))
	}
	if got, _, _ := p.TrialsWall(1); got != time.Duration(work) {
		t.Errorf("trials on 1 job: %v, want %v (no slowdown alone)", got, time.Duration(work))
	}
	// The writes: a record per trial to run, each timed on the sampled
	// trials' records, and a sync at the end.
	toRun := 0
	for _, row := range p.Rows {
		toRun += row.ToRun
	}
	if smp.PerRecord <= 0 || smp.Fsync <= 0 || p.Writes() != time.Duration(toRun)*smp.PerRecord {
		t.Errorf("writes %v: %v per record, %v per sync; want both measured, %d records", p.Writes(), smp.PerRecord, smp.Fsync, toRun)
	}
	if got, _ := p.EstimatedWall(2); got < p.Setup+time.Duration(work*smp.Slowdown/2)+3*smp.Fsync {
		t.Errorf("estimate %v, want at least datasets, trials and three syncs", got)
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
	loopSlow      float64         // the host's loop's slowdown, when not slow
	slowCell      map[int]float64 // a cell's own slowdown, when set
	// dil, when set, is the host's dilation: a trial's CPU time is its
	// time alone, and its wall time alone that too (never preempted).
	dil float64
	// wait, when set, is a trial's wait for a CPU over its CPU time: its
	// CPU time is its time alone, its wall time alone (1 + wait) times
	// that.
	wait float64
	// heavy, when set, multiplies the time of trial t of cell ci by
	// heavy[{ci, t}].
	heavy map[[2]int]float64
	// stall, when set, multiplies the time of the stallAt-th trial timed
	// together with others (from 1): a collection or a neighbour landing
	// in one window.
	stall    float64
	stallAt  int
	together int // trials timed together so far
	mu       sync.Mutex
	calls    map[[2]int]int // (cell, together) → trials timed
}

func (f *syntheticTrials) time(ctx context.Context, ci, t, together int) (time.Duration, time.Duration, time.Duration, bool, bool) {
	d := f.later[ci]
	if h, ok := f.heavy[[2]int{ci, t}]; ok {
		d = time.Duration(float64(d) * h)
	}
	if t == 0 {
		d += f.oneOff[ci]
	}
	// A deadline shorter than the trial stops it there.
	if end, ok := ctx.Deadline(); ok && d > time.Until(end) {
		return max(time.Until(end), 0), 0, -1, false, false
	}
	var cpu time.Duration
	wait := time.Duration(-1)
	if f.dil > 0 {
		cpu = d
	}
	if f.wait > 0 {
		cpu, wait = d, time.Duration(float64(d)*f.wait)
		d += wait
	}
	if slow, ok := f.slowCell[ci]; ok && together > 1 {
		d = time.Duration(float64(d) * slow)
	} else if together > 1 {
		d = time.Duration(float64(d) * f.slow)
	}
	f.mu.Lock()
	f.calls[[2]int{ci, together}]++
	if together > 1 {
		f.together++
		if f.together == f.stallAt {
			d = time.Duration(float64(d) * f.stall)
		}
	}
	f.mu.Unlock()
	return d, cpu, wait, false, true
}

// host is the synthetic host's loop: a dilation of dil (1 when unset),
// a slowdown of slow in each of three rounds, no time spent.
func (f *syntheticTrials) host(_ context.Context, jobs int, _ hostLoop) hostSample {
	h := hostSample{dilation: max(f.dil, 1)}
	if jobs > 1 {
		r := cmp.Or(f.loopSlow, f.slow)
		h.ratios = []float64{r, r, r}
	}
	return h
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
// estimate is exactly Setup + 1.5 · the trials' list schedule on 2
// workers (TrialsWall: each row's ToRun trials at its mean per-trial time,
// a cell's first with its one-off time): 1 s + 1.5 · ((50·12 ms + 5·8 ms +
// 10·2 ms + 6 ms) / 2 + 1 ms) = 1.501 s, the work over 2 and the end of
// the last round, its 2 ms Ridge trial on one worker; the slowdown is
// measured, not assumed.
// Before, the estimate assumed perfect parallelism (a 2× speedup on 2
// jobs) and timed only a row's first and last cell.
func TestEstimateModel(t *testing.T) {
	ms := time.Millisecond
	// AdaSSP's per-trial time grows with ε: 4, 8, …, 20 ms.
	p, f := sweepPlan(t, 4*ms, 8*ms, 12*ms, 16*ms, 20*ms)
	if err := p.estimate(context.Background(), 2, 1, time.Hour, f.time, f.host); err != nil {
		t.Fatal(err)
	}
	if s := p.Sample; s.Slowdown != 1.5 || s.SlowdownSE != 0 || s.Jobs != 2 || s.Burst != 9 {
		// AdaSSP's warm trial (12 ms) 9 times, to last 100 ms; Ridge's is
		// under minWarm.
		t.Errorf("sample %+v, want a slowdown of exactly 1.5 from 9 warm trials (108 ms alone)", s)
	}
	ada, ridge := p.Rows[0].Cost, p.Rows[1].Cost
	if ada.Cells != 5 || ada.PerTrial != 12*ms || ada.PerCell != 8*ms || ada.Timed < 10 {
		t.Errorf("AdaSSP: %+v, want all 5 cells timed (≥ 10 trials), 12 ms per trial, 8 ms per cell", ada)
	}
	if ridge.Cells != 1 || ridge.PerTrial != 2*ms || ridge.PerCell != 6*ms {
		t.Errorf("Ridge: %+v, want 2 ms per trial, 6 ms per cell", ridge)
	}
	wall, ok := p.EstimatedWall(2)
	if want := 1501 * time.Millisecond; !ok || wall != want {
		t.Errorf("estimate %v, want %v", wall, want)
	}
	// Every cell's first two trials alone or in a wave of 2; the burst's
	// warm trials once alone and once together.
	for ci := range 6 {
		if n := f.calls[[2]int{ci, 1}] + f.calls[[2]int{ci, 2}]; n < 2 {
			t.Errorf("cell %d: %d trials timed, want ≥ 2", ci, n)
		}
	}
	// Every cell of AdaSSP is sampled (f₁ = 1: no between-cell part) and a
	// cell's trials all cost alike (the within-cell part, once a cell has
	// two later trials timed, is 0): its per-trial time is exact, its
	// standard error 0. Ridge's one later trial does not tell its spread: a
	// coefficient of variation of 1 (AdaSSP's relative SE, 0, being less),
	// so the range is 2·10·2 ms over the work, 50·12 + 5·8 + 10·2 + 6 ms,
	// and within TargetRSE: the sampling stops there.
	want := 2 * 10 * 2.0 / (50*12 + 5*8 + 10*2 + 6)
	if ada.SE != 0 || ridge.SE != 0 || math.Abs(p.Sample.RelErr-want) > 1e-9*want {
		t.Errorf("SE %v and %v, relative error %g; want 0, 0 (unknown), %g", ada.SE, ridge.SE, p.Sample.RelErr, want)
	}
}

// TestEstimateFirstTrialsOverSlowdown: as TestEstimateModel, but the
// host's busy threads measure no slowdown (1) where the trials take 1.5×
// as long at once (their contention for memory): the first trials, timed
// two at once, count their times over the slowdown the warm trials
// measure, 1.5, and each cell's one-off work is exact (8 and 6 ms). Over
// the loop's, AdaSSP's first cell timed at once priced its one-off at
// 1.5·20 − 12 = 18 ms, Ridge's 1.5·8 − 2 = 10 ms.
func TestEstimateFirstTrialsOverSlowdown(t *testing.T) {
	ms := time.Millisecond
	p, f := sweepPlan(t, 4*ms, 8*ms, 12*ms, 16*ms, 20*ms)
	f.loopSlow = 1
	if err := p.estimate(context.Background(), 2, 2, time.Hour, f.time, f.host); err != nil {
		t.Fatal(err)
	}
	if s := p.Sample; s.Slowdown != 1.5 || s.SlowdownOnLoop {
		t.Fatalf("sample %+v, want the warm trials' slowdown, 1.5", s)
	}
	if ada, ridge := p.Rows[0].Cost, p.Rows[1].Cost; ada.PerCell != 8*ms || ridge.PerCell != 6*ms {
		t.Errorf("one-off work: AdaSSP %v, Ridge %v; want 8 ms, 6 ms", ada.PerCell, ridge.PerCell)
	}
}

// TestRowSpreadTwoStage: the variance of a row's per-trial time is the
// two-stage sample's (Cochran 1977, ch. 10), by hand: 2 of 5 cells
// sampled (f₁ = 0.4), one with later trials {10, 14} ms of its 9, the
// other {20} ms; the cells' means {12, 20} ms have variance 32 ms², the
// pooled within-cell variance is 8 ms² (the first cell's, for both): between
// = 0.6·32/2 = 9.6 ms², within = 0.4/2²·((1 − 2/9)·8/2 + (1 − 1/9)·8/1) =
// 92/90 ms².
func TestRowSpreadTwoStage(t *testing.T) {
	ms := func(v float64) trialTime { return trialTime{wall: time.Duration(v * 1e6), slow: 1} }
	nine := []int{1, 2, 3, 4, 5, 6, 7, 8, 9}
	rs := &rowSample{
		row:   &PlanRow{ToRun: 50, CellsToRun: 5},
		cells: []int{0, 1, 2, 3, 4},
		sampled: []*cellSample{
			{pos: 1, first: ms(30), later: []trialTime{ms(10), ms(14)}, order: nine},
			{pos: 3, first: ms(30), later: []trialTime{ms(20)}, order: nine},
		},
	}
	between, within := rs.spread(1)
	if want := 9.6e12; math.Abs(between-want) > 1e-9*want {
		t.Errorf("between %g ns², want %g", between, want)
	}
	if want := 92.0 / 90 * 1e12; math.Abs(within-want) > 1e-9*want {
		t.Errorf("within %g ns², want %g", within, want)
	}
	if pt, pc := rs.means(1); pt != 16e6 || pc != 14e6 {
		t.Errorf("per trial %g, per cell %g; want the cells' mean 16 ms and first's excess 14 ms", pt, pc)
	}
	// A cell whose later trials are all timed adds nothing within.
	rs.sampled[1].order = []int{1}
	if _, within := rs.spread(1); math.Abs(within-0.1*(7.0/9)*4*1e12) > 1e-3 {
		t.Errorf("within %g ns², want only the first cell's", within)
	}
}

// TestEstimateHeavyTrial: one trial in ten costs 20× (trial 1 of every
// cell, the one the estimate timed as each cell's only later trial: a
// Newton fallback of compare_classification's Synthetic-H × KST at ε = 1,
// 5.0 s against a median 0.24 s, priced its row at 12× its 90 s). With a
// budget of four times the first prediction, the trials' estimate is
// within ±15% of the closed form: AdaSSP's cells each 8 ms once + 9·12 ms + 20·12 ms, Ridge's
// 6 ms + 9·2 ms + 20·2 ms, on 2 jobs slowed 1.5×: 1.5·(5·356 + 64)/2 =
// 1.383 s. Before: 9.3 s (AdaSSP at 240 ms a trial from 3 cells).
func TestEstimateHeavyTrial(t *testing.T) {
	ms := time.Millisecond
	p, f := sweepPlan(t, 12*ms, 12*ms, 12*ms, 12*ms, 12*ms)
	f.heavy = map[[2]int]float64{}
	for ci := range 6 {
		f.heavy[[2]int{ci, 1}] = 20
	}
	if err := p.estimate(context.Background(), 2, 4, time.Hour, f.time, f.host); err != nil {
		t.Fatal(err)
	}
	want := time.Duration(1.5 * (5*356 + 64) / 2 * 1e6)
	got, _, ok := p.TrialsWall(2)
	if !ok || got < want*85/100 || got > want*115/100 {
		t.Errorf("trials %v (%v), want %v ± 15%% (rows %+v, %+v; sample %+v)", got, ok, want, p.Rows[0].Cost, p.Rows[1].Cost, p.Sample)
	}
}

// TestEstimateDilation: on a host whose load leaves this process a third
// of a CPU (Dilation 3), trials too short to be preempted while timed
// (their wall time alone is their CPU time) count three times their CPU
// time, alone and, times the slowdown, at once: the estimate is exactly
// Setup + 1.5 · 3 · ((50·12 + 5·8 + 10·2 + 6) ms / 2 + 1 ms) = 2.503 s
// (the list schedule's end, TestEstimateModel). Before, a
// run of thousands of microsecond trials under load took several times
// its estimate (gaussmix_fig4's Boston panel at load 46: 1.9 s of trials
// estimated at 0.2 s).
func TestEstimateDilation(t *testing.T) {
	ms := time.Millisecond
	p, f := sweepPlan(t, 12*ms, 12*ms, 12*ms, 12*ms, 12*ms)
	f.dil = 3
	if err := p.estimate(context.Background(), 2, 1, time.Hour, f.time, f.host); err != nil {
		t.Fatal(err)
	}
	if ada := p.Rows[0].Cost; ada.PerTrial != 36*ms || ada.PerCell != 24*ms || ada.Cells < 2 {
		t.Errorf("AdaSSP %+v, want 36 ms a trial and 24 ms a cell, from ≥ 2 cells", ada)
	}
	if s := p.Sample; s.Dilation != 3 || s.Slowdown != 1.5 {
		t.Errorf("sample %+v, want dilation 3, slowdown 1.5", s)
	}
	if wall, _ := p.EstimatedWall(2); wall != 2503*time.Millisecond {
		t.Errorf("estimate %v, want 2.503s", wall)
	}
}

// TestEstimateBudget: the datasets (Setup, 1 s here), the first trial of
// one cell per stratum, at once (AdaSSP's middle cell, 8+12 ms, 1.5× as
// long beside Ridge's, 6+2 ms: 30 ms), and a later trial of each alone (12
// and 2 ms) are always spent; all else,
// the slowdown's burst and further cells, is charged to the budget (share
// of the prediction less that floor, at least 0, at most the cap) and
// spends no more than it. With no budget (a share of 0, or of 5%: 75 ms,
// below the 1.044 s floor) the estimate extrapolates from those four
// trials exactly (the one-off work apart, the slowdown the host's loop's),
// and with a large one it times cells until their per-trial times' spread
// is small and is exact. Before, the later trials were charged to the
// budget: with none the first trials' one-off work was counted in every
// trial (1.81 s estimated where the work over 2 was 1.4995 s).
func TestEstimateBudget(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		share float64
		limit time.Duration
		cells int           // AdaSSP's cells timed
		wall  time.Duration // the estimate on 2 jobs
	}{
		{0, time.Hour, 1, 1501 * ms},    // 1 s + 1.5·((50·12 + 5·8 + 10·2 + 6)/2 + 1) ms (TestEstimateModel): two trials of each stratum's cell
		{0.05, time.Hour, 1, 1501 * ms}, // the same: 5% of it is below the floor
		{1, 19 * ms, 1, 1501 * ms},      // a new cell's first two trials (32 ms) do not fit
		{1, 60 * ms, 3, 1501 * ms},      // a wave of two more cells fits
		{1, time.Hour, 3, 1501 * ms},    // the same: their per-trial times agree, no spread left
	} {
		p, f := sweepPlan(t, 12*ms, 12*ms, 12*ms, 12*ms, 12*ms)
		if err := p.estimate(context.Background(), 2, tc.share, tc.limit, f.time, f.host); err != nil {
			t.Fatal(err)
		}
		s := p.Sample
		if s.Base != 44*ms || p.EstimateFloor() != time.Second+44*ms {
			t.Errorf("%+v: always timed %v, floor %v, want 44ms, 1.044s", tc, s.Base, p.EstimateFloor())
		}
		if s.Spent-s.Base > s.Budget || s.Budget > tc.limit {
			t.Errorf("%+v: spent %v beyond the %v always timed, over the budget %v", tc, s.Spent-s.Base, s.Base, s.Budget)
		}
		// The budget: share of the prediction after the later trials
		// (Setup + 1.5 · Σ ToRun·PerTrial + CellsToRun·PerCell over 2 jobs;
		// further cells' trials agree with it), less the floor.
		var work time.Duration
		for _, row := range p.Rows {
			work += time.Duration(row.ToRun)*row.Cost.PerTrial + time.Duration(row.CellsToRun)*row.Cost.PerCell
		}
		if want := min(max(time.Duration(tc.share*float64(time.Second+work*3/4))-time.Second-44*ms, 0), tc.limit); s.Budget != want {
			t.Errorf("%+v: budget %v, want %v", tc, s.Budget, want)
		}
		if s.Slowdown != 1.5 {
			t.Errorf("%+v: slowdown %v, want 1.5", tc, s.Slowdown)
		}
		if n := p.Rows[0].Cost.Cells; n != tc.cells {
			t.Errorf("%+v: %d AdaSSP cells timed, want %d", tc, n, tc.cells)
		}
		if wall, _ := p.EstimatedWall(2); wall != tc.wall {
			t.Errorf("%+v: estimate %v, want %v", tc, wall, tc.wall)
		}
		if s.Budget == 0 && (s.Spent != s.Base || s.Trials != 4 || !math.IsNaN(s.RelErr)) {
			t.Errorf("%+v: no budget, but %d trials timed in %v (floor %v), relative error %g; want the 2 first trials and a later one of each, NaN", tc, s.Trials, s.Spent, s.Base, s.RelErr)
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
			work += time.Duration(row.ToRun)*row.Cost.PerTrial + time.Duration(row.CellsToRun)*row.Cost.PerCell + row.Cost.Shared
		}
		if trials, _, ok := p.TrialsWall(1); !ok || trials != work {
			t.Errorf("optional %v: trials %v (%v), want %v without wine", optional, trials, ok, work)
		}
		if w := p.Writes(); w != 50*p.Sample.PerRecord+10*p.Sample.PerRecord {
			t.Errorf("optional %v: writes %v, want 60 records' (without wine's)", optional, w)
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
	if err := p.estimate(context.Background(), 2, 8, time.Hour, f.time, f.host); err != nil {
		t.Fatal(err)
	}
	if s := p.Sample; s.Slowdown != 1.5 || s.Burst != 9 || f.calls[[2]int{5, 2}] != 1 {
		t.Errorf("sample %+v, calls %v: want a slowdown of 1.5 from AdaSSP's warm trial alone (Ridge's timed at once only as its first, beside AdaSSP's)", s, f.calls)
	}
	p, f = sweepPlan(t, ms, ms, ms, ms, ms)
	f.later[5], f.slowCell = ms, map[int]float64{5: 2}
	if err := p.estimate(context.Background(), 2, 8, time.Hour, f.time, f.host); err != nil {
		t.Fatal(err)
	}
	if s := p.Sample; s.Slowdown != 1.75 || s.Burst != 100 {
		t.Errorf("all short: sample %+v, want a slowdown of 1.75 from 100 warm trials", s)
	}
	p, f = sweepPlan(t, 12*ms, 12*ms, 12*ms, 12*ms, 12*ms)
	f.slow = 3
	if err := p.estimate(context.Background(), 2, 8, time.Hour, f.time, f.host); err != nil {
		t.Fatal(err)
	}
	if s := p.Sample; s.Slowdown != 2 {
		t.Errorf("3× as long together: slowdown %v, want 2 (the jobs)", s.Slowdown)
	}
}

// TestEstimateStrata: the rows of one mechanism on one dataset (here
// AdaSSP's two values of rho) are one stratum: with no budget only the
// first and a later trial of its row first in plan order are timed and
// the other takes its costs (0 cells of its own); with a budget,
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
		if err := p.estimate(context.Background(), 2, share, time.Hour, f.time, f.host); err != nil {
			t.Fatal(err)
		}
		second := p.Rows[1].Cost
		wall, _ := p.EstimatedWall(2)
		switch share {
		case 0:
			// 1 s + 1.5·((50·12 + 5·8 + 50·12 + 5·8 + 10·2 + 6)/2 + 1) ms:
			// the first row's costs for both (and the list schedule's
			// end, Ridge's last 2 ms trial on one worker).
			if second.Cells != 0 || second.PerTrial != p.Rows[0].Cost.PerTrial || wall != 1981*ms {
				t.Errorf("no budget: %s %+v, estimate %v; want the first row's costs, 1.981s", p.Rows[1].Label, second, wall)
			}
		case 1:
			// 1 s + 1.5·((50·12 + 5·8 + 50·20 + 5·8 + 10·2 + 6)/2 + 9) ms:
			// its own costs, and the list schedule's end (its workers
			// end 18 ms apart).
			if second.Cells < 1 || second.PerTrial != 20*ms || wall != 2293*ms {
				t.Errorf("budget: %s %+v, estimate %v; want its own costs, 2.293s", p.Rows[1].Label, second, wall)
			}
		}
	}
}

// TestEstimateStrataPerBlock: two [[mechanism]] blocks of one mechanism
// (AdaSSP twice, the second 3× as dear, as objpert_fig2's honest DP-SGD
// tunes on ~15.4 candidates where its dishonest one tunes on 10) are two
// strata: with no budget each has its first and a later trial timed and
// its own costs, and the estimate is exact: 1 s + 1.5·((50·12 + 5·8 +
// 50·36 + 5·8 + 10·2 + 6)/2 + 11) ms = 2.896 s, the work over 2 and the
// list schedule's end (its last round's workers 22 ms apart). Before,
// they were one stratum
// and the second block took the first's costs.
func TestEstimateStrataPerBlock(t *testing.T) {
	ms := time.Millisecond
	src := strings.Replace(sweepSpec, "[[mechanism]]\nname = \"ridge\"",
		"[[mechanism]]\nname = \"adassp\"\nlabel = \"AdaSSP dear\"\nparams = { rho = 1e-2 }\n[[mechanism]]\nname = \"ridge\"", 1)
	s := spectest.MustParse(t, src)
	p, err := MakePlan(context.Background(), spectest.Plan(t, s), results.FromSlice(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rows) != 3 || p.Rows[1].Label != "AdaSSP dear" {
		t.Fatalf("rows %+v", p.Rows)
	}
	p.Setup = time.Second
	f := &syntheticTrials{slow: 1.5, calls: map[[2]int]int{}}
	for _, c := range p.grid.Cells() {
		later, oneOff := 2*ms, 6*ms // Ridge
		switch c.Label {
		case "AdaSSP":
			later, oneOff = 12*ms, 8*ms
		case "AdaSSP dear":
			later, oneOff = 36*ms, 8*ms
		}
		f.later, f.oneOff = append(f.later, later), append(f.oneOff, oneOff)
	}
	if err := p.estimate(context.Background(), 2, 0, time.Hour, f.time, f.host); err != nil {
		t.Fatal(err)
	}
	if dear := p.Rows[1].Cost; dear.Cells != 1 || dear.PerTrial != 36*ms || dear.PerCell != 8*ms {
		t.Errorf("AdaSSP dear: %+v, want its own cell timed (36 ms a trial, 8 ms a cell)", dear)
	}
	if wall, _ := p.EstimatedWall(2); wall != 2896*time.Millisecond {
		t.Errorf("estimate %v, want 2.896s", wall)
	}
}

// TestEstimateSlowdownStall: one trial timed at once stalls 10× (a
// garbage collection of a large heap, a neighbour's burst, in the one
// window at once): the slowdown is the median of five rounds (9 warm
// trials of 12 ms in segments of 1–2), each 1.5 but the stalled one's, so
// exactly 1.5. Before, one burst alone then one at once gave the slowest
// worker's 9 · 18 ms + 9 · 18 ms of stall over 108 ms: 3, at the bound 2.
func TestEstimateSlowdownStall(t *testing.T) {
	ms := time.Millisecond
	p, f := sweepPlan(t, 12*ms, 12*ms, 12*ms, 12*ms, 12*ms)
	f.stall, f.stallAt = 10, 1
	if err := p.estimate(context.Background(), 2, 8, time.Hour, f.time, f.host); err != nil {
		t.Fatal(err)
	}
	if s := p.Sample; s.Slowdown != 1.5 || s.Burst != 9 || s.SlowdownOnLoop {
		t.Errorf("sample %+v: want a slowdown of 1.5, the median of the rounds, from 9 warm trials", s)
	}
}

// TestEstimateSlowdownBurstSpan: warm trials of 200 µs (all under
// minWarm, so all used) are cycled until they last burstAlone alone, 500
// of them, before the same sequence runs on each worker at once: the
// slowdown is measured over many of a busy scheduler's time slices.
// Before, the burst stopped at 200 trials (40 ms here; 10–30 ms of
// gaussmix_authors_wine's trials, whose slowdown on 2 jobs was measured at
// the bound, 2.00, at load 8).
func TestEstimateSlowdownBurstSpan(t *testing.T) {
	us := time.Microsecond
	p, f := sweepPlan(t, 200*us, 200*us, 200*us, 200*us, 200*us)
	f.later[5] = 200 * us
	if err := p.estimate(context.Background(), 2, 8, time.Hour, f.time, f.host); err != nil {
		t.Fatal(err)
	}
	if s := p.Sample; s.Burst != 500 || s.Slowdown != 1.5 || s.SlowdownOnLoop {
		t.Errorf("sample %+v: want a burst of 500 warm trials (100 ms alone), slowdown 1.5", s)
	}
}

// TestEstimateWaveDeadline: a row with no cell of its own is predicted
// from its stratum's (AdaSSP at rho = 1e-4, 12 ms a trial) but costs far
// more (rho = 1e-2: 2 s a trial); its cell fits the budget by that
// prediction, so a wave times it, but under a deadline of what is left:
// the sampling spends at most its budget beyond what it always times.
// Before, the wave ran to its end: 6.28 s spent of a budget of 584 ms.
func TestEstimateWaveDeadline(t *testing.T) {
	ms := time.Millisecond
	s := spectest.MustParse(t, strings.Replace(sweepSpec, `label = "AdaSSP"`, `label = "AdaSSP"`+"\nparams = { rho = [1e-4, 1e-2] }", 1))
	p, err := MakePlan(context.Background(), spectest.Plan(t, s), results.FromSlice(nil))
	if err != nil {
		t.Fatal(err)
	}
	p.Setup = time.Second
	f := &syntheticTrials{slow: 1.5, calls: map[[2]int]int{}}
	for _, c := range p.grid.Cells() {
		later, oneOff := 2*ms, 6*ms // Ridge
		switch c.Label {
		case p.Rows[0].Label:
			later, oneOff = 12*ms, 8*ms
		case p.Rows[1].Label:
			later, oneOff = 2*time.Second, 0
		}
		f.later, f.oneOff = append(f.later, later), append(f.oneOff, oneOff)
	}
	if err := p.estimate(context.Background(), 2, 0.6, time.Hour, f.time, f.host); err != nil {
		t.Fatal(err)
	}
	smp := p.Sample
	if smp.Spent-smp.Base > smp.Budget {
		t.Errorf("spent %v beyond the %v always timed, over the budget %v", smp.Spent-smp.Base, smp.Base, smp.Budget)
	}
	if c := p.Rows[1].Cost; c.Cells != 0 {
		t.Errorf("%s: %+v, want no cell of its own (its wave stopped at the deadline)", p.Rows[1].Label, c)
	}
}

// TestEstimateDilationPooled: the dilation is pooled over every trial
// timed alone, weighed by CPU time, not decided by the first 100 ms loop:
// the loop says 9 (an unlucky window; it spends no time here), while the
// trials, 12 ms of CPU each and as long again waiting for a CPU, say 2.
// The short trials then count 2× their CPU time: the estimate is exactly
// 1 s + 1.5 · 2 · ((50·12 + 5·8 + 10·2 + 6) ms / 2 + 1 ms) = 2.002 s (the
// list schedule's end, TestEstimateModel). Before, the
// loop's 9 dilated every short trial (5.2255 s estimated).
func TestEstimateDilationPooled(t *testing.T) {
	ms := time.Millisecond
	p, f := sweepPlan(t, 12*ms, 12*ms, 12*ms, 12*ms, 12*ms)
	f.dil, f.wait = 9, 1
	if err := p.estimate(context.Background(), 2, 1, time.Hour, f.time, f.host); err != nil {
		t.Fatal(err)
	}
	if s := p.Sample; s.Dilation != 2 || s.Slowdown != 1.5 {
		t.Errorf("sample %+v, want dilation 2 (pooled), slowdown 1.5", s)
	}
	if wall, _ := p.EstimatedWall(2); wall != 2002*ms {
		t.Errorf("estimate %v, want 2.002s", wall)
	}
}

// TestEstimateWeighsTunedTrials: a tuned row's trials cost in proportion
// to their fits (private tuning's K, from 1 to 20 here, known before a
// trial runs: Plan.fits), and every trial timed over its weight prices the
// row's mean trial exactly (the ratio estimator: Σ cost / Σ fits is
// constant), however few are timed: AdaSSP's per-trial time is 12 ms times
// the mean fits of its 50 trials, its one-off 8 ms, its SE 0. Unweighted,
// the same sample priced it by the K its few timed trials happened to have
// (objpert_validation's and objpert_batch's DP-SGD rows read 1.11–1.24×
// their runs in six long-list rounds, the same fixed sample each time).
func TestEstimateWeighsTunedTrials(t *testing.T) {
	ms := time.Millisecond
	fits := func(ci, t int) int {
		if ci == 5 { // Ridge: untuned
			return 1
		}
		return 1 + (7*t+3*ci)%20
	}
	for _, weighed := range []bool{true, false} {
		p, f := sweepPlan(t, 12*ms, 12*ms, 12*ms, 12*ms, 12*ms)
		f.heavy = map[[2]int]float64{}
		var sum float64
		for ci := range 5 {
			for tr := range 10 {
				f.heavy[[2]int{ci, tr}] = float64(fits(ci, tr))
				sum += float64(fits(ci, tr))
			}
		}
		if weighed {
			p.fits = fits
		}
		if err := p.estimate(context.Background(), 2, 0.05, time.Hour, f.time, f.host); err != nil {
			t.Fatal(err)
		}
		ada := p.Rows[0].Cost
		want := 12 * ms * time.Duration(sum) / 50
		got := ada.PerTrial
		if weighed && (absDuration(got-want) > time.Microsecond || absDuration(ada.PerCell-8*ms) > time.Microsecond || ada.SE != 0) {
			t.Errorf("weighed: AdaSSP %+v, want %v per trial, 8 ms per cell, SE 0", ada, want)
		}
		if !weighed && absDuration(got-want) < want/20 {
			t.Errorf("unweighed: AdaSSP %v a trial from %d timed, within 5%% of %v: the case no longer shows the weights' use", got, ada.Timed, want)
		}
	}
}

func absDuration(d time.Duration) time.Duration { return max(d, -d) }
