package plotting

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
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

// Figure is one figure file: a grid of panels sharing axis labels and
// scales, one legend, and a caption line.
type Figure struct {
	Name           string // file stem: <Name>.png, <Name>.svg, <Name>.caption.md, <Name>.caption.tex
	Title          string // drawn above the panels; may be empty
	XLabel, YLabel string
	LogX, LogY     bool
	// X and Y set an axis's limits and labelled ticks; what they leave
	// unset is chosen from the data (with headroom around it).
	X, Y Axis
	// HLines are horizontal lines drawn across every panel (thin, grey,
	// not in the legend), such as y = 1 on a ratio.
	HLines  []float64
	Panels  []Panel
	Columns int // panels per row; 0 means up to 2
	// Caption is the caption line drawn under the panels (at most one line
	// at default sizes) and the notes of the caption files.
	Caption Caption
	// Width and Height are the whole figure's size (panels, title, legend
	// and caption line). 0 means DefaultPanelWidth per column, and
	// DefaultPanelHeight per row plus the title and the caption line (and
	// a legend outside the axes). Text and lines keep their sizes in
	// points, as a paper's figure does.
	Width, Height vg.Length
	// DPI is the PNG resolution in pixels per inch; 0 means DefaultDPI.
	// (An SVG is sized in points and does not depend on it.)
	DPI float64
	// Legend places the figure's one legend: "" or LegendAuto (the
	// default: in an empty slot of the panel grid or an empty panel, else
	// inside a panel's axes where it covers no data point, else outside
	// them), one of the corners ("top-right", "top-left", "bottom-right",
	// "bottom-left": inside the first panel's axes, kept even where it
	// covers data), or LegendOutside (below the panels, or right of a
	// single panel).
	Legend string
}

