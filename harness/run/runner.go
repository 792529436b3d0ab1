package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/internal/fileutil"
	"github.com/dplab/dplab/internal/oncemap"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/results"
)

// Options configures Run.
type Options struct {
	Jobs    int    // concurrent trials; 0 means runtime.NumCPU()
	OutDir  string // result directory; "" means ResultDir(spec, DefaultRoot)
	DataDir string // datasets directory (datasets.DataDir resolves the default)
	Force   bool   // rerun every trial of the spec's cells; not with Shard
	// Trials overrides the spec's trial count when > 0 (the manifest
	// records it; 0: none): Resolve returns a copy of the spec with it.
	Trials int
	// Log receives progress and warnings (stderr); nil discards them.
	Log io.Writer
	// Progress forces the terminal progress bar on or off; nil detects a
	// terminal on Log.
	Progress *bool
	// Args is the command line, for the manifest.
	Args []string
	// Cache shares loaded data between runs in one process; nil means the
	// process-wide cache.
	Cache *DataCache
	// Records, when set, is given every record of the store once, as the
	// store holds it: at open those read (in file order; with Force, those
	// Rewrite keeps), then each record as it is appended, with its params
	// as the store reads them back. The calls are serialised; the record is
	// valid only during the call. A run keeps no record itself: the CLI
	// aggregates them here (report.Collector) for Render, so that neither
	// holds the store in memory.
	Records func(*results.Record)
	// Render, when set, is called once every trial has finished and been
	// handed to the store (and to Records) — not when the run was
	// interrupted or a write failed. It runs concurrently with the store's
	// final fsync and the manifest, under the directory's lock; Run returns
	// after it has returned. The CLI renders the figures and tables here.
	Render func()
	// Shard, when Count > 0, runs only the trials Assign gives to shard
	// Index, appending them to the shard's own file under OutDir
	// (results.OpenShard: no directory lock) with its own manifest; dplab
	// merge joins the shards into the store. Not with Force.
	Shard Shard
	// DataMemory is the memory the datasets may take at once; above it
	// (residentPerByte bytes per byte of their values) they are loaded one
	// at a time. 0 means half of what the process may use (memoryBudget).
	DataMemory int64
	// EstimateShare is the share of its first prediction Plan.Estimate may
	// spend sampling (0: SampleShare).
	EstimateShare float64
	// EstimateKept says that the caller keeps the trials Plan.Estimate
	// times (Plan.Kept): its budget is then of its cost net of what they
	// save the run.
	EstimateKept bool
	// TimeRender, when not nil, times rendering the records given to
	// Records so far: Plan.Estimate calls it once, after the trials of its
	// floor, for Plan.Render.
	TimeRender func() (time.Duration, error)
	// Given, when not nil, holds trials already run for the plan's cells
	// at its trial count (Plan.Kept: the trials plan --estimate timed).
	// RunPlan then runs no trial and loads no data: it appends those of
	// Given not yet stored, as it would append its own, under the
	// directory's lock, with the spec's copy and a manifest entry (Args
	// and Jobs as given), so that a later run does not repeat them.
	Given []results.Record
}

// Report summarises a run.
type Report struct {
	Dir                       string
	Cells, Total, Stored, Ran int
	Failed, Skipped           int
	// Infeasible counts the trials whose target ε the mechanism cannot
	// reach on their data (results.StatusInfeasible): recorded with the
	// reason, not failures.
	Infeasible    int
	SkipReasons   map[string]string // dataset label -> reason
	Interrupted   bool
	FailedErrors  []string // first few failure messages
	Elapsed       time.Duration
	PendingBefore int // trials to run when the run started
	// Lost counts the trials that finished but are not in the store, a
	// write having failed (Ran, Failed, Skipped and Infeasible then count
	// the records written); a resumed run reruns them.
	Lost int
	// Beyond counts the stored ok trials of the spec's cells at an index
	// at or above their cell's trial count (stored by an earlier run with
	// more trials): the summary, figures and tables use them too.
	Beyond int
}

// DefaultRoot is the folder, relative to the working directory, holding
// each spec's result directory when none is given (--out): runs/<name>/.
// It is the one definition every command's default uses. It is no source
// folder: no Go package lives there (TestDefaultRootIsNoPackage), and
// .gitignore ignores it, so that deleting every run deletes no code (the
// default used to be results/, the results package's folder).
const DefaultRoot = "runs"

// ErrForceShard refuses Options.Force with a Shard (--force with --shard):
// a shard never rewrites the store.
var ErrForceShard = errors.New("--force cannot be combined with --shard: a shard never rewrites the store")

// Resolve resolves opt against s, the one place a run's options are
// checked and completed, for every command that runs s (run, plan, submit,
// merge): it returns the run's plan (plan.New: the cells, expanded once,
// with a --trials override opt.Trials > 0 as their trial count, the grid's
// size checked against s's limits again) and opt with its defaults filled
// (OutDir: ResultDir(s, DefaultRoot) when ""; Jobs: the number of CPUs
// when ≤ 0). s itself is never changed. Force with a Shard is refused
// (ErrForceShard) here and nowhere else. Resolving the options Resolve
// returned changes nothing; RunPlan resolves its options itself.
func Resolve(ctx context.Context, s *spec.Spec, opt Options) (*plan.Plan, Options, error) {
	opt, err := resolveOptions(s, opt)
	if err != nil {
		return nil, opt, err
	}
	p, err := plan.New(ctx, s, plan.Options{Trials: opt.Trials})
	if err != nil {
		return nil, opt, err
	}
	if err := CheckAudits(ctx, p); err != nil {
		return nil, opt, err
	}
	return p, opt, nil
}

