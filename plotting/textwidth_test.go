package plotting

import (
	"math/rand/v2"
	"strings"
	"testing"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// meterTexts are texts with kerned pairs (AV, To, Wa, LT, "y."), Greek,
// symbols a figure's notes use, a rune the font lacks, and empty ones.
var meterTexts = []string{
	"", " ", "A", "AV", "AVAWAT To Wa LT y. r, f'", "ε = 0.1; δ = min(1e-6, 0.01/n)",
	"Sheffet '17 (ours)", "S·[X y] + σΞ", "1.96·SE — ≥ ≤ ×", "\u2603 snowman", "  two  spaces  ",
	"Accountant: rdp (orders default); neighbouring: add/remove (AdaSSP [Wang '18])",
}

// TestLineMeterMatchesWidth: a text's width from its measure, and from
// the join of the measures of any two parts of it, is exactly what
// text.Style.Width (gonum's font.Face.Width) gives, at each text size a
// figure uses.
func TestLineMeterMatchesWidth(t *testing.T) {
	for _, size := range []vg.Length{titleSize, captionSize, 10, 11.5} {
		sty := textStyle(size)
		m := newLineMeter(sty)
		if m == nil {
			t.Fatal("no meter for the plain text handler")
		}
		for _, s := range meterTexts {
			want := sty.Width(s)
			if got := m.width(m.measure(s)); got != want {
				t.Errorf("size %v, %q: width %v, want %v", size, s, got, want)
			}
			for cut := range len(s) + 1 {
				if !validCut(s, cut) {
					continue
				}
				if got := m.width(m.join(m.measure(s[:cut]), m.measure(s[cut:]))); got != want {
					t.Errorf("size %v, %q cut at %d: width %v, want %v", size, s, cut, got, want)
				}
			}
		}
	}
}

// validCut reports whether byte offset cut of s starts a rune.
func validCut(s string, cut int) bool { return cut == len(s) || s[cut]&0xC0 != 0x80 }

// remeasuredWrap is wrap as it was before lineMeter: each candidate line
// measured whole with sty.Width. It is the oracle of TestWrapMatchesRemeasuring.
func remeasuredWrap(s string, sty text.Style, width vg.Length) string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, w := range strings.Fields(para) {
			if line != "" && sty.Width(line+" "+w) > width {
				out = append(out, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += w
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// otherHandler is text.Plain under another type: wrap cannot assume its
// widths are font.Face.Width's and measures with sty.Width.
type otherHandler struct{ text.Plain }

// TestWrapMatchesRemeasuring: wrap breaks random footnotes, at widths
// from one word to a page, exactly where measuring each candidate line
// whole breaks them, with the plain handler and measuredText (lineMeter)
// and another one.
func TestWrapMatchesRemeasuring(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var words []string
	for _, s := range meterTexts {
		words = append(words, strings.Fields(s)...)
	}
	for _, size := range []vg.Length{captionSize, titleSize} {
		plain := textStyle(size)
		other := plain
		other.Handler = otherHandler{plain.Handler.(text.Plain)}
		measured := plain
		newMeasuredText().use(&measured)
		if newLineMeter(measured) == nil {
			t.Fatal("no meter for measuredText")
		}
		for range 200 {
			var b strings.Builder
			for range r.IntN(120) {
				b.WriteString(words[r.IntN(len(words))])
				b.WriteString([]string{" ", " ", "  ", "\n", " "}[r.IntN(5)])
			}
			s := b.String()
			width := vg.Length(10 + r.Float64()*600)
			want := remeasuredWrap(s, plain, width)
			for _, sty := range []text.Style{plain, other, measured} {
				if got := wrap(s, sty, width); got != want {
					t.Fatalf("size %v, width %v, %T: wrap(%q) =\n%s\nwant\n%s", size, width, sty.Handler, s, got, want)
				}
			}
		}
	}
}

// TestMeasuredTextMatchesPlain: measuredText gives text.Plain's boxes and
// extents, the first time and when it remembers them, for texts of
// several fonts and sizes; use takes only styles with gonum's plain
// handler.
func TestMeasuredTextMatchesPlain(t *testing.T) {
	m := newMeasuredText()
	var styles []text.Style
	for _, size := range []vg.Length{captionSize, titleSize, 10} {
		sty := textStyle(size)
		italic := sty
		italic.Font.Style = xfont.StyleItalic
		styles = append(styles, sty, italic)
	}
	for i := range styles {
		m.use(&styles[i])
	}
	plain := textStyle(captionSize).Handler.(text.Plain)
	for range 2 {
		for _, sty := range styles {
			if sty.Handler != text.Handler(m) {
				t.Fatalf("use left %T", sty.Handler)
			}
			if got, want := m.Extents(sty.Font), plain.Extents(sty.Font); got != want {
				t.Errorf("%v: extents %v, want %v", sty.Font, got, want)
			}
			for _, s := range meterTexts {
				w, h, d := m.Box(s, sty.Font)
				pw, ph, pd := plain.Box(s, sty.Font)
				if w != pw || h != ph || d != pd {
					t.Errorf("%v, %q: box %v %v %v, want %v %v %v", sty.Font, s, w, h, d, pw, ph, pd)
				}
			}
		}
	}
	other := textStyle(captionSize)
	other.Handler = otherHandler{plain}
	m.use(&other)
	if _, ok := other.Handler.(otherHandler); !ok {
		t.Errorf("use replaced another handler: %T", other.Handler)
	}
}
