package run

import (
	"fmt"
	"time"

	"github.com/dplab/dplab/results"
)

// ShardEstimate is the estimated cost of one shard of a run.
type ShardEstimate struct {
	Shard  int
	Trials int           // trials the shard would run (not stored yet)
	Cells  int           // cells it touches
	Work   time.Duration // Σ over its cells: PerCell + trials·PerTrial, and its datasets' Shared
	Wall   time.Duration // Startup + Setup + its trials' list schedule on jobs · Slowdown
}

// ShardEstimates splits the pending trials of p's cells (those not stored
// settled when MakePlan made p) into n shards as Assign does and estimates
// each shard's wall time on jobs ≥ 1 concurrent trials from the row costs
// Estimate measured on p: each shard process starts (p.Startup), loads the datasets (p.Setup)
// and does the one-off work of every cell it touches, so a cell with k of
// the shard's trials costs PerCell + k·PerTrial of its row, and the
// statistics its datasets' cells share (RowCost.Shared) are computed once
// a shard. Of a dataset
// Estimate found missing (p.Skipped) only trial 0 counts, with no work: only
// it runs, to record the skip. Like TrialsWall it lays the shard's trials
// out as its run starts them, each on the first of jobs workers free
// (span: listSchedule; beyond maxScheduled trials, or on one worker, the work
// over the workers), and scales that by the Slowdown Estimate measured on
// jobs concurrent trials: a shard of a few long trials ends unevenly. It
// fails when a row with trials to run was not timed.
func (p *Plan) ShardEstimates(n, jobs int) ([]ShardEstimate, error) {
	if n < 1 {
		return nil, fmt.Errorf("run: %d shards: want ≥ 1", n)
	}
	jobs = max(jobs, 1)
	s, cells := p.grid.Spec(), p.grid.Cells()
	rowOf := p.rowsByKey()
	a := Assign(cells, n)
	out := make([]ShardEstimate, n)
	touched := make([]map[string]bool, n) // the datasets of the cells each shard runs
	for sh := range out {
		out[sh].Shard = sh
		touched[sh] = map[string]bool{}
	}
	for ci := range cells {
		c := &cells[ci]
		row := rowOf[planRow(s, c)] // MakePlan made a row of every cell
		_, skipped := p.Skipped[s.DatasetAt(c.Dataset).Label]
		for sh := range out {
			k := 0
			for t := a.First(ci, sh); t < c.Trials; t += n {
				if !p.settled.Has(results.Key{Cell: c.Key, Trial: t}) && (!skipped || t == 0) {
					k++
				}
			}
			if k == 0 {
				continue
			}
			out[sh].Trials += k
			out[sh].Cells++
			if skipped {
				continue // a skip record: no work counted
			}
			if row.Cost == nil {
				return nil, fmt.Errorf("run: shard estimate: row %s / %s was not timed", row.Dataset, row.Label)
			}
			out[sh].Work += row.Cost.PerCell + time.Duration(k)*row.Cost.PerTrial
			touched[sh][row.Dataset] = true
		}
	}
	// Each shard computes the statistics its datasets' cells share once.
	for sh := range out {
		for _, row := range p.Rows {
			if row.Cost != nil && touched[sh][row.Dataset] {
				out[sh].Work += row.Cost.Shared
			}
		}
	}
	for sh := range out {
		par := max(min(jobs, out[sh].Trials), 1)
		span := p.span(float64(out[sh].Work), par, func(ci int) (int, int) { return a.First(ci, sh), n })
		out[sh].Wall = p.Startup + p.Setup + time.Duration(span*p.SlowdownAt(jobs))
	}
	return out, nil
}
