package plotting

import (
	"image/draw"

	"git.sr.ht/~sbinet/gg"
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
type pngCanvas struct {
	*vgimg.Canvas
	ctx  *gg.Context
	w, h vg.Length // the figure's size, not rounded to whole pixels
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
	c := vgimg.NewWith(vgimg.UseImageWithContext(ctx.Image().(draw.Image), ctx), vgimg.UseDPI(dpi))
	return &pngCanvas{Canvas: c, ctx: ctx, w: w, h: h}
}

// Size returns the figure's size in points (vgimg's canvas over a given
// image would return the image's size rounded to whole pixels).
func (c *pngCanvas) Size() (w, h vg.Length) { return c.w, c.h }

// FillString draws s with its baseline's left end at pt, as vgimg's
// Canvas.FillString does, measuring y from the figure's exact height.
func (c *pngCanvas) FillString(f font.Face, pt vg.Point, s string) {
	if f.Font.Size == 0 {
		return
	}
	c.ctx.Push()
	defer c.ctx.Pop()
	face := f.FontFace(c.DPI())
	defer face.Close()
	c.ctx.SetFontFace(face)
	dpi := c.DPI()
	c.ctx.InvertY()
	c.ctx.DrawString(s, pt.X.Dots(dpi), c.h.Dots(dpi)-pt.Y.Dots(dpi))
}
