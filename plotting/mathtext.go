package plotting

import (
	"math"
	"slices"
	"strings"
	"unicode"

	xfont "golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// Math in figure texts. A title, an axis label, a legend entry, a tick
// label or a caption may set sub- and superscripts as math, in a small
// TeX-like markup:
//
//   - "_{…}" and "^{…}" set the braces' content as a subscript or a
//     superscript ("δ_{min}", "10^{-7}"; no nesting);
//   - "_c" and "^c", c one letter or digit that no letter or digit
//     follows, set c alone ("θ_t" is θₜ, "D_α" is D with subscript α;
//     "eps_per_run" and "excess_objective" are left as they are, since a
//     letter follows);
//   - Unicode sub- and superscript characters ("θₜ", "10⁻⁷", "σ²") are
//     set the same way, from the base glyphs: the figures' font (Liberation
//     Serif) has no ₜ, ⁻ or ⁰;
//   - a combining mark (U+0300–U+036F, "ε̃") is centred over the glyph it
//     follows (the font has the marks, with no advance and placed for a
//     shaping engine the renderer does not have).
//
// Figures draw the markup (mathText); caption files write it as Unicode
// (PlainText, in Markdown) or as LaTeX math (TeX).

// textRun is a piece of a text set one way: on the baseline (shift 0),
// raised (+1) or lowered (−1).
type textRun struct {
	text  string
	shift int
}

// superscripts and subscripts map the characters that have a Unicode
// super- or subscript form to it.
var (
	superscripts = map[rune]rune{'0': '⁰', '1': '¹', '2': '²', '3': '³', '4': '⁴', '5': '⁵', '6': '⁶', '7': '⁷', '8': '⁸', '9': '⁹',
		'+': '⁺', '-': '⁻', '−': '⁻', '=': '⁼', '(': '⁽', ')': '⁾', 'n': 'ⁿ', 'i': 'ⁱ', 'T': 'ᵀ'}
	subscripts = map[rune]rune{'0': '₀', '1': '₁', '2': '₂', '3': '₃', '4': '₄', '5': '₅', '6': '₆', '7': '₇', '8': '₈', '9': '₉',
		'+': '₊', '-': '₋', '−': '₋', '=': '₌', '(': '₍', ')': '₎', 'a': 'ₐ', 'e': 'ₑ', 'o': 'ₒ', 'x': 'ₓ', 'h': 'ₕ',
		'k': 'ₖ', 'l': 'ₗ', 'm': 'ₘ', 'n': 'ₙ', 'p': 'ₚ', 's': 'ₛ', 't': 'ₜ', 'i': 'ᵢ', 'j': 'ⱼ', 'r': 'ᵣ', 'u': 'ᵤ',
		'v': 'ᵥ', 'β': 'ᵦ', 'γ': 'ᵧ', 'ρ': 'ᵨ', 'φ': 'ᵩ', 'χ': 'ᵪ'}
	// scriptBase maps a Unicode super- or subscript character back to its
	// base character and shift.
	scriptBase = func() map[rune]textRun {
		m := map[rune]textRun{}
		for b, s := range superscripts {
			if b != '−' {
				m[s] = textRun{string(b), 1}
			}
		}
		for b, s := range subscripts {
			if b != '−' {
				m[s] = textRun{string(b), -1}
			}
		}
		return m
	}()
)

// hasMarkup reports whether s holds anything parseMath sets apart from
// plain text, combining marks included.
func hasMarkup(s string) bool {
	for _, r := range s {
		if r == '_' || r == '^' || isMark(r) {
			return true
		}
		if _, ok := scriptBase[r]; ok {
			return true
		}
	}
	return false
}

func isMark(r rune) bool { return r >= 0x300 && r <= 0x36f }

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// parseMath splits s into runs by the markup above; adjacent runs of one
// shift are joined. The run being joined grows in a strings.Builder, not by
// string concatenation, which copied it at every rune: quadratic in its
// length (5 CPU-seconds of the golden test's caption checks, which read
// whole SVG figures through PlainText).
func parseMath(s string) []textRun {
	rs := []rune(s)
	var out []textRun
	var last strings.Builder // the text of the last run, out's last element once flushed
	lastShift, open := 0, false
	flush := func() {
		if open {
			out = append(out, textRun{last.String(), lastShift})
			last.Reset()
			open = false
		}
	}
	add := func(text string, shift int) {
		if text == "" {
			return
		}
		if open && lastShift != shift {
			flush()
		}
		last.WriteString(text)
		lastShift, open = shift, true
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if sc, ok := scriptBase[r]; ok {
			add(sc.text, sc.shift)
			continue
		}
		if (r == '_' || r == '^') && i > 0 && !unicode.IsSpace(rs[i-1]) && i+1 < len(rs) {
			shift := 1
			if r == '_' {
				shift = -1
			}
			if rs[i+1] == '{' {
				if end := slices.Index(rs[i+2:], '}'); end > 0 {
					add(string(rs[i+2:i+2+end]), shift)
					i += 2 + end
					continue
				}
			} else if isAlnum(rs[i+1]) && (i+2 == len(rs) || !isAlnum(rs[i+2]) && !isMark(rs[i+2])) {
				add(string(rs[i+1]), shift)
				i++
				continue
			}
		}
		add(string(r), 0)
	}
	flush()
	return out
}

// PlainText writes s's markup as Unicode: a sub- or superscript whose
// every character has a Unicode form in it ("θ_t" → "θₜ", "10^{-7}" →
// "10⁻⁷"), else as "_{…}" or "^{…}" (a single character without braces).
// Caption files in Markdown are written through it.
func PlainText(s string) string {
	if !hasMarkup(s) {
		return s
	}
	var b strings.Builder
	for _, r := range parseMath(s) {
		if r.shift == 0 {
			b.WriteString(r.text)
			continue
		}
		table, mark := superscripts, "^"
		if r.shift < 0 {
			table, mark = subscripts, "_"
		}
		conv, ok := convert(r.text, table)
		switch {
		case ok:
			b.WriteString(conv)
		case len([]rune(r.text)) == 1:
			b.WriteString(mark + r.text)
		default:
			b.WriteString(mark + "{" + r.text + "}")
		}
	}
	return b.String()
}

// convert maps every rune of s through table; ok is false when one has no
// entry.
func convert(s string, table map[rune]rune) (string, bool) {
	var b strings.Builder
	for _, r := range s {
		c, ok := table[r]
		if !ok {
			return "", false
		}
		b.WriteRune(c)
	}
	return b.String(), true
}

// Shifted text: a sub- or superscript is set at scriptScale of the font
// size, its baseline raised by supRaise or lowered by subDrop times the
// font size (close to TeX's defaults for text sizes).
const (
	scriptScale = 0.7
	supRaise    = 0.36
	subDrop     = 0.18
)

// mathText draws and measures texts with the markup above in the fonts of
// a text.Plain handler. A text without markup is measured and drawn as
// text.Plain does, glyph for glyph.
type mathText struct {
	text.Plain
}

// scriptFont is fnt at the size of a sub- or superscript.
func scriptFont(fnt font.Font) font.Font {
	fnt.Size *= scriptScale
	return fnt
}

// runFont is the font of a run of shift in fnt.
func runFont(fnt font.Font, shift int) font.Font {
	if shift == 0 {
		return fnt
	}
	return scriptFont(fnt)
}

// Box implements text.Handler: the runs side by side, the superscripts'
// tops and the subscripts' bottoms counted.
func (h mathText) Box(txt string, fnt font.Font) (width, height, depth vg.Length) {
	if !hasMarkup(txt) {
		return h.Plain.Box(txt, fnt)
	}
	ext := h.Plain.Extents(fnt)
	height, depth = ext.Ascent, ext.Descent
	for _, r := range parseMath(txt) {
		f := runFont(fnt, r.shift)
		face := h.Fonts.Lookup(f, f.Size)
		width += face.Width(stripMarks(r.text))
		switch r.shift {
		case 1:
			height = max(height, vg.Length(supRaise)*fnt.Size+face.Extents().Ascent)
		case -1:
			depth = max(depth, vg.Length(subDrop)*fnt.Size+face.Extents().Descent)
		}
	}
	return width, height, depth
}

// stripMarks drops the combining marks of s (they take no width).
func stripMarks(s string) string {
	if !strings.ContainsFunc(s, isMark) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isMark(r) {
			return -1
		}
		return r
	}, s)
}

