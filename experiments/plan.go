package experiments

import (
	"strconv"
	"strings"

	"github.com/dplab/dplab/results"
)

// Plan is the expanded grid of a spec with its storage status.
type Plan struct {
	Rows                 []PlanRow
	Cells, Total, Stored int
	Stale                int // stored ok trials of cells no longer in the spec
}

// PlanRow is one (dataset, mechanism label) line of a plan.
type PlanRow struct {
	Dataset, Label string
	Epsilons       string
	Trials         int // per cell
	Stored, ToRun  int
}

// MakePlan joins the spec's cells with stored records.
func MakePlan(s *Spec, recs []results.Record) *Plan {
	cells := s.Expand()
	done := map[results.Key]bool{}
	for _, r := range results.Latest(recs) {
		done[r.Key()] = true
	}
	keys := cellKeys(cells)
	p := &Plan{Cells: len(cells)}
	for k := range done {
		if !keys[k.Cell] {
			p.Stale++
		}
	}
	index := map[string]int{}
	for _, c := range cells {
		id := s.Datasets[c.Dataset].Label + "\x00" + c.Label
		i, ok := index[id]
		if !ok {
			i = len(p.Rows)
			index[id] = i
			p.Rows = append(p.Rows, PlanRow{Dataset: s.Datasets[c.Dataset].Label, Label: c.Label, Trials: c.Trials})
		}
		row := &p.Rows[i]
		e := "non-private"
		if c.Private {
			e = strconv.FormatFloat(c.Epsilon, 'g', 4, 64)
		}
		if row.Epsilons == "" {
			row.Epsilons = e
		} else {
			row.Epsilons = strings.Join([]string{row.Epsilons, e}, " ")
		}
		for t := 0; t < c.Trials; t++ {
			p.Total++
			if done[results.Key{Cell: c.Key, Trial: t}] {
				p.Stored++
				row.Stored++
			} else {
				row.ToRun++
			}
		}
	}
	return p
}
