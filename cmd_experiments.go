package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/report"
	"github.com/dplab/dplab/harness/run"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/internal/fileutil"
	"github.com/dplab/dplab/results"
)

var runCommand = &command{
	Name:      "run",
	UsageLine: "run SPEC.toml... [--set PATH=VALUE]... [--only DIMENSION=VALUE]... [-j N] [--out DIR] [--trials N] [--quick] [--force] [--shard i/N] [--data-dir DIR] [--max-cells N] [--max-trials N]",
	Short:     "run every trial not yet stored, then render figures and tables",
	Long: `Run expands each spec into cells (datasets × mechanisms × ε × parameter sweeps),
runs every trial not already stored in the result directory on N goroutines, and
renders the spec's figures and tables. Results land in ` + run.DefaultRoot + `/<name>/ (or
` + run.DefaultRoot + `/<name>-quick/ with --quick): trials.jsonl, summary.csv, manifest.json,
figures/, tables/. An interrupted run (Ctrl-C, SIGTERM) loses no finished trial;
a SIGKILL loses at most the last 0.1 s of them (they run again): rerun the same
command to resume. With several specs, --out is the parent of
their result directories (specs of one name, which would share one, are
refused). A result directory must be new, empty or dplab's
(holding trials.jsonl), and only one run may use it at a time.

With --shard i/N (one spec) it runs only shard i of N of the trials (see
"dplab plan --shards") into its own file, DIR/shards/shard-i-of-N.jsonl,
without the directory's lock and without rendering: the N shards may run at
once, on hosts sharing DIR. "dplab merge DIR" then joins them.

--set PATH=VALUE (repeatable; also on plan, validate and render SPEC.toml)
overrides a key of the spec with a TOML value before it is decoded, so
every check is the spec's own: --set trials=50, --set 'epsilon=[0.5, 1, 2]',
--set 'mechanism[label="AdaSSP"].params.rho=[1e-3, 1e-2]' (a [[block]] is
picked by [index] or [key=VALUE], which must match exactly one). The run
saves the overridden spec as DIR/spec.toml and records the overrides in
the manifest; changed cells get new keys, so only they run.

--only DIMENSION=VALUE (repeatable; also on plan and render) runs only the
cells that match: dataset and mechanism (label or registry name), epsilon
(a non-private reference, which has no ε, matches every ε), params.KEY; a
cell must match one filter of each dimension named. What was left out is
printed and recorded in the manifest; a filter matching no cell is an
error listing the valid values. The run still renders every stored trial
of the spec (captions say INCOMPLETE where trials are missing); "dplab
render --only" draws the subset alone, its captions saying SUBSET.`,
	Run: cmdRun,
}

var planCommand = &command{
	Name:      "plan",
	UsageLine: "plan SPEC.toml [--set PATH=VALUE]... [--only DIMENSION=VALUE]... [--out DIR] [--trials N] [--quick] [--estimate [-j N] [--data-dir DIR] [--estimate-share F] [--keep[=auto|false]]] [--shards N] [--max-cells N] [--max-trials N]",
	Short:     "show the expanded grid, what is stored and what would run",
	Long: `Plan expands the spec into cells and lists, per dataset and mechanism, the ε
values, the trials per cell, how many are stored in the result directory and
how many a run would add.

With --estimate it also measures what the run would cost on -j concurrent
trials (capped at the CPUs): it loads the datasets once
(a dataset whose files are absent is left out, named not estimable, and
its trials not counted), times the first trial of one cell (its middle ε)
of each [[mechanism]] block on each dataset with trials to run, -j at once
(a worker they leave idle times further cells of the blocks whose first
trial ended, stopped when the last ends), then a later trial of each of
those cells (cheapest first, alone, or -j at once when kept; a cell's
later trials are timed in a fixed shuffle, a random sample of them), then
times the store's writes and the rendering on their records, then
measures the host (five rounds, three or four in a small run, of a busy
thread alone and, with -j > 1, -j of them at once, the work each does a
second, in windows of 4–20 ms and 10–20 ms sized to what the share of
the run those trials predict leaves); all this, from the process's
start, is its floor, always spent. Then, within a budget of 5%
(--estimate-share) of the estimate less the floor (at least 0, at most
30 s; net of what its kept trials save the run, below), with -j > 1 warm
trials (a cell's later one) in five rounds alone and again -j at once, to
measure how much longer a trial takes when -j run together on this
machine now (its slowdown, the rounds' median; when no burst of them
fits, the median of the host's rounds' ratios of a thread's work a
second alone to its work a second at once), and further trials -j at
once, each where the variance of the total falls most per second timed
(rows not timed yet first; a new cell, its first two trials, while the
spread between a row's cells dominates, else three more later trials of
its least-timed cell, alone unless kept) until the trials' relative
standard error is 5%. A cell's later trials shorter than 2 ms are timed
on until they last 2 ms (at most 64). A row's seconds per trial
is the mean over its sampled cells of their later trials' mean, its range
the two-stage sample's (cells, then trials). A
row with no cell timed takes the costs of its [[mechanism]] block's rows on its
dataset. A statistic of a training set that trials of several cells use
(memoised on it: XᵀX, a data bound, a non-private fit) is computed once a
run: the time a cell's first trial spent computing it, or waiting for
another trial timed at once to, is not that cell's one-off work, and it
counts once. It prints each row's mean seconds per trial, the one-off
seconds a cell's first trial adds (a calibration, the cell's own
statistics) and the cells timed; the estimated wall time with its parts:
start-up (this process's start, the spec, its validation, the grid, the
store), dataset loading, the trials (slowdown × their schedule on -j
workers as a run starts them, round-robin over the cells, each on the first
worker free: a trial at its row's s/trial, a cell's first with its one-off
s/cell, a dataset's first with its shared statistics; with a range of two
standard errors), the store
writes (each timed record's append, timed in a temporary store), a sync
(the spec's copy) and the larger of rendering (timed on the sampled
trials' records) and two syncs (the store's, the manifest's); the CPUs,
the load average it was measured at and the host's dilation (the wall
time of a busy thread's CPU second now, its CPU time and its wait for a
CPU pooled over the host's windows alone and every trial timed alone: a timed trial
shorter than 25 ms counts as the larger of its wall time and its CPU time
× dilation), and the CPUs the trials are assumed to get (-j × the CPUs the
trials timed alone used, the process's CPU over their wall time, /
slowdown); and the sample: the estimate's own cost from the process's
start and its share of the predicted run, trials timed, time spent,
budget; when the floor alone is over the share, a line "floor: …" with
its parts. The trials it timed are stored in the result directory, as a
run stores its own (its lock, the spec's copy, a manifest entry of this
command), so that dplab run does not repeat them: the estimate is of the
run after them, and its cost is also said net of what they save that run
(their wall times over -j). By default (--keep=auto) only when they save
the run more than storing them costs (about what timing their writes
took: trials of microseconds save less); --keep stores them always,
--keep=false never.

With --shards N (implies --estimate) it also prints each shard's trials and
estimated wall time on -j concurrent trials, as "dplab run --shard i/N"
would run them: datasets + its trials laid out as its run starts them,
each on the first of -j workers free (a cell's first with the one-off
s/cell, a dataset's first with its shared statistics, each trial at
s/trial), × slowdown, since every shard does the one-off work of each cell
it touches and computes the statistics its cells share.`,
	Run: cmdPlan,
}