// Draw implements text.Handler as text.Plain does (alignment, rotation,
// lines), each line drawn run by run.
func (h mathText) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	txt = strings.TrimRight(txt, "\n")
	if len(txt) == 0 {
		return
	}
	if !hasMarkup(txt) {
		h.Plain.Draw(c, txt, sty, pt)
		return
	}
	fnt := h.Fonts.Lookup(sty.Font, sty.Font.Size)
	c.SetColor(sty.Color)
	if sty.Rotation != 0 {
		c.Push()
		c.Rotate(sty.Rotation)
	}
	// As text.Plain.Draw: pt in the rotated frame, the lines stacked one
	// font size apart from the bottom one up.
	sin64, cos64 := math.Sincos(sty.Rotation)
	cos, sin := vg.Length(cos64), vg.Length(sin64)
	pt.X, pt.Y = pt.Y*sin+pt.X*cos, pt.Y*cos-pt.X*sin
	lines := h.Lines(txt)
	pt.Y += sty.Height(txt)*vg.Length(sty.YAlign) - fnt.Extents().Ascent
	for i, line := range lines {
		w, _, _ := h.Box(line, sty.Font)
		at := pt.Add(vg.Point{X: vg.Length(sty.XAlign) * w, Y: vg.Length(len(lines)-i) * sty.Font.Size})
		h.drawLine(c, line, sty.Font, at)
	}
	if sty.Rotation != 0 {
		c.Pop()
	}
}

