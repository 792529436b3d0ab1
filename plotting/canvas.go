package plotting

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"math"

	"git.sr.ht/~sbinet/gg"
	xfont "golang.org/x/image/font"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
)

// pngCanvas is the raster canvas a PNG figure is drawn on. It is vgimg's
// canvas, built over an image and a gg context made here rather than by
// vgimg.NewWith(UseWH, UseDPI), which allocates the image and then copies
// it whole into the context's own (gg.NewContextForImage): one full-size
// allocation and copy per figure, a measurable share of a run's rendering.
// The pixels drawn are the same: same image size, same context state, and
// Size and FillString use the figure's exact size in points, as vgimg's
// canvas does when given UseWH (TestPNGCanvasMatchesVgimg).
//
// Text without a rotation, scale or translation in effect (all of a
// figure's but the y-axis title) is drawn glyph by glyph with image/draw's
// masked Over, which has a fast path for a uniform colour through a glyph
// mask, rather than through gg, which draws every glyph through
// x/image/draw's bilinear Transform by way of generic per-pixel At calls
// (most of a figure's text cost). With no transform that Transform samples
// the mask at whole pixels, so the pixels are the same
// (TestPNGCanvasMatchesVgimg, and the golden figures).
type pngCanvas struct {
	*vgimg.Canvas
	ctx  *gg.Context
	img  *image.RGBA
	w, h vg.Length // the figure's size, not rounded to whole pixels
	// text mirrors, per Push level, the context state text drawing needs:
	// the colour and whether any transform has been applied.
	text []textState
}

type textState struct {
	color       color.Color
	transformed bool
}

// newPNGCanvas returns a white canvas of w × h at dpi pixels per inch.
func newPNGCanvas(w, h vg.Length, dpi int) *pngCanvas {
	// vgimg.NewWith sizes the image as round(length/inch · dpi) pixels.
	px := func(l vg.Length) int { return int(l/vg.Inch*vg.Length(dpi) + 0.5) }
	ctx := gg.NewContext(px(w), px(h))
	// The state vgimg.NewWith gives the context it makes: butt line caps
	// and y pointing up.
	ctx.SetLineCapButt()
	ctx.InvertY()
	img := ctx.Image().(*image.RGBA)
	c := vgimg.NewWith(vgimg.UseImageWithContext(img, ctx), vgimg.UseDPI(dpi))
	// vgimg's canvas starts black (its colour stack's first entry).
	return &pngCanvas{Canvas: c, ctx: ctx, img: img, w: w, h: h, text: []textState{{color: color.Black}}}
}

// Size returns the figure's size in points (vgimg's canvas over a given
// image would return the image's size rounded to whole pixels).
func (c *pngCanvas) Size() (w, h vg.Length) { return c.w, c.h }

// SetColor implements vg.Canvas.
func (c *pngCanvas) SetColor(clr color.Color) {
	c.Canvas.SetColor(clr)
	if clr == nil {
		clr = color.Black // as vgimg does
	}
	c.text[len(c.text)-1].color = clr
}

// Push implements vg.Canvas.
func (c *pngCanvas) Push() {
	c.Canvas.Push()
	c.text = append(c.text, c.text[len(c.text)-1])
}

// Pop implements vg.Canvas.
func (c *pngCanvas) Pop() {
	c.Canvas.Pop()
	c.text = c.text[:len(c.text)-1]
}

// Rotate implements vg.Canvas.
func (c *pngCanvas) Rotate(t float64) {
	c.Canvas.Rotate(t)
	c.text[len(c.text)-1].transformed = true
}

// Translate implements vg.Canvas.
func (c *pngCanvas) Translate(pt vg.Point) {
	c.Canvas.Translate(pt)
	c.text[len(c.text)-1].transformed = true
}

// Scale implements vg.Canvas.
func (c *pngCanvas) Scale(x, y float64) {
	c.Canvas.Scale(x, y)
	c.text[len(c.text)-1].transformed = true
}

// FillString draws s with its baseline's left end at pt, as vgimg's
// Canvas.FillString does, measuring y from the figure's exact height.
func (c *pngCanvas) FillString(f font.Face, pt vg.Point, s string) {
	if f.Font.Size == 0 {
		return
	}
	dpi := c.DPI()
	face := f.FontFace(dpi)
	defer face.Close()
	x, y := pt.X.Dots(dpi), c.h.Dots(dpi)-pt.Y.Dots(dpi)
	st := c.text[len(c.text)-1]
	if st.transformed {
		c.ctx.Push()
		defer c.ctx.Pop()
		c.ctx.SetFontFace(face)
		c.ctx.InvertY()
		c.ctx.DrawString(s, x, y)
		return
	}
	drawText(c.img, face, x, y, s, st.color)
}

// drawText draws s on img as gg's drawString (x/image/font's
// Drawer.DrawString) does, with the glyphs drawn by draw.DrawMask: the pen
// at round(64·x)/64, round(64·y)/64 in pixels (the baseline's left end),
// kerning between drawn runes, a rune without a glyph skipped. It reports
// whether every glyph fell within img's bounds.
func drawText(img *image.RGBA, face xfont.Face, x, y float64, s string, clr color.Color) (inside bool) {
	src := image.NewUniform(clr)
	dot := fixed.Point26_6{X: fixed.Int26_6(math.Round(x * 64)), Y: fixed.Int26_6(math.Round(y * 64))}
	prev := rune(-1)
	inside = true
	for _, r := range s {
		if prev >= 0 {
			dot.X += face.Kern(prev, r)
		}
		dr, mask, maskp, advance, ok := face.Glyph(dot, r)
		if !ok {
			continue
		}
		inside = inside && dr.In(img.Rect)
		draw.DrawMask(img, dr, src, image.Point{}, mask, maskp, draw.Over)
		dot.X += advance
		prev = r
	}
	return inside
}

