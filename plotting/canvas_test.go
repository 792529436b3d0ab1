package plotting

import (
	"bytes"
	"image"
	"image/color"
	"math"
	"testing"

	"gonum.org/v1/plot/text"
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
// (including rotated, like a y-axis label, and translucent over a line), a
// stroked path and a fill. Its texts have no kerned pair (sampleTexts):
// pngCanvas kerns at the text's size, vgimg (through x/image's
// opentype.Face.Kern) at 32 px per em (kerned, TestKerningAtTextSize).
func drawCanvasSample(c draw.Canvas) {
	style := textStyle(11)
	c.FillText(style, vg.Point{X: 10.3, Y: 7.7}, sampleTexts[0])
	centered := style
	centered.XAlign = draw.XCenter
	c.FillText(centered, vg.Point{X: c.Max.X / 2, Y: c.Max.Y - 20.1}, sampleTexts[1])
	rotated := style
	rotated.Rotation = 1.5707963267948966
	c.FillText(rotated, vg.Point{X: 20.4, Y: c.Max.Y / 2}, sampleTexts[2])
	c.StrokeLines(draw.LineStyle{Color: color.RGBA{R: 200, A: 255}, Width: 1.3},
		[]vg.Point{{X: 30, Y: 30}, {X: c.Max.X - 25.5, Y: c.Max.Y - 40.2}, {X: c.Max.X - 10, Y: 35.5}})
	c.FillPolygon(color.RGBA{B: 180, A: 255}, []vg.Point{{X: 50, Y: 50}, {X: 80.5, Y: 52}, {X: 66, Y: 90.25}})
	tinted := style
	tinted.Color = color.NRGBA{R: 200, G: 30, B: 90, A: 180} // translucent over the fill: the Over blend's rounding
	c.FillText(tinted, vg.Point{X: 45.6, Y: 61.3}, sampleTexts[3])
}

// sampleTexts are drawCanvasSample's texts.
var sampleTexts = []string{"footnote: rdp, δ = 1e-5 (ε ≈ 0.5)", "The figure's heading", "test MSE", "ℓ₂ ≤ 0.95 — [Lang '18] fi"}

// TestKerningAtTextSize (issue 35: the A and T of "NON-PRIVATE" overlapped
// in a caption line at 110 dpi): a PNG's text is kerned as gonum measures
// it (font.Face.Width, in font units), at every size and resolution; the
// sample texts of TestPNGCanvasMatchesVgimg have no kerned pair.
func TestKerningAtTextSize(t *testing.T) {
	for _, size := range []vg.Length{8, 11} {
		face := textStyle(size).Handler.(text.Plain).Fonts.Lookup(textStyle(size).Font, size)
		for _, dpi := range []float64{96, 110, 220} {
			k := newKerned(face, dpi)
			for _, pair := range []string{"AT", "AV", "Wa", "P,", "Ty"} {
				rs := []rune(pair)
				want := (face.Width(pair) - face.Width(string(rs[0])) - face.Width(string(rs[1]))).Dots(dpi)
				got := float64(k.Kern(rs[0], rs[1])) / 64
				if want == 0 || math.Abs(got-want) > 1.0/64 {
					t.Errorf("%v pt at %v dpi: kerning of %q %v px, want %v px (gonum's measure)", size, dpi, pair, got, want)
				}
			}
			for _, s := range sampleTexts {
				rs := []rune(s)
				for i := 1; i < len(rs); i++ {
					if kern := k.Kern(rs[i-1], rs[i]); kern != 0 {
						t.Errorf("sample text %q kerns %q: vgimg kerns it at another size", s, string(rs[i-1:i+1]))
					}
				}
			}
		}
	}
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
