package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/plotting"
	"github.com/dplab/dplab/results"
)

// ledgerSummary is the ledger a privacy table shows of a cell: its first
// trial's charged event and δ.
type ledgerSummary struct {
	event []byte
	delta float64
}

// noiseMean returns the mean of a noise parameter's quantity (its stored
// key or a value derived from it) over the cell's trials that ran: the sum
// over the trials that have it, divided by all of them but the releases of
// private tuning's data-independent model, which ran nothing (their
// missing noise would count as zeros).
func (v *view) noiseMean(a *results.CellSummary, key string, q quantity) (float64, bool) {
	st, ok := v.quantityStat(a.Key, true, key, q)
	return st.Sum / float64(a.Trials-a.DataIndependent), ok
}

// components returns the ε at the cell's δ of each component of a composed
// ledger (one entry for any other event), by the spec's accountant. Cells
// whose ledgers are the same (byte for byte, at the same δ) share one
// evaluation: a spec's cells often differ only where privacy does not (a
// third of the docs' ledger evaluations were repeats). The caller must
// not modify the result.
func (v *view) components(l *ledgerSummary) []float64 {
	k := ledgerKeyOf(l.event, l.delta)
	if eps, ok := v.ledgerEps[k]; ok {
		return eps
	}
	eps := LedgerComponents(plan.AccountingConfig(v.spec), l.event, l.delta)
	if v.ledgerEps == nil {
		v.ledgerEps = map[ledgerKey][]float64{}
	}
	v.ledgerEps[k] = eps
	return eps
}

// ledgerKey identifies a ledger event at a δ (view.components' memo) by
// the δ's bits: a non-private cell's δ is NaN, which as a float64 key
// would never be found again.
type ledgerKey struct {
	event string
	delta uint64
}

// ledgerKeyOf returns the key of event at delta.
func ledgerKeyOf(event []byte, delta float64) ledgerKey {
	return ledgerKey{string(event), math.Float64bits(delta)}
}

// LedgerComponents returns the ε at δ, by the accountant cfg, of each
// component of the recorded ledger event (a record's Privacy.Event): one
// entry per part of a composed ledger, one for any other event; NaN for a
// part the accountant cannot evaluate; nil when the event does not decode.
func LedgerComponents(cfg accounting.Config, event []byte, delta float64) []float64 {
	e, err := accounting.UnmarshalEvent(event)
	if err != nil {
		return nil
	}
	parts := []accounting.Event{e}
	if c, ok := e.(accounting.Composed); ok {
		parts = c.Events
	}
	out := make([]float64, len(parts))
	for i, p := range parts {
		g, err := cfg.Epsilon(p, delta)
		out[i] = g.Epsilon
		if err != nil {
			out[i] = math.NaN()
		}
	}
	return out
}

// colPerRun is the privacy tables' column of a tuned cell's one-run ε.
const colPerRun = "ε per run (max)"

// privacyTables makes the calibration table of each dataset.
func (v *view) privacyTables(t *Selection) []*plotting.Table {
	s := v.spec
	var out []*plotting.Table
	for di, d := range s.Datasets {
		if !v.wantDataset(t.Datasets, di) {
			continue
		}
		tab := &plotting.Table{Name: t.Name, Title: t.Title, RowHeader: "mechanism, ε", Better: plotting.NoBest}
		if tab.Title == "" {
			tab.Title = "Calibration and privacy spent"
		}
		tab.Title += " — " + d.Label
		if len(s.Datasets) > 1 {
			tab.Name = t.Name + "-" + v.datasetStem(d.Label)
		}
		cols := []string{"ε target", "ε spent (max)", "δ", "α* (mean)"}
		tex := map[string]string{} // LaTeX headers of the noise columns
		var legend columnLegend
		type row struct {
			label string
			vals  map[string]float64
		}
		var rows []row
		for ci := range v.cells {
			c := &v.cells[ci]
			if c.Dataset != di || !c.Private || !v.wantMechanism(t.Mechanisms, c.Mechanism) {
				continue
			}
			a, ok := v.agg[c.Key]
			l := v.ledgers[c.Key]
			if !ok || l == nil {
				continue
			}
			vals := map[string]float64{"ε target": c.Epsilon, "ε spent (max)": a.EpsSpentMax, "δ": a.Delta}
			if !math.IsInf(a.EpsSpentMax, 1) {
				vals["α* (mean)"] = a.AlphaMean // no optimal order without a guarantee
			}
			if !math.IsNaN(a.EpsPerRunMax) {
				// Tuned cells: one run's ε beside the whole procedure's (+Inf
				// for oracle tuning).
				if !slices.Contains(cols, colPerRun) {
					cols = slices.Insert(cols, 2, colPerRun)
				}
				vals[colPerRun] = a.EpsPerRunMax
			}
			m := s.Mechanisms[c.Mechanism]
			for _, k := range slices.Sorted(maps.Keys(a.Noise)) {
				group, _, _ := cutLast(k)
				for _, q := range columnsOf(m.Name, k) {
					x, ok := v.noiseMean(&a, k, q)
					if !ok {
						continue // a derived value this cell's records do not have
					}
					col, colTeX := q.label, q.tex
					if group != "" {
						col, colTeX = col+" ("+group+")", colTeX+" "+plotting.TeXEscape("("+group+")")
					}
					if !slices.Contains(cols, col) {
						cols = append(cols, col)
						tex[col] = colTeX
					}
					vals[col] = x
					_, name, _ := cutLast(k)
					legend.add(q, name, m.Label)
				}
			}
			for i, e := range v.components(l) {
				name := fmt.Sprintf("ε component %d", i+1)
				if !slices.Contains(cols, name) {
					cols = append(cols, name)
				}
				vals[name] = e
			}
			rows = append(rows, row{v.legend(c) + ", ε = " + strconv.FormatFloat(c.Epsilon, 'g', 4, 64), vals})
		}
		tab.Columns = cols
		for _, col := range cols {
			t, ok := tex[col]
			if !ok {
				t = plotting.TeXEscape(col)
			}
			tab.TeXColumns = append(tab.TeXColumns, t)
		}
		for _, r := range rows {
			tab.Rows = append(tab.Rows, r.label)
			var cells []plotting.Entry
			for _, col := range cols {
				x, ok := r.vals[col]
				cells = append(cells, plotting.Entry{Mean: x, Present: ok})
			}
			tab.Cells = append(tab.Cells, cells)
		}
		tab.Caption = v.caption("none", "mean", func(c *plan.Cell) bool {
			return c.Dataset == di && c.Private && v.wantMechanism(t.Mechanisms, c.Mechanism)
		}, "ε components: each part of the composed ledger, by the same accountant at the same δ (the total is not their sum under RDP)",
			"noise parameters are means over trials", legend.String(), t.Note)
		out = append(out, tab)
	}
	return out
}
