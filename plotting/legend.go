package plotting

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// legend is a figure's one legend: an entry per series label and per
// reference line label of all its panels (in order of first appearance),
// laid out in cols columns, filled row by row.
type legend struct {
	entries []legendEntry
	style   text.Style
	cols    int
}

// legendEntry is a legend's entry: the icons of a series (its line and a
// marker) or of a reference line, and its text.
type legendEntry struct {
	text   string
	thumbs []plot.Thumbnailer
}

// legendThumb is the width of an entry's icon, legendSep the space
// between icon and text, legendColGap between two columns, legendRowGap
// between two rows.
const legendThumb, legendSep, legendColGap, legendRowGap = vg.Length(20), vg.Length(4), vg.Length(10), vg.Length(1.5)

// legend returns the figure's legend in its series' styles, nil when no
// panel has a series or reference line with a label.
func (f *Figure) legend(styles map[string]seriesStyle, mt *measuredText) *legend {
	l := &legend{style: textStyle(legendSize), cols: 1}
	mt.use(&l.style)
	seen := map[string]bool{}
	for _, pn := range f.Panels {
		for _, s := range pn.Series {
			if s.Label == "" || seen[s.Label] || len(s.X) == 0 {
				continue
			}
			line, points, err := seriesPlotters(s, styles[s.Label])
			if err != nil || line == nil {
				continue
			}
			seen[s.Label] = true
			e := legendEntry{text: s.Label, thumbs: []plot.Thumbnailer{line}}
			if points != nil {
				e.thumbs = append(e.thumbs, points)
			}
			l.entries = append(l.entries, e)
		}
		for _, r := range pn.References {
			if r.Label == "" || seen[r.Label] {
				continue
			}
			seen[r.Label] = true
			l.entries = append(l.entries, legendEntry{text: r.Label, thumbs: []plot.Thumbnailer{&plotter.Line{LineStyle: referenceStyle(r)}}})
		}
	}
	if len(l.entries) == 0 {
		return nil
	}
	return l
}

// rowHeight is the height of one row of entries.
func (l *legend) rowHeight() vg.Length {
	e := l.style.FontExtents()
	return e.Ascent + e.Descent
}

// colWidths are the widths of the legend's columns (icon, space, text).
func (l *legend) colWidths() []vg.Length {
	w := make([]vg.Length, min(l.cols, len(l.entries)))
	for i, e := range l.entries {
		c := i % len(w)
		w[c] = max(w[c], legendThumb+legendSep+l.style.Width(e.text))
	}
	return w
}

// size is the size of the legend's frame.
func (l *legend) size() vg.Point {
	var w vg.Length
	for i, c := range l.colWidths() {
		if i > 0 {
			w += legendColGap
		}
		w += c
	}
	rows := (len(l.entries) + l.cols - 1) / l.cols
	h := vg.Length(rows)*l.rowHeight() + vg.Length(rows-1)*legendRowGap
	return vg.Point{X: w + 2*legendPad, Y: h + 2*legendPad}
}

// fitColumns is the most columns (at most the number of entries) whose
// legend is at most width wide; 1 when even that one is wider.
func (l *legend) fitColumns(width vg.Length) int {
	best := 1
	for cols := 1; cols <= len(l.entries); cols++ {
		l.cols = cols
		if l.size().X <= width {
			best = cols
		}
	}
	l.cols = best
	return best
}

// draw draws the legend's frame (white, a grey border) and its entries in
// box.
func (l *legend) draw(dc draw.Canvas, box vg.Rectangle) {
	dc.SetColor(color.NRGBA{R: 255, G: 255, B: 255, A: 230})
	dc.Fill(box.Path())
	dc.SetLineStyle(draw.LineStyle{Color: color.Gray{Y: 170}, Width: vg.Points(0.6)})
	dc.Stroke(box.Path())
	widths := l.colWidths()
	rh := l.rowHeight()
	for i, e := range l.entries {
		row, col := i/len(widths), i%len(widths)
		x := box.Min.X + legendPad
		for c := range col {
			x += widths[c] + legendColGap
		}
		top := box.Max.Y - legendPad - vg.Length(row)*(rh+legendRowGap)
		icon := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: x, Y: top - rh}, Max: vg.Point{X: x + legendThumb, Y: top}}}
		for _, t := range e.thumbs {
			t.Thumbnail(&icon)
		}
		dc.FillText(l.style, vg.Point{X: x + legendThumb + legendSep, Y: top - rh}, e.text)
	}
}
