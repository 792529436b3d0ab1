package plotting

import (
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// Issue 35: figures fit for a paper by default.

// TestMathMarkup: "_{…}", "^{…}", "_c" and "^c" before a non-letter, and
// Unicode sub- and superscripts set runs apart; "eps_per_run" and
// "excess_objective" stay plain; PlainText writes them as Unicode where
// every character has a form, TeX as \textsubscript/\textsuperscript.
func TestMathMarkup(t *testing.T) {
	for _, tc := range []struct {
		in    string
		runs  []textRun
		plain string
		tex   string
	}{
		{"F(θ_t) − F*", []textRun{{"F(θ", 0}, {"t", -1}, {") − F*", 0}}, "F(θₜ) − F*", `F($\theta$\textsubscript{t}) $-$ F*`},
		{"10^{−7}", []textRun{{"10", 0}, {"−7", 1}}, "10⁻⁷", `10\textsuperscript{$-$7}`},
		{"bound / exact D_α", []textRun{{"bound / exact D", 0}, {"α", -1}}, "bound / exact D_α", `bound / exact D\textsubscript{$\alpha$}`},
		{"δ_{min} = 0.1", []textRun{{"δ", 0}, {"min", -1}, {" = 0.1", 0}}, "δₘᵢₙ = 0.1", `$\delta$\textsubscript{min} = 0.1`},
		{"θₜ and σ²", []textRun{{"θ", 0}, {"t", -1}, {" and σ", 0}, {"2", 1}}, "θₜ and σ²", `$\theta$\textsubscript{t} and $\sigma$\textsuperscript{2}`},
		{"eps_per_run", []textRun{{"eps_per_run", 0}}, "eps_per_run", `eps\_per\_run`},
		{"excess_objective", []textRun{{"excess_objective", 0}}, "excess_objective", `excess\_objective`},
		{"_t at the start, a _t after a space", []textRun{{"_t at the start, a _t after a space", 0}}, "_t at the start, a _t after a space", `\_t at the start, a \_t after a space`},
		{"ε̃, ε̂ and x̃", []textRun{{"ε̃, ε̂ and x̃", 0}}, "ε̃, ε̂ and x̃", `$\tilde{\varepsilon}$, $\hat{\varepsilon}$ and \~{x}`},
		// A precomposed letter the table lacks is set by its decomposition.
		{"C = Ã, Ž, ç ≠ n", []textRun{{"C = Ã, Ž, ç ≠ n", 0}}, "C = Ã, Ž, ç ≠ n", `C = \~{A}, \v{Z}, \c{c} $\neq$ n`},
	} {
		if got := parseMath(tc.in); !slices.Equal(got, tc.runs) {
			t.Errorf("parseMath(%q) = %v, want %v", tc.in, got, tc.runs)
		}
		if got := PlainText(tc.in); got != tc.plain {
			t.Errorf("PlainText(%q) = %q, want %q", tc.in, got, tc.plain)
		}
		if got := texEscape(tc.in); got != tc.tex {
			t.Errorf("texEscape(%q) = %q, want %q", tc.in, got, tc.tex)
		}
	}
	// Every character of the table is written in ASCII.
	var all strings.Builder
	for r := range texText {
		all.WriteRune(r)
	}
	if got := texEscape(all.String()); !isASCII(got) {
		t.Errorf("texEscape leaves non-ASCII characters: %q", got)
	}
}

func isASCII(s string) bool {
	for _, r := range s {
		if r > 127 {
			return false
		}
	}
	return true
}

// recorder is a canvas that records the strings drawn.
type recorder struct{ texts []drawn }

type drawn struct {
	text string
	size vg.Length
	at   vg.Point
}

func (r *recorder) FillString(f font.Face, pt vg.Point, s string) {
	r.texts = append(r.texts, drawn{s, f.Font.Size, pt})
}
func (r *recorder) SetLineWidth(vg.Length)              {}
func (r *recorder) SetLineDash([]vg.Length, vg.Length)  {}
func (r *recorder) SetColor(color.Color)                {}
func (r *recorder) Rotate(float64)                      {}
func (r *recorder) Translate(vg.Point)                  {}
func (r *recorder) Scale(float64, float64)              {}
func (r *recorder) Push()                               {}
func (r *recorder) Pop()                                {}
func (r *recorder) Stroke(vg.Path)                      {}
func (r *recorder) Fill(vg.Path)                        {}
func (r *recorder) DrawImage(vg.Rectangle, image.Image) {}

// TestMathDrawn: a subscript is drawn smaller and below the baseline, a
// superscript smaller and above it, the runs one after the other; a
// combining mark is drawn centred over the glyph it follows (it was drawn
// after it: "ε˜"); the box of a text with markup is as wide as its runs.
func TestMathDrawn(t *testing.T) {
	sty := textStyle(10)
	h := mathText{sty.Handler.(text.Plain)}
	var rec recorder
	h.drawLine(&rec, "θ_t", sty.Font, vg.Point{X: 10, Y: 20})
	if len(rec.texts) != 2 || rec.texts[0].text != "θ" || rec.texts[1].text != "t" {
		t.Fatalf("θ_t drawn as %+v", rec.texts)
	}
	sub := rec.texts[1]
	face := h.Fonts.Lookup(sty.Font, 10)
	if sub.size != 10*scriptScale || sub.at.Y >= 20 || sub.at.X != 10+face.Width("θ") {
		t.Errorf("subscript t drawn %+v: want size %v, below y = 20, right after θ", sub, 10*scriptScale)
	}
	rec = recorder{}
	h.drawLine(&rec, "10^{−7}", sty.Font, vg.Point{X: 0, Y: 0})
	if len(rec.texts) != 2 || rec.texts[1].at.Y <= 0 || rec.texts[1].size >= 10 {
		t.Errorf("10^{−7} drawn as %+v: want the exponent raised and smaller", rec.texts)
	}
	small := h.Fonts.Lookup(scriptFont(sty.Font), 7)
	if w, _, _ := h.Box("10^{−7}", sty.Font); math.Abs(float64(w-face.Width("10")-small.Width("−7"))) > 1e-9 {
		t.Errorf("box width %v: want the runs' widths", w)
	}

	rec = recorder{}
	h.drawLine(&rec, "aε̃b", sty.Font, vg.Point{X: 10, Y: 20})
	var eps, tilde drawn
	for _, d := range rec.texts {
		switch d.text {
		case "\u0303":
			tilde = d
		case "aε":
			eps = d
		}
	}
	base, _ := glyphBox(face, 'ε')
	mark, _ := glyphBox(face, '\u0303')
	epsX := eps.at.X + face.Width("a")
	if got, want := tilde.at.X+(mark.Min.X+mark.Max.X)/2, epsX+(base.Min.X+base.Max.X)/2; math.Abs(float64(got-want)) > 0.01 {
		t.Errorf("tilde centred at x = %v, ε's centre at %v (drawn: %+v)", got, want, rec.texts)
	}
	if last := rec.texts[len(rec.texts)-1]; last.text != "b" || last.at.X != epsX+face.Width("ε") {
		t.Errorf("the text after the mark drawn %+v: want it right after ε (the mark takes no width)", last)
	}
}

// TestLinearTicks (issue 35: "only 2–3 tick labels on some axes", ticks at
// 1.00 and 1.25 only on a ratio near 1): a linear axis has between
// minLabels and maxLinearLabels labels, all with the same number of
// decimals, at a step of 1, 2, 2.5 or 5 times a power of ten, with minor
// ticks between.
func TestLinearTicks(t *testing.T) {
	for _, r := range [][2]float64{{0.989, 1.27}, {0.76, 0.845}, {0, 1}, {-3, 7}, {0.5, 3.5}, {1.05, 5.75}, {0.0006, 0.0041}, {-2e-7, 9e-7}, {120, 3e6}, {0.9, 1.01}} {
		ticks := linearTicks{}.Ticks(r[0], r[1])
		var labels []string
		var vals []float64
		minor := 0
		for _, tk := range ticks {
			if tk.Value < r[0]-1e-12 || tk.Value > r[1]+1e-12 {
				t.Errorf("%v: tick %v outside the range", r, tk.Value)
			}
			if tk.Label == "" {
				minor++
				continue
			}
			labels = append(labels, tk.Label)
			vals = append(vals, tk.Value)
		}
		if len(labels) < minLabels || len(labels) > maxLinearLabels {
			t.Errorf("%v: %d labels %v: want %d to %d", r, len(labels), labels, minLabels, maxLinearLabels)
		}
		if minor < len(labels) {
			t.Errorf("%v: %d minor ticks for %d labels", r, minor, len(labels))
		}
		dec := -1
		for i, l := range labels {
			if strings.Contains(l, "10^") || l == "0" {
				continue
			}
			_, frac, _ := strings.Cut(l, ".")
			if dec >= 0 && len(frac) != dec {
				t.Errorf("%v: labels %v with different decimals", r, labels)
				break
			}
			dec = len(frac)
			if v, err := strconv.ParseFloat(strings.Replace(l, "−", "-", 1), 64); err != nil || math.Abs(v-vals[i]) > 1e-9*math.Max(1, math.Abs(v)) {
				t.Errorf("%v: label %q at %v", r, l, vals[i])
			}
		}
	}
}

// manyPanels is a figure of four panels of data on a 2 × 3 grid (two
// empty slots) or, full, on a 2 × 2 grid with data everywhere in them.
func manyPanels(full bool) *Figure {
	f := &Figure{Name: "many", XLabel: "ε", YLabel: "MSE", LogX: true, Caption: Caption{Line: "Accountant: rdp; δ = 1e-5; tuning: none"}, Columns: 3}
	x := []float64{0.1, 0.3, 1, 3, 10}
	for p := range 4 {
		pn := Panel{Title: "P" + strconv.Itoa(p)}
		for s := range 4 {
			var ys []float64
			for i := range x {
				if full {
					ys = append(ys, float64((i+s*2+p)%5))
				} else {
					ys = append(ys, float64(5-i)+float64(s)/3)
				}
			}
			pn.Series = append(pn.Series, Series{Label: "method " + strconv.Itoa(s) + " with a label of some length", X: x, Y: ys, Style: s})
		}
		pn.References = []Reference{{Label: "non-private", Y: -0.5}}
		f.Panels = append(f.Panels, pn)
	}
	if full {
		f.Columns = 2
	}
	return f
}

// TestOneLegendPerFigure (issue 35: the legend was repeated under every
// panel, ≈ 25% of gaussmix fig2): a figure has one legend, listing every
// series and reference line once; it goes in an empty slot of the grid,
// or a skipped panel, when there is one; else inside a panel where it
// covers no data; else below the panels; and never covers data.
func TestOneLegendPerFigure(t *testing.T) {
	f := manyPanels(false)
	lay, err := f.layout()
	if err != nil {
		t.Fatal(err)
	}
	if lay.legend == nil || len(lay.legend.entries) != 5 {
		t.Fatalf("legend %+v: want one legend of the 4 methods and the reference", lay.legend)
	}
	if len(lay.free) != 2 || !inRect(lay.legendBox.Min, lay.free[0]) || !inRect(lay.legendBox.Max, lay.free[0]) {
		t.Errorf("legend %v: want it in the grid's first empty slot %v", lay.legendBox, lay.free)
	}
	skipped := manyPanels(false)
	skipped.Columns = 2
	skipped.Panels[3] = Panel{Title: "Gisette", Note: "skipped: dataset gisette: missing gisette/gisette_train.data, gisette/gisette_train.labels (dplab datasets fetch gisette)"}
	if lay, err = skipped.layout(); err != nil {
		t.Fatal(err)
	}
	if tile := lay.panels[3].tile; !inRect(lay.legendBox.Min, tile) || !inRect(lay.legendBox.Max, tile) {
		t.Errorf("legend %v: want it in the skipped panel's tile %v", lay.legendBox, tile)
	}
	full := manyPanels(true)
	if lay, err = full.layout(); err != nil {
		t.Fatal(err)
	}
	for _, pl := range lay.panels {
		if lay.legendBox.Max.Y > pl.tile.Min.Y {
			t.Errorf("legend %v: want it below every panel (no room inside): panel %q %v", lay.legendBox, pl.panel.Title, pl.tile)
		}
	}
	if lay.legend.cols < 2 {
		t.Errorf("legend below the panels in %d column(s): want as many as fit", lay.legend.cols)
	}
	for _, f := range []*Figure{manyPanels(false), skipped, full, crowdedFigure(), sampleFigure()} {
		if covered, err := LegendCovers(f); err != nil || len(covered) > 0 {
			t.Errorf("%s: legend covers %v (%v)", f.Name, covered, err)
		}
		if _, err := Render(f, "png"); err != nil {
			t.Error(err)
		}
	}
}

// TestMarkerThinning (issue 35: a marker at each of ~40 grid points merged
// into bars): a series of at most maxMarkers points is marked at every
// point (its points are the data); a denser one at about maxMarkers − 2;
// MarkEvery overrides both.
func TestMarkerThinning(t *testing.T) {
	mk := func(n, every int) int {
		s := Series{Label: "s", MarkEvery: every}
		for i := range n {
			s.X, s.Y = append(s.X, float64(i)), append(s.Y, float64(i*i))
		}
		_, points, err := seriesPlotters(s, seriesStyle{})
		if err != nil {
			t.Fatal(err)
		}
		return len(points.XYs)
	}
	for _, tc := range []struct{ n, every, lo, hi int }{
		{5, 0, 5, 5}, {12, 0, 12, 12}, {41, 0, 8, maxMarkers}, {95, 0, 8, maxMarkers}, {1001, 0, 8, maxMarkers},
		{95, 1, 95, 95}, {40, 4, 10, 10},
	} {
		if got := mk(tc.n, tc.every); got < tc.lo || got > tc.hi {
			t.Errorf("%d points, MarkEvery %d: %d markers, want %d to %d", tc.n, tc.every, got, tc.lo, tc.hi)
		}
	}
}

// TestCoincidingCurves (issue 35: five curves on top of one another at the
// top of preprocessing fig3, the "exact constant" curve hidden in fig2c):
// a curve drawn within coincideTol of an earlier one of the same line
// style gets another style (and its thinned markers shifted), in the
// legend too, and the caption files say which coincide; curves apart keep
// theirs.
func TestCoincidingCurves(t *testing.T) {
	x := make([]float64, 40)
	var a, b, c, d []float64
	for i := range x {
		x[i] = float64(i + 1)
		a = append(a, 1e5)
		b = append(b, 1e5*(1+1e-4)) // the exact constant: on top of a
		c = append(c, 10*float64(i+1))
		d = append(d, 1e3)
	}
	f := &Figure{Name: "same", LogY: true, Panels: []Panel{{Title: "p", Series: []Series{
		{Label: "paper constant", X: x, Y: a},
		{Label: "exact constant", X: x, Y: b, Style: 1},
		{Label: "group privacy", X: x, Y: c, Style: 2, Dashed: true},
		{Label: "apart", X: x, Y: d, Style: 3},
	}}}}
	st := f.seriesStyles()
	if st["exact constant"].name == st["paper constant"].name || st["exact constant"].phase == 0 {
		t.Errorf("coinciding curves drawn alike: %+v %+v", st["paper constant"], st["exact constant"])
	}
	if st["apart"].name != "solid" || st["group privacy"].name != "dashed" || st["paper constant"].name != "solid" {
		t.Errorf("curves apart restyled: %+v", st)
	}
	notes := f.CaptionNotes()
	if len(notes) != 1 || !strings.Contains(notes[0], "paper constant (solid), exact constant (dotted)") {
		t.Errorf("caption notes %q: want the coinciding pair named with its styles", notes)
	}
	lay, err := f.layout()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range lay.legend.entries {
		if e.text == "exact constant" && len(e.thumbs[0].(*plotter.Line).Dashes) == 0 {
			t.Error("the legend draws the exact constant solid")
		}
	}
	// Two curves 5% apart on a 3-decade axis are not restyled.
	f.Panels[0].Series[1].Y = slices.Clone(a)
	for i := range f.Panels[0].Series[1].Y {
		f.Panels[0].Series[1].Y[i] *= 2
	}
	if st := f.seriesStyles(); st["exact constant"].name != "solid" || len(f.CaptionNotes()) != 0 {
		t.Errorf("curves a factor 2 apart restyled: %+v %q", st["exact constant"], f.CaptionNotes())
	}
}

// TestHeadroom (issue 35: top markers on the frame): every point of every
// series lies inside its axes with headroom on every side, unless the
// figure sets the limits.
func TestHeadroom(t *testing.T) {
	for _, f := range []*Figure{sampleFigure(), crowdedFigure(), manyPanels(false)} {
		lay, err := f.layout()
		if err != nil {
			t.Fatal(err)
		}
		for _, pl := range lay.panels {
			p := pl.plot
			norm := func(a plot.Axis, v float64) float64 { return a.Norm(v) }
			for _, s := range pl.panel.Series {
				for i := range s.X {
					for _, n := range []float64{norm(p.X, s.X[i]), norm(p.Y, s.Y[i])} {
						if n < headroom*0.9 || n > 1-headroom*0.9 {
							t.Errorf("%s, %s: point (%g, %g) at %.3f of its axis: on the frame", f.Name, s.Label, s.X[i], s.Y[i], n)
						}
					}
				}
			}
		}
	}
	lo, hi := 0.0, 1.0
	f := sampleFigure()
	f.Y = Axis{Min: &lo, Max: &hi, Ticks: []float64{0, 0.5, 1}}
	f.HLines = []float64{0.5}
	lay, err := f.layout()
	if err != nil {
		t.Fatal(err)
	}
	p := lay.panels[0].plot
	if p.Y.Min != 0 || p.Y.Max != 1 {
		t.Errorf("y limits set to [0, 1]: axis [%v, %v]", p.Y.Min, p.Y.Max)
	}
	var labels []string
	for _, tk := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
		labels = append(labels, tk.Label)
	}
	if strings.Join(labels, " ") != "0 0.5 1" {
		t.Errorf("y ticks set to 0, 0.5, 1: labels %q", labels)
	}
	bad := -1.0
	f.LogY, f.Y.Min = true, &bad
	if _, err := Render(f, "svg"); err == nil || !strings.Contains(err.Error(), "y_min = -1") {
		t.Errorf("y_min = -1 on a log axis: %v", err)
	}
}