// Axis sets an axis of a figure: its limits (nil: from the data) and
// its labelled ticks (none: chosen for the range).
type Axis struct {
	Min, Max *float64
	Ticks    []float64
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

// CheckAxis checks an axis setting: finite limits, min below max,
// positive limits and ticks on a log axis. The error names the key
// (prefix + "_min", "_max", "_ticks") at fault.
func CheckAxis(prefix string, a Axis, log bool) error {
	for _, l := range []struct {
		key string
		v   *float64
	}{{"_min", a.Min}, {"_max", a.Max}} {
		if l.v == nil {
			continue
		}
		if math.IsNaN(*l.v) || math.IsInf(*l.v, 0) || log && !(*l.v > 0) {
			return fmt.Errorf("%s%s = %v: want a finite value%s", prefix, l.key, *l.v, map[bool]string{true: " > 0 (a log axis)"}[log])
		}
	}
	if a.Min != nil && a.Max != nil && !(*a.Min < *a.Max) {
		return fmt.Errorf("%s_min = %v, %s_max = %v: want min < max", prefix, *a.Min, prefix, *a.Max)
	}
	for _, v := range a.Ticks {
		if math.IsNaN(v) || math.IsInf(v, 0) || log && !(v > 0) {
			return fmt.Errorf("%s_ticks: %v: want finite values%s", prefix, v, map[bool]string{true: " > 0 (a log axis)"}[log])
		}
	}
	return nil
}

// Panel is one set of axes.
type Panel struct {
	Title      string
	Note       string // under the title: why a panel has no data, in full ("data missing: …")
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
	// MarkEvery > 1 draws a marker at every MarkEvery-th point only, 1 at
	// every point; 0 (automatic) marks every point of a series of at
	// most maxMarkers points (points that are the data) and about
	// maxMarkers points of a denser one (an analytic curve, a trace per
	// iteration), where markers at every point would merge into a bar.
	MarkEvery int
}

// maxMarkers is the most markers a series gets by default.
const maxMarkers = 12

// Reference is a horizontal dashed line, e.g. a non-private baseline.
type Reference struct {
	Label string
	Y     float64
	Style int
}

// Formats are the figure formats Write accepts.
var Formats = []string{"png", "svg"}

// Validate checks the figure's data: lengths match, values on log axes are
// positive, axis settings are valid, formats are known.
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
	if err := CheckAxis("x", f.X, f.LogX); err != nil {
		return fmt.Errorf("plotting: figure %q: %w", f.Name, err)
	}
	if err := CheckAxis("y", f.Y, f.LogY); err != nil {
		return fmt.Errorf("plotting: figure %q: %w", f.Name, err)
	}
	for _, y := range f.HLines {
		if math.IsNaN(y) || math.IsInf(y, 0) || f.LogY && !(y > 0) {
			return fmt.Errorf("plotting: figure %q: horizontal line at y = %v: want a finite value (> 0 on a log axis)", f.Name, y)
		}
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

// Write renders f into dir as <Name>.<format> for each format, and its
// caption files <Name>.caption.md and <Name>.caption.tex, and returns the
// paths written (the formats' in their order, then the caption files'),
// up to the first file that failed, and that failure. The files are
// rendered and written (atomically) concurrently. Neither dir nor a file
// is written through a symbolic link (fileutil.ReplaceFileInFolder).
func Write(f *Figure, dir string, formats ...string) ([]string, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	captions, err := f.captionFiles(formats)
	if err != nil {
		return nil, err
	}
	names := append(slices.Clone(formats), CaptionFiles...)
	errs := make([]error, len(names))
	write := func(i int) {
		var b []byte
		var err error
		name := f.Name + names[i]
		if i < len(formats) {
			name = f.Name + "." + formats[i]
			b, err = Render(f, formats[i])
		} else {
			b = captions[i-len(formats)]
		}
		if err == nil {
			err = fileutil.ReplaceFileInFolder(dir, name, b)
		}
		errs[i] = err
	}
	// The files are written concurrently, the PNG (by far the longest:
	// rasterising and deflating) on this goroutine, so that it starts at
	// once rather than after a file the scheduler happened to run first.
	first := max(0, slices.Index(formats, "png"))
	var wg sync.WaitGroup
	for i := range names {
		if i != first {
			wg.Go(func() { write(i) })
		}
	}
	write(first)
	wg.Wait()
	var paths []string
	for i, n := range names {
		if errs[i] != nil {
			return paths, errs[i]
		}
		if i < len(formats) {
			n = "." + n
		}
		paths = append(paths, filepath.Join(dir, f.Name+n))
	}
	return paths, nil
}

// MarkdownCaption returns f's Markdown caption file (<name>.caption.md):
// the title in bold and the caption line, then one list item per note.
func (f *Figure) MarkdownCaption() []byte {
	return captionMarkdown(captionTitle(f.Name, f.Title, f.Caption), f.Caption, f.CaptionNotes())
}

// CaptionNotes returns the notes of f's caption files: f.Caption's, each
// once, then which curves coincide and how they are told apart.
func (f *Figure) CaptionNotes() []string { return f.Caption.notes(f.coincidenceNotes()...) }

// captionFiles returns the contents of f's caption files, in the order
// of CaptionFiles, for a figure written in formats: the LaTeX caption
// names its PNG, or its first format when no PNG is written.
func (f *Figure) captionFiles(formats []string) ([][]byte, error) {
	notes, title := f.CaptionNotes(), captionTitle(f.Name, f.Title, f.Caption)
	file := f.Name + ".png"
	if len(formats) > 0 && !slices.Contains(formats, "png") {
		file = f.Name + "." + formats[0]
	}
	return [][]byte{
		f.MarkdownCaption(),
		captionTeX("figures/"+file, "fig", f.Name, title, f.Caption, notes),
	}, nil
}

// Render draws f in the given format ("png" or "svg") and returns the bytes.
func Render(f *Figure, format string) (out []byte, err error) { return render(f, format, false) }

// render is Render; with reference set it draws a PNG the plain way,
// every panel's white background included, where Render leaves out the
// fills that change no pixel (pngCanvas.whiteUnder), for the test that
// holds the two to the same bytes (TestPNGSkipsOnlyBlankFills).
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
	}
	if lay.legend != nil {
		lay.legend.draw(dc, lay.legendBox)
	}
	if f.Title != "" {
		lay.titleStyle.XAlign = draw.XCenter
		dc.FillText(lay.titleStyle, vg.Point{X: lay.w / 2, Y: lay.h - lay.titleH + 4}, lay.title)
	}
	if lay.caption != "" {
		dc.FillText(lay.captionStyle, captionPoint, lay.caption)
	}
	var buf bytes.Buffer
	if err := writeCanvas(&buf, canvas); err != nil {
		return nil, fmt.Errorf("plotting: figure %q: %w", f.Name, err)
	}
	return buf.Bytes(), nil
}

