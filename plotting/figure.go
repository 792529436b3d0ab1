package plotting

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/dplab/dplab/internal/fileutil"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure is one figure file: a grid of panels sharing axis labels and scales.
type Figure struct {
	Name           string // file stem: <Name>.png, <Name>.svg
	Title          string // drawn above the panels; may be empty
	XLabel, YLabel string
	LogX, LogY     bool
	Panels         []Panel
	Columns        int    // panels per row; 0 means up to 2
	Note           string // footnote: accountant, δ, tuning mode, deviations
	// Width and Height are the whole figure's size (panels, title and
	// footnote). 0 means DefaultPanelWidth per column, and
	// DefaultPanelHeight per row plus the title and the footnote. Text and
	// lines keep their sizes in points, as a paper's figure does.
	Width, Height vg.Length
	// DPI is the PNG resolution in pixels per inch; 0 means DefaultDPI.
	// (An SVG is sized in points and does not depend on it.)
	DPI float64
	// Legend places each panel's legend: "" or LegendAuto (the default:
	// inside the axes where it covers no data point, else outside them),
	// one of the corners ("top-right", "top-left", "bottom-right",
	// "bottom-left", kept even where it covers data), or LegendOutside.
	Legend string
}

// The figure size defaults and limits (Figure.Width, Height and DPI).
const (
	// DefaultPanelWidth and DefaultPanelHeight are one panel's size when
	// the figure's size is not set.
	DefaultPanelWidth  = 4.2 * vg.Inch
	DefaultPanelHeight = 3.2 * vg.Inch
	// DefaultDPI is the PNG resolution: a 4.2 in panel is 924 px wide
	// (twice the 462 px of 110 dpi, which was too small on a laptop).
	DefaultDPI = 220
	// MinSize and MaxSize bound Width and Height; MinDPI and MaxDPI bound
	// DPI; MaxPixels bounds each side of a PNG.
	MinSize   = 1 * vg.Inch
	MaxSize   = 40 * vg.Inch
	MinDPI    = 50
	MaxDPI    = 600
	MaxPixels = 12000
	// minPanelSide is the smallest panel a Width or Height may leave.
	minPanelSide = 1.2 * vg.Inch
)

// The legend placements of Figure.Legend besides the four corners.
const (
	LegendAuto    = "auto"
	LegendOutside = "outside"
)

// LegendPlaces are the accepted values of Figure.Legend ("" is LegendAuto).
var LegendPlaces = []string{LegendAuto, "top-right", "top-left", "bottom-right", "bottom-left", LegendOutside}

// CheckSize checks a figure size: width and height in inches (0: the
// default), dpi in pixels per inch (0: the default). The error names the
// value at fault and the accepted range.
func CheckSize(width, height, dpi float64) error {
	inches := func(name string, v float64) error {
		if v != 0 && !(v >= inches(MinSize) && v <= inches(MaxSize)) {
			return fmt.Errorf("%s = %v: want inches in [%g, %g] (or 0 for the default)", name, v, inches(MinSize), inches(MaxSize))
		}
		return nil
	}
	if err := inches("width", width); err != nil {
		return err
	}
	if err := inches("height", height); err != nil {
		return err
	}
	if dpi != 0 && !(dpi >= MinDPI && dpi <= MaxDPI) {
		return fmt.Errorf("dpi = %v: want pixels per inch in [%d, %d] (or 0 for the default %d)", dpi, MinDPI, MaxDPI, DefaultDPI)
	}
	d := dpi
	if d == 0 {
		d = DefaultDPI
	}
	for _, side := range []struct {
		name string
		v    float64
	}{{"width", width}, {"height", height}} {
		if px := side.v * d; px > MaxPixels {
			return fmt.Errorf("%s = %v in at %v dpi is %.0f px: want at most %d px (lower dpi or %s)", side.name, side.v, d, px, MaxPixels, side.name)
		}
	}
	return nil
}

// Panel is one set of axes.
type Panel struct {
	Title      string
	Note       string // a second title line (e.g. "skipped: files absent")
	Series     []Series
	References []Reference
}

// Series is one curve with an optional band around it.
type Series struct {
	Label  string
	X, Y   []float64
	Lo, Hi []float64 // band bounds; both nil for no band
	Style  int       // colour/marker index; keep it fixed per method across panels
	Dashed bool
	// MarkEvery > 1 draws a marker at every MarkEvery-th point only (the
	// first included), for dense series such as per-iteration curves; 0 or
	// 1 marks every point.
	MarkEvery int
}

// Reference is a horizontal dashed line, e.g. a non-private baseline.
type Reference struct {
	Label string
	Y     float64
	Style int
}

// Formats are the figure formats Write accepts.
var Formats = []string{"png", "svg"}

