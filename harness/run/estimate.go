package run

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/results"
)

// RowCost is the measured cost of one plan row's trials, as if run alone.
type RowCost struct {
	// PerTrial is the mean wall time of a trial after a cell's first: the
	// mean over the row's sampled cells of their later trials' mean (a
	// cell's first trial's when the cell has only one), each trial's time
	// over its weight, its fits over the row's mean (private tuning's K;
	// 1 untuned).
	PerTrial time.Duration
	// PerCell is the one-off work a cell's first trial adds (a
	// calibration, a pre-processing fit, a split's statistics shared by
	// the cell's trials): the sampled cells' mean excess of their first
	// trial over their later ones, ≥ 0.
	PerCell time.Duration
	// Shared is the work of the statistics the row's sampled cells
	// computed first and trials of other cells then used (a Gram matrix,
	// a data bound, a non-private fit, memoised on the training set): a
	// run does it once, however many cells use it, so it is left out of
	// PerCell and counted once for the dataset (memoLedger).
	Shared time.Duration
	Cells  int // cells sampled
	Timed  int // trials timed
	Failed int // timed trials that failed (their time counts)
	// SE is the standard error of PerTrial as a two-stage sample's (cells,
	// then their later trials; rowSample.spread); 0 when the row's sample
	// does not tell it (one cell of several, or no cell with two later
	// trials timed).
	SE time.Duration
}

// Sample describes what Estimate measured beyond the rows' costs.
type Sample struct {
	// Jobs is the concurrency the estimate is for.
	Jobs int
	// Slowdown is the measured wall time of trials run Jobs at once over
	// the same trials' wall time run alone (1 for Jobs = 1): what sharing
	// the CPUs, the memory and a busy host's cores costs each trial now.
	// The speedup of Jobs concurrent trials is Jobs / Slowdown.
	Slowdown float64
	// SlowdownSE is the standard error of Slowdown (0: not measured).
	SlowdownSE float64
	// SlowdownOnLoop is true when Slowdown was measured on busy threads
	// (measureHost: the median of LoopRounds rounds of a busy thread's
	// share of a CPU alone and with Jobs at once), no burst of warm trials
	// fitting in the budget.
	SlowdownOnLoop bool
	// LoopRounds is how many rounds the host's loop timed (hostWindows:
	// five, three or four in a small run).
	LoopRounds int
	// Trials is how many trials were timed; Burst the length of the
	// sequence of warm trials timed alone and again on each of Jobs
	// workers at once, for Slowdown.
	Trials, Burst int
	// Spent is the wall time of the timed trials, of the host's loop and
	// of timing the store and rendering, Base of it what Estimate always
	// spends (the first and a later trial of one cell per stratum, the
	// cells timed beside them (Filled), Tail and Loop, the host's loop),
	// and Budget what
	// it allowed beyond Base: Share of the prediction after those trials
	// less the floor (Plan.EstimateFloor: the process's start, the
	// datasets and Base), at least 0, at most SampleCap.
	Spent, Base, Budget, Loop time.Duration
	// Saved is what the later trials timed save the run when they are
	// kept (Plan.Kept; Options.EstimateKept): their wall times over Jobs.
	// The budget is then net of it.
	Saved, BaseSaved time.Duration // BaseSaved: of Saved, by Base's trials
	// Share is the share of the predicted run the estimate may spend
	// (Options.EstimateShare, SampleShare by default), and Blocks the
	// strata whose first trial it always times (a dataset's rows of one
	// [[mechanism]] block).
	Share  float64
	Blocks int
	// Filled is how many further cells' first trials Estimate timed beside
	// the blocks' first ones, on workers those left idle (in Base).
	Filled int
	// RelErr is the relative uncertainty of the trials' share of the
	// estimate (two standard errors, from the spread of the sampled cells'
	// per-trial times and of Slowdown); NaN when no row had two cells
	// sampled or some row none of its own.
	RelErr float64
	// Dilation is the wall time of a busy thread's CPU second here now:
	// Σ (CPU time + time waiting, runnable, for a CPU) / Σ CPU time over
	// the host's windows alone (measureHost: five of 4–20 ms) and every
	// trial timed alone (time asleep left out): 1 on an idle CPU, about 4 when the host's load leaves
	// this process a quarter of one. A timed trial shorter than shortTrial
	// counts as the larger of its wall time and its CPU time × Dilation (×
	// Slowdown when timed with others).
	Dilation float64
	// CPUShare is the CPUs the trials timed alone used: the process's CPU
	// time while they ran (their other threads', the garbage collector's
	// included) over their wall time; when none was timed alone, that of
	// the trials timed at once, each over the trials at once; 0: unknown.
	CPUShare float64
	// PerRecord is the time to encode and append one trial's record to a
	// store, and Fsync the time of one sync of it, both measured on the
	// records of the trials timed before the host's loop, in a temporary
	// store. StoreCost is the wall time of that timing (opening the store,
	// the records appended twice, a sync, its removal): about what storing
	// those trials in the result directory costs (KeepPays). Tail is the
	// wall time of timing the store and rendering those records (in Base).
	PerRecord, Fsync, StoreCost, Tail time.Duration
}

// SampleShare is the share of the predicted run that Estimate may spend
// from the process's start, its floor (the start, the datasets, the host's
// loop and the first and a later trial of one cell per stratum: always
// spent)
// included, and SampleCap the most it may spend beyond the floor.
// TargetRSE is the relative standard error of the trials' share of the
// estimate at which it stops timing further cells.
const (
	SampleShare = 0.05
	SampleCap   = 30 * time.Second
	TargetRSE   = 0.05
)

// burstAlone is the least time of the warm trials Estimate times alone to
// measure the slowdown (longer than a busy host's scheduling noise, for
// trials of any length: a cap of 200 trials cut the burst of
// gaussmix_authors_wine's 50–140 µs trials to 10–30 ms, a few time slices,
// and its slowdown on 2 jobs was measured at the bound, 2.00, at load 8),
// maxBurst a bound on the trials it times for it (a trial of a
// microsecond: the time bounds the burst first), and minWarm the shortest
// warm trial it prefers.
const (
	burstAlone = 100 * time.Millisecond
	maxBurst   = 1 << 20
	minWarm    = 5 * time.Millisecond
)

// trialTimer times trial t of cell ci while together trials (this one
// included) run at once: its wall time, the CPU time of the thread it ran
// on (0: unknown) and that thread's time waiting, runnable, for a CPU
// (threadWait; −1: unknown); ok is false when ctx was cancelled.
type trialTimer func(ctx context.Context, ci, t, together int) (wall, cpu, wait time.Duration, failed, ok bool)

