package plotting

import (
	"errors"
	"fmt"

	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	gfont "gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// lineMeter measures one-line texts in one font as gonum's
// font.Face.Width does, but in the font's own units, which add up: a
// text's width in units is the sum of its glyphs' advances and of the
// kerning between consecutive glyphs (unhinted, at one unit per em, an
// integer), converted to points only at the end. So the width of
// a + " " + b is units(a) + the space's advance and kerning on both sides
// + units(b), exactly, and wrap can grow a line word by word instead of
// remeasuring it from its start for every word (quadratic in a footnote's
// line length; most of a figure's layout time).
type lineMeter struct {
	face  *sfnt.Font
	buf   sfnt.Buffer
	ppem  fixed.Int26_6
	scale vg.Length // points per unit, as font.Face.Width computes it
}

// newLineMeter returns the meter of sty's font, or nil when sty's widths
// do not come from font.Face.Width alone (a handler other than
// text.Plain, or measuredText standing for one).
func newLineMeter(sty text.Style) *lineMeter {
	h, ok := sty.Handler.(text.Plain)
	if m, measured := sty.Handler.(*measuredText); measured {
		h, ok = m.Plain, true
	}
	if !ok || h.Fonts == nil {
		return nil
	}
	f := h.Fonts.Lookup(sty.Font, sty.Font.Size)
	if f.Face == nil {
		return nil
	}
	ppem := fixed.Int26_6(f.Face.UnitsPerEm())
	return &lineMeter{face: f.Face, ppem: ppem, scale: f.Font.Size / gfont.Points(float64(ppem))}
}

// span is a measured text: its width in font units and its first and last
// glyphs (for the kerning at its ends); empty for "".
type span struct {
	units       int
	first, last sfnt.GlyphIndex
	empty       bool
}

// measure returns s's span. Like font.Face.Width it panics when the font
// cannot map a rune or give an advance (Render turns panics into errors).
func (m *lineMeter) measure(s string) span {
	sp := span{empty: true}
	for _, r := range s {
		g, err := m.face.GlyphIndex(&m.buf, r)
		if err != nil {
			panic(fmt.Errorf("could not get glyph index: %v", err))
		}
		adv, err := m.face.GlyphAdvance(&m.buf, g, m.ppem, font.HintingNone)
		if err != nil {
			panic(fmt.Errorf("could not retrieve glyph's advance: %v", err))
		}
		if sp.empty {
			sp.first, sp.empty = g, false
		} else {
			sp.units += m.kern(sp.last, g)
		}
		sp.units += int(adv)
		sp.last = g
	}
	return sp
}

// kern is the kerning between glyphs a and b in font units: 0 when the
// font has none for the pair.
func (m *lineMeter) kern(a, b sfnt.GlyphIndex) int {
	k, err := m.face.Kern(&m.buf, a, b, m.ppem, font.HintingNone)
	switch {
	case err == nil:
		return int(k)
	case errors.Is(err, sfnt.ErrNotFound):
		return 0
	}
	panic(fmt.Errorf("could not get kerning: %v", err))
}

// join returns the span of a's text followed by b's.
func (m *lineMeter) join(a, b span) span {
	switch {
	case a.empty:
		return b
	case b.empty:
		return a
	}
	return span{units: a.units + m.kern(a.last, b.first) + b.units, first: a.first, last: b.last}
}

// width converts a span's units to points as font.Face.Width does.
func (m *lineMeter) width(sp span) vg.Length { return gfont.Points(float64(sp.units)) * m.scale }

// measuredText is a figure's text handler: mathText (text.Plain with
// sub- and superscripts) with each box (a text's width, height and depth
// in a font) and each font's extents computed once. gonum measures a tick label, a title or a legend entry
// again at every step of a layout (plot.Align, DataCanvas, the legend's
// candidate places) and again when drawing; text.Plain's answers depend
// on the text and font only, so the remembered ones are the same. A
// figure's layout makes one (Figure.layout), used by the goroutine that
// renders the figure only.
type measuredText struct {
	mathText // the handler it stands for (text.Plain with math); set by use
	boxes    map[measureKey][3]vg.Length
	extents  map[gfont.Font]gfont.Extents
}

type measureKey struct {
	txt string
	fnt gfont.Font
}

func newMeasuredText() *measuredText {
	return &measuredText{boxes: map[measureKey][3]vg.Length{}, extents: map[gfont.Font]gfont.Extents{}}
}

// Box implements text.Handler.
func (m *measuredText) Box(txt string, fnt gfont.Font) (width, height, depth vg.Length) {
	k := measureKey{txt, fnt}
	b, ok := m.boxes[k]
	if !ok {
		b[0], b[1], b[2] = m.mathText.Box(txt, fnt)
		m.boxes[k] = b
	}
	return b[0], b[1], b[2]
}

// Extents implements text.Handler.
func (m *measuredText) Extents(fnt gfont.Font) gfont.Extents {
	e, ok := m.extents[fnt]
	if !ok {
		e = m.Plain.Extents(fnt)
		m.extents[fnt] = e
	}
	return e
}

// use makes m the handler of those of styles whose handler is a
// text.Plain over the fonts of the first one (gonum's default handler, as
// plot.New and textStyle set it); any other handler is kept.
func (m *measuredText) use(styles ...*text.Style) {
	for _, s := range styles {
		if h, ok := s.Handler.(text.Plain); ok && (m.Fonts == nil || m.Fonts == h.Fonts) {
			m.Plain, s.Handler = h, m
		}
	}
}
