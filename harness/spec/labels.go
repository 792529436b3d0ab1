package spec

import (
	"maps"
	"slices"
)

// DatasetLabels returns the datasets' labels in spec order.
func (s *Spec) DatasetLabels() []string {
	return labelsOf(s.Datasets, func(d DatasetSpec) string { return d.Label })
}

// CurveLabels returns the [[curve]] blocks' labels in spec order.
func (s *Spec) CurveLabels() []string {
	return labelsOf(s.Curves, func(c CurveSpec) string { return c.Label })
}

// CurvePanels returns the [[curve]] blocks' panels, each once, in spec
// order.
func (s *Spec) CurvePanels() []string {
	var out []string
	for _, c := range s.Curves {
		if !slices.Contains(out, c.Panel) {
			out = append(out, c.Panel)
		}
	}
	return out
}

// MechanismLabels returns the mechanisms' labels in spec order.
func (s *Spec) MechanismLabels() []string {
	return labelsOf(s.Mechanisms, func(m MechanismSpec) string { return m.Label })
}

// labelsOf returns label(x) for each of xs, in order.
func labelsOf[T any](xs []T, label func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = label(x)
	}
	return out
}

// Kept returns the labels that name a dataset or a mechanism of the spec
// (a --quick run drops some).
func (s *Spec) Kept(labels []string) []string {
	var out []string
	for _, l := range labels {
		if s.DatasetIndex(l) >= 0 || s.MechanismIndex(l) >= 0 {
			out = append(out, l)
		}
	}
	return out
}

// DatasetIndex returns the index of the dataset labelled label, or −1.
func (s *Spec) DatasetIndex(label string) int {
	for i, d := range s.Datasets {
		if d.Label == label {
			return i
		}
	}
	return -1
}

// MechanismIndex returns the index of the mechanism labelled label, or −1.
func (s *Spec) MechanismIndex(label string) int {
	for i, m := range s.Mechanisms {
		if m.Label == label {
			return i
		}
	}
	return -1
}

// WithQuick returns a copy of s with the [quick] overrides applied
// (plan.ApplyQuick validates it), marked QuickApplied; s is unchanged. A
// spec without [quick] runs as is (with its full trial count).
func (s *Spec) WithQuick() *Spec {
	c := s.Clone()
	c.QuickApplied = true
	q := c.Quick
	if q == nil {
		return c
	}
	if q.Trials > 0 {
		c.Trials = q.Trials
	}
	if len(q.Epsilon.List) > 0 {
		c.Epsilon = q.Epsilon
	}
	if q.Runs > 0 && c.Audit != nil {
		c.Audit.Runs = min(c.Audit.Runs, q.Runs)
		for i := range c.Mechanisms {
			if c.Mechanisms[i].Runs > 0 {
				c.Mechanisms[i].Runs = min(c.Mechanisms[i].Runs, q.Runs)
			}
		}
	}
	c.QuickDropped = map[string]bool{}
	for _, d := range c.Datasets {
		if len(q.Datasets) > 0 && !slices.Contains(q.Datasets, d.Label) {
			c.QuickDropped[d.Label] = true
		}
	}
	for _, m := range c.Mechanisms {
		if len(q.Mechanisms) > 0 && !slices.Contains(q.Mechanisms, m.Label) {
			c.QuickDropped[m.Label] = true
		}
	}
	if len(q.Datasets) > 0 {
		c.Datasets = slices.DeleteFunc(c.Datasets, func(d DatasetSpec) bool { return !slices.Contains(q.Datasets, d.Label) })
	}
	if len(q.Mechanisms) > 0 {
		c.Mechanisms = slices.DeleteFunc(c.Mechanisms, func(m MechanismSpec) bool { return !slices.Contains(q.Mechanisms, m.Label) })
	}
	for i := range c.Mechanisms {
		if over, ok := q.Params[c.Mechanisms[i].Label]; ok {
			c.Mechanisms[i].Params = c.Mechanisms[i].Params.Merged(over)
		}
	}
	for i := range c.Datasets {
		if over, ok := q.DatasetParams[c.Datasets[i].Label]; ok {
			c.Datasets[i].Params = RawTable(MergeParams(c.Datasets[i].Params, over))
		}
	}
	return c
}

// Clone returns a copy of s that shares nothing a resolution writes (its
// block lists, metrics, warnings, dropped labels and [audit] and [quick]
// tables are its own), so harness/plan resolves a copy and the decoded spec
// stays as decoded. The raw params values (RawTable, ParamTable) and the
// source are shared: nothing writes to them (a [quick] override builds new
// tables).
func (s *Spec) Clone() *Spec {
	c := *s
	c.Metrics = slices.Clone(s.Metrics)
	c.Datasets = slices.Clone(s.Datasets)
	c.Mechanisms = slices.Clone(s.Mechanisms)
	c.Figures = slices.Clone(s.Figures)
	c.Tables = slices.Clone(s.Tables)
	c.Curves = slices.Clone(s.Curves)
	c.Claims = slices.Clone(s.Claims)
	c.Warnings = slices.Clone(s.Warnings)
	c.QuickDropped = maps.Clone(s.QuickDropped)
	if s.Audit != nil {
		a := *s.Audit
		c.Audit = &a
	}
	if s.Quick != nil {
		q := *s.Quick
		c.Quick = &q
	}
	return &c
}

// CurveSpec is one [[curve]] block: a registered function swept over one of
// its parameters.
type CurveSpec struct {
	Name   string     `toml:"name"`  // registry name
	Label  string     `toml:"label"` // legend entry; default the registry title
	Panel  string     `toml:"panel"` // panel title; curves with the same panel share axes
	X      string     `toml:"x"`     // the swept parameter: the x axis
	Params ParamTable `toml:"params"`
	Dashed bool       `toml:"dashed"`
}

// MergeParams returns base with the keys of over replaced (a tuning
// candidate over a mechanism's params).
func MergeParams(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// Tuning modes.
const (
	TuneNone    = "none"
	TuneOracle  = "oracle"
	TunePrivate = "private"
)

// OutputError is a spec error at key of the i-th block ("figure" or
// "table"), naming the file, line and key, for the output kinds of
// harness/report.
func (s *Spec) OutputError(block string, i int, key, format string, args ...any) error {
	return s.ErrIn(block, i, key, format, args...)
}

// DatasetAt returns dataset block i, or the zero block for an index out of
// range: an audit grid's cells have none (plan.Cell.Dataset −1), and their
// dataset label is "".
func (s *Spec) DatasetAt(i int) DatasetSpec {
	if i < 0 || i >= len(s.Datasets) {
		return DatasetSpec{}
	}
	return s.Datasets[i]
}
