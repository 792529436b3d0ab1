package report

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/plotting"
)

// iterationsTable tabulates a trace per iteration: one table per panel of
// the iterations figure with the same keys (per dataset, or per value of
// panel_by), rows iterations t, columns the lines' labels, entries the mean
// ± 95% CI half-width over trials; with rows = "panels", one table at one
// iteration whose rows are the panels.
type iterationsTable struct {
	Trace      string    `toml:"trace"`      // required
	At         iterAt    `toml:"at"`         // iterations to show: [0, 10, 20, 40], "last", or both ([0, 20, "last"]); default every iteration
	Rows       string    `toml:"rows"`       // "t" (default: a table per panel, a row per iteration) or "panels" (one table, a row per panel, at one iteration)
	PanelBy    string    `toml:"panel_by"`   // as the figure's
	Datasets   []string  `toml:"datasets"`   // labels; default all
	Mechanisms []string  `toml:"mechanisms"` // labels; default all
	Epsilon    []float64 `toml:"epsilon"`    // ε of the private cells to show; default all
	Title      string    `toml:"title"`      // table title; default none
	Formats    []string  `toml:"formats"`    // default ["md", "tex", "csv"]
	Note       string    `toml:"note"`       // added to the caption file

	// PanelTitles titles the tables by their panel_by value, as the
	// figure's; the files keep the names of "<panel_by> = <value>".
	PanelTitles map[string]string `toml:"panel_titles"`

	name string
	sel  iterSpec
}

// iterAt is the at key of an iterations table: iterations t ≥ 0 and "last"
// (the last iteration of the longest line of the table).
type iterAt struct {
	ts   []int
	last bool
	set  bool
}

// UnmarshalTOML implements toml.Unmarshaler: an integer, "last", or a list
// of them.
func (a *iterAt) UnmarshalTOML(raw any) error {
	list, ok := raw.([]any)
	if !ok {
		list = []any{raw}
	}
	if len(list) == 0 {
		return errors.New("empty list: want iterations, e.g. [0, 10, 20, \"last\"]")
	}
	*a = iterAt{set: true}
	for _, x := range list {
		switch x := x.(type) {
		case int64:
			if x < 0 || x > 1<<30 {
				return fmt.Errorf("iteration %d: want t ≥ 0", x)
			}
			if slices.Contains(a.ts, int(x)) {
				return fmt.Errorf("iteration %d appears twice", x)
			}
			a.ts = append(a.ts, int(x))
		case string:
			if x != "last" || a.last {
				return fmt.Errorf("%q: want integers t ≥ 0 and \"last\" once", x)
			}
			a.last = true
		default:
			return fmt.Errorf("%v (%T): want integers t ≥ 0 and \"last\"", x, x)
		}
	}
	return nil
}

func init() {
	RegisterTable("iterations", Kind[Table]{
		Params:  iterationsTable{},
		Example: "trace = \"excess_objective\"\nat = [0, 2, \"last\"]\npanel_by = \"split\"",
		Decode: func(b *Block) (Table, error) {
			t := iterationsTable{name: b.Out.Name}
			if err := b.Decode(&t); err != nil {
				return nil, err
			}
			t.sel = iterSpec{Trace: t.Trace, PanelBy: t.PanelBy, PanelTitles: t.PanelTitles, Datasets: t.Datasets, Mechanisms: t.Mechanisms, Epsilon: t.Epsilon}
			if err := checkIterSpec(b, &t.sel); err != nil {
				return nil, err
			}
			var err error
			if t.Formats, err = b.Formats(t.Formats, plotting.TableFormats); err != nil {
				return nil, err
			}
			if t.Rows, err = b.OneOf("rows", t.Rows, "t", "t", "panels"); err != nil {
				return nil, err
			}
			if t.Rows == "panels" && len(t.At.ts)+btoi(t.At.last) != 1 {
				return nil, b.Errorf("at", "a table with rows = \"panels\" shows one iteration: set at = T or at = \"last\"")
			}
			return &t, nil
		}})
}

func (t *iterationsTable) FileFormats() []string { return t.Formats }