// Validate checks the figure's data: lengths match, values on log axes are
// positive, formats are known.
func (f *Figure) Validate() error {
	if f.Name == "" {
		return errors.New("plotting: figure without a name")
	}
	if err := checkStem(f.Name); err != nil {
		return fmt.Errorf("plotting: figure %q: %w", f.Name, err)
	}
	if len(f.Panels) == 0 {
		return fmt.Errorf("plotting: figure %q has no panels", f.Name)
	}
	if err := CheckSize(inches(f.Width), inches(f.Height), f.DPI); err != nil {
		return fmt.Errorf("plotting: figure %q: %w", f.Name, err)
	}
	if f.Legend != "" && !slices.Contains(LegendPlaces, f.Legend) {
		return fmt.Errorf("plotting: figure %q: legend %q: want one of %s", f.Name, f.Legend, strings.Join(LegendPlaces, ", "))
	}
	for _, p := range f.Panels {
		for _, s := range p.Series {
			if len(s.Y) != len(s.X) || (s.Lo != nil || s.Hi != nil) && (len(s.Lo) != len(s.X) || len(s.Hi) != len(s.X)) {
				return fmt.Errorf("plotting: figure %q, panel %q, series %q: x, y and band lengths differ", f.Name, p.Title, s.Label)
			}
			for i, x := range s.X {
				if f.LogX && !(x > 0) {
					return fmt.Errorf("plotting: figure %q, panel %q, series %q: x = %v on a log axis", f.Name, p.Title, s.Label, x)
				}
				if f.LogY && s.Y[i] <= 0 {
					return fmt.Errorf("plotting: figure %q, panel %q, series %q: y = %v on a log axis", f.Name, p.Title, s.Label, s.Y[i])
				}
			}
		}
		for _, r := range p.References {
			if f.LogY && !(r.Y > 0) {
				return fmt.Errorf("plotting: figure %q, panel %q, reference %q: y = %v on a log axis", f.Name, p.Title, r.Label, r.Y)
			}
		}
	}
	return nil
}

// Write renders f into dir as <Name>.<format> for each format and returns the
// paths written, in the order of formats, up to the first format that
// failed, and that failure. The formats are rendered and their files
// written (atomically) concurrently. Neither dir nor a file is written
// through a symbolic link (fileutil.ReplaceFileInFolder).
func Write(f *Figure, dir string, formats ...string) ([]string, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	errs := make([]error, len(formats))
	write := func(i int) {
		b, err := Render(f, formats[i])
		if err == nil {
			err = fileutil.ReplaceFileInFolder(dir, f.Name+"."+formats[i], b)
		}
		errs[i] = err
	}
	// The formats are written concurrently, the PNG (by far the longest:
	// rasterising and deflating) on this goroutine, so that it starts at
	// once rather than after a format the scheduler happened to run first.
	first := max(0, slices.Index(formats, "png"))
	var wg sync.WaitGroup
	for i := range formats {
		if i != first {
			wg.Go(func() { write(i) })
		}
	}
	if len(formats) > 0 {
		write(first)
	}
	wg.Wait()
	var paths []string
	for i, format := range formats {
		if errs[i] != nil {
			return paths, errs[i]
		}
		paths = append(paths, filepath.Join(dir, f.Name+"."+format))
	}
	return paths, nil
}

// Render draws f in the given format ("png" or "svg") and returns the bytes.
func Render(f *Figure, format string) (out []byte, err error) { return render(f, format, false) }