// drawLine draws one line of markup with its baseline's left end at pt.
func (h mathText) drawLine(c vg.Canvas, line string, fnt font.Font, pt vg.Point) {
	for _, r := range parseMath(line) {
		f := runFont(fnt, r.shift)
		face := h.Fonts.Lookup(f, f.Size)
		at := pt
		switch r.shift {
		case 1:
			at.Y += vg.Length(supRaise) * fnt.Size
		case -1:
			at.Y -= vg.Length(subDrop) * fnt.Size
		}
		pt.X += drawMarked(c, face, at, r.text)
	}
}

// drawMarked draws s in face at pt, each combining mark centred over the
// glyph before it, and returns the width drawn.
func drawMarked(c vg.Canvas, face font.Face, pt vg.Point, s string) vg.Length {
	if !strings.ContainsFunc(s, isMark) {
		c.FillString(face, pt, s)
		return face.Width(s)
	}
	x := pt.X
	var plain strings.Builder
	var last rune // the glyph the next mark goes over
	var lastX vg.Length
	flush := func() {
		if plain.Len() > 0 {
			c.FillString(face, vg.Point{X: x, Y: pt.Y}, plain.String())
			x += face.Width(plain.String())
			plain.Reset()
		}
	}
	for _, r := range s {
		if isMark(r) && last != 0 {
			flush()
			base, _ := glyphBox(face, last)
			mark, _ := glyphBox(face, r)
			c.FillString(face, vg.Point{X: lastX + (base.Min.X+base.Max.X)/2 - (mark.Min.X+mark.Max.X)/2, Y: pt.Y}, string(r))
			continue
		}
		lastX = x + face.Width(plain.String())
		plain.WriteRune(r)
		last = r
	}
	flush()
	return x - pt.X
}

// glyphBox is r's ink box in face, in points from the pen (y up), and its
// advance.
func glyphBox(face font.Face, r rune) (vg.Rectangle, vg.Length) {
	var buf sfnt.Buffer
	g, err := face.Face.GlyphIndex(&buf, r)
	if err != nil || g == 0 {
		return vg.Rectangle{}, 0
	}
	ppem := fixed.Int26_6(face.Face.UnitsPerEm())
	b, adv, err := face.Face.GlyphBounds(&buf, g, ppem, xfont.HintingNone)
	if err != nil {
		return vg.Rectangle{}, 0
	}
	scale := face.Font.Size / font.Points(float64(ppem))
	pts := func(v fixed.Int26_6) vg.Length { return font.Points(float64(v)) * scale }
	return vg.Rectangle{Min: vg.Point{X: pts(b.Min.X), Y: -pts(b.Max.Y)}, Max: vg.Point{X: pts(b.Max.X), Y: -pts(b.Min.Y)}}, pts(adv)
}
