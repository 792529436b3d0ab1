// Package runtimetable is the "runtime" table kind: per dataset, one row
// per (mechanism, ε) with the mean wall time, runs and per-example gradient
// evaluations of a trial. It is written against report's exported View
// only, and registers itself in init (imported for its side effect by
// harness/report/kinds).
package runtimetable

import (
	"fmt"
	"math"
	"strconv"

	"github.com/dplab/dplab/harness/report"
	"github.com/dplab/dplab/plotting"
)

func init() {
	report.RegisterTable("runtime", report.Kind[report.Table]{Params: runtimeTable{}, Docs: kindDocs, Example: `datasets = ["Lin"]`,
		Doc: "per dataset, one row per (mechanism, ε) with the mean wall time, runs and per-example gradient evaluations of a trial; with totals, each mechanism's wall time summed over its trials.",
		Decode: func(b *report.Block) (report.Table, error) {
			t := runtimeTable{}
			if err := b.DecodeSelection(&t, &t.Selection); err != nil {
				return nil, err
			}
			return &t, nil
		}})
}

// runtimeTable is the runtime table's block: the datasets and mechanisms
// shown, and whether totals are added.
type runtimeTable struct {
	report.Selection
	// Totals adds the column "wall s, all trials" (the wall times of a
	// cell's trials summed) and, per mechanism, a row "LABEL, all ε" over
	// every trial of its cells shown: their mean and summed wall times
	// (the mechanism's share of the spec's run, from its records).
	Totals bool `toml:"totals"`
}

// Build implements report.Table.
func (t *runtimeTable) Build(v *report.View) []*plotting.Table { return tables(v, t) }

// FileFormats implements report.Table.
func (t *runtimeTable) FileFormats() []string { return t.Formats }

// The columns. Mechanisms report the per-example gradient evaluations of a
// fit as Release.Stats["grad_evals"], which records keep as non-private
// diagnostics; tuned trials sum every run's into
// Diagnostics["total_grad_evals"] and count the runs in
// Diagnostics["runs"].
const (
	colWall  = "wall s/trial"
	colRuns  = "runs/trial"
	colGrads = "per-example gradients/trial"
	colTotal = "wall s, all trials"
)

// tables makes the runtime table of each dataset: one row per (mechanism,
// ε) with the mean over trials of the wall time of a trial's fit (all
// tuning runs included), the number of runs and the per-example gradient
// evaluations summed over the runs.
func tables(v *report.View, t *runtimeTable) []*plotting.Table {
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
		if t.Totals {
			tab.Columns = append(tab.Columns, colTotal)
		}
		type total struct {
			sum   float64
			count int
		}
		totals := map[int]*total{} // by mechanism
		var order []int
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
			row := []plotting.Entry{wall, runs, grads}
			if t.Totals {
				row = append(row, plotting.Entry{Mean: a.Wall.Sum, Present: a.Wall.Count > 0})
				if totals[c.Mechanism] == nil {
					totals[c.Mechanism] = &total{}
					order = append(order, c.Mechanism)
				}
				tt := totals[c.Mechanism]
				tt.sum, tt.count = tt.sum+a.Wall.Sum, tt.count+a.Wall.Count
			}
			tab.Rows = append(tab.Rows, label)
			tab.Cells = append(tab.Cells, row)
		}
		for _, m := range order {
			tt := totals[m]
			tab.Rows = append(tab.Rows, fmt.Sprintf("%s, all ε (%d trials)", s.Mechanisms[m].Label, tt.count))
			tab.Cells = append(tab.Cells, []plotting.Entry{{Mean: tt.sum / float64(tt.count), Present: tt.count > 0}, {}, {}, {Mean: tt.sum, Present: tt.count > 0}})
		}
		totalNote := ""
		if t.Totals {
			totalNote = "wall s, all trials: the wall times of the trials summed (not the run's elapsed time: -j trials ran at once); LABEL, all ε: over every trial of the mechanism's cells shown"
		}
		tab.Caption = v.Caption("none", "mean", shown,
			"wall time of the whole trial's fit on this machine (-j trials in parallel)",
			"per-example gradients summed over every tuning run", "mean ± 95% CI over trials", totalNote, t.Note)
		out = append(out, tab)
	}
	return out
}