// resolveOptions fills opt's defaults for a run of s and refuses Force
// with a Shard.
func resolveOptions(s *spec.Spec, opt Options) (Options, error) {
	if opt.OutDir == "" {
		opt.OutDir = ResultDir(s, DefaultRoot)
	}
	if opt.Jobs <= 0 {
		opt.Jobs = runtime.NumCPU()
	}
	if opt.Shard.Sharded() && opt.Force {
		return opt, fmt.Errorf("%w (delete %s to start over)", ErrForceShard, opt.OutDir)
	}
	if opt.Shard.Sharded() && s.Audit != nil {
		return opt, s.ErrAt("audit", s.Line("audit"), "an audit grid is not sharded: each cell's audit runs its runs on every core")
	}
	return opt, nil
}

// ResultDir is the default result directory of a spec under root:
// root/<name>, or root/<name>-quick for a --quick run.
func ResultDir(s *spec.Spec, root string) string {
	name := s.Name
	if s.QuickApplied {
		name += spec.QuickSuffix
	}
	return filepath.Join(root, name)
}

// writeQueue is how many batches of finished trials may wait for the
// run's writer (RunPlan): enough that a worker rarely waits, few enough
// that a process killed outright loses little more than the store's last
// flushDelay.
const writeQueue = 4

// A worker hands its finished trials to the writer in batches: a batch
// is sent once its first trial started batchSpan ago or it holds maxBatch
// trials, so trials shorter than batchSpan meet the writer once per batch
// and a longer one is sent as soon as it is done.
const (
	batchSpan = time.Millisecond
	maxBatch  = 64
)

type runner struct {
	spec    *spec.Spec
	cells   []plan.Cell
	dataDir string
	cache   *DataCache
	cal     *accounting.Calibrator
	acc     accounting.Config
	store   *results.Store
	log     io.Writer
	shard   Shard      // the shard this run runs; zero: every trial
	assign  Assignment // of the cells to shard.Count shards, when sharded

	mu      sync.Mutex
	sink    func(*results.Record)           // Options.Records, called by count only; nil: none
	mechs   map[string]mechanisms.Mechanism // by canonical params
	spent   sync.Map                        // ε of a ledger at δ: event JSON → *sync.Map of δ's bits → accounting.Guarantee
	report  *Report
	skipped map[string]string
	memo    sync.Map // cell key → *cellMemo (trialmemo.go)
	metrics sync.Map // datasets.Task → []plan.Metric (metricsFor)
	// datasets memoises each spec dataset's data for the run (data.go).
	datasets []datasetMemo
	// unsplit counts, by load key, the run's datasets yet to make their
	// fixed split (releaseLoaded), under mu.
	unsplit map[string]int
	// gate, when set, keeps one dataset loaded at a time (datagate.go).
	gate *dataGate
	// pipeSpent holds each pipeline event's analyses by (event, δ)
	// (pipeline.go); a fixed split's pre-processed data is memoised on its
	// parts (mechanisms.Preprocessed).
	pipeSpent oncemap.Map[string, any]
}

// newRunner returns a runner of s's cells without a store (Run adds it;
// Estimate runs trials without storing them).
func newRunner(s *spec.Spec, cells []plan.Cell, opt Options, log io.Writer) *runner {
	cache := opt.Cache
	if cache == nil {
		cache = defaultCache
	}
	r := &runner{spec: s, cells: cells, dataDir: datasets.DataDir(opt.DataDir), cache: cache,
		acc: plan.AccountingConfig(s), log: log, mechs: map[string]mechanisms.Mechanism{},
		skipped: map[string]string{}, datasets: make([]datasetMemo, len(s.Datasets)), shard: opt.Shard}
	if opt.Shard.Sharded() {
		r.assign = Assign(cells, opt.Shard.Count)
	}
	r.cal = accounting.SharedCalibrator(r.acc)
	return r
}

// Run runs every trial of s not yet stored in the result directory
// (harness/report renders the figures and tables from the records
// Options.Records is given, in Options.Render). Cancelling
// ctx stops scheduling and abandons running fits; finished trials stay
// stored. It returns an error if a trial failed (the run continues past
// failures) or the run was interrupted. It is RunPlan of Resolve's plan.
func Run(ctx context.Context, s *spec.Spec, opt Options) (*Report, error) {
	// The grid is bounded by the spec's limits (checked at load); its
	// expansion is not interrupted, so that a cancelled run still reports
	// what was pending.
	p, opt, err := Resolve(context.Background(), s, opt)
	if err != nil {
		return nil, err
	}
	return RunPlan(ctx, p, opt)
}