// render is Render; with reference set it draws a PNG the plain way — every
// panel's white background, and the footnote last on the canvas itself —
// where Render leaves out the fills that change no pixel
// (pngCanvas.whiteUnder) and draws the footnote apart (textStrip), for
// the tests that hold the two to the same bytes (TestPNGSkipsOnlyBlankFills,
// TestFootnoteStripMatchesCanvas).
func render(f *Figure, format string, reference bool) (out []byte, err error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	if format != "png" && format != "svg" {
		return nil, fmt.Errorf("plotting: unknown figure format %q (want png or svg)", format)
	}
	defer func() {
		// gonum/plot panics on some degenerate inputs (e.g. an empty log
		// range); report them as errors.
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("plotting: figure %q: %v", f.Name, r)
		}
	}()
	lay, err := f.layout()
	if err != nil {
		return nil, err
	}
	var canvas vg.CanvasSizer
	if format == "png" {
		canvas = newPNGCanvas(lay.w, lay.h, lay.dpi)
	} else {
		canvas = vgsvg.New(lay.w, lay.h)
	}
	dc := draw.New(canvas)
	if format != "png" {
		// A PNG canvas starts white; an SVG is transparent until filled.
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
	}
	png, _ := canvas.(*pngCanvas)
	// A PNG's footnote (its longest text) is drawn on rows of its own on
	// another goroutine meanwhile (textStrip), and pasted at the end if
	// nothing else drew there.
	var strip *textStrip
	stripDone := make(chan struct{})
	if png != nil && f.Note != "" && !reference {
		strip = noteStrip(png, lay)
		go func() {
			defer close(stripDone)
			defer func() {
				if recover() != nil {
					strip.ok = false // render draws the footnote itself, and reports the panic then
				}
			}()
			sty := lay.noteStyle
			if m, ok := sty.Handler.(*measuredText); ok {
				sty.Handler = m.Plain // measuredText is not for concurrent use; its answers are Plain's
			}
			(&draw.Canvas{Canvas: strip}).FillText(sty, notePoint, lay.note)
		}()
	} else {
		close(stripDone)
	}
	for _, pl := range lay.panels {
		c := draw.Canvas{Canvas: dc.Canvas, Rectangle: pl.tile}
		if png != nil && !reference && opaqueWhite(pl.plot.BackgroundColor) && png.whiteUnder(pl.tile) {
			pl.plot.BackgroundColor = nil // a no-op fill on a PNG
		}
		pl.plot.Draw(c)
		if f.YLabel != "" && pl.axes {
			dataC := pl.plot.DataCanvas(c)
			x := pl.tile.Min.X - lay.yLabelW + lay.yLabel.Height(f.YLabel)
			dc.FillText(lay.yLabel, vg.Point{X: x, Y: (dataC.Min.Y + dataC.Max.Y) / 2}, f.YLabel)
		}
		if pl.legend != nil {
			drawLegend(dc, pl.legend, pl.box)
		}
	}
	if f.Title != "" {
		lay.titleStyle.XAlign = draw.XCenter
		dc.FillText(lay.titleStyle, vg.Point{X: lay.w / 2, Y: lay.h - lay.titleH + 4}, lay.title)
	}
	if f.Note != "" {
		<-stripDone
		if strip == nil || !png.pasteStrip(strip) {
			dc.FillText(lay.noteStyle, notePoint, lay.note)
		}
	}
	var buf bytes.Buffer
	if err := writeCanvas(&buf, canvas); err != nil {
		return nil, fmt.Errorf("plotting: figure %q: %w", f.Name, err)
	}
	return buf.Bytes(), nil
}

// notePoint is where a figure's footnote is drawn: its bottom left corner,
// in points from the figure's.
var notePoint = vg.Point{X: 6, Y: 4}

// noteStrip returns a textStrip for the footnote of a figure drawn on c
// with layout lay: the rows of the footnote's band (lay.noteH at the
// bottom), with two to spare above.
func noteStrip(c *pngCanvas, lay *figLayout) *textStrip {
	b := c.img.Bounds()
	y0 := max(b.Min.Y, int(math.Floor((lay.h-lay.noteH).Dots(float64(lay.dpi))))-2)
	return newTextStrip(b.Dx(), y0, b.Max.Y, lay.h, lay.dpi)
}

// opaqueWhite reports whether c is opaque white (every channel 0xffff).
func opaqueWhite(c color.Color) bool {
	if c == nil {
		return false
	}
	r, g, b, a := c.RGBA()
	return r&g&b&a == 0xffff
}

// figLayout is where everything of a figure goes, in points from the
// bottom left corner.
type figLayout struct {
	w, h                  vg.Length
	dpi                   int
	note                  string // the footnote, wrapped
	noteStyle, titleStyle text.Style
	noteH, titleH         vg.Length
	title                 string // the title, wrapped
	// yLabel is the y axis title, drawn by Render left of each panel's
	// tile (gonum/plot pads a log y axis as if its centred title were
	// at the arithmetic mean of the range, leaving a gap above the axes);
	// yLabelW is the strip it takes.
	yLabel  text.Style
	yLabelW vg.Length
	panels  []panelLayout
}

// panelLayout is one panel's plot, its tile and its legend.
type panelLayout struct {
	panel  *Panel
	plot   *plot.Plot
	axes   bool // drawn with axes (not an empty, skipped panel)
	tile   vg.Rectangle
	legend *legend      // nil: nothing to list
	box    vg.Rectangle // the legend's frame
}

// Text sizes in points and the legend's geometry.
const (
	titleSize, noteSize, legendSize = 13, 8, 8
	// legendInset is the gap between the axes and a legend inside them,
	// legendPad the frame's padding around the entries, legendGap the gap
	// between the axes and a legend outside them.
	legendInset, legendPad, legendGap = vg.Length(3), vg.Length(3), vg.Length(6)
	// maxLegendShare is the largest part of the axes' area a legend inside
	// them may cover (a larger one hides the bands under it).
	maxLegendShare = 0.25
	// markerRadius is a series marker's radius.
	markerRadius = vg.Length(2.6)
)

// layout places the panels, titles, footnote and legends of a valid figure.
func (f *Figure) layout() (*figLayout, error) { return f.layoutWith(0, 0, false, newMeasuredText()) }

