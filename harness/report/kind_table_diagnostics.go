package report

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dplab/dplab/harness/plan"
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

func (t *diagnosticsTable) FileFormats() []string { return t.Formats }

// diagRow is one row of a diagnostics table: a cell and a group ("" for
// the cell's ungrouped keys).
type diagRow struct {
	cell  *plan.Cell
	group string
}

// diagColumn is one printed column of a diagnostics table: a quantity
// (quantities.go) of a requested key, per mechanism. Mechanisms whose
// quantities of the requested keys share a label share the column.
type diagColumn struct {
	label, tex string
	// of maps a mechanism's registry name to the requested key (and its
	// store) and the quantity the column prints for it.
	of map[string]diagSource
	// derived: every quantity of the column is derived (a column no row
	// has is then left out); legend: what the footnote says of it.
	derived bool
	legend  []legendEntry
}

type diagSource struct {
	key   string
	noise bool
	q     quantity
}

// build implements Table.
func (t *diagnosticsTable) Build(v *View) []*plotting.Table {
	s := v.spec
	type request struct {
		key   string
		noise bool
	}
	var reqs []request
	for _, k := range t.Columns {
		reqs = append(reqs, request{k, false})
	}
	for _, k := range t.NoiseColumns {
		reqs = append(reqs, request{k, true})
	}
	keep := func(c *plan.Cell) bool {
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
		// The columns: each requested key's quantities for the mechanisms
		// the table selects, keys in the requested order.
		var cols []*diagColumn
		byLabel := map[string]*diagColumn{}
		for _, r := range reqs {
			// A key no mechanism's quantities know prints under its name.
			known := false
			for mi, m := range s.Mechanisms {
				known = known || v.wantMechanism(t.Mechanisms, mi) && quantitiesOf(m.Name, r.key) != nil
			}
			for mi, m := range s.Mechanisms {
				if !v.wantMechanism(t.Mechanisms, mi) || known && quantitiesOf(m.Name, r.key) == nil {
					continue
				}
				for _, q := range columnsOf(m.Name, r.key) {
					col := byLabel[q.label]
					if col == nil {
						col = &diagColumn{label: q.label, tex: q.tex, of: map[string]diagSource{}, derived: true}
						byLabel[q.label] = col
						cols = append(cols, col)
					}
					if _, ok := col.of[m.Name]; !ok {
						col.of[m.Name] = diagSource{r.key, r.noise, q}
					}
					col.derived = col.derived && q.of != nil
					col.legend = append(col.legend, legendEntry{q: q, key: r.key, mechs: []string{m.Label}})
				}
			}
		}
		tab := &plotting.Table{Name: t.name, Title: title + ": read from the private data without noise (NOT DP) — " + d.Label,
			RowHeader: "mechanism, ε / group", Better: plotting.NoBest, Digits: 6}
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
			for _, r := range reqs {
				m := a.Diagnostics
				if r.noise {
					m = a.Noise
				}
				for k := range m {
					if g, n, ok := cutLast(k); ok && n == r.key {
						groups[g] = true
					} else if k == r.key {
						groups[""] = true
					}
				}
			}
			for _, g := range slices.SortedFunc(maps.Keys(groups), naturalCompare) {
				rows = append(rows, diagRow{c, g})
			}
		}
		for _, r := range rows {
			label := v.legend(r.cell)
			if r.cell.Private {
				label += ", ε = " + strconv.FormatFloat(r.cell.Epsilon, 'g', 4, 64)
			}
			if r.group != "" {
				label += " / " + r.group
			}
			tab.Rows = append(tab.Rows, label)
			mech := s.Mechanisms[r.cell.Mechanism].Name
			var row []plotting.Entry
			for _, col := range cols {
				src, has := col.of[mech]
				var st results.Stat
				ok := false
				if has {
					key := src.key
					if r.group != "" {
						key = r.group + "/" + key
					}
					st, ok = v.quantityStat(r.cell.Key, src.noise, key, src.q)
				}
				row = append(row, plotting.Entry{Mean: st.Mean, Half: st.CIHalf, Present: ok && st.Count > 0})
			}
			tab.Cells = append(tab.Cells, row)
		}
		// Derived columns no row has (the authors' code's units, when no
		// row ran its preset) are left out.
		var legend columnLegend
		for j := len(cols) - 1; j >= 0; j-- {
			if cols[j].derived && !slices.ContainsFunc(tab.Cells, func(row []plotting.Entry) bool { return row[j].Present }) {
				cols = slices.Delete(cols, j, j+1)
				for i := range tab.Cells {
					tab.Cells[i] = slices.Delete(tab.Cells[i], j, j+1)
				}
			}
		}
		for _, col := range cols {
			tab.Columns, tab.TeXColumns = append(tab.Columns, col.label), append(tab.TeXColumns, col.tex)
			for _, e := range col.legend {
				legend.add(e.q, e.key, e.mechs[0])
			}
		}
		extra := []string{"NOT DIFFERENTIALLY PRIVATE: every value of this table is read from the private training data without noise (the records' diagnostics_nonprivate), for diagnosis only, not covered by ε"}
		if len(t.NoiseColumns) > 0 {
			extra = append(extra, strings.Join(t.NoiseColumns, ", ")+": the noise parameters of privacy.noise, which a mechanism may compute from the data")
		}
		extra = append(extra, "a row \"… / g\" holds the keys g/<column> (e.g. a node's)", "mean ± 95% CI half-width over the ok trials", legend.String(), t.Note)
		tab.Caption = v.caption("none", "mean", func(c *plan.Cell) bool { return c.Dataset == di && keep(c) }, extra...)
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