var validateCommand = &command{
	Name:      "validate",
	UsageLine: "validate SPEC.toml... [--set PATH=VALUE]... [--max-cells N] [--max-trials N]",
	Short:     "check specs strictly without running anything",
	Long: `Validate loads each spec strictly and checks it without running or expanding
anything: keys and types, value ranges (δ over training sets of 2 to 10⁹ rows),
names, repeated sweep values, that the accountant can evaluate every
mechanism's ledger, that every ε is in each mechanism's range, and the grid's
size (counted before it is built; a spec above --max-cells cells or
--max-trials trials is refused). It warns of δ ≥ 1/n at a dataset's declared
size and of targets a mechanism's calibration cannot meet (a run records
those trials infeasible).`,
	Run: cmdValidate,
}

var renderCommand = &command{
	Name:      "render",
	UsageLine: "render RESULTDIR|SPEC.toml [--set PATH=VALUE]... [--only DIMENSION=VALUE]... [--out DIR] [--quick] [--max-cells N] [--max-trials N]",
	Short:     "re-render figures and tables from stored results",
	Long: `Render writes summary.csv, figures and tables from the trials already stored,
running nothing. Given a result directory it renders it in place, with the spec
copy saved there by the last run (and its --quick setting; --out and --quick are
refused); given a spec it renders the spec's result directory (--out to choose
another, --quick for the --quick one). With --only it writes the subset's
outputs to the folder subset/ of the result directory, leaving the full
ones untouched; the subset's claims name the filters and say SUBSET.`,
	Run: cmdRender,
}

// loadSpec loads a spec with grid limits lim and the --set overrides sets,
// mapping its errors to bad input (exit 2); a validation stopped by ctx (a
// signal) is not bad input.
func loadSpec(ctx context.Context, path string, quick bool, lim spec.Limits, sets ...string) (*spec.Spec, error) {
	return loadSpecWith(ctx, path, quick, spec.LoadOptions{Limits: lim, Set: sets})
}

// loadSpecWith is loadSpec with load options o (its Context is ctx).
func loadSpecWith(ctx context.Context, path string, quick bool, o spec.LoadOptions) (*spec.Spec, error) {
	o.Context = ctx
	s, err := plan.LoadWith(path, o)
	if err == nil && quick {
		s, err = plan.ApplyQuick(s)
	}
	if err == nil {
		err = report.Check(s) // the figure and table kinds decode their blocks
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, badInput(err)
	}
	return s, nil
}

// printWarnings prints what validating s found that does not stop a run
// (spec.Spec.Warnings), each once, naming the spec file.
func printWarnings(w io.Writer, specs ...*spec.Spec) {
	seen := map[string]bool{}
	for _, s := range specs {
		for _, msg := range s.Warnings {
			if !seen[msg] {
				seen[msg] = true
				fmt.Fprintf(w, "warning: %s: %s\n", s.File, msg)
			}
		}
	}
}

// limitFlags adds --max-cells, --max-trials and --max-data-bytes to fs.
func limitFlags(fs *flag.FlagSet) *spec.Limits {
	l := &spec.Limits{}
	fs.Int64Var(&l.MaxCells, "max-cells", spec.DefaultMaxCells,
		"refuse a spec that expands to more cells (or a mechanism with more sweep points × tuning candidates)")
	fs.Int64Var(&l.MaxTrials, "max-trials", spec.DefaultMaxTrials, "refuse a spec with more trials (cells × trials per cell)")
	l.MaxDataBytes = spec.DefaultMaxDataBytes
	fs.Var((*byteSize)(&l.MaxDataBytes), "max-data-bytes", "refuse a dataset whose values (8 bytes each) take more; a number of bytes, or with a unit: 500MB, 4GB, 4GiB")
	return l
}

// setFlag adds the repeatable --set PATH=VALUE to fs.
func setFlag(fs *flag.FlagSet) *multiFlag {
	var sets multiFlag
	fs.Var(&sets, "set", `override a key of the spec with a TOML value (repeatable): trials=50, 'epsilon=[0.5, 1]', 'mechanism[label="AdaSSP"].params.rho=[1e-3, 1e-2]'`)
	return &sets
}

