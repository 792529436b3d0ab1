package run

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/results"
)

// Plan is the expanded grid of a spec with its storage status.
type Plan struct {
	Rows                 []PlanRow
	Cells, Total, Stored int           // Stored: settled trials (ok or infeasible), which a run does not repeat
	Infeasible           int           // of Stored, the trials recorded infeasible
	Stale                int           // stored settled trials of cells no longer in the spec
	Setup                time.Duration // loading the datasets (measured by Estimate)
	// Startup is what a run spends before loading the datasets: the
	// process's start, loading and validating the spec, expanding the grid
	// and reading the store (set by the caller, who measured its own).
	Startup time.Duration
	// Render is what rendering the run's figures and tables takes after
	// its trials (timed by Estimate, by Options.TimeRender).
	Render time.Duration
	// Skipped holds, by label, the optional datasets Estimate found without
	// their files, with the reason: a run records only trial 0 of their
	// cells, as skipped.
	Skipped map[string]string
	// Sample is what Estimate measured besides the rows' costs.
	Sample Sample

	grid     *plan.Plan       // the cells it was made of
	cellKeys map[string]bool  // the spec's cells
	settled  results.KeySet   // the trials stored settled
	kept     []results.Record // the trials Estimate timed, once each, as run (Kept: the settled)
	keeps    bool             // the caller keeps them (Options.EstimateKept)
	// fill lets the estimate's wave of first trials fill a worker left
	// idle with further cells, stopped at the wave's end by the clock:
	// Estimate's; tests whose trials' times are synthetic leave it off.
	fill bool
	// memos is what Estimate saw of the statistics the cells share (nil:
	// none).
	memos sharedMemos
	// tail times the store's writes and rendering at a dilation, after
	// the floor's trials (nil: not timed; Estimate's).
	tail func(dilation float64) (tailTimes, error)
	// fits is the number of fits trial t of cell ci makes (runner's
	// trialFits; nil: one each): the weight of a tuned row's trials.
	fits func(ci, t int) int
}

// PlanRow is one (dataset, mechanism label) line of a plan.
type PlanRow struct {
	Dataset, Label string
	Epsilons       string
	Trials         int // per cell
	Stored, ToRun  int
	CellsToRun     int      // cells with a trial to run (each does its one-off work once)
	Cost           *RowCost // measured by Estimate; nil when not timed
}

// planRow names the plan row of cell c: its dataset's label and its own
// label (MakePlan's rows; PlanRow.key for a row).
func planRow(s *spec.Spec, c *plan.Cell) string {
	return rowKey(s.DatasetAt(c.Dataset).Label, c.Label)
}

// key names the row as planRow names its cells' row.
func (r *PlanRow) key() string { return rowKey(r.Dataset, r.Label) }

// rowsByKey returns p's rows by key: a cell's is rowsByKey()[planRow(s, c)].
func (p *Plan) rowsByKey() map[string]*PlanRow {
	rowOf := make(map[string]*PlanRow, len(p.Rows))
	for i := range p.Rows {
		rowOf[p.Rows[i].key()] = &p.Rows[i]
	}
	return rowOf
}

func rowKey(dataset, label string) string { return dataset + "\x00" + label }

// MakePlan joins the cells of grid with the records of stored (the result
// directory's store, results.FromDir). It counts each cell's stored trials
// in a bitset per cell as the records stream past instead of visiting every
// trial index, so its work is linear in cells + records, not in trials (a
// spec may have 10⁸ trials), and its memory a bit per stored trial. It
// stops with ctx's error when ctx is done.
func MakePlan(ctx context.Context, grid *plan.Plan, stored results.Source) (*Plan, error) {
	s, cells := grid.Spec(), grid.Cells()
	// The settled trials (Record.Settled, which the runner does not
	// repeat), and of them those with an ok record: a trial with an ok and
	// an infeasible record counts as ok.
	var settled, okTrials, infeasible results.KeySet
	if err := stored(func(r *results.Record) {
		switch r.Status {
		case results.StatusOK:
			okTrials.Add(r.Key())
		case results.StatusInfeasible:
			infeasible.Add(r.Key())
		default:
			return
		}
		settled.Add(r.Key())
	}); err != nil {
		return nil, err
	}
	keys := cellKeys(cells)
	p := &Plan{Cells: len(cells), grid: grid, cellKeys: keys, settled: settled}
	settled.Cells(func(cell string, n int) {
		if !keys[cell] {
			p.Stale += n
		}
	})
	index := map[string]int{}
	var eps [][]string // per row, joined at the end (not quadratically)
	for ci := range cells {
		c := &cells[ci]
		if ci%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		id := planRow(s, c)
		i, ok := index[id]
		if !ok {
			i = len(p.Rows)
			index[id] = i
			p.Rows = append(p.Rows, PlanRow{Dataset: s.DatasetAt(c.Dataset).Label, Label: c.Label, Trials: c.Trials})
			eps = append(eps, nil)
		}
		row := &p.Rows[i]
		e := "non-private"
		if c.Private {
			e = strconv.FormatFloat(c.Epsilon, 'g', 4, 64)
		}
		eps[i] = append(eps[i], e)
		done := settled.Count(c.Key, func(t int) bool { return t >= 0 && t < c.Trials })
		inf := infeasible.Count(c.Key, func(t int) bool { return t >= 0 && !okTrials.Has(results.Key{Cell: c.Key, Trial: t}) })
		p.Total += c.Trials
		p.Stored += done
		p.Infeasible += min(inf, done)
		row.Stored += done
		row.ToRun += c.Trials - done
		if done < c.Trials {
			row.CellsToRun++
		}
	}
	for i := range p.Rows {
		p.Rows[i].Epsilons = strings.Join(eps[i], " ")
	}
	return p, nil
}

// UnmergedShards reports the settled trials of the plan's cells in dir's
// shard files that the records the plan was made from do not hold
// (results.UnmergedShards; nil when there are none): what dplab merge would
// add, and dplab run refuses to rerun.
func (p *Plan) UnmergedShards(dir string, warn func(string)) (*results.UnmergedShardsError, error) {
	err := results.UnmergedShards(dir, func(cell string) bool { return p.cellKeys[cell] },
		p.settled.Has, warn)
	var um *results.UnmergedShardsError
	if errors.As(err, &um) {
		return um, nil
	}
	return nil, err
}
