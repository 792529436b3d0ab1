package report

import "github.com/dplab/dplab/plotting"

// curvesFigure draws the spec's analytic [[curve]] blocks, one panel per
// curve panel.
type curvesFigure struct {
	Curves       []string `toml:"curves"` // curve labels; default all
	Panels       []string `toml:"panels"` // panels to draw, in order; default all
	LogX         *bool    `toml:"log_x"`  // default false
	LogY         bool     `toml:"log_y"`
	Title        string   `toml:"title"`
	XLabel       string   `toml:"x_label"`
	YLabel       string   `toml:"y_label"`
	Columns      int      `toml:"columns"`
	Formats      []string `toml:"formats"` // default ["png", "svg"]
	Note         string   `toml:"note"`
	figureLayout          // legend, width, height, dpi

	spec figureSpec
}

func init() {
	RegisterFigure("curves", Kind[Figure]{Example: `panels = ["p"]`, Decode: func(b *Block) (Figure, error) {
		var f curvesFigure
		if err := b.Decode(&f); err != nil {
			return nil, err
		}
		if err := checkCurveRefs(b, f.Curves, f.Panels); err != nil {
			return nil, err
		}
		var err error
		if err := f.figureLayout.check(b); err != nil {
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
