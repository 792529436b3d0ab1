package run

import (
	"container/heap"

	"github.com/dplab/dplab/results"
)

// maxScheduled is the most trials (stored ones included) TrialsWall lays
// out one by one; a larger run's wall time is its work over the workers,
// whose tail, a trial at most, is a small share of it.
const maxScheduled = 1 << 18

// wholeRun is the trial range of an unsharded run: every trial of a cell.
func wholeRun(int) (first, step int) { return 0, 1 }

// span is the time (ns, alone) of trials whose work (ns) is work on par
// workers: their list schedule (listSchedule, the trials trialRange
// gives each cell), or the work over par on one worker or beyond
// maxScheduled trials.
func (p *Plan) span(work float64, par int, trialRange func(ci int) (first, step int)) float64 {
	if par > 1 && p.Total <= maxScheduled {
		return p.listSchedule(par, trialRange)
	}
	return work / float64(par)
}

// listSchedule returns the time (ns, alone) the pending trials that
// trialRange gives each cell (its first, then every step-th: wholeRun, or
// a shard's, Assignment.First) take on par workers as a run starts them:
// in its schedule (round-robin over the cells, schedule), each on the
// first worker free (Graham's list scheduling, Bell System Technical
// Journal 45 (1966)), a trial at its row's PerTrial, a cell's first
// pending trial with the row's PerCell and a dataset's first with the
// Shared work of its rows. A few long trials end a run unevenly: after
// its estimate kept 30 of its 42 trials, preprocessing_fig3 with --trials
// 1 had left five of DP-SGD after PCA (2.5 s each) and seven short ones,
// 8.1 s at -j 2, where their work over 2 predicted 7.1 s. Every row with
// trials to run must have its Cost.
func (p *Plan) listSchedule(par int, trialRange func(ci int) (first, step int)) float64 {
	s, cells := p.grid.Spec(), p.grid.Cells()
	rowOf := p.rowsByKey()
	shared := map[string]float64{} // by dataset label, its rows' Shared
	for _, row := range rowOf {
		if row.Cost != nil {
			shared[row.Dataset] += float64(row.Cost.Shared)
		}
	}
	free := make(freeAt, par)
	started, begun := make([]bool, len(cells)), map[string]bool{}
	var end float64
	schedule(len(cells), func(ci int) int { return cells[ci].Trials }, trialRange,
		func(ci, t int) bool { return !p.settled.Has(results.Key{Cell: cells[ci].Key, Trial: t}) },
		func(ci, t int) bool {
			c := &cells[ci]
			label := s.DatasetAt(c.Dataset).Label
			if _, skip := p.Skipped[label]; skip {
				return true // a skip record: no work
			}
			row := rowOf[planRow(s, c)]
			d := float64(row.Cost.PerTrial)
			if !started[ci] {
				started[ci] = true
				d += float64(row.Cost.PerCell)
			}
			if !begun[label] {
				begun[label] = true
				d += shared[label]
			}
			free[0] += d
			end = max(end, free[0])
			heap.Fix(&free, 0)
			return true
		})
	return end
}

// freeAt is a min-heap of the times the workers are free.
type freeAt []float64

func (h freeAt) Len() int           { return len(h) }
func (h freeAt) Less(i, j int) bool { return h[i] < h[j] }
func (h freeAt) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *freeAt) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *freeAt) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