// captionPoint is where a figure's caption line is drawn: its bottom
// left corner, in points from the figure's.
var captionPoint = vg.Point{X: 6, Y: 4}

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
	w, h                     vg.Length
	dpi                      int
	caption                  string // the caption line (wrapped only when it does not fit at minCaptionSize)
	captionStyle, titleStyle text.Style
	captionH, titleH         vg.Length
	title                    string // the title, wrapped
	// yLabel is the y axis title, drawn by Render left of each panel's
	// tile (gonum/plot pads a log y axis as if its centred title were
	// at the arithmetic mean of the range, leaving a gap above the axes);
	// yLabelW is the strip it takes.
	yLabel  text.Style
	yLabelW vg.Length
	panels  []panelLayout
	// free are the tiles of the grid's slots without a panel.
	free      []vg.Rectangle
	legend    *legend // nil: nothing to list
	legendBox vg.Rectangle
}

// panelLayout is one panel's plot and its tile.
type panelLayout struct {
	panel *Panel
	plot  *plot.Plot
	axes  bool // drawn with axes (not an empty, skipped panel)
	tile  vg.Rectangle
}

// Text sizes in points and the legend's geometry.
const (
	titleSize, captionSize, legendSize = 13, 8, 8
	// minCaptionSize is the smallest size a caption line is set in to fit
	// on one line; below it the line wraps.
	minCaptionSize = 6.5
	// legendInset is the gap between the axes and a legend inside them,
	// legendPad the frame's padding around the entries, legendGap the gap
	// between the panels and a legend outside them.
	legendInset, legendPad, legendGap = vg.Length(3), vg.Length(3), vg.Length(6)
	// maxLegendShare is the largest part of the axes' area a legend inside
	// them may cover (a larger one hides the bands under it).
	maxLegendShare = 0.25
	// markerRadius is a series marker's radius.
	markerRadius = vg.Length(2.6)
	// headroom is the part of an axis's range left free on each side of
	// the data (in decades on a log axis), so no marker sits on the frame.
	headroom = 0.04
)

