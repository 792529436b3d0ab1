package plotting

import (
	"bytes"
	"image"
	"image/color"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// TestPNGCanvasMatchesVgimg draws the same text, lines and fills on a
// pngCanvas and on the canvas vgimg.NewWith(UseWH, UseDPI) makes (filled
// white, as Render did before pngCanvas), at sizes that are not whole
// pixels (where the image's rounded size and the figure's size differ),
// and requires identical pixels.
func TestPNGCanvasMatchesVgimg(t *testing.T) {
	for _, tc := range []struct {
		w, h vg.Length
		dpi  int
	}{
		{4.2 * vg.Inch, 3.2 * vg.Inch, DefaultDPI},
		{3.337 * vg.Inch, 2.051 * vg.Inch, 220},
		{250.3, 170.7, 96},
	} {
		old := vgimg.NewWith(vgimg.UseWH(tc.w, tc.h), vgimg.UseDPI(tc.dpi))
		oc := draw.New(old)
		oc.SetColor(color.White)
		oc.Fill(oc.Rectangle.Path())
		drawCanvasSample(oc)

		nc := newPNGCanvas(tc.w, tc.h, tc.dpi)
		if w, h := nc.Size(); w != tc.w || h != tc.h {
			t.Fatalf("Size() = %v × %v, want %v × %v", w, h, tc.w, tc.h)
		}
		drawCanvasSample(draw.New(nc))

		a, b := old.Image().(*image.RGBA), nc.Image().(*image.RGBA)
		if a.Bounds() != b.Bounds() {
			t.Fatalf("%v × %v at %d dpi: bounds %v, vgimg's %v", tc.w, tc.h, tc.dpi, b.Bounds(), a.Bounds())
		}
		if !bytes.Equal(a.Pix, b.Pix) {
			diff := 0
			for i := range a.Pix {
				if a.Pix[i] != b.Pix[i] {
					diff++
				}
			}
			t.Errorf("%v × %v at %d dpi: %d of %d bytes differ from vgimg's canvas", tc.w, tc.h, tc.dpi, diff, len(a.Pix))
		}
		if nonWhite(b) == 0 {
			t.Errorf("%v × %v at %d dpi: nothing drawn", tc.w, tc.h, tc.dpi)
		}
	}
}

// drawCanvasSample draws what a figure draws: text at several places
// (including rotated, like a y-axis label, and translucent over a line, with
// kerned pairs), a stroked path and a fill.
func drawCanvasSample(c draw.Canvas) {
	style := textStyle(11)
	c.FillText(style, vg.Point{X: 10.3, Y: 7.7}, "footnote: RDP, δ = 1e-5 (ε ≈ 0.5)")
	centered := style
	centered.XAlign = draw.XCenter
	c.FillText(centered, vg.Point{X: c.Max.X / 2, Y: c.Max.Y - 20.1}, "Title of the figure")
	rotated := style
	rotated.Rotation = 1.5707963267948966
	c.FillText(rotated, vg.Point{X: 20.4, Y: c.Max.Y / 2}, "test MSE")
	c.StrokeLines(draw.LineStyle{Color: color.RGBA{R: 200, A: 255}, Width: 1.3},
		[]vg.Point{{X: 30, Y: 30}, {X: c.Max.X - 25.5, Y: c.Max.Y - 40.2}, {X: c.Max.X - 10, Y: 35.5}})
	c.FillPolygon(color.RGBA{B: 180, A: 255}, []vg.Point{{X: 50, Y: 50}, {X: 80.5, Y: 52}, {X: 66, Y: 90.25}})
	tinted := style
	tinted.Color = color.NRGBA{R: 200, G: 30, B: 90, A: 180} // translucent over the fill: the Over blend's rounding
	c.FillText(tinted, vg.Point{X: 45.6, Y: 61.3}, "AVAWAy fi, ℓ₂ ≤ 0.95 — [Wang '18]")
}

func nonWhite(img *image.RGBA) int {
	n := 0
	for i := 0; i < len(img.Pix); i += 4 {
		if img.Pix[i] != 255 || img.Pix[i+1] != 255 || img.Pix[i+2] != 255 {
			n++
		}
	}
	return n
}

// TestPNGSkipsOnlyBlankFills: leaving out the panels' white background
// fills where the canvas is still white under them changes no byte of a
// PNG, for figures with several panels, a skipped panel, legends inside,
// outside to the right and below the axes, and set sizes; and whiteUnder
// sees a dot drawn under a rectangle or a pixel beside it, and nothing
// farther away.
func TestPNGSkipsOnlyBlankFills(t *testing.T) {
	long := sampleFigure()
	long.Name = "long"
	for i := range long.Panels {
		for j := range long.Panels[i].Series {
			long.Panels[i].Series[j].Label += " with a legend entry long enough to go below the axes"
		}
	}
	skipped := sampleFigure()
	skipped.Panels = append(skipped.Panels, Panel{Title: "C", Note: "skipped: files absent"})
	outside := crowdedFigure()
	outside.Legend = LegendOutside
	sized := sampleFigure()
	sized.Width, sized.Height, sized.DPI, sized.Columns = 5*vg.Inch, 7*vg.Inch, 150, 1
	for _, f := range []*Figure{sampleFigure(), crowdedFigure(), outside, long, skipped, sized} {
		got, err := Render(f, "png")
		if err != nil {
			t.Fatal(err)
		}
		want, err := render(f, "png", true)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s (%s legend, %d panels): the PNG differs without the blank fills", f.Name, f.Legend, len(f.Panels))
		}
	}

	c := newPNGCanvas(4*vg.Inch, 3*vg.Inch, DefaultDPI)
	dc := draw.New(c)
	r := vg.Rectangle{Min: vg.Point{X: 50, Y: 40}, Max: vg.Point{X: 150, Y: 120}}
	if !c.whiteUnder(r) || !c.whiteUnder(dc.Rectangle) {
		t.Fatal("a fresh canvas is not white")
	}
	for _, tc := range []struct {
		at    vg.Point
		white bool
	}{
		{vg.Point{X: 100, Y: 80}, false},   // inside
		{vg.Point{X: 150.2, Y: 80}, false}, // a pixel right of the edge
		{vg.Point{X: 100, Y: 39.8}, false}, // a pixel below
		{vg.Point{X: 160, Y: 80}, true},    // 10 pt to the right
		{vg.Point{X: 100, Y: 130}, true},   // 10 pt above
	} {
		c := newPNGCanvas(4*vg.Inch, 3*vg.Inch, DefaultDPI)
		dc := draw.New(c)
		dc.SetColor(color.Black)
		dc.Fill(vg.Rectangle{Min: tc.at, Max: vg.Point{X: tc.at.X + 0.1, Y: tc.at.Y + 0.1}}.Path())
		if nonWhite(c.img) == 0 {
			t.Fatalf("dot at %v not drawn", tc.at)
		}
		if got := c.whiteUnder(r); got != tc.white {
			t.Errorf("dot at %v: whiteUnder = %v, want %v", tc.at, got, tc.white)
		}
	}
}

