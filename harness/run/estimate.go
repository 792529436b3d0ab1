package run

import (
	"context"
	"io"
	"time"

	"github.com/dplab/dplab/results"
)

// RowCost is the measured cost of one plan row's trials.
type RowCost struct {
	// PerTrial is the mean wall time of a trial after a cell's first
	// (trials 1 and 2 of the timed cells; trial 0's when a cell has one).
	PerTrial time.Duration
	// PerCell is the one-off work a cell's first trial adds (a
	// calibration, a pre-processing fit, a split's statistics shared by
	// the cell's trials): trial 0's mean wall time less PerTrial, ≥ 0.
	PerCell time.Duration
	Timed   int // trials timed
	Failed  int // timed trials that failed (their time counts)
}

// estimateTrials is how many leading trials of a cell Estimate times: the
// first (with the cell's one-off work) and two more.
const estimateTrials = 3

// Estimate measures what p's pending trials cost: it loads the datasets
// (p.Setup), then times, one at a time and without storing anything,
// trials 0, 1 and 2 of the first and the last cell of every plan row (the
// row's smallest and largest ε, or its sweep's ends) and sets each row's
// Cost: PerTrial from trials 1 and 2, PerCell from trial 0's excess over
// them (the cells of the plan MakePlan was given). Rows with nothing to
// run are not timed.
func (p *Plan) Estimate(ctx context.Context, opt Options) error {
	s, cells := p.grid.Spec(), p.grid.Cells()
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	r := newRunner(s, cells, opt, log)
	start := time.Now()
	if err := r.preload(nil); err != nil {
		return err
	}
	p.Setup = time.Since(start)
	p.Skipped = r.skipped
	// The first and last cell of each row, in plan order.
	type ends struct{ first, last int }
	rowOf := map[string]int{}
	for i, row := range p.Rows {
		rowOf[row.key()] = i
	}
	picked := make([]*ends, len(p.Rows))
	for i := range cells {
		c := &cells[i]
		j := rowOf[planRow(s, c)] // MakePlan made a row of every cell
		if picked[j] == nil {
			picked[j] = &ends{first: i}
		}
		picked[j].last = i
	}
	for j, e := range picked {
		if e == nil || p.Rows[j].ToRun == 0 {
			continue
		}
		idx := []int{e.first}
		if e.last != e.first {
			idx = append(idx, e.last)
		}
		var first, later time.Duration
		var nFirst, nLater int
		cost := &RowCost{}
		for _, ci := range idx {
			c := &cells[ci]
			for t := 0; t < min(estimateTrials, c.Trials); t++ {
				t0 := time.Now()
				var rec results.Record
				var ok bool
				if c.Audit != nil { // on one worker: the estimate divides by the jobs
					rec, ok = auditTrial(ctx, s, c, 1, io.Discard)
				} else {
					rec, ok = r.trial(ctx, c, t)
				}
				if !ok {
					return ctx.Err()
				}
				if t == 0 {
					first += time.Since(t0)
					nFirst++
				} else {
					later += time.Since(t0)
					nLater++
				}
				cost.Timed++
				if rec.Status == results.StatusFailed {
					cost.Failed++
				}
			}
		}
		if cost.Timed > 0 {
			firstMean := first / time.Duration(nFirst)
			cost.PerTrial = firstMean
			if nLater > 0 {
				cost.PerTrial = later / time.Duration(nLater)
				cost.PerCell = max(firstMean-cost.PerTrial, 0)
			}
			p.Rows[j].Cost = cost
		}
	}
	return nil
}

// EstimatedWall is the wall time the pending trials should take on jobs ≥ 1
// concurrent trials (more than the CPUs gain nothing: trials are
// CPU-bound), from the costs Estimate measured: Setup + Σ rows
// (ToRun·PerTrial + CellsToRun·PerCell) / jobs. It assumes the trials
// parallelise perfectly and leaves out rendering; ok is false when some row
// to run was not timed.
func (p *Plan) EstimatedWall(jobs int) (wall time.Duration, ok bool) {
	jobs = max(jobs, 1)
	var work time.Duration
	for _, row := range p.Rows {
		if row.ToRun == 0 {
			continue
		}
		if row.Cost == nil {
			return 0, false
		}
		work += time.Duration(row.ToRun)*row.Cost.PerTrial + time.Duration(row.CellsToRun)*row.Cost.PerCell
	}
	return p.Setup + work/time.Duration(jobs), true
}