// layout places the panels, titles, caption line and legend of a valid
// figure.
func (f *Figure) layout() (*figLayout, error) {
	mt := newMeasuredText()
	cols := f.Columns
	if cols <= 0 {
		cols = min(len(f.Panels), 2)
	}
	rows := (len(f.Panels) + cols - 1) / cols
	lay := &figLayout{w: f.Width, h: f.Height, dpi: DefaultDPI, captionStyle: textStyle(captionSize), titleStyle: textStyle(titleSize)}
	mt.use(&lay.captionStyle, &lay.titleStyle)
	if f.DPI != 0 {
		lay.dpi = int(math.Round(f.DPI))
	}
	if f.YLabel != "" {
		lay.yLabel = plot.New().Y.Label.TextStyle
		mt.use(&lay.yLabel)
		lay.yLabel.Rotation += math.Pi / 2
		lay.yLabelW = lay.yLabel.FontExtents().Descent + lay.yLabel.Height(f.YLabel) + vg.Points(5)
	}
	styles := f.seriesStyles()
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
	}
	panelW := DefaultPanelWidth
	if f.Width != 0 {
		panelW = f.Width / vg.Length(cols)
	}
	lay.panels = make([]panelLayout, len(f.Panels))
	for i := range f.Panels {
		p, err := f.panel(&f.Panels[i], panelW-lay.yLabelW-20, mt, styles)
		if err != nil {
			return nil, err
		}
		grid[i/cols][i%cols] = p
		lay.panels[i] = panelLayout{panel: &f.Panels[i], plot: p, axes: p.Y.Width > 0}
	}
	lay.legend = f.legend(styles, mt)

	// Place the grid in an area of w × h less the title, the caption
	// line and room for a legend outside (right of or below the panels).
	sized := func(right, below vg.Length) error {
		lay.w, lay.h = f.Width, f.Height
		if lay.w == 0 {
			lay.w = DefaultPanelWidth*vg.Length(cols) + right
		}
		lay.setTexts(f)
		if lay.h == 0 {
			lay.h = DefaultPanelHeight*vg.Length(rows) + lay.titleH + lay.captionH + below
		}
		if cw := (lay.w - right) / vg.Length(cols); cw < minPanelSide {
			return fmt.Errorf("plotting: figure %q: width %.3g in leaves %.3g in per panel (%d columns): want at least %.3g in", f.Name, inches(lay.w), inches(cw), cols, inches(minPanelSide))
		}
		if rh := (lay.h - lay.titleH - lay.captionH - below) / vg.Length(rows); rh < minPanelSide {
			return fmt.Errorf("plotting: figure %q: height %.3g in leaves %.3g in per row of panels (%d rows, after the title, legend and caption line): want at least %.3g in", f.Name, inches(lay.h), inches(rh), rows, inches(minPanelSide))
		}
		area := draw.Canvas{Rectangle: vg.Rectangle{Min: vg.Point{Y: lay.captionH + below}, Max: vg.Point{X: lay.w - right, Y: lay.h - lay.titleH}}}
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadTop: 4, PadBottom: 4, PadLeft: 4 + lay.yLabelW, PadRight: 8,
			PadX: 8 + lay.yLabelW, PadY: 8}
		canvases := plot.Align(grid, tiles, area)
		lay.free = nil
		for i := range rows * cols {
			if i < len(lay.panels) {
				lay.panels[i].tile = canvases[i/cols][i%cols].Rectangle
			} else {
				lay.free = append(lay.free, canvases[i/cols][i%cols].Rectangle)
			}
		}
		return nil
	}
	if err := sized(0, 0); err != nil {
		return nil, err
	}
	if lay.legend == nil {
		return lay, nil
	}
	place := f.Legend
	if place == "" {
		place = LegendAuto
	}
	switch place {
	case LegendAuto:
		if lay.placeFree() || lay.placeInside() {
			return lay, nil
		}
	case LegendOutside:
	default:
		for _, pl := range lay.panels {
			if pl.axes {
				lay.legend.cols = 1
				lay.legendBox = cornerBox(pl.plot.DataCanvas(draw.Canvas{Rectangle: pl.tile}), lay.legend.size(), place)
				return lay, nil
			}
		}
	}
	// Outside: right of a single panel when the legend takes at most a
	// third of its width, else below the panels in as many columns as fit.
	l := lay.legend
	l.cols = 1
	if sz := l.size(); len(f.Panels) == 1 && sz.X <= (lay.w-lay.yLabelW)/3 {
		if err := sized(sz.X+legendGap, 0); err != nil {
			return nil, err
		}
		dataC := lay.panels[0].plot.DataCanvas(draw.Canvas{Rectangle: lay.panels[0].tile})
		x := lay.w - sz.X - legendInset
		lay.legendBox = vg.Rectangle{Min: vg.Point{X: x, Y: dataC.Max.Y - sz.Y}, Max: vg.Point{X: x + sz.X, Y: dataC.Max.Y}}
		return lay, nil
	}
	w := lay.w - 2*legendInset
	if f.Width == 0 {
		w = DefaultPanelWidth*vg.Length(cols) - 2*legendInset
	}
	l.cols = l.fitColumns(w)
	sz := l.size()
	if err := sized(0, sz.Y+legendGap); err != nil {
		return nil, err
	}
	x := (lay.w - sz.X) / 2
	lay.legendBox = vg.Rectangle{Min: vg.Point{X: x, Y: lay.captionH + legendGap/2}, Max: vg.Point{X: x + sz.X, Y: lay.captionH + legendGap/2 + sz.Y}}
	return lay, nil
}