// layoutWith lays the figure out with extraW more width per column and
// extraH more height per row than the default size (for legends outside
// the axes when the figure's size is not set), and with the legends
// outside the axes if outside; mt measures the texts of the figure's
// styles and plots, for the layout and the drawing.
func (f *Figure) layoutWith(extraW, extraH vg.Length, outside bool, mt *measuredText) (*figLayout, error) {
	cols := f.Columns
	if cols <= 0 {
		cols = min(len(f.Panels), 2)
	}
	rows := (len(f.Panels) + cols - 1) / cols
	lay := &figLayout{w: f.Width, h: f.Height, dpi: DefaultDPI, noteStyle: textStyle(noteSize), titleStyle: textStyle(titleSize)}
	mt.use(&lay.noteStyle, &lay.titleStyle)
	if f.DPI != 0 {
		lay.dpi = int(math.Round(f.DPI))
	}
	if lay.w == 0 {
		lay.w = (DefaultPanelWidth + extraW) * vg.Length(cols)
	}
	lay.note = wrap(f.Note, lay.noteStyle, lay.w-12)
	if f.Note != "" {
		lay.noteH = lay.noteStyle.Height(lay.note) + 8
	}
	lay.title = wrap(f.Title, lay.titleStyle, lay.w-12)
	if f.Title != "" {
		lay.titleH = lay.titleStyle.Height(lay.title) + 8
	}
	if lay.h == 0 {
		lay.h = (DefaultPanelHeight+extraH)*vg.Length(rows) + lay.noteH + lay.titleH
	}
	if ph := (lay.h - lay.noteH - lay.titleH) / vg.Length(rows); ph < minPanelSide {
		return nil, fmt.Errorf("plotting: figure %q: height %.3g in leaves %.2g in per row of panels after the title and footnote: want at least %.2g in",
			f.Name, inches(lay.h), inches(ph), inches(minPanelSide))
	}
	if pw := lay.w / vg.Length(cols); pw < minPanelSide {
		return nil, fmt.Errorf("plotting: figure %q: width %.3g in leaves %.2g in per panel: want at least %.2g in", f.Name, inches(lay.w), inches(pw), inches(minPanelSide))
	}
	if f.YLabel != "" {
		lay.yLabel = plot.New().Y.Label.TextStyle
		mt.use(&lay.yLabel)
		lay.yLabel.Rotation += math.Pi / 2
		lay.yLabelW = lay.yLabel.FontExtents().Descent + lay.yLabel.Height(f.YLabel) + vg.Points(5)
	}
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
	}
	lay.panels = make([]panelLayout, len(f.Panels))
	for i := range f.Panels {
		p, leg, err := f.panel(&f.Panels[i], lay.w/vg.Length(cols)-lay.yLabelW-20, mt)
		if err != nil {
			return nil, err
		}
		grid[i/cols][i%cols] = p
		lay.panels[i] = panelLayout{panel: &f.Panels[i], plot: p, legend: leg, axes: p.Y.Width > 0}
	}
	area := draw.Canvas{Rectangle: vg.Rectangle{Min: vg.Point{Y: lay.noteH}, Max: vg.Point{X: lay.w, Y: lay.h - lay.titleH}}}
	align := func(right, below vg.Length) {
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadTop: 4, PadBottom: 4 + below, PadLeft: 4 + lay.yLabelW, PadRight: 8 + right,
			PadX: 8 + right + lay.yLabelW, PadY: 8 + below}
		canvases := plot.Align(grid, tiles, area)
		for i := range lay.panels {
			lay.panels[i].tile = canvases[i/cols][i%cols].Rectangle
		}
	}
	align(0, 0)
	place := f.Legend
	if place == "" {
		place = LegendAuto
	}
	if outside {
		place = LegendOutside
	}
	if place == LegendAuto {
		for i := range lay.panels {
			if !lay.panels[i].placeInside() {
				place = LegendOutside
				break
			}
		}
	}
	switch place {
	case LegendAuto:
		// placed
	case LegendOutside:
		// To the right of the axes when the widest legend takes at most a
		// third of a panel's width, else below them (long labels).
		var legW, legH vg.Length
		for _, pl := range lay.panels {
			if pl.legend != nil {
				sz := pl.legend.size()
				legW, legH = max(legW, sz.X), max(legH, sz.Y)
			}
		}
		right := legW <= lay.w/vg.Length(cols)/3
		switch {
		case right && f.Width == 0 && extraW == 0:
			// A figure of the default size grows by the legend instead of
			// squeezing its panels.
			return f.layoutWith(legW+legendGap, 0, true, mt)
		case !right && f.Height == 0 && extraH == 0:
			return f.layoutWith(0, legH+legendGap, true, mt)
		}
		if right {
			align(legW+legendGap, 0)
		} else {
			align(0, legH+legendGap)
		}
		for i := range lay.panels {
			pl := &lay.panels[i]
			if pl.legend == nil {
				continue
			}
			sz := pl.legend.size()
			if right {
				top := pl.plot.DataCanvas(draw.Canvas{Rectangle: pl.tile}).Max.Y
				pl.box = vg.Rectangle{Min: vg.Point{X: pl.tile.Max.X + legendGap, Y: top - sz.Y}, Max: vg.Point{X: pl.tile.Max.X + legendGap + sz.X, Y: top}}
			} else {
				left := pl.plot.DataCanvas(draw.Canvas{Rectangle: pl.tile}).Min.X
				pl.box = vg.Rectangle{Min: vg.Point{X: left, Y: pl.tile.Min.Y - legendGap - sz.Y}, Max: vg.Point{X: left + sz.X, Y: pl.tile.Min.Y - legendGap}}
			}
		}
	default:
		for i := range lay.panels {
			pl := &lay.panels[i]
			if pl.legend != nil {
				pl.box = pl.corner(place)
			}
		}
	}
	return lay, nil
}

