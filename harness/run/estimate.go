package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/results"
)

// RowCost is the measured cost of one plan row's trials, as if run alone.
type RowCost struct {
	// PerTrial is the mean wall time of a trial after a cell's first: the
	// mean over the row's sampled cells of their later trials' mean (a
	// cell's first trial's when the cell has only one).
	PerTrial time.Duration
	// PerCell is the one-off work a cell's first trial adds (a
	// calibration, a pre-processing fit, a split's statistics shared by
	// the cell's trials): the sampled cells' mean excess of their first
	// trial over their later ones, ≥ 0.
	PerCell time.Duration
	Cells   int // cells sampled
	Timed   int // trials timed
	Failed  int // timed trials that failed (their time counts)
	// SE is the standard error of PerTrial over the sampled cells (0 with
	// one cell: unknown).
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
	// Trials is how many trials were timed; Burst the length of the
	// sequence of warm trials timed alone and again on each of Jobs
	// workers at once, for Slowdown.
	Trials, Burst int
	// Spent is the wall time of the timed trials, Base of it what Estimate
	// always times (two trials per stratum, the burst), and Budget
	// what it allowed beyond Base: SampleShare of the first prediction, at
	// most SampleCap.
	Spent, Base, Budget time.Duration
	// RelErr is the relative uncertainty of the trials' share of the
	// estimate (two standard errors, from the spread of the sampled cells'
	// per-trial times and of Slowdown); NaN when no row had two cells
	// sampled.
	RelErr float64
}

// SampleShare is the share of the predicted run that Estimate may spend
// timing trials beyond the first two of one cell per row, and SampleCap
// the most it spends on them.
const (
	SampleShare = 0.05
	SampleCap   = 30 * time.Second
)

// burstAlone is the least time of the warm trials Estimate times alone to
// measure the slowdown (longer than a busy host's scheduling noise),
// maxBurst the most trials it times for it, and minWarm the shortest warm
// trial it prefers.
const (
	burstAlone = 100 * time.Millisecond
	maxBurst   = 200
	minWarm    = 5 * time.Millisecond
)

// trialTimer times trial t of cell ci while together trials (this one
// included) run at once; ok is false when ctx was cancelled.
type trialTimer func(ctx context.Context, ci, t, together int) (d time.Duration, failed, ok bool)