// setTexts wraps the title to the figure's width and sets the caption
// line on one line, in a smaller size (down to minCaptionSize) when it
// does not fit at captionSize, wrapped below that; it sets their heights.
func (lay *figLayout) setTexts(f *Figure) {
	lay.title, lay.titleH = "", 0
	if f.Title != "" {
		lay.title = wrap(f.Title, lay.titleStyle, lay.w-12)
		lay.titleH = lay.titleStyle.Height(lay.title) + 8
	}
	lay.caption, lay.captionH = "", 0
	line := strings.TrimSpace(strings.ReplaceAll(f.Caption.Line, "\n", " "))
	if line == "" {
		return
	}
	width := lay.w - 12
	size := lay.captionStyle.Font.Size
	if w := lay.captionStyle.Width(line); w > width {
		size = max(minCaptionSize, captionSize*width/w)
		size = vg.Length(math.Floor(float64(size)*10) / 10)
	}
	lay.captionStyle.Font.Size = size
	lay.caption = line
	if lay.captionStyle.Width(line) > width {
		lay.caption = wrap(line, lay.captionStyle, width)
	}
	lay.captionH = lay.captionStyle.Height(lay.caption) + 8
}

// CaptionLines is the number of lines the caption line of f takes in its
// image (0 without one; 1 unless it is too long for the figure's width
// even at the smallest caption size).
func CaptionLines(f *Figure) (int, error) {
	if err := f.Validate(); err != nil {
		return 0, err
	}
	lay, err := f.layout()
	if err != nil {
		return 0, err
	}
	if lay.caption == "" {
		return 0, nil
	}
	return strings.Count(lay.caption, "\n") + 1, nil
}

// placeFree puts the legend in an empty slot of the panel grid, or under
// the note of a panel without axes (a skipped dataset), in as many
// columns as fit, and reports whether it fits in one.
func (lay *figLayout) placeFree() bool {
	l := lay.legend
	var slots []vg.Rectangle
	for _, r := range lay.free {
		slots = append(slots, vg.Rectangle{Min: vg.Point{X: r.Min.X + legendInset, Y: r.Min.Y + legendInset}, Max: vg.Point{X: r.Max.X - legendInset, Y: r.Max.Y - legendInset}})
	}
	for _, pl := range lay.panels {
		if pl.axes {
			continue
		}
		top := pl.tile.Max.Y - pl.plot.Title.TextStyle.Height(pl.plot.Title.Text) - 2*pl.plot.Title.Padding - legendGap
		slots = append(slots, vg.Rectangle{Min: vg.Point{X: pl.tile.Min.X + legendInset, Y: pl.tile.Min.Y + legendInset}, Max: vg.Point{X: pl.tile.Max.X - legendInset, Y: top}})
	}
	for _, s := range slots {
		for cols := 1; cols <= 3; cols++ {
			l.cols = cols
			sz := l.size()
			if sz.X <= s.Size().X && sz.Y <= s.Size().Y {
				x := s.Min.X + (s.Size().X-sz.X)/2
				lay.legendBox = vg.Rectangle{Min: vg.Point{X: x, Y: s.Max.Y - sz.Y}, Max: vg.Point{X: x + sz.X, Y: s.Max.Y}}
				return true
			}
		}
	}
	l.cols = 1
	return false
}

// legendCandidates are the places tried for a legend inside the axes, in
// order of preference.
var legendCandidates = []string{"top-right", "top-left", "bottom-right", "bottom-left", "top-center", "bottom-center", "center-right", "center-left"}

// cornerBox returns the frame of a legend of size sz at a place inside the
// axes dataC ("top-right", …, "center-left").
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

// placeInside puts the legend, in one column, inside the axes of one of
// the panels, at the first of legendCandidates that fits (in at most
// maxLegendShare of the axes' area) and covers no data point (a point of
// a series, with a marker's radius, or a band vertex), preferring among
// those the place crossing the fewest lines (the first panel's on a
// tie); it reports false when there is no such place.
func (lay *figLayout) placeInside() bool {
	l := lay.legend
	l.cols = 1
	sz := l.size()
	best, bestHits := vg.Rectangle{}, -1
	for _, pl := range lay.panels {
		if !pl.axes {
			continue
		}
		dataC := pl.plot.DataCanvas(draw.Canvas{Rectangle: pl.tile})
		if sz.X > dataC.Size().X-2*legendInset || sz.Y > dataC.Size().Y-2*legendInset || sz.X*sz.Y > maxLegendShare*dataC.Size().X*dataC.Size().Y {
			continue
		}
		pts, lines := pl.canvasPoints(dataC)
		for _, place := range legendCandidates {
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
			if bestHits < 0 || hits < bestHits {
				best, bestHits = box, hits
			}
		}
	}
	if bestHits < 0 {
		return false
	}
	lay.legendBox = best
	return true
}

