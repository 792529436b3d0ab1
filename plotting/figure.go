package plotting

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
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
	"gonum.org/v1/plot/vg/vgimg"
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
	// PanelWidth and PanelHeight are one panel's size; 0 means 4.2in × 3.2in.
	PanelWidth, PanelHeight vg.Length
	// LegendBottom and LegendLeft move the legend from the top right corner.
	LegendBottom, LegendLeft bool
}

// Panel is one set of axes.
type Panel struct {
	Title      string
	Note       string // a second title line (e.g. "objpert/gaussmix time: 3.1×")
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
// written (atomically) concurrently.
func Write(f *Figure, dir string, formats ...string) ([]string, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	errs := make([]error, len(formats))
	var wg sync.WaitGroup
	for i, format := range formats {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := Render(f, format)
			if err == nil {
				err = fileutil.WriteFileAtomic(filepath.Join(dir, f.Name+"."+format), b)
			}
			errs[i] = err
		}()
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
func Render(f *Figure, format string) (out []byte, err error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	defer func() {
		// gonum/plot panics on some degenerate inputs (e.g. an empty log
		// range); report them as errors.
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("plotting: figure %q: %v", f.Name, r)
		}
	}()
	cols := f.Columns
	if cols <= 0 {
		cols = min(len(f.Panels), 2)
	}
	rows := (len(f.Panels) + cols - 1) / cols
	pw, ph := f.PanelWidth, f.PanelHeight
	if pw == 0 {
		pw = 4.2 * vg.Inch
	}
	if ph == 0 {
		ph = 3.2 * vg.Inch
	}
	noteStyle := textStyle(8)
	titleStyle := textStyle(13)
	// Wrap the footnote to the figure width (about 0.5 em per character).
	w := pw * vg.Length(cols)
	note := wrap(f.Note, int((w-12)/(0.5*noteStyle.Font.Size)))
	var noteH, titleH vg.Length
	if f.Note != "" {
		noteH = noteStyle.Height(note) + 8
	}
	if f.Title != "" {
		titleH = titleStyle.Height(f.Title) + 8
	}
	h := ph*vg.Length(rows) + noteH + titleH

	var canvas vg.CanvasWriterTo
	switch format {
	case "png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(110))}
	case "svg":
		canvas = vgsvg.New(w, h)
	default:
		return nil, fmt.Errorf("plotting: unknown figure format %q (want png or svg)", format)
	}
	dc := draw.New(canvas)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())

	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
	}
	for i := range f.Panels {
		p, err := f.panel(&f.Panels[i])
		if err != nil {
			return nil, err
		}
		grid[i/cols][i%cols] = p
	}
	area := dc
	area.Rectangle.Min.Y += noteH
	area.Rectangle.Max.Y -= titleH
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadTop: 4, PadBottom: 4, PadLeft: 4, PadRight: 8, PadX: 8, PadY: 8}
	canvases := plot.Align(grid, tiles, area)
	for r := range grid {
		for c := range grid[r] {
			if grid[r][c] != nil {
				grid[r][c].Draw(canvases[r][c])
			}
		}
	}
	if f.Title != "" {
		titleStyle.XAlign = draw.XCenter
		dc.FillText(titleStyle, vg.Point{X: w / 2, Y: h - titleH + 4}, f.Title)
	}
	if f.Note != "" {
		dc.FillText(noteStyle, vg.Point{X: 6, Y: 4}, note)
	}
	var buf bytes.Buffer
	if err := writeCanvas(&buf, canvas); err != nil {
		return nil, fmt.Errorf("plotting: figure %q: %w", f.Name, err)
	}
	return buf.Bytes(), nil
}