// Estimate measures what p's pending trials cost on opt.Jobs concurrent
// trials (0: the CPUs; more than the CPUs gain nothing, trials being
// CPU-bound), storing nothing. It loads the datasets once (p.Setup); an
// absent dataset, optional or not, is left out of the estimate and named
// in p.Skipped with the reason. Then, within a budget, it:
//
//  1. times, one at a time, the first two trials of one cell of each
//     stratum, a dataset's rows of one mechanism (a sweep of its params
//     makes a row of each value): the row's with the most trials to run,
//     at the middle of its ε values or sweep. A row's PerTrial is from the
//     second trials of its cells, PerCell from the first's excess; a row
//     with no cell timed takes its stratum's;
//  2. when Jobs > 1, times warm trials (trial 1 of those cells, after
//     their first: the same work each time), the shortest of at least
//     5 ms first and cycling, alone until they last 100 ms, then the same
//     sequence on each of Jobs workers at once, and measures Slowdown, the
//     ratio of the wall times, between 1 and Jobs: the parallel
//     efficiency of this machine now, a busy host's contention included;
//  3. while the budget (SampleShare of the estimate after step 1, at most
//     SampleCap) lasts, times the first two trials of further cells Jobs
//     at once, each from the row whose estimate gains most (its work over
//     √((n+1)(n+2)) for n cells of its own timed: rows with none first,
//     further ε values first), their times divided by Slowdown.
//
// Each trial timed is given to opt.Records once (as Run gives a stored
// record), for instance to time rendering them. EstimatedWall turns the
// result into a wall time.
func (p *Plan) Estimate(ctx context.Context, opt Options) error {
	s, cells := p.grid.Spec(), p.grid.Cells()
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	r := newRunner(s, cells, opt, log)
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
	given := map[results.Key]bool{}
	timer := func(ctx context.Context, ci, t, _ int) (time.Duration, bool, bool) {
		c := &cells[ci]
		t0 := time.Now()
		var rec results.Record
		var ok bool
		if c.Audit != nil { // on one worker: the estimate divides by the jobs
			rec, ok = auditTrial(ctx, s, c, 1, io.Discard)
		} else {
			rec, ok = r.trial(ctx, c, t)
		}
		d := time.Since(t0)
		if ok && opt.Records != nil {
			mu.Lock()
			if k := rec.Key(); !given[k] {
				given[k] = true
				kept := r.asStored(&rec)
				opt.Records(&kept)
			}
			mu.Unlock()
		}
		return d, rec.Status == results.StatusFailed, ok
	}
	return p.estimate(ctx, jobs, SampleShare, SampleCap, timer)
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

// rowSample is what estimate knows of one row while it samples.
type rowSample struct {
	row      *PlanRow
	peers    []*rowSample    // the rows of its stratum (itself included): its dataset's rows of the same mechanism
	cells    []int           // the row's cells with trials to run, in plan order
	picked   []bool          // of cells, those sampled
	first    []time.Duration // per sampled cell: its first trial, serial-equivalent
	later    []time.Duration // per sampled cell: its second trial (or NaN-free: first when it has one trial)
	hasLater []bool
	timed    int
	failed   int
}

// work is the row's estimated serial work: ToRun·PerTrial + CellsToRun·PerCell.
func (rs *rowSample) work() float64 {
	pt, pc := rs.means()
	return float64(rs.row.ToRun)*pt + float64(rs.row.CellsToRun)*pc
}

// means returns the row's per-trial and one-off times in nanoseconds: the
// means over its sampled cells, or over its stratum's when it has none.
func (rs *rowSample) means() (pt, pc float64) {
	from := []*rowSample{rs}
	if len(rs.later) == 0 {
		from = rs.peers
	}
	var sumLater, sumExcess float64
	var n, nLater int
	for _, r := range from {
		for i, l := range r.later {
			sumLater += float64(l)
			n++
			if r.hasLater[i] {
				sumExcess += max(float64(r.first[i]-l), 0)
				nLater++
			}
		}
	}
	if n == 0 {
		return 0, 0
	}
	pt = sumLater / float64(n)
	if nLater > 0 {
		pc = sumExcess / float64(nLater)
	}
	return pt, pc
}

// nextCell returns the row's unsampled cell farthest (in plan order, so in
// ε or sweep value) from those sampled, the middle one first; -1 when all
// are sampled.
func (rs *rowSample) nextCell() int {
	best, bestDist := -1, -1
	n := len(rs.cells)
	for i := range n {
		if rs.picked[i] {
			continue
		}
		d := n // nothing sampled: the middle, i.e. farthest from both ends
		if len(rs.first) == 0 {
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

// task is one cell's first two trials (or its one), timed in sequence by
// one worker.
type task struct {
	row, cell int // index into estimate's rows and that row's cells
}

// estimate is Estimate after the data are loaded, with a budget of share of
// the first prediction, at most limit, and the trials timed by timeTrial
// (tests inject synthetic times). The budget is accounted from the times
// timeTrial returns: trials in sequence cost their sum, a wave of
// concurrent ones its slowest worker's. A wave of step 3 starts only when
// its cost predicted from the rows' costs so far fits in what is left.
func (p *Plan) estimate(ctx context.Context, jobs int, share float64, limit time.Duration, timeTrial trialTimer) error {
	s, cells := p.grid.Spec(), p.grid.Cells()
	rows := make([]*rowSample, 0, len(p.Rows))
	rowOf := map[string]*rowSample{}
	for i := range p.Rows {
		p.Rows[i].Cost = nil
		if _, skip := p.Skipped[p.Rows[i].Dataset]; skip || p.Rows[i].ToRun == 0 {
			continue
		}
		rs := &rowSample{row: &p.Rows[i]}
		rows = append(rows, rs)
		rowOf[p.Rows[i].key()] = rs
	}
	// The strata: a dataset's rows of one mechanism (a sweep of its
	// params makes a row of each value), in plan order.
	var strata [][]*rowSample
	stratumOf := map[string]int{}
	for ci := range cells {
		c := &cells[ci]
		rs := rowOf[planRow(s, c)]
		if rs == nil || p.settled.Count(c.Key, func(t int) bool { return t >= 0 && t < c.Trials }) == c.Trials {
			continue
		}
		if len(rs.cells) == 0 {
			k := rowKey(rs.row.Dataset, s.Mechanisms[c.Mechanism].Name)
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
		}
	}
	smp := Sample{Jobs: jobs, Slowdown: 1}
	// run times tasks on `workers` workers (task i on worker i mod
	// workers) and records them, divided by slow; it returns the wave's
	// cost, its slowest worker's total.
	run := func(tasks []task, workers int, slow float64) (time.Duration, error) {
		type timing struct {
			first, later time.Duration
			hasLater     bool
			failed, n    int
		}
		out := make([]timing, len(tasks))
		perWorker := make([]time.Duration, workers)
		var wg sync.WaitGroup
		var cancelled bool
		var mu sync.Mutex
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < len(tasks); i += workers {
					rs := rows[tasks[i].row]
					c := &cells[rs.cells[tasks[i].cell]]
					for t := range min(2, c.Trials) {
						d, failed, ok := timeTrial(ctx, rs.cells[tasks[i].cell], t, workers)
						if !ok {
							mu.Lock()
							cancelled = true
							mu.Unlock()
							return
						}
						perWorker[w] += d
						if failed {
							out[i].failed++
						}
						out[i].n++
						if t == 0 {
							out[i].first = d
						} else {
							out[i].later, out[i].hasLater = d, true
						}
					}
				}
			}()
		}
		wg.Wait()
		if cancelled {
			return 0, ctx.Err()
		}
		for i, tk := range tasks {
			rs, o := rows[tk.row], out[i]
			rs.picked[tk.cell] = true
			first := time.Duration(float64(o.first) / slow)
			later := first
			if o.hasLater {
				later = time.Duration(float64(o.later) / slow)
			}
			rs.first = append(rs.first, first)
			rs.later = append(rs.later, later)
			rs.hasLater = append(rs.hasLater, o.hasLater)
			rs.timed += o.n
			rs.failed += o.failed
			smp.Trials += o.n
		}
		return slices.Max(perWorker), nil
	}
	// 1. One cell per stratum, of its row with the most trials to run,
	// alone.
	var tasks []task
	for _, st := range strata {
		heaviest := st[0]
		for _, rs := range st {
			if rs.row.ToRun > heaviest.row.ToRun {
				heaviest = rs
			}
		}
		tasks = append(tasks, task{row: slices.Index(rows, heaviest), cell: heaviest.nextCell()})
	}
	spent, err := run(tasks, 1, 1)
	if err != nil {
		return err
	}
	work := func() float64 {
		var w float64
		for _, rs := range rows {
			w += rs.work()
		}
		return w
	}
	smp.Budget = min(time.Duration(share*(float64(p.Setup)+work()/float64(jobs))), limit)
	base := spent // the part always timed, not charged to the budget
	// 2. The parallel efficiency: warm trials (trial 1 of the cells timed,
	// after their first: the same work each time it runs), the shortest
	// of at least minWarm first (a shorter one, a memoised fit, says
	// little) and cycling, timed alone until they last burstAlone, then
	// each worker of jobs times the same sequence at once; Slowdown is the
	// workers' mean over the time alone.
	if jobs > 1 {
		var order []int // the cells timed
		warm := map[int]time.Duration{}
		for _, rs := range rows {
			if len(rs.first) > 0 && rs.hasLater[0] {
				ci := rs.cells[slices.Index(rs.picked, true)]
				order = append(order, ci)
				warm[ci] = rs.later[0]
			}
		}
		if long := slices.DeleteFunc(slices.Clone(order), func(ci int) bool { return warm[ci] < minWarm }); len(long) > 0 {
			order = long
		}
		sort.SliceStable(order, func(a, b int) bool { return warm[order[a]] < warm[order[b]] })
		if len(order) == 0 { // cells of one trial: their first, now warm
			for _, rs := range rows {
				if len(rs.first) > 0 {
					order = append(order, rs.cells[slices.Index(rs.picked, true)])
				}
			}
		}
		var seq []int
		var alone time.Duration
		for k := 0; alone < burstAlone && len(order) > 0 && k < maxBurst; k++ {
			ci := order[k%len(order)]
			d, _, ok := timeTrial(ctx, ci, 1, 1)
			if !ok {
				return ctx.Err()
			}
			seq = append(seq, ci)
			alone += d
		}
		together := make([]time.Duration, jobs)
		cancelled := make([]bool, jobs)
		var wg sync.WaitGroup
		for w := range jobs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range seq {
					d, _, ok := timeTrial(ctx, seq[(k+w)%len(seq)], 1, jobs)
					if !ok {
						cancelled[w] = true
						return
					}
					together[w] += d
				}
			}()
		}
		wg.Wait()
		if slices.Contains(cancelled, true) {
			return ctx.Err()
		}
		spent += alone + slices.Max(together)
		smp.Burst = len(seq)
		smp.Trials += (1 + jobs) * len(seq)
		base = spent // the burst is not charged either
		if alone > 0 {
			ratios := make([]float64, jobs)
			var sum float64
			for w, d := range together {
				ratios[w] = float64(d) / float64(alone)
				sum += float64(d)
			}
			// Between 1 (a trial is not faster for sharing the machine)
			// and jobs (the trials take turns on one CPU): outside is
			// timing noise.
			smp.Slowdown = min(max(sum/float64(jobs)/float64(alone), 1), float64(jobs))
			smp.SlowdownSE = stdErr(ratios)
		}
	}
	// 3. Further cells, jobs at once, while the budget lasts.
	for {
		var wave []task
		for range jobs {
			best, bestGain := -1, 0.0
			for i, rs := range rows {
				if !slices.Contains(rs.picked, false) {
					continue
				}
				n := float64(len(rs.first))
				for _, tk := range wave {
					if tk.row == i {
						n++
					}
				}
				// Neyman-like: rows with no cell of their own first.
				if gain := rs.work() / math.Sqrt((n+1)*(n+2)); gain > bestGain {
					best, bestGain = i, gain
				}
			}
			if best < 0 {
				break
			}
			rs := rows[best]
			tk := task{row: best, cell: rs.nextCell()}
			rs.picked[tk.cell] = true // reserved; run marks it again
			wave = append(wave, tk)
		}
		if len(wave) == 0 {
			break
		}
		// The wave's cost, predicted from what its rows cost so far.
		var cost time.Duration
		for _, tk := range wave {
			pt, pc := rows[tk.row].means()
			cost = max(cost, time.Duration((2*pt+pc)*smp.Slowdown))
		}
		if spent-base+cost > smp.Budget {
			for _, tk := range wave {
				rows[tk.row].picked[tk.cell] = false
			}
			break
		}
		slow := smp.Slowdown
		if len(wave) == 1 {
			slow = 1 // alone
		}
		d, err := run(wave, len(wave), slow)
		if err != nil {
			return err
		}
		spent += d
	}
	smp.Spent, smp.Base = spent, base
	// The rows' costs and the uncertainty of the total.
	var varWork, totWork float64
	var cvs []float64
	for _, rs := range rows {
		pt, pc := rs.means()
		cost := &RowCost{PerTrial: time.Duration(pt), PerCell: time.Duration(pc), Cells: len(rs.first), Timed: rs.timed, Failed: rs.failed}
		if len(rs.later) > 1 {
			f := make([]float64, len(rs.later))
			for i, l := range rs.later {
				f[i] = float64(l)
			}
			se := stdErr(f)
			cost.SE = time.Duration(se)
			if pt > 0 {
				cvs = append(cvs, se*math.Sqrt(float64(len(f)))/pt)
			}
		}
		rs.row.Cost = cost
		totWork += rs.work()
	}
	smp.RelErr = math.NaN()
	if len(cvs) > 0 || len(rows) == 0 {
		// A row with one cell sampled is given the largest spread of those
		// with more.
		worst := 0.0
		if len(cvs) > 0 {
			worst = slices.Max(cvs)
		}
		for _, rs := range rows {
			se := float64(rs.row.Cost.SE)
			if len(rs.later) < 2 {
				pt, _ := rs.means()
				se = worst * pt
			}
			varWork += math.Pow(float64(rs.row.ToRun)*se, 2)
		}
		rel := 0.0
		if totWork > 0 {
			rel = varWork / (totWork * totWork)
		}
		rel += math.Pow(smp.SlowdownSE/smp.Slowdown, 2)
		smp.RelErr = 2 * math.Sqrt(rel)
	}
	p.Sample = smp
	return nil
}

