package results

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// SummaryFile is the name of the per-cell summary table of a result directory.
const SummaryFile = "summary.csv"

// summaryHeader is the column order of summary.csv: one row per (cell, metric).
// The privacy columns say what eps_spent_max covers: eps_per_run_max is a
// tuned cell's one-run ε (empty when untuned), selection how a tuned cell
// chose its run, privacy_note the guarantee in words (see CellSummary.PrivacyNote),
// and assumptions what the guarantee rests on but does not account for,
// separated by " | ".
var summaryHeader = []string{
	"dataset", "label", "mechanism", "params", "epsilon", "delta", "accountant", "tuning",
	"eps_spent_max", "eps_per_run_max", "selection", "privacy_note", "assumptions", "alpha_star_mean", "metric", "count", "mean", "sd", "se",
	"ci_low", "ci_high", "median", "q1", "q3", "min", "max", "wall_s_mean", "cell_key",
}

// WriteSummaryCSV writes one row per (cell, metric), cells in the given order
// and metrics sorted by name.
func WriteSummaryCSV(w io.Writer, cells []CellSummary) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(summaryHeader); err != nil {
		return err
	}
	for _, c := range cells {
		names := make([]string, 0, len(c.Metrics))
		for k := range c.Metrics {
			names = append(names, k)
		}
		sort.Strings(names)
		params, _ := json.Marshal(c.MechParams) // map keys are sorted by encoding/json
		perRun := ""
		if !math.IsNaN(c.EpsPerRunMax) {
			perRun = num(c.EpsPerRunMax)
		}
		note := c.PrivacyNote()
		for _, m := range names {
			s := c.Metrics[m]
			row := []string{
				c.Dataset, c.Label, c.Mechanism, string(params), num(c.Epsilon), num(c.Delta),
				c.Accountant, c.Tuning, num(c.EpsSpentMax), perRun, c.Selection, note, strings.Join(c.Assumptions, " | "),
				num(c.AlphaMean), m, strconv.Itoa(s.Count), num(s.Mean), num(s.SD), num(s.SE), num(s.CILow), num(s.CIHigh),
				num(s.Median), num(s.Q1), num(s.Q3), num(s.Min), num(s.Max), num(c.WallMean), c.Key,
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// num formats x with the shortest representation that round-trips ("+Inf",
// "NaN" for non-finite values).
func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// PrivacyNote says in words what the cell's eps_spent_max guarantees:
// nothing for a non-private mechanism or oracle tuning; for a privately
// tuned cell, the training rows only (its selection scores other rows without
// noise, treating them as public); otherwise the whole procedure. A guarantee is qualified by the cell's assumptions when it has
// any.
func (c *CellSummary) PrivacyNote() string {
	switch {
	case c.Tuning == TuningOracle:
		return "NOT PRIVATE: oracle tuning (best candidate on the test set, not charged); eps_spent_max is inf, eps_per_run_max is the released run's ε alone"
	case math.IsInf(c.EpsSpentMax, 1):
		return "NOT PRIVATE: no guarantee (eps_spent_max is inf)"
	}
	note := "eps_spent_max covers the whole procedure"
	if c.Selection != "" {
		note = "eps_spent_max protects the training rows only: selection " + c.Selection + ", so those rows are treated as public"
	}
	if c.TargetScope != "" {
		note += "; epsilon is the fit's " + c.TargetScope + ", not a target for eps_spent_max (the whole ledger's (ε, δ))"
	}
	if len(c.Assumptions) > 0 {
		note += "; assumes the assumptions column"
	}
	return note
}