// onlyFlag adds the repeatable --only DIMENSION=VALUE to fs.
func onlyFlag(fs *flag.FlagSet, what string) *multiFlag {
	var only multiFlag
	fs.Var(&only, "only", what+" only the cells matching DIMENSION=VALUE (repeatable; dataset, mechanism, epsilon, params.KEY): --only mechanism=adassp --only epsilon=1")
	return &only
}

// onlyPlan returns the plan of p's cells that the --only filters only
// select (plan.Plan.Only), a bad filter being bad input.
func onlyPlan(p *plan.Plan, only []string) (*plan.Plan, error) {
	sub, err := p.Only(only)
	return sub, badInput(err)
}

// printLeftOut prints what a --only subset left out of its spec.
func printLeftOut(w io.Writer, s *spec.Spec, did string) {
	if o := s.Only; o != nil {
		fmt.Fprintf(w, "  --only %s: %s %d matching cell(s); left out %d cell(s) (%d trials)\n",
			strings.Join(o.Filters, " --only "), did, o.Cells, o.LeftCells, o.LeftTrials)
	}
}

// checkLimitFlags reports limit flags below 1 (a usage error).
func checkLimitFlags(l *spec.Limits) error {
	if l.MaxCells < 1 || l.MaxTrials < 1 || l.MaxDataBytes < 1 {
		return usagef("--max-cells, --max-trials and --max-data-bytes must be ≥ 1")
	}
	return nil
}

// checkTrialsFlag refuses a --trials below 1 given on the command line:
// "--trials 0" used to mean the spec's count silently, as leaving the flag
// out does.
func checkTrialsFlag(fs *flag.FlagSet, n int) error {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "trials" })
	if set && n < 1 {
		return usagef("--trials must be ≥ 1, got %d (leave it out to run the spec's count)", n)
	}
	return nil
}

// resolveRun resolves the options of a run of s once (run.Resolve: the
// plan, its cells expanded once with a --trials override as their trial
// count, the result directory, --force with --shard refused), mapping that
// refusal to a usage error and a grid the override takes over the limits
// to bad input; a resolution stopped by ctx (a signal) is not bad input.
func resolveRun(ctx context.Context, s *spec.Spec, opt run.Options) (*plan.Plan, run.Options, error) {
	p, ro, err := run.Resolve(ctx, s, opt)
	if errors.Is(err, run.ErrForceShard) {
		return nil, ro, usagef("%v", err)
	}
	if err != nil && ctx.Err() != nil {
		return nil, ro, err
	}
	return p, ro, badInput(err)
}

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	defer boundGC(runGCPercent, runGCHeadroom)() // collect less often, within bounds
	fs := newFlagSet("run", stdout)
	jobs := fs.Int("j", 0, "concurrent trials (default: number of CPUs)")
	out := fs.String("out", "", "result directory (default "+run.DefaultRoot+"/<name>)")
	trials := fs.Int("trials", 0, "override the spec's trial count")
	quick := fs.Bool("quick", false, "apply the spec's [quick] overrides (a smoke run)")
	force := fs.Bool("force", false, "rerun every trial of the spec's cells")
	shardFlag := fs.String("shard", "", "run only shard i/N of the trials into DIR/shards (then: dplab merge DIR)")
	dataDir := fs.String("data-dir", "", "datasets directory (default $DPLAB_DATA, else the user cache)")
	lim := limitFlags(fs)
	sets := setFlag(fs)
	only := onlyFlag(fs, "run")
	specs, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(specs) == 0 {
		return usagef("run needs at least one SPEC.toml")
	}
	if len(*only) > 0 && *shardFlag != "" {
		return usagef("--only and --shard: a sharded run runs the whole grid (run the subset unsharded)")
	}
	shard, err := parseShardFlag(*shardFlag, len(specs))
	if err != nil {
		return err
	}
	if *jobs < 0 {
		return usagef("-j must be ≥ 0 (0: the number of CPUs)")
	}
	if err := checkTrialsFlag(fs, *trials); err != nil {
		return err
	}
	if err := checkLimitFlags(lim); err != nil {
		return err
	}
	loaded := make([]*plan.Plan, len(specs))
	subsets := make([]*plan.Plan, len(specs)) // the cells to run: loaded's, or the --only subset of them
	resolved := make([]run.Options, len(specs))
	for i, p := range specs {
		s, err := loadSpec(ctx, p, *quick, *lim, *sets...)
		if err != nil {
			return err
		}
		// (A spec of curves and tables alone runs no trials: nothing to
		// shorten.)
		if *quick && s.Quick == nil && len(s.Mechanisms) > 0 {
			fmt.Fprintf(stderr, "warning: %s has no [quick] section: --quick runs its trials at full size\n", p)
		}
		opt := run.Options{Jobs: *jobs, OutDir: *out, DataDir: *dataDir, Force: *force, Trials: *trials,
			Args: append([]string{"run"}, args...), Shard: shard}
		if *out != "" && len(specs) > 1 {
			opt.OutDir = run.ResultDir(s, *out)
		}
		if loaded[i], resolved[i], err = resolveRun(ctx, s, opt); err != nil {
			return err
		}
		if subsets[i], err = onlyPlan(loaded[i], *only); err != nil {
			return err
		}
		printWarnings(stderr, s)
		// Two specs of one name would share a result directory: the second
		// would find the first's trials stored and overwrite its figures.
		dir := resolved[i].OutDir
		for j := range i {
			if filepath.Clean(resolved[j].OutDir) == filepath.Clean(dir) {
				return usagef("%s and %s would both write %s (both are named %q): give them different names, or run them one at a time with --out", loaded[j].Spec().File, s.File, dir, s.Name)
			}
		}
	}
	var failed []string
	for i, p := range loaded {
		s, opts := p.Spec(), resolved[i]
		dir := opts.OutDir
		fmt.Fprintf(stderr, "dplab run %s -> %s\n", s.File, dir)
		// The figures and tables are rendered as soon as the trials are
		// done, while the run syncs its store and writes the manifest
		// (run.Options.Render), even when trials failed: the figures show
		// what ran. Both may log, hence the locked writer.
		log := &lockedWriter{w: stderr}
		tty := run.IsTerminal(stderr) // the progress bar on a terminal; log hides it
		var outs []string
		var rerr error
		rendered := false
		opts.Log, opts.Progress = log, &tty
		if !shard.Sharded() { // dplab merge renders a sharded run
			// The run gives the collector each stored record; it keeps
			// what the figures and tables need, not the records. It
			// collects the whole spec's cells: a --only run renders every
			// stored trial, its captions saying what is incomplete.
			col := report.NewCollector(p)
			opts.Records = col.Add
			opts.Render = func() {
				outs, rerr = col.Render(dir, log)
				rendered = true
			}
		}
		rep, err := run.RunPlan(ctx, subsets[i], opts)
		var in *spec.InputError
		if errors.As(err, &in) {
			return badInput(err)
		}
		if isStoreInputError(err) {
			return storeError(err)
		}
		if rendered && err == nil {
			err = rerr
		}
		if rep != nil {
			printReport(stdout, subsets[i], rep, outs)
		}
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			failed = append(failed, fmt.Sprintf("%s: %v", s.Name, err))
		}
	}
	if len(failed) > 0 {
		return errors.New(strings.Join(failed, "\n"))
	}
	return nil
}

