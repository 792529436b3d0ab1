package report

import "github.com/dplab/dplab/plotting"

// curvesTable tabulates the analytic curves: rows x, columns curve labels,
// one table per panel; with rows = "panels", one table whose rows are the
// (panel, x) pairs (a panel per case of a comparison, e.g. the RGM v1-vs-v2
// counterexamples).
type curvesTable struct {
	Panels []string `toml:"panels"` // panels to tabulate; default all
	Rows   string   `toml:"rows"`   // "x" (default: a table per panel) or "panels" (one table)
	// Formulas adds a table <name>-formulas: per curve, its function, the
	// formula it evaluates and the reference (the curve registry's title
	// and source): the symbolic form of the numbers.
	Formulas bool     `toml:"formulas"`
	Title    string   `toml:"title"`   // table title; the panel is appended; default none
	Formats  []string `toml:"formats"` // default ["md", "tex", "csv"]
	Note     string   `toml:"note"`    // added to the caption file

	spec tableSpec
}

func init() {
	RegisterTable("curves", Kind[Table]{Params: curvesTable{}, Example: `panels = ["p"]`, Decode: func(b *Block) (Table, error) {
		var t curvesTable
		if err := b.Decode(&t); err != nil {
			return nil, err
		}
		if err := b.CheckCurves(nil, t.Panels); err != nil {
			return nil, err
		}
		var err error
		if t.Formats, err = b.Formats(t.Formats, plotting.TableFormats); err != nil {
			return nil, err
		}
		if t.Rows, err = b.OneOf("rows", t.Rows, "x", "x", "panels"); err != nil {
			return nil, err
		}
		t.spec = tableSpec{Name: b.Out.Name, Kind: "curves", Panels: t.Panels, Rows: t.Rows, Title: t.Title, Formats: t.Formats, Note: t.Note}
		return &t, nil
	}})
}

func (t *curvesTable) Build(v *View) []*plotting.Table {
	out := v.curveTables(&t.spec)
	if t.Formulas {
		out = append(out, v.curveFormulas(&t.spec))
	}
	return out
}
func (t *curvesTable) FileFormats() []string { return t.Formats }
