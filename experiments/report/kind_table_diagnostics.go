package report

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dplab/dplab/experiments/spec"
	"github.com/dplab/dplab/plotting"
	"github.com/dplab/dplab/results"
)

// diagnosticsTable tabulates, per dataset, the mean over ok trials of
// chosen non-private diagnostics (results.Record.Diagnostics, what
// mechanisms report as Release.Stats) and noise parameters
// (Privacy.Noise, Release.Noise) of each cell. A key "<group>/<name>" (say
// "node1/eta") is column <name> of the row (cell, group): a mechanism with
// per-node values gets one row per node; keys without a group fill the
// cell's own row. Every value is read from the private data without noise:
// the title and caption say so.
type diagnosticsTable struct {
	Columns      []string  `toml:"columns"`       // diagnostics names (the part after "/"), in order
	NoiseColumns []string  `toml:"noise_columns"` // noise parameter names (the part after "/"), in order, after columns
	Datasets     []string  `toml:"datasets"`      // labels; default all
	Mechanisms   []string  `toml:"mechanisms"`    // labels; default all
	Epsilon      []float64 `toml:"epsilon"`       // ε of the private cells to show; default all
	Title        string    `toml:"title"`         // default "Diagnostics"
	Formats      []string  `toml:"formats"`       // default ["md", "tex", "csv"]
	Note         string    `toml:"note"`          // added to the caption file

	name string
}

func init() {
	RegisterTable("diagnostics", Kind[Table]{
		Params:  diagnosticsTable{},
		Example: "columns = [\"n\", \"eta\"]\nnoise_columns = [\"gamma\"]\nmechanisms = [\"Iter\", \"Iter ref\"]",
		Decode: func(b *Block) (Table, error) {
			t := diagnosticsTable{name: b.Out.Name}
			if err := b.Decode(&t); err != nil {
				return nil, err
			}
			if len(t.Columns)+len(t.NoiseColumns) == 0 {
				return nil, b.Errorf("columns", "a diagnostics table needs columns (diagnostics names, e.g. [\"n\", \"eta\"]) or noise_columns (noise parameters, e.g. [\"gamma\"])")
			}
			seen := map[string]string{}
			for _, k := range []struct {
				key   string
				names []string
			}{{"columns", t.Columns}, {"noise_columns", t.NoiseColumns}} {
				for _, name := range k.names {
					if name == "" || strings.Contains(name, "/") {
						return nil, b.Errorf(k.key, "column %q: want a name without its group (\"eta\" shows node1/eta, node2/eta, … as rows)", name)
					}
					if prev, dup := seen[name]; dup {
						return nil, b.Errorf(k.key, "column %q is already in %s", name, prev)
					}
					seen[name] = k.key
				}
			}
			var err error
			if t.Formats, err = b.Formats(t.Formats, plotting.TableFormats); err != nil {
				return nil, err
			}
			if t.Datasets, t.Mechanisms, err = b.Labels(t.Datasets, t.Mechanisms); err != nil {
				return nil, err
			}
			return &t, nil
		}})
}

func (t *diagnosticsTable) formats() []string { return t.Formats }

// diagRow is one row of a diagnostics table: a cell and a group ("" for
// the cell's ungrouped keys).
type diagRow struct {
	cell  *spec.Cell
	group string
}