// Estimate measures what p's pending trials cost on opt.Jobs concurrent
// trials (0: the CPUs; more than the CPUs gain nothing, trials being
// CPU-bound), storing nothing (Kept returns the trials it timed, for
// the caller to store). It loads the datasets once (p.Setup); an
// absent dataset, optional or not, is left out of the estimate and named
// in p.Skipped with the reason. Then:
//
//  1. times, Jobs at once (their times over the slowdown, as a run would
//     run them), the first trial of one cell of each stratum, a
//     dataset's rows of one [[mechanism]] block (a sweep of its params
//     makes a row of each value): the row's with the most trials to run, at the middle
//     of its ε values or sweep (a worker left with none while others run
//     times further cells of the strata whose first trial ended,
//     fillFirsts, stopped when the last ends). A row with no cell timed
//     takes its stratum's costs;
//  2. times a later trial of those cells alone, or Jobs at once when the
//     caller keeps them (the first of the cell's later trials in a fixed
//     shuffle: those timed are a random sample; more while they last less
//     than laterSpan), the cheapest first, each stopped at twice its
//     cell's first trial: a
//     row's PerTrial is from its cells' later trials, PerCell from the
//     first's excess;
//  3. times the store's writes and the rendering (opt.TimeRender) on the
//     records of those trials (Sample.Tail), then measures the host
//     (measureHost: the dilation of a busy thread, and the slowdown of
//     Jobs of them at once), in three to five rounds of windows sized to
//     what the share of the run that steps 1 and 2 predict leaves. Those
//     steps, the start, the datasets, the tail and the host's loop are
//     always spent (EstimateFloor); the
//     budget is the share (opt.EstimateShare, SampleShare by default) of
//     the estimate they give (p.Startup, p.Setup and the trials) less that
//     floor, at least 0, at most SampleCap;
//  4. when Jobs > 1, measures Slowdown, a trial's wall time when Jobs run
//     at once over its time alone, between 1 and Jobs: the parallel
//     efficiency of this machine now, a busy host's contention included
//     (measureSlowdown: on warm trials when they fit, else the host's
//     loop's);
//  5. while the budget lasts and the trials' share of the estimate has a
//     relative standard error above TargetRSE, times further trials, each
//     where the variance of the total falls most per second timed (rows
//     with no cell of their own first; a row whose spread its sample does
//     not tell counts a coefficient of variation of 1): a new cell of a
//     row, its first two trials, while the spread between the row's cells
//     dominates its variance (further ε values first), Jobs such at once,
//     their times divided by Slowdown; else laterTask more later trials of
//     its least-timed cell, alone; among those whose predicted cost fits
//     in what is left.
//
// Each trial timed is given to opt.Records once (as Run gives a stored
// record), for instance to time rendering them (opt.TimeRender, in step
// 3), and the records of steps 1 and 2 are appended to a temporary store
// to time a record's writing and a sync (Sample.PerRecord, Sample.Fsync).
// EstimatedWall turns the result into a wall time.
func (p *Plan) Estimate(ctx context.Context, opt Options) error {
	s, cells := p.grid.Spec(), p.grid.Cells()
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	r := newRunner(s, cells, opt, log)
	p.keeps, p.fill = opt.EstimateKept, true
	memos := newMemoLedger()
	defer datasets.ObserveMemos(memos.observe)()
	p.memos = memos
	start := time.Now()
	skipped, err := loadForEstimate(r)
	if err != nil {
		return err
	}
	p.Setup = time.Since(start)
	p.Skipped = skipped
	jobs := opt.Jobs
	if jobs <= 0 || jobs > runtime.NumCPU() {
		jobs = runtime.NumCPU()
	}
	var mu sync.Mutex
	var aloneProc, aloneWall time.Duration // for Sample.CPUShare
	// Of trials timed at once: the process's CPU time while each ran over
	// the trials at once (it counts theirs too), and their wall time; the
	// CPU share when none was timed alone (a spec of first trials only).
	var onceProc, onceWall time.Duration
	given := map[results.Key]bool{}
	timer := func(ctx context.Context, ci, t, together int) (time.Duration, time.Duration, time.Duration, bool, bool) {
		c := &cells[ci]
		// Alone, the trial is locked to its thread, whose CPU time and
		// wait for a CPU are then the trial's. At once it is not, as a
		// run's trials are not (its CPU time is then unknown, 0): on 2
		// idle CPUs, compare_regression's warm trials locked to their
		// threads took 1.1–1.8× as long two at once as alone (medians
		// of five rounds), unlocked 1.00× in three estimates of three,
		// and its GaussMix MLP panel's trials took as long in a run at
		// -j 2 as at -j 1 (Σ wall_s 12.85 and 12.7 s). Why locking costs
		// so at once is not known here.
		w0, p0, c0 := time.Duration(-1), processCPU(), time.Duration(-1) // the thread's alone only
		if together == 1 {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			w0, c0 = threadWait(), threadCPU()
		}
		memos.begin(ci, t)
		defer memos.end(ci, t)
		t0 := time.Now()
		var rec results.Record
		var ok bool
		if c.Audit != nil { // on one worker: the estimate divides by the jobs
			rec, ok = auditTrial(ctx, s, c, 1, io.Discard)
		} else {
			rec, ok = r.trial(ctx, c, t)
		}
		d := time.Since(t0)
		cpu, wait := time.Duration(0), time.Duration(-1)
		if c0 >= 0 {
			cpu = threadCPU() - c0
		}
		if w0 >= 0 {
			wait = threadWait() - w0
		}
		if p1 := processCPU(); p0 >= 0 && p1 >= 0 {
			mu.Lock()
			if together == 1 {
				aloneProc, aloneWall = aloneProc+p1-p0, aloneWall+d
			} else {
				onceProc, onceWall = onceProc+(p1-p0)/time.Duration(together), onceWall+d
			}
			mu.Unlock()
		}
		if ok {
			mu.Lock()
			if k := rec.Key(); !given[k] {
				given[k] = true
				p.kept = append(p.kept, rec)
				if opt.Records != nil {
					stored := r.asStored(&rec)
					opt.Records(&stored)
				}
			}
			mu.Unlock()
		}
		if !ok {
			memos.forget(ci, t) // a stopped trial counts nothing
		}
		return d, cpu, wait, rec.Status == results.StatusFailed, ok
	}
	// The host's dilation and slowdown on busy threads; estimate pools the
	// dilation with the trials timed alone and prefers a slowdown measured
	// on warm trials when they fit its budget.
	host := func(ctx context.Context, jobs int, loop hostLoop) hostSample {
		return measureHost(ctx, jobs, loop, spinWindows)
	}
	// The store's writes and the rendering, timed on the records of the
	// trials timed before the host's loop (every block's).
	p.fits = func(ci, t int) int { return r.trialFits(&cells[ci], t) }
	p.tail = func(dil float64) (tt tailTimes, err error) {
		t0 := time.Now()
		if tt.perRecord, tt.fsync, err = timeWrites(p.kept, dil); err != nil {
			return tt, err
		}
		tt.store = time.Since(t0)
		if opt.TimeRender != nil {
			tt.render, err = opt.TimeRender()
		}
		return tt, err
	}
	err = p.estimate(ctx, jobs, cmp.Or(opt.EstimateShare, SampleShare), SampleCap, timer, host)
	p.memos, p.tail, p.fits = nil, nil, nil // the rows' costs hold what memos told; it holds the datasets
	if err != nil {
		return err
	}
	switch {
	case aloneWall > 0:
		p.Sample.CPUShare = cpuShare(aloneProc, aloneWall, runtime.NumCPU())
	case onceWall > 0:
		p.Sample.CPUShare = cpuShare(onceProc, onceWall, runtime.NumCPU())
	}
	return nil
}

// tailTimes is what timing a run's tail measured on the records of the
// trials timed so far: a record's writing and a sync (timeWrites), the
// wall time of that timing (store: about what storing those records in
// the result directory costs), and rendering them (Options.TimeRender).
type tailTimes struct {
	perRecord, fsync, store, render time.Duration
}

// cpuShare is the CPUs a process used, its CPU time proc over the wall
// time, at most cpus: the process's CPU time counts its other threads'
// (the collector's) as the kernel brings it up to date, a clock tick at a
// time, so windows of a few µs (the floor's micro-trials) may be charged
// a tick of it (2.4 CPUs of 2 were measured so under the race detector).
func cpuShare(proc, wall time.Duration, cpus int) float64 {
	return min(float64(proc)/float64(wall), float64(cpus))
}

// timeWrites appends recs to a store in a temporary directory, removed
// after, twice, and returns the time per record of the second pass (the larger of its wall
// time and its CPU time × dilation, as a timed trial's) and of the sync
// that writes and flushes them: what a run's writer spends per trial and
// per sync (every few seconds and once at the end).
func timeWrites(recs []results.Record, dilation float64) (perRecord, sync time.Duration, err error) {
	if len(recs) == 0 {
		return 0, 0, nil
	}
	dir, err := os.MkdirTemp("", "dplab-estimate-store-")
	if err != nil {
		return 0, 0, fmt.Errorf("estimate: timing the store: %w", err)
	}
	defer os.RemoveAll(dir)
	st, err := results.Open(dir, nil, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("estimate: timing the store: %w", err)
	}
	defer st.Close()
	// A first pass warms the encoder (its first records cost several times
	// a later one's: gaussmix_fig4's Boston panel, 34 records timed cold,
	// 225 µs each, estimated its 5250 records' writes at 1.18 s of a 0.80 s
	// run); the second is timed.
	for _, rec := range recs {
		if err := st.Append(rec); err != nil {
			return 0, 0, fmt.Errorf("estimate: timing the store: %w", err)
		}
	}
	runtime.LockOSThread()
	c0, t0 := threadCPU(), time.Now()
	for _, rec := range recs {
		if err := st.Append(rec); err != nil {
			runtime.UnlockOSThread()
			return 0, 0, fmt.Errorf("estimate: timing the store: %w", err)
		}
	}
	t1, cpu := time.Now(), threadCPU()-c0
	runtime.UnlockOSThread()
	if c0 < 0 {
		cpu = 0
	}
	appends := max(t1.Sub(t0), time.Duration(float64(cpu)*dilation))
	if err := st.Sync(); err != nil {
		return 0, 0, fmt.Errorf("estimate: timing the store: %w", err)
	}
	return appends / time.Duration(len(recs)), time.Since(t1), nil
}

// loadForEstimate loads r's datasets as preload does, except that a
// missing dataset, optional or not, is returned by label with the reason
// instead of stopping the estimate (a run stops on a required one).
func loadForEstimate(r *runner) (map[string]string, error) {
	skipped := map[string]string{}
	for _, d := range r.spec.Datasets {
		_, err := r.cache.load(r.dataDir, d)
		var missing *datasets.MissingError
		switch {
		case err == nil:
		case errors.As(err, &missing) && d.Optional:
			skipped[d.Label] = err.Error()
		case errors.As(err, &missing):
			skipped[d.Label] = err.Error() + " (required: a run stops on it)"
		default:
			return nil, &spec.InputError{Err: fmt.Errorf("dataset %q: %w", d.Label, err)}
		}
	}
	return skipped, nil
}

// rowSample is what estimate knows of one row while it samples: its cells
// and the trials timed of them, as timed (the costs are read from them at
// a dilation, trialTime.cost).
type rowSample struct {
	row   *PlanRow
	memos sharedMemos  // Plan.memos; nil: none
	peers []*rowSample // the rows of its stratum (itself included): its dataset's rows of the same [[mechanism]] block
	cells []int        // the row's cells with trials to run, in plan order
	// picked marks the cells sampled or reserved for a wave; sampled holds
	// the timed ones, in the order timed.
	picked  []bool
	sampled []*cellSample
	timed   int
	failed  int
	// fits is Plan.fits (nil: every trial one fit) and meanFits the mean
	// fits of the row's trials to run: a trial's weight is its fits over
	// meanFits (weigh).
	fits     func(ci, t int) int
	meanFits float64
}

// weigh sets the row's mean fits a trial over its trials to run, those
// of its cells not in settled.
func (rs *rowSample) weigh(cells []plan.Cell, settled *results.KeySet) {
	if rs.fits == nil {
		return
	}
	var sum, n float64
	for _, ci := range rs.cells {
		c := &cells[ci]
		for t := range c.Trials {
			if !settled.Has(results.Key{Cell: c.Key, Trial: t}) {
				sum += float64(rs.fits(ci, t))
				n++
			}
		}
	}
	if sum > 0 {
		rs.meanFits = sum / n
	}
}

// weight is trial t of cell ci's fits over the row's mean: a tuned trial
// of K runs costs about K/E[K] of the row's mean trial. It is 1 without
// fits.
func (rs *rowSample) weight(ci, t int) float64 {
	if rs.fits == nil || rs.meanFits == 0 {
		return 1
	}
	return float64(rs.fits(ci, t)) / rs.meanFits
}

// cellSample is one sampled cell's timed trials.
type cellSample struct {
	pos   int       // index in the row's cells
	first trialTime // trial 0: the cell's one-off work and a trial
	later []trialTime
	// order is the cell's later trials (1 … Trials−1) in the order they
	// are timed: a fixed shuffle, so that those timed are a simple random
	// sample of them (a fixed one, trial 1, was a Newton fallback — before
	// the solvers' secant stage — of
	// compare_classification's Synthetic-H × KST at ε = 1, 5.0 s where the
	// row's median trial takes 0.24 s, and priced the row's 140 trials at
	// 12× their 90 s); next counts those timed or reserved.
	order []int
	next  int
}

// laterOrder is cell ci's later trials, 1 … trials−1, in a shuffle fixed
// by ci: the order in which estimate times them.
func laterOrder(ci, trials int) []int {
	if trials < 2 {
		return nil
	}
	order := rand.New(rand.NewPCG(uint64(ci), 0x657374)).Perm(trials - 1)
	for i := range order {
		order[i]++
	}
	return order
}