// btoi is 1 for true, 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// build implements Table.
func (t *iterationsTable) Build(v *View) []*plotting.Table {
	panels := v.iterPanels(&t.sel)
	if t.Rows == "panels" {
		return []*plotting.Table{t.panelRows(v.view, panels)}
	}
	var names []string
	for _, p := range panels {
		names = append(names, p.stem)
	}
	stems := labelStems(names)
	var out []*plotting.Table
	for _, p := range panels {
		tab := &plotting.Table{Name: t.name, Title: t.Title, RowHeader: "t", Better: plotting.NoBest}
		if tab.Title == "" {
			tab.Title = t.Trace + " per iteration"
		}
		tab.Title += " — " + p.title
		if len(panels) > 1 {
			tab.Name = t.name + "-" + stems[p.stem]
		}
		steps := 0
		for _, l := range p.lines {
			tab.Columns = append(tab.Columns, l.label)
			steps = max(steps, len(l.stats))
		}
		rows := t.At.ts
		if !t.At.set {
			for i := 0; i < steps; i++ {
				rows = append(rows, i)
			}
		}
		if t.At.last && steps > 0 && !slices.Contains(rows, steps-1) {
			rows = append(slices.Clone(rows), steps-1)
		}
		for _, i := range rows {
			tab.Rows = append(tab.Rows, strconv.Itoa(i))
			var row []plotting.Entry
			for _, l := range p.lines {
				var e plotting.Entry
				if i < len(l.stats) {
					st := l.stats[i]
					e = plotting.Entry{Mean: st.Mean, Half: st.CIHalf, Present: st.Count > 0}
				}
				row = append(row, e)
			}
			tab.Cells = append(tab.Cells, row)
		}
		if len(tab.Columns) == 0 {
			// Nothing stored for this panel: one column saying so.
			tab.Columns = []string{p.note}
			for i := range tab.Cells {
				tab.Cells[i] = []plotting.Entry{{}}
			}
		}
		tab.Caption = v.caption("ci", "mean", func(c *plan.Cell) bool {
			return slices.ContainsFunc(p.lines, func(l iterLine) bool { return l.cell == c })
		}, "rows: iteration t (t = 0 is the starting point)",
			fmt.Sprintf("entries: the trace %q, computed from the training data without noise (evaluation only, not released)", t.Trace),
			trialsPerLine([]iterPanel{p}), t.Note)
		out = append(out, tab)
	}
	return out
}

// tracesRead implements traceReader.
func (t *iterationsTable) tracesRead(u traceUses) {
	u.add(t.Trace, traceUse{All: !t.At.set, At: t.At.ts, Last: t.At.last})
}

// panelRows is the table of rows = "panels": a row per panel (its title),
// a column per line label (in order of first appearance), entries the
// trace at the table's one iteration (with at = "last", each line's last).
func (t *iterationsTable) panelRows(v *view, panels []iterPanel) *plotting.Table {
	at := "the last iteration"
	if !t.At.last {
		at = "t = " + strconv.Itoa(t.At.ts[0])
	}
	tab := &plotting.Table{Name: t.name, Title: t.Title, RowHeader: t.PanelBy, Better: plotting.NoBest}
	if tab.Title == "" {
		tab.Title = t.Trace + " at " + at
	}
	if tab.RowHeader == "" {
		tab.RowHeader = "dataset"
	}
	col := map[string]int{}
	for _, p := range panels {
		for _, l := range p.lines {
			if _, ok := col[l.label]; !ok {
				col[l.label] = len(tab.Columns)
				tab.Columns = append(tab.Columns, l.label)
			}
		}
	}
	var notes []string
	for _, p := range panels {
		tab.Rows = append(tab.Rows, p.title)
		row := make([]plotting.Entry, len(tab.Columns))
		for _, l := range p.lines {
			i := len(l.stats) - 1
			if !t.At.last {
				i = t.At.ts[0]
			}
			if i >= 0 && i < len(l.stats) {
				st := l.stats[i]
				row[col[l.label]] = plotting.Entry{Mean: st.Mean, Half: st.CIHalf, Present: st.Count > 0}
			}
		}
		tab.Cells = append(tab.Cells, row)
		if p.note != "" {
			notes = append(notes, p.title+": "+p.note)
		}
	}
	tab.Caption = v.caption("ci", "mean", func(c *plan.Cell) bool {
		return slices.ContainsFunc(panels, func(p iterPanel) bool {
			return slices.ContainsFunc(p.lines, func(l iterLine) bool { return l.cell == c })
		})
	}, append([]string{fmt.Sprintf("rows: panels (%s)", tab.RowHeader),
		fmt.Sprintf("entries: the trace %q at %s, computed from the training data without noise (evaluation only, not released)", t.Trace, at),
		trialsPerLine(panels)}, append(notes, t.Note)...)...)
	return tab
}
