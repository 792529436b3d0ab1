package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/plotting"
	"github.com/dplab/dplab/results"
)

// rankingTable ranks the private cells by the metric's mean: per dataset,
// one row per ε with the winner and the runner-up, the margin between them
// with its interval, the verdict (a tie when the winner's 95% CI overlaps
// any other ranked cell's, else a win), the mechanisms tied with the
// winner, the wall time per trial of both, and the ε each spent next to its
// target, flagging every ranked cell whose spent ε differs from its target,
// and the mechanisms that could not run at that ε (infeasible: the target
// is below the smallest ε they reach on the data).
type rankingTable struct {
	// Title is the tables' title ("Ranking by <metric>" when empty); the
	// dataset's label is appended.
	Title string `toml:"title"`
	// Metric ranks the cells, in its direction (required).
	Metric string `toml:"metric"`
	// Datasets are the labels of the datasets to rank, one table each; default all.
	Datasets []string `toml:"datasets"`
	// Mechanisms are the labels of the mechanisms ranked; default all.
	Mechanisms []string `toml:"mechanisms"`
	// Epsilon are the ε values to rank at, one row each; default all.
	Epsilon []float64 `toml:"epsilon"`
	// Formats are the table formats written; default ["md", "tex", "csv"].
	Formats []string `toml:"formats"`
	// Note is added to the caption file.
	Note string `toml:"note"`
	// NonPrivateTuning says what to do with oracle-tuned cells (ε spent = ∞):
	// "rank" them, labelled non-private (the default), or "exclude" them.
	NonPrivateTuning string `toml:"non_private_tuning"`

	name     string
	datasets []string
	mechs    []string
}

func init() {
	RegisterTable("ranking", Kind[Table]{Params: rankingTable{}, Example: `metric = "test_mse"`, Decode: func(b *Block) (Table, error) {
		t := rankingTable{name: b.Out.Name}
		if err := b.Decode(&t); err != nil {
			return nil, err
		}
		if err := plan.CheckMetric(b.Spec, b.Kind, b.Index, t.Metric); err != nil {
			return nil, err
		}
		var err error
		if t.NonPrivateTuning, err = b.OneOf("non_private_tuning", t.NonPrivateTuning, "rank", "rank", "exclude"); err != nil {
			return nil, err
		}
		if t.Formats, err = b.Formats(t.Formats, plotting.TableFormats); err != nil {
			return nil, err
		}
		if t.datasets, t.mechs, err = b.Labels(t.Datasets, t.Mechanisms); err != nil {
			return nil, err
		}
		return &t, nil
	}})
}

func (t *rankingTable) FileFormats() []string { return t.Formats }

// Ranking-table columns.
var rankingColumns = []string{
	"winner", "winner mean", "runner-up", "runner-up mean", "margin", "verdict", "tied with winner",
	"winner s/trial", "runner-up s/trial", "winner ε spent / target", "runner-up ε spent / target", "ε flags",
	"infeasible",
}

// ranked is one private cell competing at a (dataset, ε).
type ranked struct {
	cell  *plan.Cell
	label string // legend: non-private tuning marked
	stat  results.Stat
	sum   *results.CellSummary
}

// overlaps reports whether the 95% CIs of a and b overlap (the tie rule):
// |mean_a − mean_b| ≤ half_a + half_b. A cell with one trial has no
// interval (NaN) and ties with nothing.
func (a *ranked) overlaps(b *ranked) bool {
	return math.Abs(a.stat.Mean-b.stat.Mean) <= a.stat.CIHalf+b.stat.CIHalf
}