func printReport(w io.Writer, p *plan.Plan, rep *run.Report, outs []string) {
	s := p.Spec()
	infeasible := ""
	if rep.Infeasible > 0 {
		infeasible = fmt.Sprintf(", %d infeasible (the mechanism cannot meet the target ε there: recorded with the reason, not rerun)", rep.Infeasible)
	}
	lost := ""
	if rep.Lost > 0 {
		lost = fmt.Sprintf("; %d finished trial(s) not stored (a write failed): a rerun runs them", rep.Lost)
	}
	beyond := ""
	if rep.Beyond > 0 {
		beyond = fmt.Sprintf("; summary, figures and tables also use %d stored trial(s) beyond %d per cell", rep.Beyond, p.Trials())
	}
	fmt.Fprintf(w, "%s: %d cells, %d trials: %d stored before, %d run, %d failed, %d skipped%s (%.1fs)%s%s\n",
		s.Name, rep.Cells, rep.Total, rep.Stored, rep.Ran, rep.Failed, rep.Skipped, infeasible, rep.Elapsed.Seconds(), lost, beyond)
	printLeftOut(w, s, "ran the")
	for _, p := range outs {
		fmt.Fprintf(w, "  wrote %s\n", p)
	}
}

func cmdPlan(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	since := started // what a run spends before its datasets: from the process's start
	if since.IsZero() {
		since = time.Now()
	}
	fs := newFlagSet("plan", stdout)
	out := fs.String("out", "", "result directory (default "+run.DefaultRoot+"/<name>)")
	trials := fs.Int("trials", 0, "override the spec's trial count")
	quick := fs.Bool("quick", false, "apply the spec's [quick] overrides")
	estimate := fs.Bool("estimate", false, "time a few trials per row and estimate the run's wall time")
	jobs := fs.Int("j", 0, "concurrent trials the estimate assumes (default: number of CPUs)")
	dataDir := fs.String("data-dir", "", "datasets directory for --estimate (default $DPLAB_DATA, else the user cache)")
	share := fs.Float64("estimate-share", run.SampleShare, "share of the estimated run --estimate may spend sampling (at most 30 s)")
	keep := keepAuto
	fs.Var(&keep, "keep", "store the trials --estimate timed in the result directory, so that dplab run does not repeat them: auto (the default) when they save the run more than storing them costs, true (or --keep) always, false never")
	shards := fs.Int("shards", 0, "estimate each of N shards (dplab run --shard i/N); implies --estimate")
	lim := limitFlags(fs)
	sets := setFlag(fs)
	only := onlyFlag(fs, "plan")
	specs, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(specs) != 1 {
		return usagef("plan takes one SPEC.toml")
	}
	if err := checkTrialsFlag(fs, *trials); err != nil {
		return err
	}
	if *jobs < 0 {
		return usagef("-j must be ≥ 1 (0: the number of CPUs)")
	}
	if !(*share > 0 && *share <= 1) {
		return usagef("--estimate-share must be in (0, 1], got %v", *share)
	}
	if *shards != 0 {
		if err := run.CheckShards(*shards); err != nil {
			return usagef("%v", err)
		}
		*estimate = true
	}
	if err := checkLimitFlags(lim); err != nil {
		return err
	}
	s, err := loadSpec(ctx, specs[0], *quick, *lim, *sets...)
	if err != nil {
		return err
	}
	grid, opt, err := resolveRun(ctx, s, run.Options{OutDir: *out, Trials: *trials})
	if err != nil {
		return err
	}
	if grid, err = onlyPlan(grid, *only); err != nil {
		return err
	}
	printWarnings(stderr, s)
	dir := opt.OutDir
	// The directory run would refuse is refused here too.
	if err := results.CheckDir(dir); err != nil {
		return storeError(err)
	}
	p, err := run.MakePlan(ctx, grid, results.FromDir(dir, func(w string) { fmt.Fprintln(stderr, "warning:", w) }))
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: %w", ctx.Err())
	}
	if err != nil {
		return storeError(err)
	}
	unmerged, err := p.UnmergedShards(dir, func(w string) { fmt.Fprintln(stderr, "warning:", w) })
	if err != nil {
		return storeError(err)
	}
	j := *jobs
	if j == 0 || j > runtime.NumCPU() {
		j = runtime.NumCPU()
	}
	var kept keptTrials
	if *estimate {
		// Time the trials under the run's garbage-collector setting
		// (cmdRun's): at Go's default, gaussmix_fig5's Gaussian mixing
		// trials took 1.5–2 times as long here as the same trials in the
		// run (TestPlanEstimateTimesUnderRunGC).
		defer boundGC(runGCPercent, runGCHeadroom)()
		col := report.NewCollector(grid)
		p.Startup = time.Since(since)
		keeps := keep != keepNever && unmerged == nil && s.Audit == nil // keepTimed's conditions
		timeCol := func() (time.Duration, error) { return timeRender(col) }
		if err := p.Estimate(ctx, run.Options{DataDir: *dataDir, Jobs: j, Records: col.Add, EstimateShare: *share, EstimateKept: keeps, TimeRender: timeCol}); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("interrupted: %w", err)
			}
			return err
		}
		if keeps {
			kept = keepTimed(ctx, grid, p, run.Options{OutDir: dir, DataDir: *dataDir, Trials: *trials, Args: append([]string{"plan"}, args...)}, j, keep == keepAlways, stderr)
		}
	}
	heading := s.Name
	if s.Title != "" {
		heading += " — " + s.Title
	}
	fmt.Fprintf(stdout, "%s\nresult directory: %s\n\n", heading, dir)
	tw := tabwriter.NewWriter(stdout, 0, 2, 2, ' ', 0)
	head := "dataset\tmechanism\tε values\ttrials/cell\tstored\tto run"
	if *estimate {
		head += "\ts/trial\tone-off s/cell\tcells timed"
	}
	fmt.Fprintln(tw, head)
	for _, row := range p.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d", row.Dataset, row.Label, row.Epsilons, row.Trials, row.Stored, row.ToRun)
		switch {
		case !*estimate:
		case p.Skipped[row.Dataset] != "":
			fmt.Fprint(tw, "\tdata missing\t—")
		case row.Cost == nil:
			fmt.Fprint(tw, "\t—\t—")
		default:
			fmt.Fprintf(tw, "\t%.3g\t%.3g\t%d", row.Cost.PerTrial.Seconds(), row.Cost.PerCell.Seconds(), row.Cost.Cells)
			if row.Cost.Cells == 0 {
				fmt.Fprint(tw, " (its mechanism's on this dataset)")
			}
			if row.Cost.Failed > 0 {
				fmt.Fprintf(tw, " (%d of %d timed trials failed)", row.Cost.Failed, row.Cost.Timed)
			}
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	infeasible := ""
	if p.Infeasible > 0 {
		infeasible = fmt.Sprintf(" (%d of them infeasible)", p.Infeasible)
	}
	fmt.Fprintf(stdout, "\n%d cells, %d trials: %d stored%s, %d to run", p.Cells, p.Total, p.Stored, infeasible, p.Total-p.Stored)
	switch {
	case p.Stale > 0 && grid.Spec().Only != nil:
		fmt.Fprintf(stdout, "; %d stored trials belong to cells left out by --only or no longer in the spec", p.Stale)
	case p.Stale > 0:
		fmt.Fprintf(stdout, "; %d stored trials belong to cells no longer in the spec", p.Stale)
	}
	fmt.Fprintln(stdout)
	printLeftOut(stdout, grid.Spec(), "would run the")
	if unmerged != nil {
		fmt.Fprintf(stdout, "%d of the trials to run are finished in shard files not merged yet (%s): 'dplab merge %s' adds them; 'dplab run' refuses until then\n",
			unmerged.Trials, strings.Join(unmerged.Files, ", "), dir)
	}
	if *estimate {
		printEstimate(stdout, p, j, time.Since(since), kept, dir)
		if *shards > 0 {
			return printShardPlan(stdout, s, p, *shards, j)
		}
	}
	return nil
}