// legend is a panel's legend: gonum's, drawn where layout places it, and
// its entries' texts (which gonum keeps to itself).
type legend struct {
	plot.Legend
	texts []string
}

func newLegend() *legend {
	l := &legend{Legend: plot.NewLegend()}
	l.TextStyle.Font.Size = legendSize
	l.Top, l.Left = true, true
	l.Padding = vg.Points(1.5)
	return l
}

func (l *legend) add(text string, thumbs ...plot.Thumbnailer) {
	l.Add(text, thumbs...)
	l.texts = append(l.texts, text)
}

// size is the size of the legend's frame: the entries as gonum's
// Legend.Draw lays them out (the icon, a space, the text; entries one text
// height apart plus the padding, the font's descent below the last), and
// the frame's padding around them.
func (l *legend) size() vg.Point {
	sty := l.TextStyle
	var w, enth vg.Length
	for _, e := range l.texts {
		w = max(w, l.ThumbnailWidth+sty.Rectangle(" "+e).Max.X)
		enth = max(enth, sty.Rectangle(e).Max.Y)
	}
	n := vg.Length(len(l.texts))
	h := n*enth + (n-1)*l.Padding + sty.FontExtents().Descent
	return vg.Point{X: w + 2*legendPad, Y: h + 2*legendPad}
}

// drawLegend draws l's frame (white, a grey border) and its entries in box.
func drawLegend(dc draw.Canvas, l *legend, box vg.Rectangle) {
	dc.SetColor(color.NRGBA{R: 255, G: 255, B: 255, A: 230})
	dc.Fill(box.Path())
	dc.SetLineStyle(draw.LineStyle{Color: color.Gray{Y: 170}, Width: vg.Points(0.6)})
	dc.Stroke(box.Path())
	inner := vg.Rectangle{Min: vg.Point{X: box.Min.X + legendPad, Y: box.Min.Y + legendPad}, Max: vg.Point{X: box.Max.X - legendPad, Y: box.Max.Y - legendPad}}
	l.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: inner})
}

// legendCandidates are the places tried for a legend inside the axes, in
// order of preference.
var legendCandidates = []string{"top-right", "top-left", "bottom-right", "bottom-left", "top-center", "bottom-center", "center-right", "center-left"}

// corner returns the legend's frame at a place inside the panel's axes
// ("top-right", …, "center-left").
func (pl *panelLayout) corner(place string) vg.Rectangle {
	return cornerBox(pl.plot.DataCanvas(draw.Canvas{Rectangle: pl.tile}), pl.legend.size(), place)
}

// cornerBox returns the frame of a legend of size sz at a place inside the
// axes dataC. placeInside tries every place on one dataC and sz: the data
// canvas measures every tick label and the size every entry.
func cornerBox(dataC draw.Canvas, sz vg.Point, place string) vg.Rectangle {
	vert, horiz, _ := strings.Cut(place, "-")
	var x, y vg.Length // bottom left corner
	switch horiz {
	case "left":
		x = dataC.Min.X + legendInset
	case "right":
		x = dataC.Max.X - legendInset - sz.X
	default:
		x = (dataC.Min.X + dataC.Max.X - sz.X) / 2
	}
	switch vert {
	case "bottom":
		y = dataC.Min.Y + legendInset
	case "top":
		y = dataC.Max.Y - legendInset - sz.Y
	default:
		y = (dataC.Min.Y + dataC.Max.Y - sz.Y) / 2
	}
	return vg.Rectangle{Min: vg.Point{X: x, Y: y}, Max: vg.Point{X: x + sz.X, Y: y + sz.Y}}
}

// placeInside puts the panel's legend at the first of legendCandidates
// that fits in the axes (in at most maxLegendShare of their area) and covers no data point (a marker, with its
// radius, or a band vertex), preferring among those the place crossing
// the fewest lines; it reports false when there is no such place.
func (pl *panelLayout) placeInside() bool {
	if pl.legend == nil {
		return true
	}
	dataC := pl.plot.DataCanvas(draw.Canvas{Rectangle: pl.tile})
	sz := pl.legend.size()
	if sz.X > dataC.Size().X-2*legendInset || sz.Y > dataC.Size().Y-2*legendInset || sz.X*sz.Y > maxLegendShare*dataC.Size().X*dataC.Size().Y {
		return false
	}
	pts, lines := pl.canvasPoints(dataC)
	best, bestHits := -1, 0
	for i, place := range legendCandidates {
		box := cornerBox(dataC, sz, place)
		covers := false
		for _, p := range pts {
			r := p.r + 1
			if p.X >= box.Min.X-r && p.X <= box.Max.X+r && p.Y >= box.Min.Y-r && p.Y <= box.Max.Y+r {
				covers = true
				break
			}
		}
		if covers {
			continue
		}
		hits := 0
		for _, p := range lines {
			if inRect(p, box) {
				hits++
			}
		}
		if best < 0 || hits < bestHits {
			best, bestHits = i, hits
		}
	}
	if best < 0 {
		return false
	}
	pl.box = cornerBox(dataC, sz, legendCandidates[best])
	return true
}