// TestCaptionFiles (issue 35: the footnote took more than half of some
// figures): the image carries the caption line on one line (set smaller
// when long), the caption files beside it the title, that line and every
// note once; the LaTeX file is ASCII and compiles as a \caption.
func TestCaptionFiles(t *testing.T) {
	f := sampleFigure()
	f.Title = "Sample: F(θ_t) − F*"
	f.Caption = Caption{Line: "Accountant: rdp; δ = min(1e-6, 0.01/n); NON-PRIVATE tuning: DP-SGD dishonest; tuning accounted, SELECTION NOT PRIVATE: DP-SGD honest; QUICK RUN",
		Notes: []string{"every trial's split is fixed", "ε does not account for: public n (DP-SGD)", "every trial's split is fixed", "the main text's ε̃ add −log(1−β/λ)"}}
	if n, err := CaptionLines(f); err != nil || n != 1 {
		t.Errorf("caption line on %d lines (%v), want 1", n, err)
	}
	dir := t.TempDir()
	if _, err := Write(f, dir, "svg"); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "sample.caption.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := "**Sample: F(θₜ) − F*.** " + f.Caption.Line + ".\n\n- every trial's split is fixed.\n- ε does not account for: public n (DP-SGD).\n- the main text's ε̃ add −log(1−β/λ).\n"
	if string(md) != want {
		t.Errorf("caption.md:\n%s\nwant:\n%s", md, want)
	}
	tex, err := os.ReadFile(filepath.Join(dir, "sample.caption.tex"))
	if err != nil {
		t.Fatal(err)
	}
	if !isASCII(string(tex)) || !strings.Contains(string(tex), `\caption{Sample: F($\theta$\textsubscript{t}) $-$ F*. Accountant: rdp; $\delta$ = min(1e-6, 0.01/n); NON-PRIVATE tuning`) ||
		!strings.Contains(string(tex), `$\tilde{\varepsilon}$ add $-$log(1$-\beta$/$\lambda$).}`) || !strings.Contains(string(tex), `\label{fig:sample}`) {
		t.Errorf("caption.tex:\n%s", tex)
	}
	if strings.Count(string(tex), "{")-strings.Count(string(tex), `\{`) != strings.Count(string(tex), "}")-strings.Count(string(tex), `\}`) {
		t.Errorf("caption.tex has unbalanced braces:\n%s", tex)
	}
	// Only an SVG is written: the comment names it, not a PNG.
	if !strings.HasPrefix(string(tex), "% Generated by dplab: the caption of figures/sample.svg ") {
		t.Errorf("caption.tex names another file than the SVG written:\n%s", tex)
	}
	// A line too long for the figure even at the smallest size wraps
	// rather than losing a word.
	f.Width, f.Columns = 3*vg.Inch, 1
	f.Panels = f.Panels[:1]
	if n, err := CaptionLines(f); err != nil || n < 2 {
		t.Errorf("a long caption line on a 3 in figure: %d lines (%v), want it wrapped", n, err)
	}
}
