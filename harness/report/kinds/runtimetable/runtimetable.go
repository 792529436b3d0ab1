// Package runtimetable is the "runtime" table kind: per dataset, one row
// per (mechanism, ε) with the mean wall time, runs and per-example gradient
// evaluations of a trial. It is written against report's exported View
// only, and registers itself in init (imported for its side effect by
// harness/report/kinds).
package runtimetable

import (
	"math"
	"strconv"

	"github.com/dplab/dplab/harness/report"
	"github.com/dplab/dplab/plotting"
)

func init() {
	report.RegisterSelectionTable("runtime",
		"per dataset, one row per (mechanism, ε) with the mean wall time, runs and per-example gradient evaluations of a trial.",
		`datasets = ["Lin"]`, tables)
}

// The columns. Mechanisms report the per-example gradient evaluations of a
// fit as Release.Stats["grad_evals"], which records keep as non-private
// diagnostics; tuned trials sum every run's into
// Diagnostics["total_grad_evals"] and count the runs in
// Diagnostics["runs"].
const (
	colWall  = "wall s/trial"
	colRuns  = "runs/trial"
	colGrads = "per-example gradients/trial"
)

// tables makes the runtime table of each dataset: one row per (mechanism,
// ε) with the mean over trials of the wall time of a trial's fit (all
// tuning runs included), the number of runs and the per-example gradient
// evaluations summed over the runs.
func tables(v *report.View, t *report.Selection) []*plotting.Table {
	s := v.Spec()
	cells := v.Cells()
	var out []*plotting.Table
	for di, d := range s.Datasets {
		if !t.WantDataset(d.Label) {
			continue
		}
		shown := func(c report.Cell) bool {
			return c.Dataset == di && t.WantMechanism(s.Mechanisms[c.Mechanism].Label)
		}
		tab := &plotting.Table{Name: t.Name, Title: t.Title, RowHeader: "mechanism, ε", Better: plotting.NoBest,
			Columns: []string{colWall, colRuns, colGrads}}
		if tab.Title == "" {
			tab.Title = "Runtime per trial"
		}
		tab.Title += " — " + d.Label
		if len(s.Datasets) > 1 {
			tab.Name = t.Name + "-" + v.DatasetStem(d.Label)
		}
		for _, c := range cells {
			if !shown(c) {
				continue
			}
			a, ok := v.Summary(c)
			if !ok {
				continue
			}
			label := v.Legend(c)
			if c.Private {
				label += ", ε = " + strconv.FormatFloat(c.Epsilon, 'g', 4, 64)
			}
			runs := plotting.Entry{Mean: 1, Present: true}
			if st, ok := a.Diagnostics["runs"]; ok {
				runs = plotting.Entry{Mean: st.Mean, Half: st.CIHalf, Present: true}
			}
			var grads plotting.Entry
			for _, k := range []string{"total_grad_evals", "grad_evals"} {
				if st, ok := a.Diagnostics[k]; ok {
					grads = plotting.Entry{Mean: st.Mean, Half: st.CIHalf, Present: true}
					break
				}
			}
			// Evidence made without the wall-clock times (no claim reads
			// one) has none: "—", not NaN.
			wall := plotting.Entry{Mean: a.WallMean, Present: !math.IsNaN(a.WallMean)}
			tab.Rows = append(tab.Rows, label)
			tab.Cells = append(tab.Cells, []plotting.Entry{wall, runs, grads})
		}
		tab.Caption = v.Caption("none", "mean", shown,
			"wall time of the whole trial's fit on this machine (-j trials in parallel)",
			"per-example gradients summed over every tuning run", "mean ± 95% CI over trials", t.Note)
		out = append(out, tab)
	}
	return out
}