// textStrip draws a figure's footnote on rows of its own, full width, on
// another goroutine while the panels are drawn on the figure's canvas,
// for render to paste over the canvas's rows when they are still white
// there (nothing else drew on them): a glyph drawn Over white is the same
// wherever it is drawn, so the pixels are those of drawing the footnote
// last on the canvas itself (TestFootnoteStripMatchesCanvas). It draws
// plain text only: any transform, path or image, or a glyph that falls
// outside its rows, makes it unusable (ok false) and render draws the
// footnote on the canvas instead.
type textStrip struct {
	img   *image.RGBA // the strip's rows, in the figure's pixel coordinates; white on entry
	h     vg.Length   // the figure's height
	dpi   float64
	color color.Color
	ok    bool
}

// newTextStrip returns a white strip of the rows [y0, y1) of a figure
// w pixels wide and h tall at dpi.
func newTextStrip(w, y0, y1 int, h vg.Length, dpi int) *textStrip {
	img := image.NewRGBA(image.Rect(0, y0, w, y1))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	return &textStrip{img: img, h: h, dpi: float64(dpi), color: color.Black, ok: true}
}

// SetColor implements vg.Canvas.
func (t *textStrip) SetColor(clr color.Color) {
	if clr == nil {
		clr = color.Black // as vgimg does
	}
	t.color = clr
}

// FillString implements vg.Canvas, as pngCanvas.FillString draws plain text.
func (t *textStrip) FillString(f font.Face, pt vg.Point, s string) {
	if f.Font.Size == 0 {
		return
	}
	face := f.FontFace(t.dpi)
	defer face.Close()
	if !drawText(t.img, face, pt.X.Dots(t.dpi), t.h.Dots(t.dpi)-pt.Y.Dots(t.dpi), s, t.color) {
		t.ok = false
	}
}

// The rest of vg.Canvas: state a plain text does not change is ignored;
// anything else makes the strip unusable.
func (t *textStrip) SetLineWidth(vg.Length)              {}
func (t *textStrip) SetLineDash([]vg.Length, vg.Length)  {}
func (t *textStrip) Push()                               {}
func (t *textStrip) Pop()                                {}
func (t *textStrip) Rotate(float64)                      { t.ok = false }
func (t *textStrip) Translate(vg.Point)                  { t.ok = false }
func (t *textStrip) Scale(float64, float64)              { t.ok = false }
func (t *textStrip) Stroke(vg.Path)                      { t.ok = false }
func (t *textStrip) Fill(vg.Path)                        { t.ok = false }
func (t *textStrip) DrawImage(vg.Rectangle, image.Image) { t.ok = false }

// pasteStrip copies t's rows over c's and reports true when t is usable
// and c's rows are all opaque white; otherwise it changes nothing.
func (c *pngCanvas) pasteStrip(t *textStrip) bool {
	if !t.ok || !t.img.Rect.In(c.img.Rect) {
		return false
	}
	r := t.img.Rect
	if !whitePixels(c.img, r) {
		return false
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		copy(c.img.Pix[c.img.PixOffset(r.Min.X, y):][:4*r.Dx()], t.img.Pix[t.img.PixOffset(r.Min.X, y):][:4*r.Dx()])
	}
	return true
}

// whiteUnder reports whether every pixel under r, a rectangle in points
// (a pixel to spare around it), is opaque white. Render then leaves out a
// panel's white background fill over r: gg fills it through freetype's
// RGBAPainter, whose Over blend of opaque white (every channel 0xffff)
// onto a channel of 255 at any coverage α gives
// (255·257·(m−α) + m·α)/m >> 8 = m >> 8 = 255, m = 0xffff, so the fill
// would change no pixel, and it costs a rasterisation of nearly the whole
// figure.
func (c *pngCanvas) whiteUnder(r vg.Rectangle) bool {
	dpi := c.DPI()
	b := c.img.Bounds()
	h := float64(b.Dy()) // gg's InvertY flips y about the image's height in pixels
	x0 := max(b.Min.X, int(math.Floor(r.Min.X.Dots(dpi)))-1)
	x1 := min(b.Max.X, int(math.Ceil(r.Max.X.Dots(dpi)))+1)
	y0 := max(b.Min.Y, int(math.Floor(h-r.Max.Y.Dots(dpi)))-1)
	y1 := min(b.Max.Y, int(math.Ceil(h-r.Min.Y.Dots(dpi)))+1)
	return whitePixels(c.img, image.Rect(x0, y0, x1, y1))
}

// whitePixels reports whether every pixel of img in r (within its bounds)
// is opaque white.
func whitePixels(img *image.RGBA, r image.Rectangle) bool {
	if r.Empty() {
		return true
	}
	white := bytes.Repeat([]byte{0xff}, r.Dx()*4)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		i := img.PixOffset(r.Min.X, y)
		if !bytes.Equal(img.Pix[i:i+len(white)], white) {
			return false
		}
	}
	return true
}
