package results

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"sort"
	"strconv"
)

// SummaryFile is the name of the per-cell summary table of a result directory.
const SummaryFile = "summary.csv"

// summaryHeader is the column order of summary.csv: one row per (cell, metric).
var summaryHeader = []string{
	"dataset", "label", "mechanism", "params", "epsilon", "delta", "accountant", "tuning",
	"eps_spent_max", "alpha_star_mean", "metric", "count", "mean", "sd", "se",
	"ci_low", "ci_high", "median", "q1", "q3", "min", "max", "wall_s_mean", "cell_key",
}

// WriteSummaryCSV writes one row per (cell, metric), cells in the given order
// and metrics sorted by name.
func WriteSummaryCSV(w io.Writer, cells []Cell) error {
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
		for _, m := range names {
			s := c.Metrics[m]
			row := []string{
				c.Dataset, c.Label, c.Mechanism, string(params), num(c.Epsilon), num(c.Delta),
				c.Accountant, c.Tuning, num(c.EpsSpentMax), num(c.AlphaMean), m,
				strconv.Itoa(s.Count), num(s.Mean), num(s.SD), num(s.SE), num(s.CILow), num(s.CIHigh),
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