// keepMode is plan's --keep: whether it stores the trials --estimate
// timed.
type keepMode int

const (
	keepAuto   keepMode = iota // when they save the run more than storing them costs (run.Plan.KeepPays)
	keepAlways                 // whatever they save
	keepNever
)

// String is the flag's value as Set takes it.
func (k *keepMode) String() string {
	return [...]string{"auto", "true", "false"}[*k]
}

// Set takes auto, or a boolean as strconv.ParseBool reads one.
func (k *keepMode) Set(v string) error {
	if v == "auto" {
		*k = keepAuto
		return nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("want auto, true or false")
	}
	*k = keepNever
	if b {
		*k = keepAlways
	}
	return nil
}

// IsBoolFlag lets --keep alone mean --keep=true.
func (k *keepMode) IsBoolFlag() bool { return true }

// keptTrials is what keepTimed stored: how many trials, and the time they
// save the run (Plan.MarkKept); or, when storing them would cost more than
// they save (Plan.KeepPays), how many it left and what they would have
// saved.
type keptTrials struct {
	n         int
	saved     time.Duration
	left      int
	wouldSave time.Duration
}

// keepTimed stores the trials p.Estimate timed in opt.OutDir (run.RunPlan
// with Options.Given: the store's lock, its spec copy and a manifest entry,
// as a run) and counts them as stored in p, so that the estimate is of the
// run after them. The caller keeps nothing from an audit (an audit's trials
// are its runs of many fits, timed apart) or while shards are unmerged
// (dplab run refuses then). It only warns when the store refuses them (a
// run holding the directory): the estimate stands either way, for the
// whole run.
func keepTimed(ctx context.Context, grid *plan.Plan, p *run.Plan, opt run.Options, jobs int, always bool, stderr io.Writer) keptTrials {
	recs := p.Kept()
	if len(recs) == 0 {
		return keptTrials{}
	}
	if saves := p.KeepSaves(recs, jobs); !always && !p.KeepPays(saves) {
		p.Sample.Saved, p.Sample.BaseSaved = 0, 0 // they save the run nothing
		return keptTrials{left: len(recs), wouldSave: saves}
	}
	opt.Given, opt.Jobs = recs, 1
	if _, err := run.RunPlan(ctx, grid, opt); err != nil {
		fmt.Fprintf(stderr, "warning: the %d trials the estimate timed are not kept in %s: %v\n", len(recs), opt.OutDir, err)
		return keptTrials{}
	}
	return keptTrials{n: len(recs), saved: p.MarkKept(recs, jobs)}
}