// stats returns the cell's mean later trial in nanoseconds at dilation dil,
// each over its weight (what the row's mean trial would take: a ratio
// estimate, [Coc77] ch. 6, with the trials' fits as the auxiliary variable,
// here the mean of the trials' ratios), or its first's when none is timed,
// the later trials timed, and their sample variance (NaN for fewer than
// two).
func (cs *cellSample) stats(dil float64) (mean float64, n int, variance float64) {
	if len(cs.later) == 0 {
		return cs.first.perWeight(dil), 0, math.NaN()
	}
	// Read in place: stats runs for every sampled cell of every row at
	// each step of the sampling.
	mean, variance = meanVarOf(len(cs.later), func(i int) float64 { return cs.later[i].perWeight(dil) })
	return mean, len(cs.later), variance
}

// work is the row's estimated serial work at dilation dil:
// ToRun·PerTrial + CellsToRun·PerCell.
func (rs *rowSample) work(dil float64) float64 {
	pt, pc := rs.means(dil)
	return float64(rs.row.ToRun)*pt + float64(rs.row.CellsToRun)*pc
}

// means returns the row's per-trial and one-off times in nanoseconds at
// dilation dil: the mean over its sampled cells of their later trials'
// mean (a cell's first's, less sharedBy, when none is timed), each cell weighing alike as
// each runs its trials, and the mean excess of a cell's first trial over
// that (≥ 0, over the cells with a later trial timed), less the
// statistics other cells used (sharedBy: they count once a run); over its
// stratum's sampled cells when it has none, with the statistics they
// computed (onceBy) in it: another value of the block's sweep may need
// its own (rgm_fig1's rows of one block split the data three ways, and
// each split's setup, 0.24 s, is memoised under its own key, shared by
// the blocks of that split: the block that computed it prices its other
// rows with it, a block that found it or waited for it without).
func (rs *rowSample) means(dil float64) (pt, pc float64) {
	from := []*rowSample{rs}
	if len(rs.sampled) == 0 {
		from = rs.peers
	}
	var sumMean, sumExcess float64
	var n, nLater int
	for _, r := range from {
		for _, cs := range r.sampled {
			m, k, _ := cs.stats(dil)
			if k == 0 {
				// Its first trial stands for its trials, less the
				// statistics other cells used, counted once a run
				// (preprocessing_fig3 with --trials 1: 0.33 s of them in
				// five cells' trials each, a run at -j 1 predicted 1.18×).
				m = max(m-float64(r.sharedBy(cs))/cs.first.weighed(), 0)
			}
			sumMean += m
			n++
			if k > 0 {
				excess := float64(cs.first.cost(dil)) - m*cs.first.weighed() - float64(r.sharedBy(cs))
				if r != rs {
					excess += float64(r.onceBy(cs))
				}
				sumExcess += max(excess, 0)
				nLater++
			}
		}
	}
	if n == 0 {
		return 0, 0
	}
	pt = sumMean / float64(n)
	if nLater > 0 {
		pc = sumExcess / float64(nLater)
	}
	return pt, pc
}

// sharedBy is what cs's first trial spent on statistics other cells
// used, in its cost's terms (over the slowdown it was timed at): counted
// once a run (RowCost.Shared), not in the cell's one-off work.
func (rs *rowSample) sharedBy(cs *cellSample) time.Duration {
	if rs.memos == nil {
		return 0
	}
	return cs.first.overSlow(rs.memos.excess(rs.cells[cs.pos]))
}

// onceBy is the work of the statistics other cells used that cs's first
// trial computed (of trials timed at once, the first's), over the
// slowdown it was timed at: counted once a run.
func (rs *rowSample) onceBy(cs *cellSample) time.Duration {
	if rs.memos == nil {
		return 0
	}
	return cs.first.overSlow(rs.memos.once(rs.cells[cs.pos]))
}

// sharedWork is the row's part of the work done once a run: the
// statistics other cells used that its sampled cells' first trials
// computed.
func (rs *rowSample) sharedWork() time.Duration {
	var d time.Duration
	for _, cs := range rs.sampled {
		d += rs.onceBy(cs)
	}
	return d
}

// spread returns the variance (ns²) of the row's per-trial time as
// estimated at dilation dil, a two-stage sample (cells, then later trials
// within them), in its two parts, each NaN when the row's own sample does
// not tell it. [Coc77] ch. 10 (two-stage sampling, units of equal size),
// the estimated variance
//
//	v(ȳ) = (1 − f₁) s₁² / n + f₁ / n² · Σᵢ (1 − f₂ᵢ) s₂ᵢ² / mᵢ
//
// with n of the row's N cells sampled (f₁ = n/N), s₁² the variance of
// their means, and mᵢ of cell i's later trials timed (f₂ᵢ = mᵢ over
// them), s₂ᵢ² the row's pooled within-cell variance (s₂² in Cochran's
// equal-size case: a cell whose few trials timed missed its rare dear one,
// a Newton fallback, does not count as certain). between is NaN with
// fewer than two cells sampled of more, within when some cell's trials
// are not all timed and no cell has two timed.
func (rs *rowSample) spread(dil float64) (between, within float64) {
	n, total := len(rs.sampled), len(rs.cells)
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	means := make([]float64, n)
	var ss, df float64
	for i, cs := range rs.sampled {
		m, k, v := cs.stats(dil)
		means[i] = m
		if k >= 2 {
			ss += v * float64(k-1)
			df += float64(k - 1)
		}
	}
	f1 := float64(n) / float64(total)
	switch {
	case n == total:
	case n < 2:
		between = math.NaN()
	default:
		_, s1 := meanVar(means)
		between = (1 - f1) * s1 / float64(n)
	}
	for _, cs := range rs.sampled {
		m, all := max(len(cs.later), 1), len(cs.order)
		if len(cs.later) >= all {
			continue // every trial of the cell timed: its mean is exact
		}
		within += f1 / float64(n*n) * (1 - float64(m)/float64(all)) * (ss / df) / float64(m)
	}
	return between, within
}

// nextTask returns the row's next task at dilation dil: a new cell, its
// first two trials, while it has cells unsampled and the between-cell part
// of its spread is unknown or not below the within-cell one; else
// laterTask more later trials (fewer when fewer are left) of the sampled
// cell with the fewest timed (the dearer first); ok is false when nothing
// is left. reserve takes it.
func (rs *rowSample) nextTask(row int, cells []plan.Cell, dil float64) (tk task, ok bool) {
	between, within := rs.spread(dil)
	var cell *cellSample
	var cellMean float64
	for _, cs := range rs.sampled {
		if cs.next >= len(cs.order) {
			continue
		}
		m, _, _ := cs.stats(dil)
		if cell == nil || cs.next < cell.next || cs.next == cell.next && m > cellMean {
			cell, cellMean = cs, m
		}
	}
	free := slices.Contains(rs.picked, false)
	if free && (cell == nil || math.IsNaN(between) || !math.IsNaN(within) && between >= within) {
		pos := rs.nextCell()
		ci := rs.cells[pos]
		tk = task{row: row, cell: pos, trials: []int{0}}
		if o := laterOrder(ci, cells[ci].Trials); len(o) > 0 {
			tk.trials = append(tk.trials, o[0])
		}
		return tk, true
	}
	if cell == nil {
		return task{}, false
	}
	return task{row: row, cell: cell.pos, trials: cell.order[cell.next:min(cell.next+laterTask, len(cell.order))]}, true
}

// reserve marks tk's trials as taken, for nextTask.
func (rs *rowSample) reserve(tk task) {
	if tk.trials[0] == 0 {
		rs.picked[tk.cell] = true
		return
	}
	if cs := rs.sampledAt(tk.cell); cs != nil {
		cs.next += len(tk.trials)
	}
}

// sampledAt returns the sampled cell at pos of the row's cells, nil when
// it is not sampled.
func (rs *rowSample) sampledAt(pos int) *cellSample {
	for _, cs := range rs.sampled {
		if cs.pos == pos {
			return cs
		}
	}
	return nil
}

// se is the standard error of the row's per-trial time at dilation dil
// (ns): from its spread when its own sample tells it, else its per-trial
// time times the larger of worst, the largest relative one of the rows
// whose sample does, and 1, a coefficient of variation of 1 for what one
// trial timed says (those rows' standard errors are of means of several:
// with worst alone, compare_classification's Synthetic-H × KST row, its
// later trials 0.1–6.5 s, kept one cell at --estimate-share 0.25 while
// rows of known, small spread got three or four).
func (rs *rowSample) se(dil, worst float64) float64 {
	if b, w := rs.spread(dil); !math.IsNaN(b + w) {
		return math.Sqrt(b + w)
	}
	pt, _ := rs.means(dil)
	if worst > 1 { // not NaN
		return worst * pt
	}
	return pt
}

// worstRelSE is the largest relative standard error of a row's per-trial
// time among the rows whose own sample tells it; NaN when none does.
func worstRelSE(rows []*rowSample, dil float64) float64 {
	worst := math.NaN()
	for _, rs := range rows {
		pt, _ := rs.means(dil)
		if b, w := rs.spread(dil); !math.IsNaN(b+w) && pt > 0 && len(rs.sampled) > 0 {
			if rel := math.Sqrt(b+w) / pt; math.IsNaN(worst) || rel > worst {
				worst = rel
			}
		}
	}
	return worst
}

// unreserve returns what nextTask reserved and was not timed.
func (rs *rowSample) unreserve() {
	for i := range rs.picked {
		rs.picked[i] = false
	}
	for _, cs := range rs.sampled {
		rs.picked[cs.pos] = true
		cs.next = len(cs.later)
	}
}