// TestFootnoteStripMatchesCanvas: a footnote drawn on a textStrip and
// pasted gives the pixels of drawing it last on the figure's canvas, and
// the strip is refused where that could differ. Figures with short, long
// (wrapped to several lines) and non-Latin footnotes, one or two columns
// of panels, at two sizes: Render's PNG equals render's reference drawing
// byte for byte, and the strip was used for each (pasted, not drawn on
// the canvas again). A strip is refused when a pixel of its rows on the
// canvas is not white (something else drew there), when a glyph falls
// outside its rows, and when it was asked to draw a path.
func TestFootnoteStripMatchesCanvas(t *testing.T) {
	long := sampleFigure()
	long.Name = "long-note"
	long.Note = "Accountant: rdp (orders default); δ = min(1e-6, 0.01/n) (Boston housing: 1e-06); neighbouring: add/remove (AdaSSP [Wang '18]), zero-out (Linear mixing (ours), Sheffet '17); tuning: none; mean with 95% CI (1.96·SE) over 250 trials; ε does not account for: x divided by the maximum row norm of the training rows; y divided by max |y| of the training rows; public n: the training size n is treated as public."
	greek := sampleFigure()
	greek.Name, greek.Note, greek.Columns = "greek", "σ² = 1611.1, Δ₂ = 2, α* = 459.3 — ε ≤ 0.1032 (RDP → (ε, δ)); 日本 🦀", 1
	sized := sampleFigure()
	sized.Name, sized.Note = "sized", long.Note
	sized.Width, sized.Height, sized.DPI = 5.3*vg.Inch, 7.1*vg.Inch, 150
	for _, f := range []*Figure{sampleFigure(), long, greek, sized} {
		got, err := Render(f, "png")
		if err != nil {
			t.Fatal(err)
		}
		want, err := render(f, "png", true)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the PNG differs with the footnote drawn apart", f.Name)
		}
		lay, err := f.layout()
		if err != nil {
			t.Fatal(err)
		}
		c := newPNGCanvas(lay.w, lay.h, lay.dpi)
		strip := noteStrip(c, lay)
		sty := lay.noteStyle
		sty.Handler = sty.Handler.(*measuredText).Plain
		(&draw.Canvas{Canvas: strip}).FillText(sty, notePoint, lay.note)
		if !c.pasteStrip(strip) {
			t.Errorf("%s: the footnote's strip was not used", f.Name)
		}
	}

	lay, err := sampleFigure().layout()
	if err != nil {
		t.Fatal(err)
	}
	draws := func(c *pngCanvas) *textStrip {
		s := noteStrip(c, lay)
		(&draw.Canvas{Canvas: s}).FillText(textStyle(noteSize), notePoint, lay.note)
		return s
	}
	c := newPNGCanvas(lay.w, lay.h, lay.dpi)
	s := draws(c)
	c.img.Set(5, c.img.Bounds().Max.Y-1, color.Black) // a pixel of the strip's rows, drawn on
	before := bytes.Clone(c.img.Pix)
	if c.pasteStrip(s) || !bytes.Equal(before, c.img.Pix) {
		t.Error("a strip was pasted over rows that are not all white")
	}
	c = newPNGCanvas(lay.w, lay.h, lay.dpi)
	s = draws(c)
	short := newTextStrip(c.img.Bounds().Dx(), (s.img.Rect.Min.Y+s.img.Rect.Max.Y)/2, s.img.Rect.Max.Y, lay.h, lay.dpi) // half the rows
	(&draw.Canvas{Canvas: short}).FillText(textStyle(noteSize), notePoint, lay.note)
	if c.pasteStrip(short) {
		t.Error("a strip whose glyphs did not all fit in it was pasted")
	}
	s.Stroke(vg.Path{})
	if c.pasteStrip(s) {
		t.Error("a strip asked to draw a path was pasted")
	}
}
