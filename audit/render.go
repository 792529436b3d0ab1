package audit

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/dplab/dplab/internal/fileutil"
	"github.com/dplab/dplab/plotting"
)

// Render writes the figure (claimed ε against the audited lower bound, one
// line per mechanism, the line y = x for reference) and the table of an
// audit spec's results into dir/figures and dir/tables, with the spec's
// source as dir/spec.toml, and returns the paths written.
func Render(s *Spec, results []Result, dir string) ([]string, error) {
	paths := []string{filepath.Join(dir, "spec.toml")}
	if err := writeSpecCopy(s, dir); err != nil {
		return nil, err
	}
	caption := captionOf(s, results)
	var series []plotting.Series
	lo, hi := s.Epsilon[0], s.Epsilon[0]
	for _, e := range s.Epsilon {
		lo, hi = min(lo, e), max(hi, e)
	}
	series = append(series, plotting.Series{Label: "claimed ε (y = x)", X: []float64{0, hi}, Y: []float64{0, hi}, Style: 0, Dashed: true})
	tab := &plotting.Table{Name: "audit", Title: s.Title, RowHeader: "target ε", Better: plotting.NoBest, Caption: caption, Digits: 3}
	for _, e := range s.Epsilon {
		tab.Rows = append(tab.Rows, fmt.Sprintf("%g", e))
	}
	tab.Cells = make([][]plotting.Entry, len(s.Epsilon))
	for i, m := range s.Mechanisms {
		var ser plotting.Series
		ser.Label, ser.Style = m.label(), i+1
		tab.Columns = append(tab.Columns, m.label()+" claimed", m.label()+" audited")
		for j, e := range s.Epsilon {
			r, ok := find(results, m.label(), e)
			claimed, audited := plotting.Entry{}, plotting.Entry{}
			if ok {
				ser.X = append(ser.X, r.ClaimedEpsilon)
				ser.Y = append(ser.Y, r.LowerBound)
				claimed = plotting.Entry{Mean: r.ClaimedEpsilon, Present: true}
				audited = plotting.Entry{Mean: r.LowerBound, Present: true}
			}
			tab.Cells[j] = append(tab.Cells[j], claimed, audited)
		}
		series = append(series, ser)
	}
	title := s.Title
	if title == "" {
		title = s.Name
	}
	fig := &plotting.Figure{Name: "audit", Title: title, XLabel: "claimed ε (ledger)", YLabel: fmt.Sprintf("audited lower bound on ε (%g confidence)", confidenceOf(s)),
		Panels: []plotting.Panel{{Series: series}}, Caption: caption} // legend placed where it covers no point
	for _, d := range []string{"figures", "tables"} {
		if err := fileutil.MkdirAllIn(dir, d); err != nil {
			return nil, err
		}
	}
	figDir, tabDir := filepath.Join(dir, "figures"), filepath.Join(dir, "tables")
	p, err := plotting.Write(fig, figDir, plotting.Formats...)
	paths = append(paths, p...)
	if err != nil {
		return paths, err
	}
	p, err = plotting.WriteTable(tab, tabDir, "md", "csv")
	return append(paths, p...), err
}

// find returns the result of the mechanism labelled label at target ε e.
func find(results []Result, label string, e float64) (Result, bool) {
	for _, r := range results {
		if r.Label == label && r.TargetEpsilon == e {
			return r, true
		}
	}
	return Result{}, false
}

func confidenceOf(s *Spec) float64 {
	if s.Confidence == 0 {
		return 0.95
	}
	return s.Confidence
}

// captionOf states what the numbers are: on the caption line the
// accountant, δ and the confidence, and that an audit refutes but never
// certifies; in the caption files the method and, per mechanism, the
// pair's relation and the runs.
func captionOf(s *Spec, results []Result) plotting.Caption {
	rel := map[string]string{}
	runs := map[string]int{}
	for _, r := range results {
		rel[r.Label] = r.Relation
		runs[r.Label] = r.Trials
	}
	notes := []string{
		fmt.Sprintf("Claimed ε: the mechanism's ledger under the RDP accountant at δ = %g", s.Delta),
		fmt.Sprintf("Audited: a Clopper–Pearson lower bound on ε (confidence %g) from a threshold test chosen on half of the runs and evaluated on the other half", confidenceOf(s)),
		"it can refute a claim (a point above y = x), never certify one",
	}
	for _, m := range s.Mechanisms {
		notes = append(notes, fmt.Sprintf("%s: %s pair, %d runs per side", m.label(), relationText(rel[m.label()]), runs[m.label()]))
	}
	return plotting.Caption{
		Line:  fmt.Sprintf("Claimed ε: RDP accountant at δ = %g; audited: Clopper–Pearson lower bound (confidence %g), which can refute a claim (above y = x), never certify one", s.Delta, confidenceOf(s)),
		Notes: notes,
	}
}

func relationText(rel string) string {
	if rel == "" {
		return "no"
	}
	return strings.ReplaceAll(rel, "_", "-")
}
