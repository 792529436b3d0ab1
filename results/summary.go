package results

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// SummaryFile is the name of the per-cell summary table of a result directory.
const SummaryFile = "summary.csv"

// summaryHeader is the column order of summary.csv: one row per (cell,
// metric), one type per column, and an empty field where a column does not
// apply (benchopt's and pandas' "tidy" layout). The privacy columns say what
// eps_spent_max covers: private is false for a non-private mechanism and for
// oracle tuning (then eps_spent_max is empty: no ε bounds the procedure);
// eps_per_run_max is a tuned cell's one-run ε (empty when untuned),
// selection how a tuned cell chose its run, privacy_note the guarantee in
// words (see CellSummary.PrivacyNote), and assumptions what the guarantee
// rests on but does not account for, separated by " | ". A non-private
// reference has no ε, δ, accountant or α*. After params (all of a cell's
// mechanism params as JSON) come the p_<key> columns, one per mechanism
// param of any cell, sorted (summaryParams). When a cell is tuned
// privately, data_independent_releases follows count (colDataIndependent).
var summaryHeader = []string{
	"dataset", "dataset_name", "label", "mechanism", "params", "epsilon", "delta", "accountant", "tuning",
	"private", "eps_spent_max", "eps_per_run_max", "selection", "privacy_note", "assumptions", "alpha_star_mean", "metric", "count", "mean", "sd", "se",
	"ci_low", "ci_high", "median", "q1", "q3", "min", "max", "wall_s_mean", "cell_key",
}

// colDataIndependent is the column, after count, of the trials of the cell
// that released private tuning's data-independent model (K = 0 runs drawn;
// CellSummary.DataIndependent), present when some cell is tuned privately.
const colDataIndependent = "data_independent_releases"

// summaryParamsAt is the index in summaryHeader after which the p_<key>
// columns go (after "params").
const summaryParamsAt = 5

// summaryParams returns the sorted union of the cells' mechanism param keys.
func summaryParams(cells []CellSummary) []string {
	seen := map[string]bool{}
	var keys []string
	for _, c := range cells {
		for k := range c.MechParams {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	return keys
}

// paramField formats one param value for its p_<key> column: numbers as
// num does, strings as they are, booleans true/false, anything else as
// JSON; "" when the cell has no such param.
func paramField(v any, ok bool) string {
	if !ok {
		return ""
	}
	switch x := v.(type) {
	case float64:
		return num(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// WriteSummaryCSV writes one row per (cell, metric), cells in the given order
// and metrics sorted by name.
func WriteSummaryCSV(w io.Writer, cells []CellSummary) error {
	cw := csv.NewWriter(w)
	params := summaryParams(cells)
	header := append(append(append([]string(nil), summaryHeader[:summaryParamsAt]...), prefixed("p_", params)...), summaryHeader[summaryParamsAt:]...)
	tuned := slices.ContainsFunc(cells, func(c CellSummary) bool { return c.Tuning == TuningPrivate })
	if tuned {
		header = slices.Insert(header, slices.Index(header, "count")+1, colDataIndependent)
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, c := range cells {
		names := make([]string, 0, len(c.Metrics))
		for k := range c.Metrics {
			names = append(names, k)
		}
		sort.Strings(names)
		paramsJSON, _ := json.Marshal(c.MechParams) // map keys are sorted by encoding/json
		note := c.PrivacyNote()
		reference := math.IsInf(c.Epsilon, 1) // a non-private mechanism: no ε axis
		private := !math.IsInf(c.EpsSpentMax, 1)
		epsilon, delta, accountant, alpha := optNum(c.Epsilon), optNum(c.Delta), c.Accountant, ""
		if reference {
			delta, accountant = "", ""
		}
		if !reference && c.Accountant == "rdp" && c.AlphaMean > 1 {
			alpha = optNum(c.AlphaMean)
		}
		for _, m := range names {
			s := c.Metrics[m]
			row := []string{c.Dataset, c.DatasetName, c.Label, c.Mechanism, string(paramsJSON)}
			for _, k := range params {
				v, ok := c.MechParams[k]
				row = append(row, paramField(v, ok))
			}
			row = append(row, epsilon, delta, accountant, c.Tuning,
				strconv.FormatBool(private), optNum(c.EpsSpentMax), optNum(c.EpsPerRunMax), c.Selection, note, strings.Join(c.Assumptions, " | "),
				alpha, m, strconv.Itoa(s.Count))
			if tuned {
				row = append(row, strconv.Itoa(c.DataIndependent))
			}
			row = append(row, StatNum(s.Mean), StatNum(s.SD), StatNum(s.SE), StatNum(s.CILow), StatNum(s.CIHigh),
				StatNum(s.Median), StatNum(s.Q1), StatNum(s.Q3), StatNum(s.Min), StatNum(s.Max), StatNum(c.WallMean), c.Key)
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func prefixed(prefix string, keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = prefix + k
	}
	return out
}

// optNum formats a value that may not apply: "" for NaN and ±Inf (no ε
// for a non-private reference or an oracle-tuned cell, no one-run ε for an
// untuned cell), num otherwise.
func optNum(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	return num(x)
}

// StatNum formats a statistic for a CSV file: "" when undefined (NaN: the SD of one
// trial), "inf" or "-inf" for a diverged metric (the spelling pandas and
// numpy read as a float), num otherwise.
func StatNum(x float64) string {
	switch {
	case math.IsNaN(x):
		return ""
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return num(x)
}

// num formats x with the shortest representation that round-trips ("+Inf",
// "NaN" for non-finite values).
func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// PrivacyNote says in words what the cell's eps_spent_max guarantees:
// nothing for a non-private mechanism or oracle tuning; for a privately
// tuned cell, the training rows only (its selection scores other rows without
// noise, treating them as public); otherwise the whole procedure. A
// guarantee is qualified by the cell's assumptions when it has any, and a
// cell that spent more than its target ε says so.
func (c *CellSummary) PrivacyNote() string {
	switch {
	case c.Tuning == TuningOracle:
		return "NOT PRIVATE: oracle tuning (best candidate on the test set, not charged); no ε bounds it (eps_spent_max empty), eps_per_run_max is the released run's ε alone"
	case math.IsInf(c.EpsSpentMax, 1):
		return "NOT PRIVATE: no guarantee (eps_spent_max empty)"
	}
	note := "eps_spent_max covers the whole procedure"
	if c.Selection != "" {
		note = "eps_spent_max protects the training rows only: selection " + c.Selection + ", so those rows are treated as public"
	}
	if c.TargetScope != "" {
		note += "; epsilon is the fit's " + c.TargetScope + ", not a target for eps_spent_max (the whole ledger's (ε, δ))"
	} else if c.EpsSpentMax > c.Epsilon*(1+1e-9) {
		// A calibrated fit that overspends fails its trial; one with fixed
		// constants (a paper's box, preset "code") is stored and flagged,
		// as the records' tuning_note and the figures' footnotes do.
		note += "; WARNING: eps_spent_max exceeds the target epsilon"
	}
	if len(c.Assumptions) > 0 {
		note += "; assumes the assumptions column"
	}
	return note
}