func inRect(p vg.Point, r vg.Rectangle) bool {
	return p.X >= r.Min.X && p.X <= r.Max.X && p.Y >= r.Min.Y && p.Y <= r.Max.Y
}

// canvasPoint is a data point on the canvas: a point of a series (r the
// marker radius) or a band vertex (r = 0), and what it is.
type canvasPoint struct {
	vg.Point
	r    vg.Length
	what string
}

// canvasPoints returns the panel's data points on dataC (the points of
// its series, marked or not, and its band vertices: the points a legend
// must not cover) and points sampled along its lines and reference lines
// (which it should avoid).
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

// LegendCovers lays f out as Render does and returns, for the legend
// when it contains a data point of a panel (a point of a series or a
// band vertex), a description of the points it covers; nil when it
// covers no data.
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
	if err != nil || lay.legend == nil {
		return nil, err
	}
	for _, pl := range lay.panels {
		if !pl.axes {
			continue
		}
		pts, _ := pl.canvasPoints(pl.plot.DataCanvas(draw.Canvas{Rectangle: pl.tile}))
		for _, p := range pts {
			if inRect(p.Point, lay.legendBox) {
				covered = append(covered, fmt.Sprintf("panel %q: legend covers %s", pl.panel.Title, p.what))
			}
		}
	}
	return covered, nil
}

// panel makes one panel's plot, its texts measured by mt, its series
// drawn in styles; width is the width its title and note are wrapped to.
func (f *Figure) panel(pn *Panel, width vg.Length, mt *measuredText, styles map[string]seriesStyle) (*plot.Plot, error) {
	p := plot.New()
	mt.use(&p.Title.TextStyle, &p.X.Label.TextStyle, &p.X.Tick.Label, &p.Y.Label.TextStyle, &p.Y.Tick.Label)
	p.Title.Text = wrap(pn.Title, p.Title.TextStyle, width-12)
	if pn.Note != "" {
		p.Title.Text += "\n" + wrap(pn.Note, p.Title.TextStyle, width-12)
	}
	p.X.Label.Text = f.XLabel // the y label is drawn by Render (figLayout.yLabel)
	p.X.Tick.Marker, p.Y.Tick.Marker = linearTicks{}, linearTicks{}
	if f.LogX {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
	}
	if f.LogY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
	}
	if len(f.X.Ticks) > 0 {
		p.X.Tick.Marker = fixedTicks(f.X.Ticks)
	}
	if len(f.Y.Ticks) > 0 {
		p.Y.Tick.Marker = fixedTicks(f.Y.Ticks)
	}
	p.Add(plotter.NewGrid())
	var floor float64 // 0: a linear y axis
	if f.LogY {
		floor = logFloor(pn)
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
				return nil, err
			}
			if band != nil {
				p.Add(band)
			}
		}
		line, points, err := seriesPlotters(s, styles[s.Label])
		if err != nil {
			return nil, err
		}
		if line == nil {
			continue
		}
		p.Add(line)
		if points != nil {
			p.Add(points)
		}
		drawn++
	}
	if drawn == 0 && len(pn.References) == 0 {
		// Nothing to draw (a skipped dataset): hidden axes on a [1, 10]
		// frame (which log axes accept) under the panel's note.
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 1, 10, 1, 10
		p.HideAxes()
		p.X.Label.Text, p.Y.Label.Text = "", ""
		return p, nil
	}
	xmin, xmax := p.X.Min, p.X.Max
	if drawn == 0 || !(xmin < xmax) {
		// One x value (e.g. a single ε), or none: widen the axis around
		// it, which a log axis needs (gonum would pad [x, x] to an
		// interval reaching 0).
		xmin, xmax = 1, 10
		if x := firstX(pn); x != 0 {
			xmin, xmax = x/2, x*2
			if !f.LogX && x < 0 {
				xmin, xmax = x*2, x/2
			}
		}
	}
	xmin, xmax = padRange(xmin, xmax, f.LogX)
	xmin, xmax = limits(xmin, xmax, f.X)
	p.X.Min, p.X.Max = xmin, xmax
	for _, r := range pn.References {
		line, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: r.Y}, {X: xmax, Y: r.Y}})
		if err != nil {
			return nil, fmt.Errorf("plotting: reference %q: %w", r.Label, err)
		}
		line.LineStyle = referenceStyle(r)
		p.Add(line)
	}
	for _, y := range f.HLines {
		line, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: y}, {X: xmax, Y: y}})
		if err != nil {
			return nil, fmt.Errorf("plotting: horizontal line at %v: %w", y, err)
		}
		line.LineStyle = draw.LineStyle{Color: color.Gray{Y: 90}, Width: vg.Points(0.9), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}
		p.Add(line)
	}
	p.X.Min, p.X.Max = xmin, xmax // the lines above span exactly this
	ymin, ymax := p.Y.Min, p.Y.Max
	if !(ymin < ymax) {
		ymin, ymax = ymin-1, ymax+1
		if f.LogY {
			ymin, ymax = p.Y.Min/2, p.Y.Max*2
		}
	}
	ymin, ymax = padRange(ymin, ymax, f.LogY)
	p.Y.Min, p.Y.Max = limits(ymin, ymax, f.Y)
	return p, nil
}