func (t *rankingTable) Build(v *View) []*plotting.Table {
	s := v.spec
	m, _ := plan.LookupMetric(t.Metric)
	dsIdx := v.taskDatasets(t.datasets, m.Task)
	eps, _ := s.Epsilon.Floats()
	slices.Sort(eps)
	eps = slices.Compact(eps)
	var out []*plotting.Table
	for _, di := range dsIdx {
		tab := &plotting.Table{Name: t.name, Title: t.Title, RowHeader: "ε", Columns: rankingColumns, Better: plotting.NoBest}
		if tab.Title == "" {
			tab.Title = "Ranking by " + m.Title
		}
		tab.Title += " — " + s.Datasets[di].Label
		if len(dsIdx) > 1 {
			tab.Name = t.name + "-" + v.datasetStem(s.Datasets[di].Label)
		}
		for _, e := range eps {
			if len(t.Epsilon) > 0 && !slices.ContainsFunc(t.Epsilon, func(x float64) bool { return math.Abs(x-e) <= 1e-9*e }) {
				continue
			}
			tab.Rows = append(tab.Rows, strconv.FormatFloat(e, 'g', 4, 64))
			row := rankingRow(t.rank(v.view, di, e, m.Higher))
			row[len(row)-1] = plotting.Entry{Present: true, Text: "none"}
			if inf := v.infeasibleAt(di, e, func(c *plan.Cell) bool { return t.ranks(v.view, c) }); len(inf) > 0 {
				row[len(row)-1].Text = strings.Join(inf, "; ")
			}
			tab.Cells = append(tab.Cells, row)
		}
		keep := func(c *plan.Cell) bool {
			return c.Dataset == di && v.wantMechanism(t.mechs, c.Mechanism)
		}
		winner := fmt.Sprintf("winner: the best mean %s among the private cells at each ε", m.Title)
		if t.NonPrivateTuning == "exclude" {
			winner += " (oracle-tuned cells excluded)"
		} else {
			winner += " (oracle-tuned cells ranked, marked non-private tuning: their ε spent is ∞)"
		}
		tab.Caption = withReferences(v.referenceTexts(di, t.Metric, t.mechs), v.caption("ci", "mean", keep, winner,
			"margin: |runner-up − winner| ± (CI half-width of the winner + of the runner-up), which contains 0 exactly when the two 95% CIs overlap",
			"verdict: a tie when the winner's CI overlaps that of any other ranked cell (listed under tied with winner), else a win",
			"s/trial: mean wall seconds of a trial's fit (tuning runs included) on this machine with -j trials in parallel",
			"ε spent: the largest over trials, by the accountant below",
			"ε flags: each ranked cell whose ε spent is above its target (OVERSPENT), below it by more than 0.1%, infinite (non-private tuning), or whose target was not the whole fit's (target scope)",
			"infeasible: the mechanisms whose target ε is below the smallest they reach on the data (not ranked: nothing released)", t.Note))
		out = append(out, tab)
	}
	return out
}

// rank returns the private cells of dataset di at ε with a finite mean of
// the metric, best first (ties in the mean keep the spec's order).
func (t *rankingTable) rank(v *view, di int, eps float64, higher bool) []ranked {
	var rs []ranked
	for ci := range v.cells {
		c := &v.cells[ci]
		if c.Dataset != di || c.Epsilon != eps || !t.ranks(v, c) {
			continue
		}
		a, ok := v.agg[c.Key]
		if !ok {
			continue
		}
		st, ok := a.Metrics[t.Metric]
		if !ok || st.Count == 0 || math.IsNaN(st.Mean) {
			continue
		}
		rs = append(rs, ranked{cell: c, label: v.legend(c), stat: st, sum: &a})
	}
	slices.SortStableFunc(rs, func(a, b ranked) int {
		if higher {
			return -cmpFloat(a.stat.Mean, b.stat.Mean)
		}
		return cmpFloat(a.stat.Mean, b.stat.Mean)
	})
	return rs
}