func inRect(p vg.Point, r vg.Rectangle) bool {
	return p.X >= r.Min.X && p.X <= r.Max.X && p.Y >= r.Min.Y && p.Y <= r.Max.Y
}

// canvasPoint is a data point on the canvas: a marker (r its radius) or a
// band vertex (r = 0), and what it is.
type canvasPoint struct {
	vg.Point
	r    vg.Length
	what string
}

// canvasPoints returns the panel's data points on dataC (markers and band
// vertices, the points a legend must not cover) and points sampled along
// its lines and reference lines (which it should avoid).
func (pl *panelLayout) canvasPoints(dataC draw.Canvas) (pts []canvasPoint, lines []vg.Point) {
	p := pl.plot
	tx, ty := p.Transforms(&dataC)
	inX := func(x float64) bool { return x >= p.X.Min && x <= p.X.Max }
	inY := func(y float64) bool { return y >= p.Y.Min && y <= p.Y.Max }
	const samples = 24
	for _, s := range pl.panel.Series {
		var prev *vg.Point
		for i, x := range s.X {
			y := s.Y[i]
			if !isFinite(y) || !inX(x) || !inY(y) {
				prev = nil
				continue
			}
			pt := vg.Point{X: tx(x), Y: ty(y)}
			pts = append(pts, canvasPoint{pt, markerRadius, fmt.Sprintf("%s at (%g, %g)", s.Label, x, y)})
			if prev != nil {
				for k := 1; k < samples; k++ {
					a := vg.Length(k) / samples
					lines = append(lines, vg.Point{X: prev.X + a*(pt.X-prev.X), Y: prev.Y + a*(pt.Y-prev.Y)})
				}
			}
			prev = &pt
		}
		if s.Lo == nil {
			continue
		}
		var floor float64
		if isLog(p.Y.Scale) {
			floor = logFloor(pl.panel)
		}
		for _, v := range bandVertices(s, floor) {
			if inX(v.X) && inY(v.Y) {
				pts = append(pts, canvasPoint{vg.Point{X: tx(v.X), Y: ty(v.Y)}, 0, fmt.Sprintf("%s band vertex (%g, %g)", s.Label, v.X, v.Y)})
			}
		}
	}
	for _, r := range pl.panel.References {
		if !inY(r.Y) {
			continue
		}
		for k := 0; k <= 4*samples; k++ {
			lines = append(lines, vg.Point{X: dataC.Min.X + vg.Length(k)/(4*samples)*dataC.Size().X, Y: ty(r.Y)})
		}
	}
	return pts, lines
}

func isLog(s plot.Normalizer) bool {
	_, ok := s.(plot.LogScale)
	return ok
}

// LegendCovers lays f out as Render does and returns, for each panel whose
// legend box contains a data point (a marker's centre or a band vertex), a
// description of the points it covers; nil when no legend covers data.
func LegendCovers(f *Figure) (covered []string, err error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			covered, err = nil, fmt.Errorf("plotting: figure %q: %v", f.Name, r)
		}
	}()
	lay, err := f.layout()
	if err != nil {
		return nil, err
	}
	for _, pl := range lay.panels {
		if pl.legend == nil {
			continue
		}
		pts, _ := pl.canvasPoints(pl.plot.DataCanvas(draw.Canvas{Rectangle: pl.tile}))
		for _, p := range pts {
			if inRect(p.Point, pl.box) {
				covered = append(covered, fmt.Sprintf("panel %q: legend covers %s", pl.panel.Title, p.what))
			}
		}
	}
	return covered, nil
}

