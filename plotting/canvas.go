package plotting

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"math"

	"git.sr.ht/~sbinet/gg"
	xfont "golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
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
// Canvas.FillString does, measuring y from the figure's exact height, and
// with the font's kerning at the text's size (kerned).
func (c *pngCanvas) FillString(f font.Face, pt vg.Point, s string) {
	if f.Font.Size == 0 {
		return
	}
	dpi := c.DPI()
	face := newKerned(f, dpi)
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

// kerned is the face f.FontFace(dpi) with the kerning of its font at its
// size. x/image's opentype.Face.Kern (v0.30.0) evaluates the kerning at
// fixed.Int26_6(UnitsPerEm) pixels per em whatever the face's size: 32
// px for Liberation Serif's 2048 units, so an 8 pt text at 110 dpi (12.2
// px per em) was kerned 2.6 times too tight, and the A and T of
// "NON-PRIVATE" in a caption line overlapped. gonum's measurements
// (font.Face.Width) kern in font units and were right: the drawn text
// was narrower than measured.
type kerned struct {
	xfont.Face
	font *sfnt.Font
	ppem fixed.Int26_6 // the face's size in pixels per em, as opentype.NewFace rounds it
	buf  sfnt.Buffer
}

// newKerned returns the face of f at dpi with its kerning at its size.
func newKerned(f font.Face, dpi float64) *kerned {
	return &kerned{Face: f.FontFace(dpi), font: f.Face, ppem: fixed.Int26_6(0.5 + f.Font.Size.Points()*dpi*64/72)}
}

// Kern implements xfont.Face: the kerning of r0 and r1 at the face's
// size, unhinted (as the face's glyphs are), 0 where the font has none.
func (k *kerned) Kern(r0, r1 rune) fixed.Int26_6 {
	g0, err0 := k.font.GlyphIndex(&k.buf, r0)
	g1, err1 := k.font.GlyphIndex(&k.buf, r1)
	if err0 != nil || err1 != nil {
		return 0
	}
	v, err := k.font.Kern(&k.buf, g0, g1, k.ppem, xfont.HintingNone)
	if err != nil {
		return 0
	}
	return v
}

// drawText draws s on img as gg's drawString (x/image/font's
// Drawer.DrawString) does, with the glyphs drawn by draw.DrawMask: the pen
// at round(64·x)/64, round(64·y)/64 in pixels (the baseline's left end),
// kerning between drawn runes, a rune without a glyph skipped.
func drawText(img *image.RGBA, face xfont.Face, x, y float64, s string, clr color.Color) {
	src := image.NewUniform(clr)
	dot := fixed.Point26_6{X: fixed.Int26_6(math.Round(x * 64)), Y: fixed.Int26_6(math.Round(y * 64))}
	prev := rune(-1)
	for _, r := range s {
		if prev >= 0 {
			dot.X += face.Kern(prev, r)
		}
		dr, mask, maskp, advance, ok := face.Glyph(dot, r)
		if !ok {
			continue
		}
		draw.DrawMask(img, dr, src, image.Point{}, mask, maskp, draw.Over)
		dot.X += advance
		prev = r
	}
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