// RunPlan is Run of a plan made by Resolve (or plan.New): it runs the
// plan's cells with the plan's trial count; opt.Trials, when set, must be
// that count.
func RunPlan(ctx context.Context, p *plan.Plan, opt Options) (*Report, error) {
	start := time.Now()
	s := p.Spec()
	if opt.Trials > 0 && opt.Trials != p.Trials() {
		return nil, fmt.Errorf("run: Options.Trials %d is not the plan's %d trials per cell (make the plan with them)", opt.Trials, p.Trials())
	}
	opt, err := resolveOptions(s, opt)
	if err != nil {
		return nil, err
	}
	if s.Audit != nil {
		return runAudits(ctx, p, opt)
	}
	jobs, dir := opt.Jobs, opt.OutDir
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	warn := func(msg string) { fmt.Fprintln(log, "warning:", msg) }
	cells := p.Cells()
	r := newRunner(s, cells, opt, log)
	defer r.closeMechanisms()
	// What opening creates is removed again when the run stops before its
	// first trial (fresh), e.g. on a dataset that does not load.
	fresh := newPaths(dir, filepath.Join(dir, results.LockFile), filepath.Join(dir, results.TrialsFile), filepath.Join(dir, "spec.toml"),
		filepath.Join(dir, results.ShardsDir), results.ShardLockPath(dir, opt.Shard.Index, max(opt.Shard.Count, 1)),
		results.ShardSpecPath(dir, s.SHA256),
		results.ShardPath(dir, opt.Shard.Index, max(opt.Shard.Count, 1)))
	rep := &Report{Dir: dir, Cells: len(cells), SkipReasons: r.skipped}
	r.report = rep
	keys := cellKeys(cells)
	ofSpec := func(cell string) bool { return keys[cell] }
	cellByKey := make(map[string]*plan.Cell, len(cells))
	for i := range cells {
		cellByKey[cells[i].Key] = &cells[i]
	}
	// The stored records are read once, as the store opens, and not kept:
	// the progress ETA's cost model takes their wall times, and
	// Options.Records each record (with Force, those Rewrite keeps: the
	// spec's cells are dropped).
	cost := newCostModel()
	exp := results.ExperimentCheck{Name: s.Name, Want: ofSpec}
	visit := func(rec *results.Record) {
		exp.Add(rec)
		if opt.Force && keys[rec.CellKey] {
			return
		}
		if c := cellByKey[rec.CellKey]; c != nil && rec.Status == results.StatusOK {
			cost.stored(c.Key, planRow(s, c), rec.WallSeconds)
			if rec.Trial >= c.Trials && !opt.Shard.Sharded() { // a shard renders nothing
				rep.Beyond++
			}
		}
		if opt.Records != nil {
			opt.Records(rec)
		}
	}
	// Open takes the directory's lock before it reads, repairs or rewrites
	// anything; the store holds it until the deferred Close, after the
	// manifest and Options.Render. A shard opens its own file instead.
	var store *results.Store
	if opt.Shard.Sharded() {
		store, err = r.openShard(dir, warn, visit)
	} else {
		store, err = results.Open(dir, warn, visit)
	}
	if err != nil {
		return nil, err
	}
	defer store.Close()
	if !opt.Shard.Sharded() {
		// Trials that shards finished and dplab merge has not added would
		// run again here, and a later merge would hold them twice. --force
		// reruns every trial, so any shard record of the spec's cells, merged
		// or not, would come back with a later merge.
		done := store.Done
		if opt.Force {
			done = func(results.Key) bool { return false }
		}
		if err := results.UnmergedShards(dir, ofSpec, done, warn); err != nil {
			var um *results.UnmergedShardsError
			if errors.As(err, &um) {
				um.Forced = opt.Force
			}
			return nil, err
		}
		if err := exp.Err(dir); err != nil {
			return nil, err
		}
	}
	// rendered is closed when Options.Render has returned; the deferred
	// wait runs before the deferred Close, so rendering ends under the lock.
	var rendered chan struct{}
	defer func() {
		if rendered != nil {
			<-rendered
		}
	}()
	// The data are loaded before anything in the directory changes: a
	// dataset that does not load leaves the store, its spec copy and a
	// directory the run created as they were (--force included).
	need := r.datasetsWithPending(store)
	if opt.Force { // every trial of the spec's cells is pending
		for i := range cells {
			need[cells[i].Dataset] = true
		}
	}
	var given map[results.Key]*results.Record
	if opt.Given != nil {
		given = make(map[results.Key]*results.Record, len(opt.Given))
		for i := range opt.Given {
			given[opt.Given[i].Key()] = &opt.Given[i]
		}
		need = make([]bool, len(need)) // no trial runs
	}
	if err := r.planData(need, opt.DataMemory); err != nil {
		removeNew(fresh) // under the lock, which the deferred Close releases
		return rep, err
	}
	if err := r.preload(need); err != nil {
		removeNew(fresh)
		return rep, err
	}
	if opt.Force {
		if err := store.Rewrite(func(r *results.Record) bool { return !keys[r.CellKey] }); err != nil {
			return nil, err
		}
	}
	if !opt.Shard.Sharded() {
		if err := fileutil.WriteFileAtomic(filepath.Join(dir, "spec.toml"), s.Source); err != nil {
			return nil, err
		}
	}
	r.store, r.sink = store, opt.Records
	// The pending trials are visited twice (counted, then scheduled) rather
	// than listed: a spec may have 10⁸ of them. Datasets skipped before the
	// run started are skipped in both passes alike.
	skippedAtStart := make(map[string]bool, len(r.skipped))
	for label := range r.skipped {
		skippedAtStart[label] = true
	}
	var skipFirst []int // the cells of skipped datasets whose trial 0 records the reason
	for i := range cells {
		c := &cells[i]
		row := planRow(s, c)
		first, step := r.trialRange(i)
		for t := first; t < c.Trials; t += step {
			rep.Total++
			if k := (results.Key{Cell: c.Key, Trial: t}); store.Done(k) {
				rep.Stored++
			} else if given != nil && given[k] == nil {
				continue // not given: left to a run
			} else if skippedAtStart[s.DatasetAt(c.Dataset).Label] {
				// Nothing runs: trial 0 records the reason (below, outside
				// the progress bar, whose count is of trials run), the rest
				// are counted.
				if t == 0 {
					skipFirst = append(skipFirst, i)
				} else {
					rep.Skipped++
				}
			} else {
				rep.PendingBefore++
				cost.pending(c.Key, row)
			}
		}
	}
	manifestRun := results.Run{Build: results.CurrentBuild(), Args: opt.Args, Jobs: jobs, Quick: s.QuickApplied, Start: start,
		Trials: opt.Trials, Set: s.Overrides}
	manifestRun.AddLoad()
	if o := s.Only; o != nil {
		manifestRun.Only, manifestRun.LeftOutCells, manifestRun.LeftOutTrials = o.Filters, o.LeftCells, o.LeftTrials
	}
	if opt.Shard.Sharded() {
		manifestRun.Shard = opt.Shard.String()
	}

	prog := newProgress(log, rep.PendingBefore, opt.Progress, cost)
	// The pending trials are started round-robin over the cells (schedule;
	// a shard visits only its own trials of each cell, trialRange) by a
	// fixed pool of jobs workers that pull them one at a time: a goroutine
	// per trial would grow a fresh stack and wake an idle thread for every
	// trial (a tenth of a small panel's CPU).
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	todo := func(ci, t int) bool {
		c := &cells[ci]
		k := results.Key{Cell: c.Key, Trial: t}
		return !store.Done(k) && !skippedAtStart[s.DatasetAt(c.Dataset).Label] && (given == nil || given[k] != nil)
	}
	next, stop := iter.Pull2(func(yield func(int, int) bool) {
		r.scheduleTrials(cells, todo, yield)
	})
	defer stop()
	var nextMu sync.Mutex
	var finished atomic.Int64 // trials handed to the store
	var writeErr error
	for _, ci := range skipFirst {
		rec, ok := r.trial(wctx, &cells[ci], 0) // a skipped record, at once: the data are absent
		if !ok {
			break
		}
		finished.Add(1)
		if writeErr = store.Append(rec); writeErr != nil {
			cancel()
			break
		}
		r.count(&rec)
	}
	// The workers hand their finished trials to one writer, which encodes
	// and appends each (store.Append), gives it to Options.Records, counts
	// it and advances the progress, in the order the workers finished them:
	// encoding a record was a quarter of a small panel's CPU, and at -j 1
	// it now overlaps with the next trials instead of following each. The
	// writer takes every batch sent (after a failed write it keeps none),
	// so no worker waits on it for long; it has written all of them when
	// wrote is closed.
	recs := make(chan []results.Record, writeQueue)
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		for batch := range recs {
			for i := range batch {
				rec := &batch[i]
				if writeErr != nil {
					continue // lost: a rerun runs it (Report.Lost)
				}
				if writeErr = store.Append(*rec); writeErr != nil {
					cancel()
					continue
				}
				r.count(rec)
				prog.step(rec.CellKey, rec.WallSeconds)
			}
		}
	}()
	var wg sync.WaitGroup
	// No more workers than trials to run: -j 2^63 − 1 started a goroutine
	// per unit of it, and kept starting them long after the trials were
	// done. Each worker takes one trial at a time and hands the records on
	// in batches (batchSpan, maxBatch): short trials then meet the writer
	// once per batch, not once each, and no worker holds trials it has not
	// started.
	for range max(1, min(jobs, rep.PendingBefore)) {
		wg.Go(func() {
			var batch []results.Record
			var start time.Time // of the batch's first trial
			send := func() {
				if len(batch) > 0 {
					finished.Add(int64(len(batch)))
					recs <- batch
					batch = nil
				}
			}
			defer send()
			for wctx.Err() == nil {
				nextMu.Lock()
				ci, t, ok := next()
				nextMu.Unlock()
				if !ok {
					return
				}
				if len(batch) == 0 {
					start = time.Now()
				}
				var rec results.Record
				if given != nil {
					rec = *given[results.Key{Cell: cells[ci].Key, Trial: t}]
				} else if rec, ok = r.trial(wctx, &cells[ci], t); !ok {
					return // cancelled: nothing stored
				}
				batch = append(batch, rec)
				if len(batch) == maxBatch || time.Since(start) >= batchSpan {
					send()
				}
			}
		})
	}
	wg.Wait()
	close(recs)
	<-wrote
	prog.finish()
	rep.Interrupted = ctx.Err() != nil
	if opt.Render != nil && !rep.Interrupted && writeErr == nil {
		// Every record is appended and given to Options.Records: render
		// while the store syncs and the manifest is written.
		rendered = make(chan struct{})
		go func() {
			defer close(rendered)
			opt.Render()
		}()
	}
	if err := store.Sync(); err != nil && writeErr == nil {
		writeErr = err
	}
	if writeErr != nil {
		// The counts are of the records in the file: those appended since
		// the last successful write (and the one refused) are lost, and
		// rerun on resume.
		w := store.Written()
		rep.Ran, rep.Failed, rep.Skipped, rep.Infeasible = w[results.StatusOK], w[results.StatusFailed], w[results.StatusSkipped], w[results.StatusInfeasible]
		rep.Lost = int(finished.Load()) - (rep.Ran + rep.Failed + rep.Skipped + rep.Infeasible)
	}
	manifestRun.End = time.Now()
	manifestRun.AddLoad()
	manifestRun.TrialsRun, manifestRun.Failed, manifestRun.Skipped, manifestRun.Infeasible = rep.Ran, rep.Failed, rep.Skipped, rep.Infeasible
	switch {
	case rep.Interrupted:
		manifestRun.Status = "interrupted"
	case rep.Failed > 0 || writeErr != nil:
		manifestRun.Status = "failed"
	default:
		manifestRun.Status = "complete"
	}
	if err := r.writeManifest(dir, manifestRun, warn); err != nil {
		warn(err.Error())
	}
	for label, why := range r.skipped {
		fmt.Fprintf(log, "skipped dataset %q: %s\n", label, why)
	}
	rep.Elapsed = time.Since(start)
	if writeErr != nil {
		return rep, writeErr
	}
	if rep.Interrupted {
		return rep, fmt.Errorf("interrupted: %d of %d pending trials finished and are stored in %s; rerun the same command to resume", rep.Ran+rep.Failed, rep.PendingBefore, dir)
	}
	if rep.Failed > 0 {
		return rep, fmt.Errorf("%d trial(s) failed (records in %s); first: %s", rep.Failed, store.Path(), strings.Join(rep.FailedErrors, "; "))
	}
	return rep, nil
}