// panel makes one panel's plot and its legend (nil when it lists
// nothing), their texts measured by mt; width is the width its title and
// note are wrapped to.
func (f *Figure) panel(pn *Panel, width vg.Length, mt *measuredText) (*plot.Plot, *legend, error) {
	p := plot.New()
	mt.use(&p.Title.TextStyle, &p.X.Label.TextStyle, &p.X.Tick.Label, &p.Y.Label.TextStyle, &p.Y.Tick.Label, &p.Legend.TextStyle)
	p.Title.Text = pn.Title
	if pn.Note != "" {
		p.Title.Text += "\n" + wrap(pn.Note, p.Title.TextStyle, width-12)
	}
	p.X.Label.Text = f.XLabel // the y label is drawn by Render (figLayout.yLabel)
	if f.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
	}
	if f.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
	}
	p.Add(plotter.NewGrid())
	leg := newLegend()
	mt.use(&leg.TextStyle)
	var floor float64 // 0: a linear y axis
	if f.LogY {
		floor = logFloor(pn)
	}
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, s := range pn.Series {
		for _, x := range s.X {
			xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
		}
	}
	drawn := 0 // series with at least one finite point
	for _, s := range pn.Series {
		if len(s.X) == 0 {
			continue
		}
		col := plotutil.Color(s.Style)
		if s.Lo != nil {
			band, err := bandPolygon(s, col, floor)
			if err != nil {
				return nil, nil, err
			}
			if band != nil {
				p.Add(band)
			}
		}
		pts := make(plotter.XYs, 0, len(s.X))
		for i := range s.X {
			if isFinite(s.Y[i]) {
				pts = append(pts, plotter.XY{X: s.X[i], Y: s.Y[i]})
			}
		}
		if len(pts) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, nil, fmt.Errorf("plotting: series %q: %w", s.Label, err)
		}
		if s.MarkEvery > 1 {
			var marked plotter.XYs
			for i := 0; i < len(pts); i += s.MarkEvery {
				marked = append(marked, pts[i])
			}
			if points, err = plotter.NewScatter(marked); err != nil {
				return nil, nil, fmt.Errorf("plotting: series %q: %w", s.Label, err)
			}
		}
		line.Color = col
		line.Width = vg.Points(1.4)
		if s.Dashed {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		points.Color = col
		points.Shape = plotutil.Shape(s.Style)
		points.Radius = markerRadius
		p.Add(line, points)
		leg.add(s.Label, line, points)
		drawn++
	}
	if !(xmin < xmax) {
		xmin, xmax = 1, 10
		if len(pn.Series) > 0 && len(pn.Series[0].X) > 0 {
			xmin, xmax = pn.Series[0].X[0]/2, pn.Series[0].X[0]*2
		}
		// One x value (e.g. a single ε): widen the axis around it, which a
		// log axis needs (gonum would pad [x, x] to an interval reaching 0).
		p.X.Min, p.X.Max = xmin, xmax
	}
	if drawn == 0 && len(pn.References) == 0 {
		// Nothing to draw (a skipped dataset): hidden axes on a [1, 10]
		// frame (which log axes accept) under the panel's note.
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 1, 10, 1, 10
		p.HideAxes()
		p.X.Label.Text, p.Y.Label.Text = "", ""
		p.Title.Text = wrap(p.Title.Text, p.Title.TextStyle, width-12)
	}
	for _, r := range pn.References {
		line, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: r.Y}, {X: xmax, Y: r.Y}})
		if err != nil {
			return nil, nil, fmt.Errorf("plotting: reference %q: %w", r.Label, err)
		}
		line.Color = color.Black
		if r.Style > 0 {
			line.Color = plotutil.Color(r.Style)
		}
		line.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		line.Width = vg.Points(1.2)
		p.Add(line)
		leg.add(r.Label, line)
	}
	if len(leg.texts) == 0 {
		leg = nil
	}
	return p, leg, nil
}

// logFloor is where a log y axis draws the non-positive lower bounds of
// a panel's bands: half the smallest positive value drawn (a point, a
// band bound or a reference line), so that a band reaching 0 runs to the
// bottom of the axes without stretching them over decades no point needs.
func logFloor(pn *Panel) float64 {
	floor := math.Inf(1)
	low := func(v float64) {
		if v > 0 && isFinite(v) {
			floor = math.Min(floor, v)
		}
	}
	for _, s := range pn.Series {
		for i := range s.Y {
			low(s.Y[i])
			if s.Lo != nil {
				low(s.Lo[i])
			}
		}
	}
	for _, r := range pn.References {
		low(r.Y)
	}
	if math.IsInf(floor, 1) {
		return math.NaN() // nothing positive: such band vertices are skipped
	}
	return floor / 2
}

// bandVertices are the finite (x, lo) and (x, hi) points of s's band; on
// a log y axis (floor ≠ 0) a non-positive bound is drawn at floor (skipped
// when floor is NaN).
func bandVertices(s Series, floor float64) (out []plotter.XY) {
	for i := range s.X {
		lo, hi := s.Lo[i], s.Hi[i]
		if !isFinite(lo) || !isFinite(hi) {
			continue
		}
		if floor != 0 && lo <= 0 { // a log axis
			if !(floor > 0) {
				continue
			}
			// A band of zeros (every trial's metric 0) has hi ≤ 0 too.
			lo, hi = floor, math.Max(hi, floor)
		}
		out = append(out, plotter.XY{X: s.X[i], Y: lo}, plotter.XY{X: s.X[i], Y: hi})
	}
	return out
}