// build implements Table.
func (t *diagnosticsTable) build(v *view) []*plotting.Table {
	s := v.spec
	cols := append(slices.Clone(t.Columns), t.NoiseColumns...)
	// value returns the Stat of column j in a cell's group.
	value := func(a *results.CellSummary, group string, j int) (results.Stat, bool) {
		key := cols[j]
		if group != "" {
			key = group + "/" + key
		}
		if j < len(t.Columns) {
			st, ok := a.Diagnostics[key]
			return st, ok
		}
		st, ok := a.Noise[key]
		return st, ok
	}
	keep := func(c *spec.Cell) bool {
		if !v.wantDataset(t.Datasets, c.Dataset) || !v.wantMechanism(t.Mechanisms, c.Mechanism) {
			return false
		}
		if c.Private && len(t.Epsilon) > 0 && !slices.ContainsFunc(t.Epsilon, func(e float64) bool { return math.Abs(e-c.Epsilon) <= 1e-9*e }) {
			return false
		}
		_, ok := v.agg[c.Key]
		return ok
	}
	title := t.Title
	if title == "" {
		title = "Diagnostics"
	}
	var out []*plotting.Table
	for di, d := range s.Datasets {
		if !v.wantDataset(t.Datasets, di) {
			continue
		}
		tab := &plotting.Table{Name: t.name, Title: title + ": read from the private data without noise (NOT DP) — " + d.Label,
			RowHeader: "mechanism, ε / group", Columns: cols, Better: plotting.NoBest, Digits: 6}
		if len(s.Datasets) > 1 {
			tab.Name = t.name + "-" + v.datasetStem(d.Label)
		}
		var rows []diagRow
		for ci := range v.cells {
			c := &v.cells[ci]
			if c.Dataset != di || !keep(c) {
				continue
			}
			a := v.agg[c.Key]
			groups := map[string]bool{}
			for j, name := range cols {
				m := a.Diagnostics
				if j >= len(t.Columns) {
					m = a.Noise
				}
				for k := range m {
					if g, n, ok := cutLast(k); ok && n == name {
						groups[g] = true
					} else if k == name {
						groups[""] = true
					}
				}
			}
			for _, g := range slices.SortedFunc(maps.Keys(groups), naturalCompare) {
				rows = append(rows, diagRow{c, g})
			}
		}
		for _, r := range rows {
			a := v.agg[r.cell.Key]
			label := v.legend(r.cell)
			if r.cell.Private {
				label += ", ε = " + strconv.FormatFloat(r.cell.Epsilon, 'g', 4, 64)
			}
			if r.group != "" {
				label += " / " + r.group
			}
			tab.Rows = append(tab.Rows, label)
			var row []plotting.Entry
			for j := range cols {
				st, ok := value(&a, r.group, j)
				row = append(row, plotting.Entry{Mean: st.Mean, Half: st.CIHalf, Present: ok && st.Count > 0})
			}
			tab.Cells = append(tab.Cells, row)
		}
		extra := []string{"NOT DIFFERENTIALLY PRIVATE: every value of this table is read from the private training data without noise (the records' diagnostics_nonprivate), for diagnosis only, not covered by ε"}
		if len(t.NoiseColumns) > 0 {
			extra = append(extra, strings.Join(t.NoiseColumns, ", ")+": the noise parameters of privacy.noise, which a mechanism may compute from the data")
		}
		extra = append(extra, "a row \"… / g\" holds the keys g/<column> (e.g. a node's)", "mean ± 95% CI half-width over the ok trials", t.Note)
		tab.Caption = v.caption("none", "mean", func(c *spec.Cell) bool { return c.Dataset == di && keep(c) }, extra...)
		tab.Caption.Line = "NOT DIFFERENTIALLY PRIVATE (read from the training data without noise); " + tab.Caption.Line
		out = append(out, tab)
	}
	return out
}

// cutLast splits a key "group/name" at its last "/".
func cutLast(key string) (group, name string, ok bool) {
	i := strings.LastIndexByte(key, '/')
	if i < 0 {
		return "", key, false
	}
	return key[:i], key[i+1:], true
}

// naturalCompare orders strings with their digit runs compared as numbers,
// so "node2" comes before "node10"; "" (a cell's own row) comes first.
// Strings equal as numbers ("node01", "node1") are ordered bytewise.
func naturalCompare(a, b string) int {
	if c := naturalCompareRuns(a, b); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func naturalCompareRuns(a, b string) int {
	for a != "" && b != "" {
		da, db := digitPrefix(a), digitPrefix(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := len(na) - len(nb); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

// digitPrefix is the length of s's leading run of ASCII digits.
func digitPrefix(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}