// preload loads the datasets before any trial runs, so a missing or
// malformed data file stops the run at once with an error naming the file
// (an *InputError), rather than failing every trial. Absent files of an
// optional dataset mark it skipped instead. need says which of the spec's
// datasets to load (nil: all of them). A dataset with a fixed split is
// split as soon as it is loaded (ready), which releases its loaded rows,
// so that the run never holds every dataset twice.
func (r *runner) preload(need []bool) error {
	for i, d := range r.spec.Datasets {
		if need != nil && !need[i] {
			continue
		}
		_, err := r.cache.load(r.dataDir, d)
		var missing *datasets.MissingError
		switch {
		case err == nil && r.gate != nil:
			r.forget(i) // loaded again at its turn
		case err == nil:
			if !d.Split.Resample {
				r.ready(context.Background(), i) // an error is the trials' (prepare)
			}
		case errors.As(err, &missing) && d.Optional:
			r.skipped[d.Label] = err.Error()
		default:
			return &spec.InputError{Err: fmt.Errorf("dataset %q: %w", d.Label, err)}
		}
	}
	return nil
}

// datasetsWithPending reports, for each of the spec's datasets, whether
// any of its trials that this run (or shard) would run is not in store yet.
// A resumed run loads only those datasets: one whose trials are all stored
// loads no data (re-running make reproduce's finished
// compare_classification took 5 s, most of it loading data; now 0.5 s).
func (r *runner) datasetsWithPending(store *results.Store) []bool {
	need := make([]bool, len(r.spec.Datasets))
	for i := range r.cells {
		c := &r.cells[i]
		if need[c.Dataset] {
			continue
		}
		first, step := r.trialRange(i)
		for t := first; t < c.Trials; t += step {
			if !store.Done(results.Key{Cell: c.Key, Trial: t}) {
				need[c.Dataset] = true
				break
			}
		}
	}
	return need
}