// timeRender times rendering col's records (the trials Estimate timed)
// into a temporary directory, removed after: the figures and tables of a
// run cost about as much whatever their number of trials.
func timeRender(col *report.Collector) (time.Duration, error) {
	dir, err := os.MkdirTemp("", "dplab-estimate-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	start := time.Now()
	if _, err := col.Render(dir, io.Discard); err != nil {
		return 0, fmt.Errorf("estimate: rendering the timed trials: %w", err)
	}
	return time.Since(start), nil
}

// printEstimate prints the wall time Estimate predicts for p on j
// concurrent trials with rendering, each of its parts, the CPUs and the
// host's load it was measured at, what it measured and what it cost
// (cost: from the process's start until now), its floor when that alone is
// over its share, and the datasets it left out.
func printEstimate(w io.Writer, p *run.Plan, j int, cost time.Duration, kept keptTrials, dir string) {
	smp := p.Sample
	load := "not reported"
	if l, ok := results.LoadAverage(); ok {
		load = fmt.Sprintf("%.1f", l)
	}
	wall, ok := p.EstimatedWall(j)
	trials, par, _ := p.TrialsWall(j)
	if ok {
		spread := ""
		if !math.IsNaN(smp.RelErr) {
			spread = fmt.Sprintf(" ± %s", time.Duration(float64(trials)*smp.RelErr).Round(100*time.Millisecond))
		}
		// What the trials are assumed to get of the CPUs: each of the
		// concurrent ones the CPUs the trials timed alone used, and
		// 1/slowdown of that at once.
		fmt.Fprintf(w, "estimated wall time on %d concurrent trial(s): %s%s, on %d CPUs at 1-minute load average %s "+
			"(measured now: at another load the run takes longer or shorter; a busy thread's CPU second takes %.2f s here now; "+
			"the trials are assumed to get %.2f CPUs: %d × %.2f, the CPUs of a trial timed alone, / slowdown %.2f)\n",
			j, wall.Round(100*time.Millisecond), spread, runtime.NumCPU(), load, smp.Dilation,
			float64(par)*smp.CPUShare/p.SlowdownAt(j), par, smp.CPUShare, p.SlowdownAt(j))
		fmt.Fprintf(w, "  start-up              %s (this process's start, the spec, its validation, the grid and the store, measured)\n", p.Startup.Round(10*time.Millisecond))
		fmt.Fprintf(w, "  datasets              %s (loaded once, measured)\n", p.Setup.Round(10*time.Millisecond))
		fmt.Fprintf(w, "  trials                %s", trials.Round(100*time.Millisecond))
		if j > 1 {
			how := "warm trials"
			if smp.SlowdownOnLoop {
				how = fmt.Sprintf("busy threads, the median of %d rounds alone and at once (no burst of warm trials fit the budget)", smp.LoopRounds)
			}
			fmt.Fprintf(w, " (each %.2f× as long with %d at once as alone, measured now on %s: a %.2f× speedup)", smp.Slowdown, j, how, float64(j)/smp.Slowdown)
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "  store writes          %s (%s per record, by a writer beside the trials)\n",
			p.Writes().Round(10*time.Millisecond), smp.PerRecord.Round(time.Microsecond))
		fmt.Fprintf(w, "  syncs, rendering      %s (a sync of %s of the spec's copy, then at once two, the store's and the manifest's, and rendering, %s, timed on the sampled trials' records)\n",
			(smp.Fsync + max(p.Render, 2*smp.Fsync)).Round(10*time.Millisecond), smp.Fsync.Round(100*time.Microsecond), p.Render.Round(10*time.Millisecond))
	}
	fmt.Fprintf(w, "sample: the estimate cost %s from the process's start", cost.Round(10*time.Millisecond))
	if ok && wall > 0 {
		fmt.Fprintf(w, ", %.1f%% of the predicted run (its share: %.3g%%)", 100*float64(cost)/float64(wall), 100*smp.Share)
	}
	if kept.n > 0 {
		// Without the estimate, the run would have run the kept trials
		// too: its share is of that run.
		net := cost - kept.saved
		fmt.Fprintf(w, "; %d of its trials are kept in %s, which dplab run does not repeat (%s of the run, their wall times over %d jobs): net %s",
			kept.n, dir, kept.saved.Round(10*time.Millisecond), j, net.Round(10*time.Millisecond))
		if ok && wall > 0 {
			fmt.Fprintf(w, ", %.1f%% of the run with them", 100*float64(net)/float64(wall+kept.saved))
		}
	}
	if kept.left > 0 {
		fmt.Fprintf(w, "; its %d trials are not kept: they would save the run %s, less than storing them costs (about %s, as timing their writes took)",
			kept.left, kept.wouldSave.Round(time.Millisecond), smp.StoreCost.Round(time.Millisecond))
	}
	fmt.Fprintf(w, "; %d trials timed", smp.Trials)
	if smp.Burst > 0 {
		fmt.Fprintf(w, " (%d warm ones alone, then on each of %d workers at once)", smp.Burst, j)
	}
	filled := ""
	if smp.Filled > 0 {
		filled = fmt.Sprintf(", and of %d more cells beside them, on workers they left idle", smp.Filled)
	}
	fmt.Fprintf(w, " in %s: %s always (the first of one cell per [[mechanism]] block and dataset%s, timing the store and rendering, the host's loop)", smp.Spent.Round(10*time.Millisecond), smp.Base.Round(10*time.Millisecond), filled)
	net := ""
	if smp.Saved > 0 {
		net = ", net of what its kept later trials save the run"
	}
	fmt.Fprintf(w, " and %s more of a %s budget (--estimate-share of the estimate after a later trial per block less all spent before, from the process's start%s, at most %s)", (smp.Spent - smp.Base).Round(10*time.Millisecond),
		smp.Budget.Round(10*time.Millisecond), net, run.SampleCap)
	if math.IsNaN(smp.RelErr) {
		fmt.Fprint(w, "; no row had two cells and two later trials of one timed: the range is unknown")
	} else {
		fmt.Fprintf(w, "; range: two standard errors of the rows' per-trial times and of the slowdown")
	}
	fmt.Fprintln(w)
	if ok {
		if line := p.FloorLine(wall + kept.saved); line != "" {
			fmt.Fprintln(w, line)
		}
	}
	labels := make([]string, 0, len(p.Skipped))
	for l := range p.Skipped {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	for _, l := range labels {
		n := 0
		for _, row := range p.Rows {
			if row.Dataset == l {
				n += row.ToRun
			}
		}
		if n > 0 { // a dataset with nothing to run changes nothing
			fmt.Fprintf(w, "not estimable, data missing: %s (%d trials to run, not counted in the estimate): %s\n", l, n, p.Skipped[l])
		}
	}
}

func cmdValidate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("validate", stdout)
	lim := limitFlags(fs)
	sets := setFlag(fs)
	specs, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(specs) == 0 {
		return usagef("validate needs at least one SPEC.toml")
	}
	if err := checkLimitFlags(lim); err != nil {
		return err
	}
	opts := spec.LoadOptions{Limits: *lim, Context: ctx, Set: *sets}
	var bad []string
	for _, p := range specs {
		s, err := report.Load(p, opts)
		q := s
		if err == nil && s.Quick != nil {
			// The quick variant must be valid too.
			if q, err = plan.ApplyQuick(s); err == nil {
				err = report.Check(q)
			}
		}
		if err == nil && s.Audit != nil {
			// An audit grid's targets are built as dplab run builds them
			// (run.CheckAudits): a grid is a few cells, so it is expanded.
			var pl *plan.Plan
			if pl, err = plan.New(ctx, s, plan.Options{}); err == nil {
				err = run.CheckAudits(ctx, pl)
			}
		}
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted: %w", ctx.Err())
		}
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		printWarnings(stderr, s, q)
		// Counted, not expanded: validation never builds an experiment's grid.
		cells, _ := plan.Size(s)
		fmt.Fprintf(stdout, "ok  %s: %s (%d cells × %d trials)\n", p, s.Name, cells, s.Trials)
	}
	if len(bad) > 0 {
		return badInput(errors.New(strings.Join(bad, "\n")))
	}
	return nil
}