// stdErr is the standard error of the mean of x (0 for fewer than two).
func stdErr(x []float64) float64 {
	n := float64(len(x))
	if n < 2 {
		return 0
	}
	var m, ss float64
	for _, v := range x {
		m += v
	}
	m /= n
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return math.Sqrt(ss / (n - 1) / n)
}

// slowdown is the factor by which a trial's time grows when jobs run at
// once: 1 for one job, else the Slowdown Estimate measured (at its Jobs).
func (p *Plan) slowdown(jobs int) float64 {
	if jobs <= 1 || p.Sample.Slowdown == 0 {
		return 1
	}
	return p.Sample.Slowdown
}

// EstimatedWall is the wall time the pending trials should take on jobs ≥ 1
// concurrent trials, from the costs Estimate measured: Setup + Slowdown ·
// Σ rows (ToRun·PerTrial + CellsToRun·PerCell) / jobs, jobs at most the
// trials to run. Rows of the datasets Estimate found missing count
// nothing; rendering is left out. ok is false when some row to run was
// not timed.
func (p *Plan) EstimatedWall(jobs int) (wall time.Duration, ok bool) {
	jobs = max(jobs, 1)
	var work float64
	toRun := 0
	for _, row := range p.Rows {
		if _, skip := p.Skipped[row.Dataset]; skip || row.ToRun == 0 {
			continue
		}
		if row.Cost == nil {
			return 0, false
		}
		toRun += row.ToRun
		work += float64(row.ToRun)*float64(row.Cost.PerTrial) + float64(row.CellsToRun)*float64(row.Cost.PerCell)
	}
	par := max(min(jobs, toRun), 1)
	return p.Setup + time.Duration(work*p.slowdown(jobs)/float64(par)), true
}