// bandPolygon is the shaded region between Lo and Hi: the upper points left to
// right, then the lower points right to left. Non-finite bounds are skipped;
// on a log y axis (floor > 0) non-positive lower bounds are drawn at floor.
func bandPolygon(s Series, col color.Color, floor float64) (*plotter.Polygon, error) {
	v := bandVertices(s, floor)
	if len(v) < 4 {
		return nil, nil
	}
	ring := make(plotter.XYs, 0, len(v))
	for i := 1; i < len(v); i += 2 {
		ring = append(ring, v[i])
	}
	for i := len(v) - 2; i >= 0; i -= 2 {
		ring = append(ring, v[i])
	}
	poly, err := plotter.NewPolygon(ring)
	if err != nil {
		return nil, fmt.Errorf("plotting: band of %q: %w", s.Label, err)
	}
	r, g, b, _ := col.RGBA()
	poly.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 56}
	poly.LineStyle.Width = 0
	return poly, nil
}

// logTicks labels 1, 3 times powers of ten when the range spans one to three
// decades (an ε grid of 0.1, 0.3, 1, 3, 10 gets a label at each point), 1, 2,
// 3 and 5 times powers of ten on shorter ranges (every mantissa when that
// leaves fewer than two labels), and only powers of ten from three decades
// on (gonum's LogTicks can leave a short range without labels). Beyond
// maxLogLabels decades it marks only powers of ten and labels every k-th,
// so a privacy profile spanning 1 to 1e-50 keeps legible labels. Powers of
// ten outside [1e-3, 1e4] are written 1e<exp>, so that seven decades fit
// under a panel.
type logTicks struct{}

// maxLogLabels is the most decade labels an axis gets.
const maxLogLabels = 8

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return nil
	}
	decades := math.Log10(hi / lo)
	var labelled func(m float64) bool
	switch {
	case decades >= 3:
		labelled = func(m float64) bool { return m == 1 }
	case decades >= 1:
		labelled = func(m float64) bool { return m == 1 || m == 3 }
	default:
		labelled = func(m float64) bool { return m == 1 || m == 2 || m == 3 || m == 5 }
		if countLabels(lo, hi, labelled) < 2 {
			labelled = func(float64) bool { return true }
		}
	}
	last, every := 9.0, 1
	if decades > maxLogLabels {
		last, every = 1, int(math.Ceil(decades/maxLogLabels))
	}
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for m := 1.0; m <= last; m++ {
			// m·10^e correctly rounded (math.Pow(10, e) is not, e.g. at
			// e = −23, which would print as 1.0000000000000001e-23).
			v, _ := strconv.ParseFloat(strconv.FormatFloat(m, 'f', 0, 64)+"e"+strconv.FormatFloat(e, 'f', 0, 64), 64)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v} // a minor tick unless labelled
			if labelled(m) && int(e)%every == 0 {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
				if m == 1 && (e < -3 || e > 4) {
					t.Label = "1e" + strconv.FormatFloat(e, 'f', 0, 64) // "1e5", not "100000" or "1e+06"
				}
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// countLabels is the number of mantissas m·10^e in [lo, hi] that labelled
// accepts.
func countLabels(lo, hi float64, labelled func(m float64) bool) int {
	n := 0
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for m := 1.0; m <= 9; m++ {
			if v := m * math.Pow(10, e); labelled(m) && v >= lo*(1-1e-9) && v <= hi*(1+1e-9) {
				n++
			}
		}
	}
	return n
}

func textStyle(size vg.Length) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    font.From(plot.DefaultFont, size),
		Handler: plot.DefaultTextHandler,
	}
}

// wrap breaks s into lines at spaces (and at its newlines) so that each
// line, set in sty, is at most width wide where its words allow. A line
// grows word by word, its width in font units kept (lineMeter), rather
// than remeasured from its start for every word.
func wrap(s string, sty text.Style, width vg.Length) string {
	m := newLineMeter(sty) // nil: measure with sty.Width
	var space span
	if m != nil {
		space = m.measure(" ")
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line, lineSpan := "", span{}
		for _, w := range strings.Fields(para) {
			var wordSpan span
			if m != nil {
				wordSpan = m.measure(w)
			}
			if line != "" {
				var joined span // line + " " + w, when m is set
				var wide bool
				if m != nil {
					joined = m.join(m.join(lineSpan, space), wordSpan)
					wide = m.width(joined) > width
				} else {
					wide = sty.Width(line+" "+w) > width
				}
				if !wide {
					line, lineSpan = line+" "+w, joined
					continue
				}
				out = append(out, line)
			}
			line, lineSpan = w, wordSpan
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// checkStem reports a name that is not a plain file stem: Write and
// WriteTable join names under their directory, so a separator or ".."
// would write elsewhere.
func checkStem(name string) error {
	if strings.ContainsAny(name, `/\`) || strings.Contains(name, "..") || strings.HasPrefix(name, ".") || strings.ContainsRune(name, 0) {
		return errors.New("the name must be a plain file stem (no path separator, no \"..\", no leading \".\")")
	}
	return nil
}

// inches converts a length in points to inches.
func inches(l vg.Length) float64 { return float64(l / vg.Inch) }