// fillFirsts returns the fill of the wave of first trials (estimate's
// step 1): a new cell of a stratum whose first trial ended, reserved (its
// first trial and a later one, nextTask), for a worker left with none;
// of those strata, the one given fewest, then the one whose first trial
// was shortest (a fill is stopped when the wave's last first trial ends:
// cheap ones finish); in it, a row with no cell reserved first, then the
// one with most trials to run. ok is false when no such stratum has a
// cell left.
func fillFirsts(rows []*rowSample, strata [][]*rowSample, cells []plan.Cell) func(ended []*waveTask) (tk task, ok bool) {
	stratumOf := map[*rowSample]int{}
	for j, st := range strata {
		for _, rs := range st {
			stratumOf[rs] = j
		}
	}
	given := make([]int, len(strata))
	return func(ended []*waveTask) (task, bool) {
		best, bestWall := -1, time.Duration(0)
		for _, wt := range ended {
			j := stratumOf[rows[wt.row]]
			if wt.fill || len(wt.times) == 0 || !slices.ContainsFunc(strata[j], func(rs *rowSample) bool { return slices.Contains(rs.picked, false) }) {
				continue
			}
			if w := wt.times[0].wall; best < 0 || given[j] < given[best] || given[j] == given[best] && w < bestWall {
				best, bestWall = j, w
			}
		}
		if best < 0 {
			return task{}, false
		}
		// before says whether row a goes before row b.
		before := func(a, b *rowSample) bool {
			na, nb := !slices.Contains(a.picked, true), !slices.Contains(b.picked, true)
			return na && !nb || na == nb && a.row.ToRun > b.row.ToRun
		}
		var pick *rowSample
		for _, rs := range strata[best] {
			if slices.Contains(rs.picked, false) && (pick == nil || before(rs, pick)) {
				pick = rs
			}
		}
		tk, ok := pick.nextTask(slices.Index(rows, pick), cells, 1)
		if !ok {
			return task{}, false
		}
		pick.reserve(tk)
		given[best]++
		return tk, true
	}
}