// ranks reports whether the table ranks cell c's mechanism: private, among
// the listed mechanisms, and not oracle-tuned when those are excluded.
func (t *rankingTable) ranks(v *view, c *plan.Cell) bool {
	if !c.Private || !v.wantMechanism(t.mechs, c.Mechanism) {
		return false
	}
	return t.NonPrivateTuning != "exclude" || v.spec.Mechanisms[c.Mechanism].Tuning.Mode != spec.TuneOracle
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// rankingRow is one ranking row from the ranked cells, best first.
func rankingRow(rs []ranked) []plotting.Entry {
	row := make([]plotting.Entry, len(rankingColumns))
	text := func(s string) plotting.Entry { return plotting.Entry{Present: true, Text: s} }
	if len(rs) == 0 {
		return row
	}
	w := &rs[0]
	row[0] = text(w.label)
	row[1] = plotting.Entry{Mean: w.stat.Mean, Half: w.stat.CIHalf, Present: true}
	row[7] = plotting.Entry{Mean: w.sum.WallMean, Present: true}
	row[9] = text(spentText(w))
	if len(rs) > 1 {
		r := &rs[1]
		row[2] = text(r.label)
		row[3] = plotting.Entry{Mean: r.stat.Mean, Half: r.stat.CIHalf, Present: true}
		row[4] = plotting.Entry{Mean: math.Abs(r.stat.Mean - w.stat.Mean), Half: w.stat.CIHalf + r.stat.CIHalf, Present: true}
		// A tie when any other cell's CI overlaps the winner's: the
		// runner-up's, or a lower mean's with a wider interval.
		var tied []string
		for i := 1; i < len(rs); i++ {
			if w.overlaps(&rs[i]) {
				tied = append(tied, rs[i].label)
			}
		}
		row[5], row[6] = text("win"), text("none")
		if len(tied) > 0 {
			row[5], row[6] = text("tie"), text(strings.Join(tied, "; "))
		}
		row[8] = plotting.Entry{Mean: r.sum.WallMean, Present: true}
		row[10] = text(spentText(r))
	} else {
		row[5] = text("only entry")
	}
	var flags []string
	for i := range rs {
		if f := spentFlag(&rs[i]); f != "" {
			flags = append(flags, rs[i].label+": "+f)
		}
	}
	row[11] = text("none")
	if len(flags) > 0 {
		row[11] = text(strings.Join(flags, "; "))
	}
	return row
}

// underspendTolerance is the relative shortfall below the target from
// which a ranking flags a cell as spending less than its target.
const underspendTolerance = 1e-3

// spentText is "ε spent / target" of a ranked cell, flagged when they differ.
func spentText(r *ranked) string {
	s := epsText(r.sum.EpsSpentMax) + " / " + epsText(r.cell.Epsilon)
	if f := spentFlag(r); f != "" {
		s += " (" + f + ")"
	}
	return s
}

// spentFlag says how a ranked cell's ε spent differs from its target, or
// "" when it meets it (within the calibration tolerance above, 0.1% below).
func spentFlag(r *ranked) string {
	a, target := r.sum, r.cell.Epsilon
	switch {
	case a.Tuning == results.TuningOracle || math.IsInf(a.EpsSpentMax, 1):
		return "NON-PRIVATE tuning, ε spent = ∞"
	case a.TargetScope != "":
		return "target scope: " + a.TargetScope
	case a.OverspendsTarget():
		return fmt.Sprintf("OVERSPENT %s > %s", epsText(a.EpsSpentMax), epsText(target))
	case a.EpsSpentMax < target*(1-underspendTolerance):
		return fmt.Sprintf("spent %s < target %s", epsText(a.EpsSpentMax), epsText(target))
	}
	return ""
}

func epsText(e float64) string {
	if math.IsInf(e, 1) {
		return "∞"
	}
	return strconv.FormatFloat(e, 'g', 4, 64)
}

// referenceTexts are the non-private references' metric of dataset di:
// "Ridge: 0.12 ± 0.01".
func (v *view) referenceTexts(di int, metric string, mechs []string) []string {
	var out []string
	for ci := range v.cells {
		c := &v.cells[ci]
		if c.Dataset != di || c.Private || !v.wantMechanism(mechs, c.Mechanism) {
			continue
		}
		if a, ok := v.agg[c.Key]; ok {
			if st, ok := a.Metrics[metric]; ok {
				out = append(out, fmt.Sprintf("%s: %s", v.legend(c), plotting.Entry{Mean: st.Mean, Half: st.CIHalf, Present: true}.String()))
			}
		}
	}
	return out
}