func (f *Figure) panel(pn *Panel) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = pn.Title
	if pn.Note != "" {
		// Wrapped to the panel width (about 0.5 em per character).
		pw := f.PanelWidth
		if pw == 0 {
			pw = 4.2 * vg.Inch
		}
		p.Title.Text += "\n" + wrap(pn.Note, int(pw/(0.5*p.Title.TextStyle.Font.Size)))
	}
	p.X.Label.Text, p.Y.Label.Text = f.XLabel, f.YLabel
	if f.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
	}
	if f.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
	}
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = !f.LegendBottom, f.LegendLeft
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(4), -vg.Points(2)
	if f.LegendLeft {
		p.Legend.XOffs = vg.Points(4)
	}
	if f.LegendBottom {
		p.Legend.YOffs = vg.Points(2)
	}
	p.Legend.TextStyle.Font.Size = 8
	drawn := 0 // series with at least one finite point
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, s := range pn.Series {
		for _, x := range s.X {
			xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
		}
	}
	for _, s := range pn.Series {
		if len(s.X) == 0 {
			continue
		}
		col := plotutil.Color(s.Style)
		if s.Lo != nil {
			band, err := bandPolygon(s, col, f.LogY)
			if err != nil {
				return nil, err
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
			return nil, fmt.Errorf("plotting: series %q: %w", s.Label, err)
		}
		if s.MarkEvery > 1 {
			var marked plotter.XYs
			for i := 0; i < len(pts); i += s.MarkEvery {
				marked = append(marked, pts[i])
			}
			if points, err = plotter.NewScatter(marked); err != nil {
				return nil, fmt.Errorf("plotting: series %q: %w", s.Label, err)
			}
		}
		line.Color = col
		line.Width = vg.Points(1.4)
		if s.Dashed {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		points.Color = col
		points.Shape = plotutil.Shape(s.Style)
		points.Radius = vg.Points(2.6)
		p.Add(line, points)
		p.Legend.Add(s.Label, line, points)
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
		p.Title.Text = wrap(p.Title.Text, 40)
	}
	for _, r := range pn.References {
		line, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: r.Y}, {X: xmax, Y: r.Y}})
		if err != nil {
			return nil, fmt.Errorf("plotting: reference %q: %w", r.Label, err)
		}
		line.Color = color.Black
		if r.Style > 0 {
			line.Color = plotutil.Color(r.Style)
		}
		line.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		line.Width = vg.Points(1.2)
		p.Add(line)
		p.Legend.Add(r.Label, line)
	}
	return p, nil
}

// bandPolygon is the shaded region between Lo and Hi: the upper points left to
// right, then the lower points right to left. Non-finite bounds are skipped;
// on a log y axis non-positive lower bounds are clamped to a small positive value.
func bandPolygon(s Series, col color.Color, logY bool) (*plotter.Polygon, error) {
	var upper, lower plotter.XYs
	for i := range s.X {
		lo, hi := s.Lo[i], s.Hi[i]
		if !isFinite(lo) || !isFinite(hi) {
			continue
		}
		if logY && lo <= 0 {
			lo = s.Y[i] / 1e3
		}
		upper = append(upper, plotter.XY{X: s.X[i], Y: hi})
		lower = append(lower, plotter.XY{X: s.X[i], Y: lo})
	}
	if len(upper) < 2 {
		return nil, nil
	}
	ring := append(plotter.XYs{}, upper...)
	for i := len(lower) - 1; i >= 0; i-- {
		ring = append(ring, lower[i])
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

// logTicks labels 1, 2 and 5 times powers of ten when the range spans fewer
// than three decades, and only powers of ten otherwise (gonum's LogTicks can
// leave a short range without labels). Beyond maxLogLabels decades it marks
// only powers of ten and labels every k-th, so a privacy profile spanning
// 1 to 1e-50 keeps legible labels. Powers of ten outside [1e-3, 1e4] are
// written 1e<exp>, so that seven decades fit under a panel.
type logTicks struct{}

// maxLogLabels is the most decade labels an axis gets.
const maxLogLabels = 8

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return nil
	}
	decades := math.Log10(hi / lo)
	labelled := func(m float64) bool { return m == 1 || m == 2 || m == 5 }
	if decades >= 3 {
		labelled = func(m float64) bool { return m == 1 }
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

func textStyle(size vg.Length) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    font.From(plot.DefaultFont, size),
		Handler: plot.DefaultTextHandler,
	}
}

// wrap breaks s into lines of at most width characters at spaces.
func wrap(s string, width int) string {
	var out, line []byte
	word := func(w string) {
		if len(line) > 0 && len(line)+1+len(w) > width {
			out = append(append(out, line...), '\n')
			line = line[:0]
		}
		if len(line) > 0 {
			line = append(line, ' ')
		}
		line = append(line, w...)
	}
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' || s[i] == '\n' {
			if i > start {
				word(s[start:i])
			}
			if i < len(s) && s[i] == '\n' {
				out = append(append(out, line...), '\n')
				line = line[:0]
			}
			start = i + 1
		}
	}
	return string(append(out, line...))
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
