package report

import "github.com/dplab/dplab/plotting"

// curvesFigure draws the spec's analytic [[curve]] blocks, one panel per
// curve panel.
type curvesFigure struct {
	Curves       []string `toml:"curves"`  // curve labels; default all
	Panels       []string `toml:"panels"`  // panels to draw, in order; default all
	LogX         *bool    `toml:"log_x"`   // default false
	LogY         bool     `toml:"log_y"`   // log-scale y axis; default false
	Title        string   `toml:"title"`   // figure title; default none
	XLabel       string   `toml:"x_label"` // x axis label; default none
	YLabel       string   `toml:"y_label"` // y axis label; default none
	Columns      int      `toml:"columns"` // panels per row; 0 means up to 2
	Formats      []string `toml:"formats"` // default ["png", "svg"]
	Note         string   `toml:"note"`    // added to the caption file
	figureLayout          // legend, size, axes, reference lines

	spec figureSpec
}

func init() {
	RegisterFigure("curves", Kind[Figure]{Params: curvesFigure{}, Example: `panels = ["p"]`, Decode: func(b *Block) (Figure, error) {
		var f curvesFigure
		if err := b.Decode(&f); err != nil {
			return nil, err
		}
		if err := checkCurveRefs(b, f.Curves, f.Panels); err != nil {
			return nil, err
		}
		var err error
		if err := f.figureLayout.check(b, f.LogX != nil && *f.LogX, f.LogY); err != nil {
			return nil, err
		}
		if f.Formats, err = b.Formats(f.Formats, plotting.Formats); err != nil {
			return nil, err
		}
		f.spec = figureSpec{Name: b.Out.Name, Kind: "curves", Curves: f.Curves, Panels: f.Panels, LogX: f.LogX,
			Title: f.Title, LogY: f.LogY, XLabel: f.XLabel, YLabel: f.YLabel, Columns: f.Columns,
			Formats: f.Formats, Note: f.Note, Layout: f.figureLayout}
		return &f, nil
	}})
}

func (f *curvesFigure) draw(v *view) *plotting.Figure { return v.curveFigure(&f.spec) }
func (f *curvesFigure) formats() []string             { return f.Formats }