func cmdRender(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("render", stdout)
	tf := addTargetFlags(fs, "render")
	only := onlyFlag(fs, "draw")
	arg, dir, s, err := tf.target(ctx, fs, args, "render", "rendered in place")
	if err != nil {
		return err
	}
	if s == nil {
		unlock, err := readLock(dir)
		if err != nil {
			return err
		}
		defer unlock()
		if s, err = dirSpec(ctx, dir, *tf.lim, stderr); err != nil {
			return err
		}
	} else {
		// Nothing was run into a missing directory; a spec of curves and
		// tables alone runs no trials and is rendered into a new one.
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			if len(s.Mechanisms) > 0 {
				return badInput(fmt.Errorf("%s does not exist: no trial of %s is stored there to render (run 'dplab run %s' first, or give --out)", dir, s.Name, arg))
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		unlock, err := readLock(dir)
		if err != nil {
			return err
		}
		defer unlock()
	}
	p, err := plan.New(ctx, s, plan.Options{})
	if err != nil {
		return badInput(err)
	}
	if p, err = onlyPlan(p, *only); err != nil {
		return err
	}
	// A subset's outputs go to a folder of their own: never in place of
	// the full ones, which dplab report shows as the result.
	outDir := dir
	if p.Spec().Only != nil {
		outDir = filepath.Join(dir, SubsetDir)
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			return err
		}
	}
	paths, err := report.RenderPlan(p, outDir, results.FromDir(dir, func(w string) { fmt.Fprintln(stderr, "warning:", w) }), stderr)
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(stdout, "wrote %s\n", p)
	}
	printLeftOut(stdout, p.Spec(), "drew the")
	return storeError(err)
}

// SubsetDir is the folder of a result directory that dplab render --only
// writes the subset's outputs to.
const SubsetDir = "subset"

// targetFlags choose what render and prune work on: a result directory
// (with the spec its last run saved) or a SPEC.toml, whose result directory
// --out and --quick choose and which --set overrides.
type targetFlags struct {
	out   *string
	quick *bool
	lim   *spec.Limits
	sets  *multiFlag
}

// addTargetFlags adds --out, --quick, the limits and --set to fs.
func addTargetFlags(fs *flag.FlagSet, verb string) *targetFlags {
	return &targetFlags{
		out:   fs.String("out", "", "result directory when the argument is a spec (default "+run.DefaultRoot+"/<name>)"),
		quick: fs.Bool("quick", false, verb+" the --quick result directory of a spec"),
		lim:   limitFlags(fs),
		sets:  setFlag(fs),
	}
}