// nextCell returns the row's unsampled cell farthest (in plan order, so in
// ε or sweep value) from those sampled, the middle one first; -1 when all
// are sampled.
func (rs *rowSample) nextCell() int {
	best, bestDist := -1, -1
	n := len(rs.cells)
	none := !slices.Contains(rs.picked, true)
	for i := range n {
		if rs.picked[i] {
			continue
		}
		d := n // nothing sampled: the middle, i.e. farthest from both ends
		if none {
			d = min(i+1, n-i)
		}
		for j := range n {
			if rs.picked[j] {
				d = min(d, abs(i-j))
			}
		}
		if d > bestDist {
			best, bestDist = i, d
		}
	}
	return best
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// laterTask is how many later trials of a sampled cell one task times in
// sequence, alone: trials timed at once count their time over Slowdown,
// the slowest worker's ratio, which is off for a faster worker's (trials
// that take turns on a lock: the first to get it counts alone; test-wait's
// serial trials, timed at once, were estimated 16–26% short on 2 jobs,
// TestEstimateBusyOracle).
const laterTask = 3

// laterSpan is how long the later trials a cell of each stratum times in
// the floor last at least (one of them when longer), maxLater the most it
// times.
const (
	laterSpan = 2 * time.Millisecond
	maxLater  = 64
)

// task is trials of one cell, timed in sequence by one worker: 0 and a
// later one for a cell not yet sampled, one later trial else.
type task struct {
	row, cell int // index into estimate's rows and that row's cells
	trials    []int
	// span, when set, ends the task once its trials timed last it (one at
	// least); limit, when set, stops each trial at it, which ends the
	// task, the trials timed before counting.
	span, limit time.Duration
	// limitWeight is the weight of the trial limit was set from (0: 1): a
	// trial of more fits gets as much more time, up to maxLimitGrowth.
	limitWeight float64
}

// maxLimitGrowth caps how far a trial's weight stretches its task's limit.
const maxLimitGrowth = 4

// limitFor is the limit of a trial of weight w.
func (tk task) limitFor(w float64) time.Duration {
	base := tk.limitWeight
	if base <= 0 {
		base = 1
	}
	return time.Duration(float64(tk.limit) * min(max(w/base, 1), maxLimitGrowth))
}

// waveTask is a task as a wave of run times it: the trials it timed, how
// many failed, and whether it fills a worker left idle (stopped when the
// wave's other tasks end).
type waveTask struct {
	task
	times  []trialTime
	failed int
	fill   bool
}

// estimate is Estimate after the data are loaded, with a budget of share of
// the prediction less the floor (p.Startup, p.Setup, the host's loop and
// the first trials; at least 0, at most limit), the host measured by host
// and the trials timed by timeTrial (tests inject synthetic times). The
// budget is accounted from the times they return: trials in sequence cost
// their sum, a wave of concurrent ones its slowest worker's. Everything
// but the floor is charged to it, and a step starts only when its cost
// predicted from the costs so far fits in what is left.
func (p *Plan) estimate(ctx context.Context, jobs int, share float64, limit time.Duration, timeTrial trialTimer, host hostTimer) error {
	s, cells := p.grid.Spec(), p.grid.Cells()
	rows := make([]*rowSample, 0, len(p.Rows))
	rowOf := map[string]*rowSample{}
	for i := range p.Rows {
		p.Rows[i].Cost = nil
		if _, skip := p.Skipped[p.Rows[i].Dataset]; skip || p.Rows[i].ToRun == 0 {
			continue
		}
		rs := &rowSample{row: &p.Rows[i], memos: p.memos, fits: p.fits}
		rows = append(rows, rs)
		rowOf[p.Rows[i].key()] = rs
	}
	// The strata: a dataset's rows of one [[mechanism]] block (a sweep of
	// its params makes a row of each value), in plan order. Two blocks of
	// one mechanism are two strata: their params may cost very differently
	// (objpert_fig2's honest DP-SGD tunes on ~15.4 candidates, its
	// dishonest one on 10).
	var strata [][]*rowSample
	stratumOf := map[string]int{}
	for ci := range cells {
		c := &cells[ci]
		rs := rowOf[planRow(s, c)]
		if rs == nil || p.settled.Count(c.Key, func(t int) bool { return t >= 0 && t < c.Trials }) == c.Trials {
			continue
		}
		if len(rs.cells) == 0 {
			k := rowKey(rs.row.Dataset, strconv.Itoa(c.Mechanism))
			j, ok := stratumOf[k]
			if !ok {
				j = len(strata)
				stratumOf[k] = j
				strata = append(strata, nil)
			}
			strata[j] = append(strata[j], rs)
		}
		rs.cells = append(rs.cells, ci)
		rs.picked = append(rs.picked, false)
	}
	for _, st := range strata {
		for _, rs := range st {
			rs.peers = st
			rs.weigh(cells, &p.settled)
		}
	}
	// Until the host's loop (step 3) measures it, the slowdown is the most
	// it may be, the jobs.
	smp := Sample{Jobs: jobs, Slowdown: float64(jobs), Dilation: 1, Share: share, Blocks: len(strata)}
	var spent time.Duration
	// The dilation (step 3) is pooled over the host's loop and every trial
	// timed alone: Σ (CPU + wait for a CPU) / Σ CPU, weighed by their CPU
	// time, so that seconds of trials, not one 100 ms window, decide it (a
	// 100 ms loop measured 9.0 and 11.4 at load 13 where the run of
	// gaussmix_authors_wine's panel got 0.35 of a CPU, 2.8). Time asleep
	// (a lock, a child process, the disk) is not in it.
	var poolMu sync.Mutex
	var poolCPU, poolAll float64
	timeTrial = pooling(timeTrial, func(cpu, wait time.Duration) {
		poolMu.Lock()
		poolCPU += float64(cpu)
		poolAll += float64(cpu + wait)
		poolMu.Unlock()
	})
	// pooled is the dilation pooled so far, or else when nothing is.
	pooled := func(orElse float64) float64 {
		poolMu.Lock()
		defer poolMu.Unlock()
		if poolCPU > 0 {
			return max(poolAll/poolCPU, 1)
		}
		return orElse
	}
	// saved is what the later trials timed save the run when the caller
	// keeps them (p.keeps): each one's wall time over jobs, the run
	// having run it beside others (a cell's first trial saves nothing
	// counted: the run does the cell's one-off work again).
	var saved time.Duration
	unreserve := func() {
		for _, rs := range rows {
			rs.unreserve()
		}
	}
	// run times tasks on `workers` workers (task w on worker w, then each
	// next task on the first worker free: objective perturbation's Adult
	// panel has five blocks whose first trials take 0.06–1.3 s alone, in
	// plan order 2.45 s on 2 workers taken in turn by those times, 2.08 s
	// so) and records them, those timed at once divided by the slowdown
	// (smp.Slowdown: the workers until the host's loop measures it, since
	// overSlowdown sets them to what it measures); it returns the wave's
	// cost, its slowest worker's total. A worker left with no task while others
	// still run one asks fill (when not nil) for one, reserved, which the
	// end of the wave's last other task stops: it costs the wave the time
	// the worker would have waited (and the stop's latency), and a trial
	// it finishes is timed and kept as any other.
	run := func(ctx context.Context, tasks []task, workers int, fill func(ended []*waveTask) (task, bool)) (time.Duration, error) {
		slow := 1.0 // alone
		if workers > 1 {
			slow = smp.Slowdown
		}
		given := make([]*waveTask, len(tasks))
		for i, tk := range tasks {
			given[i] = &waveTask{task: tk}
		}
		var mu sync.Mutex // guards fills, ended, running and the rows' reservations while fill runs
		var fills, ended []*waveTask
		fillCtx, stopFills := context.WithCancel(ctx)
		defer stopFills()
		running := len(tasks) // of the tasks given
		perWorker := make([]time.Duration, workers)
		var wg sync.WaitGroup
		var cancelled atomic.Bool
		var next atomic.Int64
		next.Store(int64(workers))
		// take returns the worker's next task: i in the list, else a fill.
		take := func(i int) *waveTask {
			if i < len(given) {
				return given[i]
			}
			mu.Lock()
			defer mu.Unlock()
			if fill == nil || running == 0 {
				return nil
			}
			tk, ok := fill(ended)
			if !ok {
				return nil
			}
			wt := &waveTask{task: tk, fill: true}
			fills = append(fills, wt)
			return wt
		}
		for w := range workers {
			wg.Go(func() {
				for i := w; ; i = int(next.Add(1) - 1) {
					wt := take(i)
					if wt == nil {
						return
					}
					tctx := ctx
					if wt.fill {
						tctx = fillCtx
					}
					rs := rows[wt.row]
					ci := rs.cells[wt.cell]
					var lasted time.Duration
					for k, t := range wt.trials {
						if t >= cells[ci].Trials || k > 0 && wt.span > 0 && lasted >= wt.span {
							break
						}
						weight := rs.weight(ci, t)
						trialCtx, cancel := tctx, context.CancelFunc(func() {})
						if wt.limit > 0 {
							trialCtx, cancel = context.WithTimeout(tctx, wt.limitFor(weight))
						}
						wall, cpu, _, fail, ok := timeTrial(trialCtx, ci, t, workers)
						cancel()
						perWorker[w] += wall
						lasted += wall
						if !ok && ctx.Err() == nil && (wt.fill || wt.limit > 0) {
							break // stopped by the end of the others, or at its limit
						}
						if !ok {
							cancelled.Store(true)
							return
						}
						if fail {
							wt.failed++
						}
						wt.times = append(wt.times, trialTime{wall: wall, cpu: cpu, slow: slow, together: workers > 1, weight: weight})
					}
					mu.Lock()
					ended = append(ended, wt)
					if !wt.fill {
						if running--; running == 0 {
							stopFills()
						}
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if cancelled.Load() {
			return slices.Max(perWorker), cmp.Or(ctx.Err(), context.Canceled)
		}
		for _, wt := range append(given, fills...) {
			rs, times := rows[wt.row], wt.times
			if p.keeps {
				for k, tt := range times {
					if wt.trials[k] != 0 { // a first trial's one-off work is done again
						saved += tt.wall / time.Duration(jobs)
					}
				}
			}
			rs.timed += len(times)
			rs.failed += wt.failed
			smp.Trials += len(times)
			if len(times) == 0 {
				continue
			}
			if wt.fill {
				smp.Filled++
			}
			if wt.trials[0] == 0 {
				ci := rs.cells[wt.cell]
				rs.picked[wt.cell] = true
				rs.sampled = append(rs.sampled, &cellSample{pos: wt.cell, first: times[0], later: times[1:], order: laterOrder(ci, cells[ci].Trials), next: len(times) - 1})
				continue
			}
			if cs := rs.sampledAt(wt.cell); cs != nil {
				cs.later = append(cs.later, times...)
			}
		}
		if len(fills) > 0 { // the fills' reservations, of trials stopped too
			unreserve()
		}
		return slices.Max(perWorker), nil
	}
	// 1. The first trial of one cell per stratum, of its row with the most
	// trials to run, jobs at once (their times over the slowdown, the
	// host's loop's until step 4 measures the trials'): the run does them
	// so, and when they are kept they cost it nothing. One at a time, they
	// cost -j 2 runs made of first trials (objective perturbation's Adult
	// panel with --trials 1) 21.6–22.8% of the run net of what they saved,
	// at once 6.7–9.3%. A statistic two of them share (memoised on their
	// training set) is in both their times, the one computing it and the
	// one waiting for it: the ledger (Plan.memos) counts it once.
	var tasks []task
	for _, st := range strata {
		heaviest := st[0]
		for _, rs := range st {
			if rs.row.ToRun > heaviest.row.ToRun {
				heaviest = rs
			}
		}
		tasks = append(tasks, task{row: slices.Index(rows, heaviest), cell: heaviest.nextCell(), trials: []int{0}})
	}
	// A worker that finds none of them left while others still run times
	// further cells meanwhile (fillFirsts), the trials a run would run
	// then: a block's first trial may take far longer than the others'
	// (preprocessing_fig3's DP-SGD after PCA, 2.4 s of the seven blocks'
	// 2.9 s at -j 2).
	workers := min(jobs, len(tasks))
	for _, tk := range tasks {
		rows[tk.row].reserve(tk)
	}
	var fill func([]*waveTask) (task, bool)
	if workers > 1 && p.fill {
		fill = fillFirsts(rows, strata, cells)
	}
	d, err := run(ctx, tasks, workers, fill)
	if err != nil {
		return err
	}
	spent += d
	// 2. A later trial of those cells (the first of their shuffled order),
	// the cheapest cell first, alone (or, when they are kept, jobs at once:
	// as a run would run them, they cost it nothing; alone, at -j 2 half
	// the CPUs wait): it separates a cell's one-off work from its trials'.
	// It is part of the floor, timed whatever the share:
	// without it every trial is priced as a first trial, one-off work and
	// all (the authors' Wine panel, whose floor is over the share, was
	// predicted 2.20× its run at -j 1 when these were within the budget,
	// 1.12× with them). Each is stopped when it outlasts twice its cell's
	// first trial, which holds a trial and the cell's one-off work: the
	// floor stays within three times the first trials'.
	slices.SortStableFunc(tasks, func(a, b task) int {
		return cmp.Compare(rows[a.row].sampledAt(a.cell).first.wall, rows[b.row].sampledAt(b.cell).first.wall)
	})
	//
	// Trials shorter than laterSpan are timed on, one after another, until
	// they last that (at most maxLater): one later trial of microseconds,
	// the first the cell runs warm, is dearer than its others (the Wine
	// panel's, 25–55 µs, priced its run at 2.3 s where it took 1.0 s, 16 µs
	// a trial with its record).
	var laters []task
	for _, tk := range tasks {
		cs := rows[tk.row].sampledAt(tk.cell)
		if cs.next >= len(cs.order) {
			continue
		}
		lt := task{row: tk.row, cell: tk.cell, trials: cs.order[cs.next:min(maxLater, len(cs.order))], span: laterSpan, limit: 2 * cs.first.wall, limitWeight: cs.first.weighed()}
		rows[tk.row].reserve(lt)
		laters = append(laters, lt)
	}
	if len(laters) > 0 {
		workers := 1
		if p.keeps {
			workers = min(jobs, len(laters))
		}
		d, err := run(ctx, laters, workers, nil)
		spent += d
		if err != nil {
			return err
		}
		unreserve() // the trials a span or a limit left untimed
	}
	// The run's tail, timed on the records of the trials timed so far:
	// the store's writes and the rendering (p.tail; Sample.Tail). It is part
	// of the floor, before the host's loop, which is sized after it: timed
	// after the estimate, beyond the loop's share, the writes (11–16 ms),
	// the rendering (4–8 ms) and storing the kept trials (10–18 ms; now
	// only when they save more, KeepPays) were a third of what the
	// authors' Wine panel's estimate cost at -j 1, 90–150 ms of a 1.1 s run.
	if p.tail != nil {
		t0 := time.Now()
		tt, err := p.tail(pooled(1))
		if err != nil {
			return err
		}
		smp.PerRecord, smp.Fsync, smp.StoreCost, p.Render = tt.perRecord, tt.fsync, tt.store, tt.render
		smp.Tail = time.Since(t0)
		spent += smp.Tail
	}
	work := func() float64 {
		var w float64
		for _, rs := range rows {
			w += rs.work(smp.Dilation) + float64(rs.sharedWork())
		}
		return w
	}
	// 3. How much longer than its CPU time a busy thread's work takes
	// here now: a trial of microseconds is rarely preempted while timed,
	// but a run of thousands of them shares the CPUs with the host's load;
	// and, for jobs > 1, how much longer still with jobs at once. The
	// loop is part of the floor, sized to the run (hostWindows): its
	// windows take what the share of the run predicted so far (at no
	// slowdown) leaves after the start, the datasets and steps 1 and 2.
	// At 20 ms windows it cost the authors' Wine panel, a run of 1.1 s,
	// 0.10 s at -j 1 and 0.20 s at -j 2.
	left0 := time.Duration(share*(float64(p.Startup+p.Setup)+work()/float64(jobs))) - (p.Startup + p.Setup + spent - saved)
	loop := hostWindows(left0, jobs)
	h := host(ctx, jobs, loop)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	spent += h.spent
	smp.Loop, smp.LoopRounds, smp.Dilation = h.spent, loop.rounds, h.dilation
	poolMu.Lock()
	poolCPU, poolAll = poolCPU+float64(h.cpu), poolAll+float64(h.wall)
	poolMu.Unlock()
	if jobs > 1 {
		smp.Slowdown, smp.SlowdownSE = h.slowdown(jobs)
		smp.SlowdownOnLoop = true
	}
	// The trials timed at once count their times over the slowdown
	// measured, the loop's here and the warm trials' after step 4 (busy
	// threads do not feel the trials' contention for memory: objective
	// perturbation's Adult panel's DP-SGD's two first trials took 0.92
	// and 1.27 s at once in one estimate, where the loop measured 1.01,
	// and 0.72 and 0.96 s alone in another).
	overSlowdown := func() {
		for _, rs := range rows {
			for _, cs := range rs.sampled {
				cs.first.overSlowdown(smp.Slowdown)
				for i := range cs.later {
					cs.later[i].overSlowdown(smp.Slowdown)
				}
			}
		}
	}
	overSlowdown()
	base := spent
	// The budget: share of the predicted run (p.Startup, p.Setup and the
	// trials on jobs at the slowdown) less all the estimate spent before
	// it (the process's start, the datasets, the host's loop, the first
	// and one later trial per stratum: its floor), at least 0, at most
	// limit. Before, the start and the datasets were left out and the
	// budget was at least 200 ms: the estimate cost 7–8% of
	// compare_classification's run (datasets 2.4 s, first trials 5.5 s)
	// and 29–38% of rgm_fig1's 3 s.
	//
	// Trials kept (p.keeps) are not lost: the budget is of the estimate's
	// cost net of what they save the run (saved), and what is left is
	// that net budget less the net spent beyond the floor, at most limit
	// less the gross spent beyond it: each wave must fit in what is left
	// (it is stopped there), and what its trials save is left again.
	baseSaved := saved
	budget := func() time.Duration {
		pred := float64(p.Startup+p.Setup) + work()*smp.Slowdown/float64(jobs)
		return min(max(time.Duration(share*pred)-(p.Startup+p.Setup+base-baseSaved), 0), limit)
	}
	smp.Budget = budget()
	left := func() time.Duration {
		return min(smp.Budget-(spent-base)+(saved-baseSaved), limit-(spent-base))
	}
	// 4. The parallel efficiency.
	if jobs > 1 {
		d, err := p.measureSlowdown(ctx, &smp, rows, jobs, left(), timeTrial)
		if err != nil {
			return err
		}
		spent += d
	}
	overSlowdown()
	// 5. Further trials, jobs at once, while the budget lasts and the
	// trials' share is uncertain: each from the row whose estimate gains
	// most per second timed (Neyman's allocation, Cochran ch. 5.5: n_h ∝
	// N_h S_h / √c_h; here the next trial goes where the variance of the
	// total falls most per second, (ToRun · SE)² / (m + 1) / cost, m the
	// row's trials timed), rows with no cell of their own first, among
	// those whose task's predicted cost fits in what is left.
	for left() > 0 {
		if rel := relErr(rows, smp); !math.IsNaN(rel) && rel/2 <= TargetRSE {
			break
		}
		// A task's cost, predicted from what its row costs so far: a new
		// cell's first two trials (or its one), a sampled cell's mean
		// later trial, at once with others.
		taskCost := func(rs *rowSample, tk task) time.Duration {
			pt, pc := rs.means(smp.Dilation)
			if tk.trials[0] == 0 {
				return time.Duration((float64(len(tk.trials))*pt + pc) * smp.Slowdown)
			}
			if cs := rs.sampledAt(tk.cell); cs != nil {
				m, _, _ := cs.stats(smp.Dilation)
				return time.Duration(float64(len(tk.trials)) * m * smp.Slowdown)
			}
			return time.Duration(pt * smp.Slowdown)
		}
		worst := worstRelSE(rows, smp.Dilation)
		var wave []task
		for range jobs {
			best, bestGain, bestOwn := -1, 0.0, true
			var bestTask task
			for i, rs := range rows {
				tk, ok := rs.nextTask(i, cells, smp.Dilation)
				// Later trials are timed alone, but when kept: then jobs
				// at once, as the run would run them, they cost it
				// nothing (alone, at -j 2 half of them is lost), so the
				// net budget lets the sample grow where it is uncertain.
				if !ok || !p.keeps && len(wave) > 0 && tk.trials[0] != 0 {
					continue
				}
				cost := taskCost(rs, tk)
				// Rows whose task does not fit in what is left are
				// passed over: cheaper ones may.
				if cost > left() {
					continue
				}
				own := len(rs.sampled) > 0 || slices.ContainsFunc(wave, func(w task) bool { return w.row == i })
				var gain float64
				if !own {
					gain = rs.work(smp.Dilation)
				} else {
					se := rs.se(smp.Dilation, worst)
					n := 1.0
					for _, cs := range rs.sampled {
						n += float64(cs.next)
					}
					gain = math.Pow(float64(rs.row.ToRun)*se, 2) / n / max(float64(cost), 1)
				}
				if gain > 0 && (best < 0 || !own && bestOwn || own == bestOwn && gain > bestGain) {
					best, bestGain, bestOwn, bestTask = i, gain, own, tk
				}
			}
			if best < 0 {
				break
			}
			rows[best].reserve(bestTask)
			wave = append(wave, bestTask)
			if !p.keeps && bestTask.trials[0] != 0 {
				break
			}
		}
		if len(wave) == 0 {
			break
		}
		// The wave's cost: its dearest task's.
		var cost time.Duration
		for _, tk := range wave {
			cost = max(cost, taskCost(rows[tk.row], tk))
		}
		if cost > left() {
			unreserve()
			break
		}
		// Under a deadline of what is left, as the later trials: a row
		// with no cell of its own is predicted from its stratum's other
		// rows, which another sweep value may make far cheaper (when the
		// strata were mechanisms, preprocessing_fig3's DP-SGD after PCA,
		// 13.7 s a trial, was predicted at its stratum's 0.09 s and
		// overran a 200 ms budget by 13.5 s at -j 1). A wave stopped
		// there is charged, its trials not counted, and ends the sampling.
		wctx, cancel := context.WithTimeout(ctx, left())
		d, err := run(wctx, wave, len(wave), nil)
		cancel()
		spent += d
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			unreserve()
			break
		}
	}
	smp.Spent, smp.Base, smp.Saved, smp.BaseSaved = spent, base, saved, baseSaved
	smp.Dilation = pooled(smp.Dilation)
	// The rows' costs and the uncertainty of the total.
	for _, rs := range rows {
		pt, pc := rs.means(smp.Dilation)
		cost := &RowCost{PerTrial: time.Duration(pt), PerCell: time.Duration(pc), Shared: rs.sharedWork(), Cells: len(rs.sampled), Timed: rs.timed, Failed: rs.failed}
		if b, w := rs.spread(smp.Dilation); !math.IsNaN(b + w) {
			cost.SE = time.Duration(math.Sqrt(b + w))
		}
		rs.row.Cost = cost
	}
	smp.RelErr = relErr(rows, smp)
	p.Sample = smp
	return nil
}

// warmTrial is a later trial of a sampled cell: the same work each time it
// runs.
type warmTrial struct{ cell, trial int }

// measureSlowdown measures how much longer a trial takes when jobs run at
// once than alone, within budget: warm trials (a later trial of each cell
// timed, after its first: the same work each time it runs), the shortest of at
// least minWarm first (a shorter one, a memoised fit, says little) and
// cycling until they last burstAlone, in hostRounds rounds (fewer when
// fewer trials): a contiguous segment of the cycle timed alone, then on
// each worker of jobs at once; Slowdown is the median over the rounds of
// the slowest worker's time over the time alone. When no warm trial is timed or the burst's
// predicted cost (alone, then at worst jobs times as long at once) does
// not fit, smp keeps the slowdown measureHost measured on its busy threads
// (SlowdownOnLoop): it sees the host's contention but not the trials' own
// (memory bandwidth). It returns the time spent.
func (p *Plan) measureSlowdown(ctx context.Context, smp *Sample, rows []*rowSample, jobs int, budget time.Duration, timeTrial trialTimer) (time.Duration, error) {
	var order []warmTrial // a later trial of each cell with one timed
	warm := map[warmTrial]time.Duration{}
	for _, rs := range rows {
		for _, cs := range rs.sampled {
			if len(cs.later) > 0 {
				w := warmTrial{rs.cells[cs.pos], cs.order[0]}
				order = append(order, w)
				warm[w] = cs.later[0].cost(smp.Dilation)
			}
		}
	}
	if len(order) == 0 {
		return 0, nil
	}
	if long := slices.DeleteFunc(slices.Clone(order), func(w warmTrial) bool { return warm[w] < minWarm }); len(long) > 0 {
		order = long
	}
	slices.SortStableFunc(order, func(a, b warmTrial) int {
		return cmp.Or(cmp.Compare(warm[a], warm[b]), cmp.Compare(a.cell, b.cell))
	})
	w := warm[order[0]]
	alone := time.Duration(math.Ceil(float64(burstAlone)/float64(w))) * w
	if alone+time.Duration(jobs)*alone > budget {
		return 0, nil
	}
	// The cycle, until its warm trials' times last burstAlone, in
	// contiguous segments of about equal length, one a round. A round
	// times its segment alone, then on each worker at once: its ratio is
	// its slowest worker's time over its time alone (the jobs finished
	// their segments then, as a run's trials finish when its last worker
	// does; with trials that take turns on a lock, the first worker's
	// ratio is 1, the second's 2), and Slowdown their median, between 1 (a
	// trial is not faster for sharing the machine) and jobs (the trials
	// take turns on one CPU): outside is timing noise. A window at once
	// that a collection or a neighbour lands in is one round of five.
	// (One burst alone then one at once, of trials locked to their
	// threads, measured compare_regression's slowdown on 2 idle CPUs at
	// 1.62, 1.85 and 1.30 in three estimates, where its run's trials at -j
	// 2 took 167 s in all, its estimate's work alone 166 s: it was
	// predicted 1.6–1.8× its run.)
	var seq []warmTrial
	for total := time.Duration(0); total < burstAlone && len(seq) < maxBurst; {
		w := order[len(seq)%len(order)]
		seq = append(seq, w)
		total += max(warm[w], 1)
	}
	rounds := min(hostRounds, len(seq))
	var spent time.Duration
	var ratios []float64
	for r := range rounds {
		seg := seq[r*len(seq)/rounds : (r+1)*len(seq)/rounds]
		var spentAlone time.Duration
		for _, w := range seg {
			d, _, _, _, ok := timeTrial(ctx, w.cell, w.trial, 1)
			if !ok {
				return spent, ctx.Err()
			}
			spentAlone += d
		}
		times, err := atOnce(ctx, jobs, func() (time.Duration, bool) {
			var sum time.Duration
			for _, w := range seg {
				d, _, _, _, ok := timeTrial(ctx, w.cell, w.trial, jobs)
				if !ok {
					return 0, false
				}
				sum += d
			}
			return sum, true
		})
		if err != nil {
			return spent, err
		}
		spent += spentAlone + slices.Max(times)
		smp.Burst += len(seg)
		smp.Trials += (1 + jobs) * len(seg)
		if spentAlone > 0 {
			ratios = append(ratios, float64(slices.Max(times))/float64(spentAlone))
		}
	}
	if len(ratios) > 0 {
		smp.Slowdown, smp.SlowdownSE = hostSample{ratios: ratios}.slowdown(jobs)
		smp.SlowdownOnLoop = false
	}
	return spent, nil
}

// trialTime is one trial as timed: its wall and CPU time, with slow trials
// running at once (1 alone).
type trialTime struct {
	wall, cpu time.Duration
	slow      float64
	together  bool    // timed at once with others: slow is the Slowdown
	weight    float64 // its fits over its row's mean (rowSample.weight); 0 means 1
}

// weighed is the trial's weight, 1 when unset.
func (t trialTime) weighed() float64 {
	if t.weight > 0 {
		return t.weight
	}
	return 1
}

// perWeight is the trial's cost at dilation dil over its weight, in
// nanoseconds: what the row's mean trial would have cost.
func (t trialTime) perWeight(dil float64) float64 {
	return float64(t.cost(dil)) / t.weighed()
}

// overSlowdown sets the slowdown a trial timed at once counts its time
// over to slow.
func (t *trialTime) overSlowdown(slow float64) {
	if t.together {
		t.slow = slow
	}
}

// cost is the trial's time alone as a run would see it, on a host of
// dilation dil: its wall time, or, for a trial shorter than shortTrial, its
// CPU time dilated by the host's load (and, at once, by the slowdown) when
// longer; divided by slow.
func (t trialTime) cost(dil float64) time.Duration {
	d := t.wall
	if float64(t.wall)/t.slow < float64(shortTrial) {
		d = max(t.wall, time.Duration(float64(t.cpu)*dil*t.slow))
	}
	return t.overSlow(d)
}

// overSlow is d, a part of the trial's time, over the slowdown the trial
// was timed at, as cost counts it.
func (t trialTime) overSlow(d time.Duration) time.Duration {
	return time.Duration(float64(d) / t.slow)
}

// pooling wraps timeTrial to give add the CPU time and the wait for a CPU
// of each trial it times alone, when both are known.
func pooling(timeTrial trialTimer, add func(cpu, wait time.Duration)) trialTimer {
	return func(ctx context.Context, ci, t, together int) (wall, cpu, wait time.Duration, failed, ok bool) {
		wall, cpu, wait, failed, ok = timeTrial(ctx, ci, t, together)
		if ok && together == 1 && cpu > 0 && wait >= 0 {
			add(cpu, wait)
		}
		return wall, cpu, wait, failed, ok
	}
}

// shortTrial is the wall time under which a timed trial counts as its CPU
// time × Dilation when that is longer: a longer one spans several of a busy
// scheduler's time slices, so its wall time holds its preemptions, and a
// dilation measured too high (a 100 ms window measured 27× at load 19,
// where the run's process saw 4×) would inflate it (objpert_fig2 --trials
// 1 at -j 1: 34 min estimated, 5.5 min run).
const shortTrial = 25 * time.Millisecond

// hostRounds is how many rounds measureHost times, hostWindow how long
// each of a round's windows spins: five windows alone make the 100 ms of
// many of a busy scheduler's time slices that the dilation needs, and the
// slowdown is the median of five rounds' ratios, not one loop's (a 50 ms
// loop of fixed work, calibrated alone just before, measured 2.00 and
// 1.00 on 2 jobs minutes apart at one load: its calibration and its run
// at once were each a few time slices, the luck of either decided it).
// A run too small for five rounds of the least windows gets fewer, at
// least minHostRounds: the median of three still outvotes one unlucky
// round.
const (
	hostRounds    = 5
	minHostRounds = 3
	hostWindow    = 20 * time.Millisecond
)

// minHostWindow and minOnceWindow are the shortest windows alone and at
// once hostWindows gives a small run. A thread spinning alone reads the
// host's load in 4 ms as well as in 20 (on an idle host, 1.00–1.03); jobs
// threads started at once may share one CPU until the scheduler's balancer
// moves one, a tick or two (4 ms at 250 Hz): one loop of 4 ms windows in
// six on 2 idle CPUs read a slowdown of 1.96, all five rounds, and the
// loops of two estimates after test-wait's sleeping trials 1.68 and 1.97;
// at 10 ms one round in thirty read 1.53, the loops' medians 1.00–1.03.
const (
	minHostWindow = 4 * time.Millisecond
	minOnceWindow = 10 * time.Millisecond
)

// hostLoop is the shape of the host's loop: rounds of a window alone and,
// for jobs > 1, one at once.
type hostLoop struct {
	alone, once time.Duration
	rounds      int
}

// hostWindows returns a loop that costs left: hostRounds rounds, fewer
// (at least minHostRounds) when left does not hold that many of the least
// windows (minHostWindow alone, minOnceWindow at once; 0 at once for one
// job), each window between its least and hostWindow: a round's time
// shared alike, the window at once first.
func hostWindows(left time.Duration, jobs int) hostLoop {
	least := minHostWindow
	if jobs > 1 {
		least += minOnceWindow
	}
	rounds := hostRounds
	if left < hostRounds*least {
		rounds = max(int(left/least), minHostRounds)
	}
	round := left / time.Duration(rounds)
	clamp := func(d, least time.Duration) time.Duration { return min(max(d, least), hostWindow) }
	if jobs <= 1 {
		return hostLoop{alone: clamp(round, minHostWindow), rounds: rounds}
	}
	once := clamp(round/2, minOnceWindow)
	return hostLoop{alone: clamp(round-once, minHostWindow), once: once, rounds: rounds}
}

// hostSample is what measureHost measured: the dilation of the windows
// alone (their wall time over their CPU time, at least 1; 1 when their CPU
// time is unknown), their wall and CPU time (pooled after with the trials
// timed alone), each round's slowdown, and the time it spent.
type hostSample struct {
	dilation  float64
	wall, cpu time.Duration
	ratios    []float64
	spent     time.Duration
}

// slowdown is the median of the rounds' ratios, between 1 and jobs, with
// the standard error of their mean; jobs (the trials taking turns on one
// CPU, the pessimistic end) with no round measured.
func (h hostSample) slowdown(jobs int) (slow, se float64) {
	if len(h.ratios) == 0 {
		return float64(jobs), 0
	}
	r := slices.Sorted(slices.Values(h.ratios))
	med := r[len(r)/2]
	if len(r)%2 == 0 {
		med = (r[len(r)/2-1] + r[len(r)/2]) / 2
	}
	return min(max(med, 1), float64(jobs)), stdErr(r)
}

// hostTimer measures the host: the dilation of a busy thread and, for
// jobs > 1, the slowdown of jobs busy threads at once.
type hostTimer func(ctx context.Context, jobs int, loop hostLoop) hostSample

// windowTimer spins on threads threads at once for span of wall time and
// returns each thread's wall time, CPU time (0: unknown) and work done (in
// any fixed unit).
type windowTimer func(ctx context.Context, span time.Duration, threads int) (wall, cpu []time.Duration, work []float64)

// measureHost times loop.rounds rounds, each a window of loop.alone on one
// thread and, for jobs > 1, one of loop.once on jobs threads at once, by
// window. A
// spinning thread's wall time over its CPU time is its dilation: its CPU
// time and its time waiting, runnable, for a CPU (it never sleeps) over
// its CPU time. A round's slowdown is the work a spinning thread did per
// second alone over what each of the jobs threads did at once (Σ work / Σ
// wall) just after: the share of a CPU each of jobs CPU-bound trials gets
// against one's, now (the host's load, a scheduler sharing the CPUs
// between sessions), and what sharing a core costs (SMT siblings, a lower
// clock with more cores busy), which their CPU times would not show.
// Measured as rates over a fixed wall time, not as times of fixed work,
// it needs no calibration; the rounds interleaved, a change of the load
// between them moves every round alike; their median is robust to a
// round's unlucky window. A round where a thread did no work is left out.
func measureHost(ctx context.Context, jobs int, loop hostLoop, window windowTimer) hostSample {
	var h hostSample
	for range loop.rounds {
		if ctx.Err() != nil {
			break
		}
		w1, c1, k1 := window(ctx, loop.alone, 1)
		h.wall, h.cpu = h.wall+w1[0], h.cpu+c1[0]
		h.spent += w1[0]
		if jobs <= 1 {
			continue
		}
		wj, _, kj := window(ctx, loop.once, jobs)
		h.spent += slices.Max(wj)
		var wall time.Duration
		var work float64
		for i := range wj {
			wall, work = wall+wj[i], work+kj[i]
		}
		if k1[0] > 0 && !slices.Contains(kj, 0) {
			h.ratios = append(h.ratios, k1[0]/float64(w1[0])/(work/float64(wall)))
		}
	}
	h.dilation = 1
	if h.cpu > 0 {
		h.dilation = max(float64(h.wall)/float64(h.cpu), 1)
	}
	return h
}

// spinWindows is the windowTimer of spin: each thread locked to its OS
// thread, timed by the clock and its own CPU clock, its work the rounds of
// spin it did.
func spinWindows(ctx context.Context, span time.Duration, threads int) (wall, cpu []time.Duration, work []float64) {
	wall, cpu, work = make([]time.Duration, threads), make([]time.Duration, threads), make([]float64, threads)
	var wg sync.WaitGroup
	for w := range threads {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			const n = 1 << 12
			c0, t0 := threadCPU(), time.Now()
			for time.Since(t0) < span && ctx.Err() == nil {
				spin(n)
				work[w] += n
			}
			wall[w], cpu[w] = time.Since(t0), threadCPU()-c0
			if c0 < 0 {
				cpu[w] = 0
			}
		})
	}
	wg.Wait()
	return wall, cpu, work
}

// atOnce runs f on jobs goroutines at once and returns their times; the
// error is ctx's when some f reports cancellation.
func atOnce(ctx context.Context, jobs int, f func() (time.Duration, bool)) ([]time.Duration, error) {
	times := make([]time.Duration, jobs)
	oks := make([]bool, jobs)
	var wg sync.WaitGroup
	for w := range jobs {
		wg.Go(func() { times[w], oks[w] = f() })
	}
	wg.Wait()
	if slices.Contains(oks, false) {
		return nil, ctx.Err()
	}
	return times, nil
}

// spinSink keeps spin's work from being optimised away.
var spinSink atomic.Uint64

// spin does n rounds of a xorshift generator: fixed CPU work, no memory.
func spin(n int) {
	x := uint64(88172645463325252)
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	spinSink.Add(x)
}

// relErr is the relative uncertainty of the trials' share of the estimate,
// two standard errors, from the rows' standard errors of their per-trial
// times (rowSample.se: a row whose sample does not tell its own is given
// the larger of the largest relative one of those whose does and 1) and
// of the slowdown; NaN
// when no row's sample tells its spread or some row has no cell of its
// own (it takes its stratum's costs).
func relErr(rows []*rowSample, smp Sample) float64 {
	dil := smp.Dilation
	worst := worstRelSE(rows, dil)
	if math.IsNaN(worst) && len(rows) > 0 || slices.ContainsFunc(rows, func(rs *rowSample) bool { return len(rs.sampled) == 0 }) {
		return math.NaN()
	}
	var varWork, totWork float64
	for _, rs := range rows {
		varWork += math.Pow(float64(rs.row.ToRun)*rs.se(dil, worst), 2)
		totWork += rs.work(dil)
	}
	rel := 0.0
	if totWork > 0 {
		rel = varWork / (totWork * totWork)
	}
	if smp.Slowdown > 0 {
		rel += math.Pow(smp.SlowdownSE/smp.Slowdown, 2)
	}
	return 2 * math.Sqrt(rel)
}

// meanVar returns the mean of x and its sample variance (NaN for fewer
// than two).
func meanVar(x []float64) (mean, variance float64) {
	return meanVarOf(len(x), func(i int) float64 { return x[i] })
}

// meanVarOf is meanVar of the n values at(0), …, at(n−1).
func meanVarOf(n int, at func(i int) float64) (mean, variance float64) {
	for i := range n {
		mean += at(i)
	}
	mean /= float64(n)
	if n < 2 {
		return mean, math.NaN()
	}
	var ss float64
	for i := range n {
		v := at(i)
		ss += (v - mean) * (v - mean)
	}
	return mean, ss / float64(n-1)
}

// stdErr is the standard error of the mean of x (0 for fewer than two).
func stdErr(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	_, v := meanVar(x)
	return math.Sqrt(v / float64(len(x)))
}

// Kept returns the settled trials Estimate timed that are not stored yet,
// as a run would store them: plan --estimate stores them (Options.Given),
// so that the run does not repeat them. Nil before Estimate.
func (p *Plan) Kept() []results.Record {
	var out []results.Record
	for i := range p.kept {
		if p.kept[i].Settled() && !p.settled.Has(p.kept[i].Key()) {
			out = append(out, p.kept[i])
		}
	}
	return out
}

// MarkKept counts recs (Kept, once stored) as stored: each one's row
// loses it from ToRun, and a cell left with no trial to run from
// CellsToRun, so that EstimatedWall becomes the wall time of the run after
// them. It returns what they save that run on jobs concurrent trials
// (KeepSaves, before they are counted).
func (p *Plan) MarkKept(recs []results.Record, jobs int) (saved time.Duration) {
	saved = p.KeepSaves(recs, jobs)
	s, rowOf := p.grid.Spec(), p.rowsByKey()
	touched := map[*plan.Cell]bool{}
	p.eachFresh(recs, func(c *plan.Cell, rec *results.Record) {
		p.settled.Add(rec.Key())
		row := rowOf[planRow(s, c)]
		row.ToRun--
		row.Stored++
		p.Stored++
		touched[c] = true
	})
	for c := range touched {
		if p.toRunOf(c) == 0 {
			rowOf[planRow(s, c)].CellsToRun--
		}
	}
	return saved
}

// KeepSaves is what storing recs would save the run on jobs concurrent
// trials: their records' wall times over jobs (the slowdown of trials at
// once left out), a cell's first trial counted at most its row's PerTrial
// when the cell keeps trials to run (the run does the cell's one-off work
// again for them). Trials stored already, given twice or not the plan's
// count nothing.
func (p *Plan) KeepSaves(recs []results.Record, jobs int) time.Duration {
	s, rowOf := p.grid.Spec(), p.rowsByKey()
	fresh := map[*plan.Cell]int{}
	p.eachFresh(recs, func(c *plan.Cell, _ *results.Record) { fresh[c]++ })
	var work float64
	p.eachFresh(recs, func(c *plan.Cell, rec *results.Record) {
		w := rec.WallSeconds * float64(time.Second)
		if row := rowOf[planRow(s, c)]; rec.Trial == 0 && p.toRunOf(c) > fresh[c] && row.Cost != nil {
			w = min(w, float64(row.Cost.PerTrial))
		}
		work += w
	})
	return time.Duration(work / float64(max(jobs, 1)))
}

// KeepPays says whether storing the trials Estimate timed, which save the
// run saves (KeepSaves), costs less than that: storing them is about as
// dear as timing their writes was (Sample.StoreCost: a store opened, the
// records appended, a sync). The authors' Wine panel's 300-odd trials of
// 5–30 µs save its run a few ms and took 10–18 ms to store.
func (p *Plan) KeepPays(saves time.Duration) bool {
	return saves > p.Sample.StoreCost
}

// eachFresh calls f once for each trial of recs that is one of the plan's
// cells' and not stored settled, in order (a trial given twice, once).
func (p *Plan) eachFresh(recs []results.Record, f func(c *plan.Cell, rec *results.Record)) {
	cells := p.grid.Cells()
	byKey := make(map[string]*plan.Cell, len(cells))
	for i := range cells {
		byKey[cells[i].Key] = &cells[i]
	}
	seen := map[results.Key]bool{}
	for i := range recs {
		rec := &recs[i]
		c, k := byKey[rec.CellKey], rec.Key()
		if c == nil || rec.Trial < 0 || rec.Trial >= c.Trials || seen[k] || p.settled.Has(k) {
			continue
		}
		seen[k] = true
		f(c, rec)
	}
}

// toRunOf is how many of cell c's trials are not stored settled.
func (p *Plan) toRunOf(c *plan.Cell) int {
	return c.Trials - p.settled.Count(c.Key, func(t int) bool { return t >= 0 && t < c.Trials })
}

// EstimateFloor is what Estimate spends whatever its share: the
// process's start (Startup), the datasets (Setup) and what it always times
// (Sample.Base: the host's loop and the first and a later trial of one
// cell per stratum), less what those later trials save the run when kept
// (Sample.BaseSaved). Its budget for further trials is what the share of
// the prediction leaves beyond it.
func (p *Plan) EstimateFloor() time.Duration {
	return p.Startup + p.Setup + p.Sample.Base - p.Sample.BaseSaved
}

// FloorLine is one line saying that the floor alone (EstimateFloor) is
// more than the estimate's share of wall, the predicted run, and of what,
// "" when it is not.
func (p *Plan) FloorLine(wall time.Duration) string {
	floor, smp := p.EstimateFloor(), p.Sample
	if wall <= 0 || float64(floor) <= smp.Share*float64(wall) {
		return ""
	}
	sec := func(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + " s" }
	beyond := "nothing timed beyond it"
	switch d := smp.Spent - smp.Base; {
	case d >= 5*time.Millisecond:
		beyond = sec(d) + " timed beyond it, of a budget set on an earlier prediction"
	case d > 0: // "0.00 s timed beyond it" read as a contradiction
		beyond = "under 0.01 s timed beyond it, of a budget set on an earlier prediction"
	}
	kept := ""
	if smp.BaseSaved > 0 {
		kept = ", less " + sec(smp.BaseSaved) + " its kept later trials save the run"
	}
	blocks := strconv.Itoa(smp.Blocks) + " blocks"
	if smp.Filled > 0 {
		blocks += ", and " + strconv.Itoa(smp.Filled) + " cells timed beside their first trials"
	}
	return fmt.Sprintf("floor: %s = %.1f%% of the predicted run, over the %.3g%% share (%s): start-up %s, datasets %s, a first and a later trial per block %s (%s), timing the store and rendering %s, the host's loop %s%s",
		sec(floor), 100*float64(floor)/float64(wall), 100*smp.Share, beyond, sec(p.Startup), sec(p.Setup), sec(smp.Base-smp.Loop-smp.Tail), blocks, sec(smp.Tail), sec(smp.Loop), kept)
}

// SlowdownAt is the factor by which a trial's time grows when jobs run at
// once: 1 for one job, else the Slowdown Estimate measured (at its Jobs).
func (p *Plan) SlowdownAt(jobs int) float64 {
	if jobs <= 1 || p.Sample.Slowdown == 0 {
		return 1
	}
	return p.Sample.Slowdown
}

// EstimatedWall is the wall time the pending trials should take on jobs ≥ 1
// concurrent trials, from the costs Estimate measured: Startup + Setup +
// the trials' wall (TrialsWall) and the store's writes (Writes), done by
// one writer beside the workers: on a CPU of its own when jobs are fewer
// than the CPUs (the larger of the two counts), else sharing theirs (the
// writes added, over jobs); a run also syncs its copy of the spec before
// its trials, and at the end its store and its manifest while it renders
// (the larger of two syncs and Render counts). Rows of the datasets Estimate found
// missing count nothing. ok is false when some row to run was not timed.
func (p *Plan) EstimatedWall(jobs int) (wall time.Duration, ok bool) {
	trials, par, ok := p.TrialsWall(jobs)
	if !ok {
		return 0, false
	}
	writes := p.Writes()
	if par < runtime.NumCPU() {
		trials = max(trials, writes)
	} else {
		trials += writes / time.Duration(par)
	}
	fsync := p.Sample.Fsync
	return p.Startup + p.Setup + fsync + trials + max(p.Render, 2*fsync), true
}

// TrialsWall is the wall time of the pending trials on jobs ≥ 1 concurrent
// trials: Slowdown times their list schedule on par workers (span:
// the work, Σ rows (ToRun·PerTrial + CellsToRun·PerCell) + the Shared
// work of the datasets with trials to run, over par, and the uneven end;
// beyond maxScheduled trials the work over par), par being jobs at most
// the trials to run. Rows of the datasets Estimate found missing count
// nothing; ok is false when some row to run was not timed.
func (p *Plan) TrialsWall(jobs int) (wall time.Duration, par int, ok bool) {
	jobs = max(jobs, 1)
	var work float64
	toRun := 0
	pending := map[string]bool{} // datasets with trials to run
	for _, row := range p.Rows {
		if _, skip := p.Skipped[row.Dataset]; skip || row.ToRun == 0 {
			continue
		}
		if row.Cost == nil {
			return 0, 0, false
		}
		pending[row.Dataset] = true
		toRun += row.ToRun
		work += float64(row.ToRun)*float64(row.Cost.PerTrial) + float64(row.CellsToRun)*float64(row.Cost.PerCell)
	}
	for _, row := range p.Rows {
		if row.Cost != nil && pending[row.Dataset] {
			work += float64(row.Cost.Shared)
		}
	}
	par = max(min(jobs, toRun), 1)
	return time.Duration(p.span(work, par, wholeRun) * p.SlowdownAt(jobs)), par, true
}

// Writes is the store writer's work for the pending trials, ToRun ·
// PerRecord: encoding and appending their records. Its syncs during the
// run (every few seconds) wait on the disk, not on a CPU, and
// overlap with the trials; the last one is in EstimatedWall.
func (p *Plan) Writes() time.Duration {
	toRun := 0
	for _, row := range p.Rows {
		if _, skip := p.Skipped[row.Dataset]; !skip {
			toRun += row.ToRun
		}
	}
	return time.Duration(toRun) * p.Sample.PerRecord
}