func cellKeys(cells []plan.Cell) map[string]bool {
	keys := make(map[string]bool, len(cells))
	for _, c := range cells {
		keys[c.Key] = true
	}
	return keys
}

// count counts a record the store took and gives it to Options.Records.
// Its calls are serialised (the run's writer makes them), so Records is
// called outside r.mu: a slow Records delays no trial.
func (r *runner) count(rec *results.Record) {
	if r.sink != nil { // set before the trials start
		kept := r.asStored(rec)
		r.sink(&kept)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch rec.Status {
	case results.StatusOK:
		r.report.Ran++
	case results.StatusFailed:
		r.report.Failed++
		if len(r.report.FailedErrors) < 3 {
			r.report.FailedErrors = append(r.report.FailedErrors, fmt.Sprintf("%s on %s at ε=%g, trial %d: %s", rec.Label, rec.Dataset, float64(rec.Epsilon), rec.Trial, firstLine(rec.Error)))
		}
	case results.StatusSkipped:
		r.report.Skipped++
		r.skipped[rec.Dataset] = rec.Error
	case results.StatusInfeasible:
		r.report.Infeasible++
	}
}

// asStored returns rec as the store will read it back: params through
// JSON (omitempty, float64 numbers), the schema set.
func (r *runner) asStored(rec *results.Record) results.Record {
	kept := *rec
	kept.MechParams, kept.DataParams = r.storedParams(rec)
	kept.Schema = results.SchemaVersion
	return kept
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// mechanism returns the (stateless, concurrency-safe) mechanism for params,
// building it once.
func (r *runner) mechanism(e mechanisms.Entry, params map[string]any) (mechanisms.Mechanism, error) {
	b, _ := json.Marshal(params)
	key := e.ID() + string(b)
	r.mu.Lock()
	m, ok := r.mechs[key]
	r.mu.Unlock()
	if ok {
		return m, nil
	}
	m, _, err := e.Build(func(v any) error { _, err := spec.DecodeStrict(params, v); return err })
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.mechs[key] = m
	r.mu.Unlock()
	return m, nil
}

// closeMechanisms closes the built mechanisms that hold resources beyond
// the run (an external mechanism's worker processes: io.Closer).
func (r *runner) closeMechanisms() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range r.mechs {
		if c, ok := m.(io.Closer); ok {
			c.Close()
		}
	}
}

// trial runs one trial and returns its record; ok is false when ctx was
// cancelled before the trial finished (nothing is stored then).
func (r *runner) trial(ctx context.Context, c *plan.Cell, t int) (rec results.Record, ok bool) {
	s := r.spec
	ds := s.DatasetAt(c.Dataset)
	ms := s.Mechanisms[c.Mechanism]
	seed := trialSeed(s, c, t)
	rec = results.Record{
		Experiment: s.Name, CellKey: c.Key, Dataset: ds.Label, Mechanism: ms.Name, Label: c.Label,
		Epsilon: results.Float(c.Epsilon), Trial: t, Seed: seed.Hex(), MechParams: c.Params,
		DataParams: ds.Params, CodeVersion: codeVersion(),
		Privacy: results.Privacy{EpsTarget: results.Float(c.Epsilon), Accountant: r.acc.KindName(), Tuning: ms.Tuning.Mode,
			Selection: selectionLabel(ms.Tuning)},
	}
	defer func() {
		// The trial boundary is the only place that recovers panics (STYLE
		// §2.4): the trial becomes a failed record with its stack.
		if p := recover(); p != nil {
			rec.Status = results.StatusFailed
			rec.Error = fmt.Sprintf("panic: %v\n%s", p, debug.Stack())
			ok = true
		}
	}()
	defer r.gate.done(c.Dataset)
	rs := rngs.New(seed)
	data, err := r.prepare(ctx, c.Dataset, rs)
	if ctx.Err() != nil {
		return rec, false // cancelled, perhaps while waiting for its data
	}
	if err != nil {
		var missing *datasets.MissingError
		if errors.As(err, &missing) {
			rec.Status, rec.Error = results.StatusSkipped, err.Error()
			return rec, true
		}
		rec.Status, rec.Error = results.StatusFailed, err.Error()
		return rec, true
	}
	delta, err := s.Delta.Eval(data.train.Rows(), data.train.Cols())
	if err != nil {
		rec.Status, rec.Error = results.StatusFailed, err.Error()
		return rec, true
	}
	rec.Privacy.Delta = results.Float(delta)
	if !c.Private {
		rec.Privacy.Delta = results.Float(math.NaN()) // no δ applies: stored as null
	}
	// Pre-processing (pipeline.go): the cell's mechanism fits behind it;
	// δ above is the raw training set's.
	budget := mechanisms.Budget{Epsilon: c.Epsilon, Delta: delta, Accounting: r.acc, Calibrator: r.cal,
		CellSeed: r.cellSeed(c)}
	start := time.Now()
	out, err := r.fit(mechanisms.WithEvalRows(ctx, r.evalRows(c, data)), c, data, budget, rs)
	rec.WallSeconds = time.Since(start).Seconds()
	if ctx.Err() != nil {
		return rec, false
	}
	if err != nil {
		rec.Status, rec.Error = results.StatusFailed, err.Error()
		markInfeasible(&rec, err)
		return rec, true
	}
	if err := r.account(&rec, out, delta); err != nil {
		rec.Status, rec.Error = results.StatusFailed, err.Error()
		markInfeasible(&rec, err)
		return rec, true
	}
	rec.Privacy.Assumptions = withRelease(r.assumptions(c, &rec), out.release, &rec)
	pm, _ := out.release.Model.(*mechanisms.PreprocessedModel)
	if p := c.Pipeline; p != nil && pm != nil {
		if err := r.recordPipeline(&rec, c, p, pm, out, delta); err != nil {
			rec.Status, rec.Error = results.StatusFailed, err.Error()
			return rec, true
		}
	}
	task := data.train.Task
	rec.Metrics = map[string]results.Float{}
	for _, m := range r.metricsFor(task) {
		part, name := data.test, "test"
		switch m.On {
		case "train":
			part, name = data.train, "training"
		case "validation":
			part, name = data.val, "validation"
		}
		if part == nil {
			continue // no such part (split.all); validation refuses such metrics
		}
		v, err := score(m.Name, data, out.release.Model, part)
		if err != nil {
			rec.Status, rec.Error = results.StatusFailed, fmt.Sprintf("pre-processing %s: %s rows: %v", c.Pipeline.StepsText(), name, err)
			return rec, true
		}
		rec.Metrics[m.Name] = results.Float(v)
	}
	// An iterative fit's per-iteration values were computed from the
	// training data without noise, like a train metric: evaluation only.
	rec.Traces = traces(out.release.Trace)
	// The fit's counters were read from the private data without noise: the
	// record keeps them as non-private diagnostics.
	rec.Diagnostics = floatMap(out.release.Stats)
	for k, v := range out.stats {
		if rec.Diagnostics == nil {
			rec.Diagnostics = map[string]results.Float{}
		}
		rec.Diagnostics[k] = results.Float(v)
	}
	if pm != nil {
		rec.Diagnostics = pipelineDiagnostics(rec.Diagnostics, pm)
	}
	rec.Status = results.StatusOK
	return rec, true
}

// markInfeasible records a trial whose fit cannot meet its target, when
// err says so: the one place where a calibration's
// *accounting.InfeasibleError (no noise level meets the target) or a
// *mechanisms.OutOfRangeError (the target is outside the range where the
// mechanism's formulas or analysis hold, or its ledger is unbounded), from
// any mechanism, tuned or not, becomes a settled, non-failing outcome
// instead of a failure: the same spec and data give the same answer, so a
// rerun does not repeat it. Its reason stays in Error, and the smallest ε a
// calibration reached (an RDP ε at an order when the target was one), when
// it found one, in the diagnostics: it is read from the data without noise,
// like every diagnostic, and nothing was released. Any other error leaves
// the record failed.
func markInfeasible(rec *results.Record, err error) {
	var ie *accounting.InfeasibleError
	var oor *mechanisms.OutOfRangeError
	if !errors.As(err, &ie) && !errors.As(err, &oor) {
		return
	}
	rec.Status = results.StatusInfeasible
	if ie == nil || math.IsNaN(ie.Floor) {
		return
	}
	if rec.Diagnostics == nil {
		rec.Diagnostics = map[string]results.Float{}
	}
	rec.Diagnostics[results.InfeasibleFloor] = results.Float(ie.Floor)
	if ie.Order > 0 {
		rec.Diagnostics[results.InfeasibleOrder] = results.Float(ie.Order)
	}
}

// fitted is the outcome of a (possibly tuned) fit.
type fitted struct {
	release *mechanisms.Release
	charged accounting.Event // the ledger: Wrap(release.Event)
	perRun  accounting.Event // the base event of one run, for tuned fits
	note    string
	stats   map[string]float64
}

// fit fits the cell's mechanism (behind its pipeline, if any: it charges
// each run itself) on data.
func (r *runner) fit(ctx context.Context, c *plan.Cell, data *split, b mechanisms.Budget, rs rngs.Streams) (*fitted, error) {
	ms := r.spec.Mechanisms[c.Mechanism]
	switch ms.Tuning.Mode {
	case spec.TuneOracle:
		return r.fitOracle(ctx, c, data, b, rs)
	case spec.TunePrivate:
		return r.fitPrivate(ctx, c, data, b, rs)
	}
	m, err := r.cellMechanism(c)
	if err != nil {
		return nil, err
	}
	rel, err := m.Fit(ctx, data.train, b, rs)
	if err != nil {
		return nil, err
	}
	return &fitted{release: rel, charged: b.Charged(rel.Event)}, nil
}

// account evaluates the ledger with the spec's accountant and fills the
// record's privacy fields. The ε recorded is computed from the event, never
// copied from the budget.
func (r *runner) account(rec *results.Record, out *fitted, delta float64) error {
	if out.release == nil || out.release.Event == nil || out.charged == nil {
		return errors.New("the mechanism returned no privacy event")
	}
	ev, err := r.encodeEvent(rec.CellKey, false, out.charged)
	if err != nil {
		// A ledger with a parameter out of range (a Laplace scale 4C²/ε
		// that overflows at ε = 1e-320) is named as such, not as a JSON
		// error; a valid one is checked again by the accountant below.
		if verr := accounting.Validate(out.charged); verr != nil {
			return fmt.Errorf("the mechanism's ledger is invalid: %w", verr)
		}
		return fmt.Errorf("encode ledger: %w", err)
	}
	rec.Privacy.Event = ev
	rec.Privacy.Noise = r.noiseMap(rec.CellKey, out.release.Noise)
	rec.Privacy.TuningNote = out.note
	rec.Privacy.TargetScope = out.release.TargetScope
	g, err := r.epsilon(ev, out.charged, delta)
	if err != nil {
		return fmt.Errorf("account for the ledger: %w", err)
	}
	rec.Privacy.EpsSpent = results.Float(g.Epsilon)
	if g.Relation != "" {
		rec.Privacy.Relation = g.Relation
	}
	if !math.IsInf(g.Epsilon, 1) {
		rec.Privacy.AlphaStar = results.Float(g.Alpha) // no optimal order without a guarantee
	}
	if g.Accountant != "" {
		rec.Privacy.Accountant = g.Accountant
	}
	if out.perRun != nil {
		perRun, err := r.encodeEvent(rec.CellKey, true, out.perRun)
		if err != nil {
			return err
		}
		pr, err := r.epsilon(perRun, out.perRun, delta)
		if err != nil {
			return fmt.Errorf("account for one run: %w", err)
		}
		rec.Privacy.EpsPerRun = results.Float(pr.Epsilon)
	}
	if _, isNP := out.charged.(accounting.NonPrivate); !isNP && rec.Privacy.Tuning != spec.TuneOracle && rec.Privacy.TargetScope == "" {
		// Calibrated mechanisms must meet their target: overspending fails
		// the trial. A mechanism with fixed constants (e.g. a paper's box)
		// may not, and is reported as spent. Either way the record holds
		// the accounted value. A release with a target scope met a target
		// that is not the whole ledger's (ε, δ) (say a per-step RDP ε):
		// its ε spent is not compared with ε target at all, neither to
		// fail the trial (even if it claims Calibrated) nor to note an
		// overspend; the record states the scope instead.
		if err := out.release.CheckSpent(float64(rec.Privacy.EpsSpent), float64(rec.Privacy.EpsTarget)); err != nil {
			return err
		}
		// A private release whose ledger no accountant bounds (noise below
		// float64's range at a huge ε) is not a non-private result: the
		// target is out of the mechanism's range (validation refuses the
		// targets it can foresee; mechanisms.TargetChecker).
		if math.IsInf(float64(rec.Privacy.EpsSpent), 1) {
			return &mechanisms.OutOfRangeError{Reason: fmt.Sprintf("the ledger's ε spent is +Inf under %s at δ = %g (no guarantee): target ε = %g is outside the range where this mechanism's noise can be accounted",
				r.acc.Describe(), delta, float64(rec.Privacy.EpsTarget))}
		}
		if float64(rec.Privacy.EpsSpent) > float64(rec.Privacy.EpsTarget)*(1+1e-9) {
			rec.Privacy.TuningNote = strings.TrimSpace(rec.Privacy.TuningNote + " ε spent exceeds the target")
		}
	}
	return nil
}

// epsilon evaluates event (whose JSON is ev) at δ with the spec's accountant,
// memoised: the trials of a cell usually charge the same ledger. (A
// sync.Map: the workers look it up every trial, and mostly find it.)
func (r *runner) epsilon(ev []byte, event accounting.Event, delta float64) (accounting.Guarantee, error) {
	byDelta, ok := r.spent.Load(string(ev))
	if ok {
		if g, ok := byDelta.(*sync.Map).Load(math.Float64bits(delta)); ok {
			return g.(accounting.Guarantee), nil
		}
	}
	g, err := r.acc.Epsilon(event, delta)
	if err != nil {
		return g, err
	}
	byDelta, _ = r.spent.LoadOrStore(string(ev), new(sync.Map))
	byDelta.(*sync.Map).Store(math.Float64bits(delta), g)
	return g, nil
}

// metricsFor returns s.MetricsFor(task), made once per task.
func (r *runner) metricsFor(task datasets.Task) []plan.Metric {
	if m, ok := r.metrics.Load(task); ok {
		return m.([]plan.Metric)
	}
	m, _ := r.metrics.LoadOrStore(task, plan.MetricsFor(r.spec, task))
	return m.([]plan.Metric)
}

// viaJSON returns m as decoding its JSON gives it back: nil when empty,
// numbers as float64.
func viaJSON(m map[string]any) map[string]any {
	if len(m) == 0 {
		return nil
	}
	b, err := json.Marshal(m)
	var out map[string]any
	if err != nil || json.Unmarshal(b, &out) != nil {
		return m
	}
	return out
}

// traces converts a release's traces for the record; nil when there are none.
func traces(m map[string][]float64) map[string][]results.Float {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string][]results.Float, len(m))
	for k, xs := range m {
		ys := make([]results.Float, len(xs))
		for i, x := range xs {
			ys[i] = results.Float(x)
		}
		out[k] = ys
	}
	return out
}

