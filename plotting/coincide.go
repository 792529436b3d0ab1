package plotting

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot/vg"
)

// Curves that coincide. Two series of a panel coincide when at each of
// their common x values (at least two, and half the points of the
// shorter) their y values differ by at most coincideTol of the range of
// the panel's series (in decades on a log axis): drawn in the same way, one would hide
// the other. Every series but the first of such a group is drawn with a
// line style of its own (in every panel, and in the legend) and, when its
// markers are thinned, with its markers shifted between the first's; the
// caption files say which curves coincide and how they are drawn.

// coincideTol is the part of a panel's y range within which two curves
// are drawn on top of one another: about a marker's width (5.2 pt) on a
// default panel's axes (about 200 pt tall).
const coincideTol = 0.025

// seriesStyle is how a series is drawn beyond its Style index: its line's
// dashes and where its thinned markers start (a part of their spacing).
type seriesStyle struct {
	dashes []vg.Length
	phase  float64
	name   string // the pattern's name, for the caption: "solid", "dashed" or one of dashStyles
}

// dashStyles are the patterns that tell coinciding curves apart, after
// the solid and the dashed line of Series.Dashed.
var dashStyles = []dashStyle{
	{"dotted", []vg.Length{1.5, 2.5}},
	{"dash-dotted", []vg.Length{6, 2, 1.5, 2}},
	{"long-dashed", []vg.Length{10, 3}},
	{"dash-dot-dotted", []vg.Length{6, 2, 1.5, 2, 1.5, 2}},
	{"short-dashed", []vg.Length{2.5, 2}},
}

// dashStyle is a named dash pattern.
type dashStyle struct {
	name   string
	dashes []vg.Length
}

// dashed is the pattern of Series.Dashed.
var dashed = []vg.Length{5, 3}

// coincidence is a group of series labels drawn on top of one another in
// a panel.
type coincidence struct {
	panel  string
	labels []string
}

// coincidences returns the groups of coinciding series of each panel, in
// panel order, each group in series order.
func (f *Figure) coincidences() []coincidence {
	var out []coincidence
	for _, pn := range f.Panels {
		span := ySpan(pn.Series, f.LogY)
		n := len(pn.Series)
		group := make([]int, n) // union-find parents
		for i := range group {
			group[i] = i
		}
		find := func(i int) int {
			for group[i] != i {
				i = group[i]
			}
			return i
		}
		for i := range n {
			for j := i + 1; j < n; j++ {
				if pn.Series[i].Label != pn.Series[j].Label && coincide(pn.Series[i], pn.Series[j], span, f.LogY) {
					group[find(j)] = find(i)
				}
			}
		}
		var roots []int
		members := map[int][]string{}
		for i := range n {
			r := find(i)
			if len(members[r]) == 0 {
				roots = append(roots, r)
			}
			if !slices.Contains(members[r], pn.Series[i].Label) {
				members[r] = append(members[r], pn.Series[i].Label)
			}
		}
		for _, r := range roots {
			if len(members[r]) > 1 {
				out = append(out, coincidence{pn.Title, members[r]})
			}
		}
	}
	return out
}

// ySpan is the range of the series' finite y values (of their log10 on a
// log axis).
func ySpan(series []Series, log bool) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, y := range s.Y {
			if v, ok := yValue(y, log); ok {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if !(hi > lo) {
		return 0
	}
	return hi - lo
}

// yValue is y as placed on the axis (its log10 on a log axis), and
// whether it is drawn.
func yValue(y float64, log bool) (float64, bool) {
	if !isFinite(y) || log && !(y > 0) {
		return 0, false
	}
	if log {
		return math.Log10(y), true
	}
	return y, true
}

// coincide reports whether a and b are drawn on top of one another.
func coincide(a, b Series, span float64, log bool) bool {
	common, close := 0, 0
	for i, x := range a.X {
		ya, ok := yValue(a.Y[i], log)
		if !ok {
			continue
		}
		j := slices.Index(b.X, x)
		if j < 0 {
			continue
		}
		yb, ok := yValue(b.Y[j], log)
		if !ok {
			continue
		}
		common++
		if math.Abs(ya-yb) <= coincideTol*span {
			close++
		}
	}
	shorter := min(len(a.X), len(b.X))
	return common >= 2 && 2*common >= shorter && close == common
}

// seriesStyles returns the style of each series label: Dashed's pattern
// or a solid line; a label drawn on top of an earlier one of the same
// pattern in some panel gets the first pattern of dashStyles no curve of
// the figure has (else the first its group does not use), and every label
// after the first of a group has its
// thinned markers shifted between the first's.
func (f *Figure) seriesStyles() map[string]seriesStyle {
	styles := map[string]seriesStyle{}
	for _, pn := range f.Panels {
		for _, s := range pn.Series {
			if _, ok := styles[s.Label]; !ok {
				st := seriesStyle{name: "solid"}
				if s.Dashed {
					st.dashes, st.name = dashed, "dashed"
				}
				styles[s.Label] = st
			}
		}
	}
	restyled, shifted := map[string]bool{}, map[string]bool{}
	for _, c := range f.coincidences() {
		used := map[string]bool{}
		for k, label := range c.labels {
			st := styles[label]
			if used[st.name] && !restyled[label] {
				// The first pattern no curve has, else the first its
				// group does not use.
				inGroup := func(name string) bool {
					return slices.ContainsFunc(c.labels, func(l string) bool { return styles[l].name == name })
				}
				anywhere := func(name string) bool {
					for _, s := range styles {
						if s.name == name {
							return true
						}
					}
					return false
				}
				for _, taken := range []func(string) bool{anywhere, inGroup} {
					if i := slices.IndexFunc(dashStyles, func(d dashStyle) bool { return !taken(d.name) }); i >= 0 {
						st.dashes, st.name = dashStyles[i].dashes, dashStyles[i].name
						break
					}
				}
				restyled[label] = true
			}
			if k > 0 && !shifted[label] {
				st.phase = float64(k) / float64(len(c.labels))
				shifted[label] = true
			}
			used[st.name] = true
			styles[label] = st
		}
	}
	return styles
}

// coincidenceNotes says, for each group of coinciding curves, which they
// are, how each is drawn and in which panels (all: none named).
func (f *Figure) coincidenceNotes() []string {
	styles := f.seriesStyles()
	var order []string
	panels := map[string][]string{}
	for _, c := range f.coincidences() {
		var each []string
		sep := ", "
		for _, l := range c.labels {
			each = append(each, fmt.Sprintf("%s (%s)", l, styles[l].name))
			if strings.Contains(l, ",") {
				sep = "; "
			}
		}
		key := strings.Join(each, sep)
		if _, ok := panels[key]; !ok {
			order = append(order, key)
		}
		panels[key] = append(panels[key], c.panel)
	}
	var out []string
	for _, key := range order {
		note := "Curves drawn on top of one another (within 2.5% of the axis), told apart by line style: " + key
		if len(panels[key]) < len(f.Panels) && len(f.Panels) > 1 {
			note += fmt.Sprintf(" (%s %s)", plural(len(panels[key]), "panel", "panels"), strings.Join(panels[key], "; "))
		}
		out = append(out, note)
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