// target parses args for command cmd into its one argument, a RESULTDIR or
// a SPEC.toml, and returns it with its result directory, checked
// (results.CheckDir). For a spec it returns the spec loaded; for a result
// directory a nil spec (the caller reads its saved copy under the
// directory's lock: dirSpec), refusing --out, --quick and --set, which
// would be ignored; inPlace says what cmd does with it.
func (t *targetFlags) target(ctx context.Context, fs *flag.FlagSet, args []string, cmd, inPlace string) (arg, dir string, s *spec.Spec, err error) {
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return "", "", nil, err
	}
	if len(pos) != 1 {
		return "", "", nil, usagef("%s takes one RESULTDIR or SPEC.toml", cmd)
	}
	if err := checkLimitFlags(t.lim); err != nil {
		return "", "", nil, err
	}
	arg, dir = pos[0], *t.out
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		if *t.out != "" || *t.quick || len(*t.sets) > 0 {
			return "", "", nil, usagef("%s: --out, --quick and --set apply to a SPEC.toml; %s is a result directory, %s with the spec its last run saved (its --quick and --set included)", cmd, arg, inPlace)
		}
		dir = arg
	} else {
		if s, err = loadSpec(ctx, arg, *t.quick, *t.lim, *t.sets...); err != nil {
			return "", "", nil, err
		}
		if dir == "" {
			dir = run.ResultDir(s, run.DefaultRoot)
		}
	}
	if err := results.CheckDir(dir); err != nil {
		return "", "", nil, storeError(err)
	}
	return arg, dir, s, nil
}

// dirSpec loads the spec of the result directory dir: the copy its last
// run saved (dir/spec.toml), with that run's --quick setting from the
// manifest (storedQuick when the manifest records no run; a manifest that
// does not parse is warned of on stderr and left out).
func dirSpec(ctx context.Context, dir string, lim spec.Limits, stderr io.Writer) (*spec.Spec, error) {
	specPath := filepath.Join(dir, "spec.toml")
	m, err := results.ReadManifest(dir)
	var corrupt *results.CorruptManifestError
	if errors.As(err, &corrupt) {
		// The trials do not depend on it; the next run rewrites it.
		fmt.Fprintf(stderr, "warning: %v: going on without it (the next dplab run on %s rewrites it)\n", err, dir)
		m, err = &results.Manifest{}, nil
	}
	if err != nil {
		return nil, err
	}
	var q bool
	if len(m.Runs) > 0 {
		q = m.Runs[len(m.Runs)-1].Quick
	} else if q, err = storedQuick(ctx, specPath, lim, dir); err != nil {
		return nil, storeError(err)
	}
	return loadSpecWith(ctx, specPath, q, recordedLoad(m, lim))
}

// recordedLoad is the load options of a spec copy that manifest m's runs
// saved: its external blocks are keyed on the files those runs hashed
// (m.External), which need not lie beside the copy.
func recordedLoad(m *results.Manifest, lim spec.Limits) spec.LoadOptions {
	o := spec.LoadOptions{Limits: lim, ExternalSHA256: map[string]map[string]string{}}
	for label, x := range m.External {
		o.ExternalSHA256[label] = x.SHA256
	}
	return o
}

// storedQuick reports, for a result directory whose manifest (which
// records each run's --quick) is missing or unreadable, whether its stored
// trials are of the --quick variant of the spec at path: whether fewer of
// the quick variant's trials lack a settled record than of the full one's
// (false for a spec without [quick], and on a tie).
func storedQuick(ctx context.Context, path string, lim spec.Limits, dir string) (bool, error) {
	full, err := loadSpec(ctx, path, false, lim)
	if err != nil || full.Quick == nil {
		return false, err
	}
	quick, err := loadSpec(ctx, path, true, lim)
	if err != nil {
		return false, err
	}
	var settled results.KeySet // the store is scanned, not held
	if err := results.Scan(dir, nil, func(r *results.Record) {
		if r.Settled() {
			settled.Add(r.Key())
		}
	}); err != nil {
		return false, err
	}
	mf, err := missingTrials(ctx, full, &settled)
	if err != nil {
		return false, err
	}
	mq, err := missingTrials(ctx, quick, &settled)
	return mq < mf, err
}

// missingTrials counts the trials of s's grid not in settled, the trials
// stored with a settled record.
func missingTrials(ctx context.Context, s *spec.Spec, settled *results.KeySet) (int64, error) {
	p, err := plan.New(ctx, s, plan.Options{})
	if err != nil {
		return 0, err
	}
	var missing int64
	for _, c := range p.Cells() {
		stored := settled.Count(c.Key, func(t int) bool { return t >= 0 && t < c.Trials })
		missing += int64(c.Trials - stored)
	}
	return missing, nil
}

// readLock takes the shared lock of the result directory dir for a render
// (results.ReadLockDir): the store, the spec copy and the manifest are then
// those a finished run or merge left, and no run can start, and render
// newer outputs, until unlock. A directory a run holds is refused: that
// run renders when it ends (a render of part of its trials used to
// replace the outputs of all of them).
func readLock(dir string) (unlock func(), err error) {
	lock, err := results.ReadLockDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%w (a run renders its figures and tables when it ends)", err)
	}
	return lock.Unlock, nil
}

// isStoreInputError reports whether err is a result directory that cannot be
// used as given: one holding foreign files, a store with a corrupt line,
// shard records not merged yet, another experiment's trials only, a
// symbolic link where dplab would write, or shard records that conflict.
// All are bad input (exit 2): the same command fails until the user acts. A
// directory busy with another run (*results.BusyError) is not: it stays a run
// failure (exit 1), as the same command succeeds once that run ends.
func isStoreInputError(err error) bool {
	var corrupt *results.CorruptError
	var foreign *results.NotResultDirError
	var unmerged *results.UnmergedShardsError
	var other *results.OtherExperimentError
	var link *fileutil.SymlinkError
	var conflict *results.ConflictError
	return errors.As(err, &corrupt) || errors.As(err, &foreign) || errors.As(err, &unmerged) || errors.As(err, &other) || errors.As(err, &link) ||
		errors.As(err, &conflict)
}

// storeError marks err as bad input when isStoreInputError says so.
func storeError(err error) error {
	if isStoreInputError(err) {
		return badInput(err)
	}
	return err
}

// lockedWriter serialises writes to w from concurrent goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