func floatMap(m map[string]float64) map[string]results.Float {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]results.Float, len(m))
	for k, v := range m {
		out[k] = results.Float(v)
	}
	return out
}

// codeVersion is the build's version and revision, recorded with each
// trial: made once per process (the build cannot change while it runs).
var codeVersion = sync.OnceValue(func() string {
	b := results.CurrentBuild()
	v := b.Version + "+" + b.Revision
	if b.Modified {
		v += "-dirty"
	}
	return v
})

// writeManifest adds run to the manifest of dir (the shard's, for a shard
// run). A manifest that does not parse is replaced by one of this run
// alone, with a warning: left as it was, it failed every later render.
func (r *runner) writeManifest(dir string, run results.Run, warn func(string)) error {
	path := filepath.Join(dir, results.ManifestFile)
	if r.shard.Sharded() {
		path = results.ShardManifestPath(dir, r.shard.Index, r.shard.Count)
	}
	m, err := results.ReadManifestFile(path)
	var corrupt *results.CorruptManifestError
	if errors.As(err, &corrupt) {
		warn(fmt.Sprintf("%v: rewriting it from this run (the earlier runs it recorded are lost; the trials are not)", err))
		m, err = &results.Manifest{}, nil
	}
	if err != nil {
		return err
	}
	m.Experiment, m.SpecPath, m.SpecSHA256 = r.spec.Name, r.spec.File, r.spec.SHA256
	if m.Datasets == nil {
		m.Datasets = map[string]string{}
	}
	for _, d := range r.spec.Datasets {
		// The files verified before loading (none for a generator or a user
		// file): the SHA-256 of the stored bytes that matched the registry.
		files, err := r.cache.verified(r.dataDir, d.Name)
		if err != nil {
			continue
		}
		for _, f := range files {
			if f.Unverified { // no registered checksum: say so, with what was read
				m.Datasets[f.Rel] = "unverified (no registered checksum); sha256 " + f.SHA256
				continue
			}
			m.Datasets[f.Rel] = f.SHA256
		}
	}
	for label, x := range plan.ExternalFiles(r.spec) {
		if m.External == nil {
			m.External = map[string]results.ExternalCommand{}
		}
		m.External[label] = x
	}
	m.Runs = append(m.Runs, run)
	if r.shard.Sharded() {
		return results.WriteShardManifest(dir, r.shard.Index, r.shard.Count, m)
	}
	return results.WriteManifest(dir, m)
}