// firstX is the first x value of the panel's series (0 when none has one).
func firstX(pn *Panel) float64 {
	for _, s := range pn.Series {
		if len(s.X) > 0 {
			return s.X[0]
		}
	}
	return 0
}

// padRange widens [lo, hi] by headroom of its length on each side (of
// its decades on a log axis).
func padRange(lo, hi float64, log bool) (float64, float64) {
	if log {
		k := math.Pow(hi/lo, headroom)
		return lo / k, hi * k
	}
	d := (hi - lo) * headroom
	return lo - d, hi + d
}

// limits applies an axis's set limits to [lo, hi].
func limits(lo, hi float64, a Axis) (float64, float64) {
	if a.Min != nil {
		lo = *a.Min
	}
	if a.Max != nil {
		hi = *a.Max
	}
	return lo, hi
}

// referenceStyle is how a reference line is drawn: dashed, black (or its
// style's colour).
func referenceStyle(r Reference) draw.LineStyle {
	st := draw.LineStyle{Color: color.Black, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}
	if r.Style > 0 {
		st.Color = plotutil.Color(r.Style)
	}
	return st
}

// seriesPlotters returns the line and the markers (nil for none) of a
// series in its style; a nil line when it has no finite point.
func seriesPlotters(s Series, sty seriesStyle) (*plotter.Line, *plotter.Scatter, error) {
	pts := make(plotter.XYs, 0, len(s.X))
	for i := range s.X {
		if isFinite(s.Y[i]) {
			pts = append(pts, plotter.XY{X: s.X[i], Y: s.Y[i]})
		}
	}
	if len(pts) == 0 {
		return nil, nil, nil
	}
	line, err := plotter.NewLine(pts)
	if err != nil {
		return nil, nil, fmt.Errorf("plotting: series %q: %w", s.Label, err)
	}
	line.Color = plotutil.Color(s.Style)
	line.Width = vg.Points(1.4)
	line.Dashes = sty.dashes
	every := s.MarkEvery
	if every <= 0 {
		every = 1
		if len(pts) > maxMarkers {
			every = (len(pts) + maxMarkers - 3) / (maxMarkers - 2) // about maxMarkers − 2 markers
		}
	}
	var marked plotter.XYs
	for i := int(sty.phase * float64(every)); i < len(pts); i += every {
		marked = append(marked, pts[i])
	}
	points, err := plotter.NewScatter(marked)
	if err != nil {
		return nil, nil, fmt.Errorf("plotting: series %q: %w", s.Label, err)
	}
	points.Color = line.Color
	points.Shape = plotutil.Shape(s.Style)
	points.Radius = markerRadius
	return line, points, nil
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
	if hasMarkup(s) {
		m = nil // the meter measures plain text
	}
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
