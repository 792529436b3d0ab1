package report

// The evaluation of paper claims (claims.go decodes them): each side's
// rows of values, the pairing of the sides into points, the per-point rules
// and the verdict. experiments/README.md, "Paper claims", states the rules.

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/results"
)

// region returns the region of a ratio, difference or value check at a
// point whose paper value is p (NaN: none).
func (c *claim) region(p float64) (lo, hi float64) {
	if math.IsNaN(p) {
		return c.lo, c.hi
	}
	cs := &c.spec
	switch {
	case cs.Tolerance != nil:
		d := *cs.Tolerance * math.Abs(p)
		return p - d, p + d
	case cs.AbsTol != nil:
		return p - *cs.AbsTol, p + *cs.AbsTol
	case cs.Factor != nil:
		return p / *cs.Factor, p * *cs.Factor
	case cs.PaperIs == "upper_bound":
		return math.Inf(-1), p
	case cs.PaperIs == "lower_bound":
		return p, math.Inf(1)
	}
	return c.lo, c.hi
}

// paperAtPoint is the paper's value at a row's point (NaN: none given).
func (c *claim) paperAtPoint(r *row) float64 {
	switch {
	case len(c.paper) == 1:
		return c.paper[0]
	case len(c.paper) > 1:
		x := r.eps
		if c.paperOn == "x" {
			x = r.x
		}
		for i, a := range c.paperAt {
			if sameFloat(a, x) {
				return c.paper[i]
			}
		}
	}
	return math.NaN()
}

// coord is one coordinate of a row: its name ("dataset", "epsilon",
// "param:k", "group", "panel", "x"), its value exactly (what rows pair
// and group on) and as points name it (numbers to 4 digits).
type coord struct{ name, value, text string }

// row is one selected value: a cell's quantity (per diagnostic group) or a
// curve's value at one x, with its coordinates, or why it has none.
type row struct {
	coords []coord
	eps, x float64 // the cell's ε (+Inf: non-private) or the curve's x
	axis   float64 // the claim's axis value (NaN: none)
	di     int     // the dataset's index (−1 for curves)
	side   ClaimSide
	why    string // not run: why
}

func (r *row) value(name string) (string, bool) {
	for _, c := range r.coords {
		if c.name == name {
			return c.value, true
		}
	}
	return "", false
}

// rows returns the values side s selects in the view, in the spec's cell
// (or curve) order.
func (v *view) rows(c *claim, s *side) []row {
	if s.dropped != "" {
		return nil
	}
	switch c.q.kind {
	case "curve":
		return v.curveRows(c, s)
	case "table":
		return v.tableRows(c, s)
	}
	sp := v.spec
	xs := floatsOrNil(s.sel.Epsilon)
	swept := map[int][]string{} // by mechanism: its swept params keys
	for _, mi := range s.mechs {
		swept[mi] = sp.Mechanisms[mi].Params.Swept()
	}
	var out []row
	for i := range v.cells {
		cell := &v.cells[i]
		if !slices.Contains(s.mechs, cell.Mechanism) || !matchText(s.sel.Dataset, sp.DatasetAt(cell.Dataset).Label) ||
			cell.Private && xs != nil && !slices.ContainsFunc(xs, func(e float64) bool { return sameFloat(e, cell.Epsilon) }) ||
			!matchParams(s.sel.Params, cell.Params) {
			continue
		}
		r := row{eps: cell.Epsilon, x: math.NaN(), axis: math.NaN(), di: cell.Dataset}
		add := func(name, value, text string) {
			if !s.pinned[name] {
				r.coords = append(r.coords, coord{name, value, text})
			}
		}
		ds := sp.DatasetAt(cell.Dataset).Label
		add("dataset", ds, ds)
		if len(s.mechs) > 1 {
			l := sp.Mechanisms[cell.Mechanism].Label
			r.coords = append(r.coords, coord{s.mechCoord(), l, l})
		}
		for _, k := range swept[cell.Mechanism] {
			name, value, text := "param:"+k, fmt.Sprint(cell.Params[k]), spec.FormatValue(cell.Params[k])
			if s.pinned[name] && len(s.sel.Params.Values[k].List) > 1 {
				// A side pinning several values of a key names its points
				// by it, never paired with the other side (as mechCoord).
				r.coords = append(r.coords, coord{s.sideCoord(name), value, text})
				continue
			}
			add(name, value, text)
		}
		if cell.Private {
			add("epsilon", strconv.FormatFloat(cell.Epsilon, 'g', -1, 64), strconv.FormatFloat(cell.Epsilon, 'g', 4, 64))
		}
		switch {
		case c.axis == "epsilon" && cell.Private:
			r.axis = cell.Epsilon
		case strings.HasPrefix(c.axis, "param:"):
			r.axis, _ = spec.AsFloat(cell.Params[strings.TrimPrefix(c.axis, "param:")])
		}
		r.side.Label = v.sideLabel(s, cell)
		a, ok := v.agg[cell.Key]
		if !ok {
			r.why = v.notRunWhy(cell)
			r.side.Mean, r.side.Half = results.Float(math.NaN()), results.Float(math.NaN())
			out = append(out, r)
			continue
		}
		for _, g := range c.q.read(&a) {
			gr := r
			gr.coords = slices.Clone(r.coords)
			if g.group != "" && !s.pinned["group"] {
				gr.coords = append(gr.coords, coord{"group", g.group, g.group})
			}
			gr.side.Mean, gr.side.Half, gr.side.N, gr.side.Count = results.Float(g.mean), results.Float(g.half), g.n, g.count
			gr.why = g.why
			out = append(out, gr)
		}
	}
	return out
}

// curveRows returns the [[curve]] values side s selects.
func (v *view) curveRows(c *claim, s *side) []row {
	sp := v.spec
	xs := floatsOrNil(s.sel.X)
	var out []row
	for _, i := range s.curves {
		cv := sp.Curves[i]
		for _, p := range v.curves[i] {
			if xs != nil && !slices.ContainsFunc(xs, func(x float64) bool { return sameFloat(x, p.X) }) {
				continue
			}
			r := row{eps: math.NaN(), x: p.X, axis: p.X, di: -1}
			if len(uniqueCurveLabels(sp, s.curves)) > 1 {
				r.coords = append(r.coords, coord{s.mechCoord(), cv.Label, cv.Label})
			}
			if !s.pinned["panel"] {
				r.coords = append(r.coords, coord{"panel", cv.Panel, cv.Panel})
			}
			if !s.pinned["x"] {
				r.coords = append(r.coords, coord{"x", strconv.FormatFloat(p.X, 'g', -1, 64), cv.X + " = " + strconv.FormatFloat(p.X, 'g', 4, 64)})
			}
			r.side = ClaimSide{Label: cv.Label, Mean: results.Float(p.Y), Half: 0}
			switch {
			case p.Err != nil:
				r.why, r.side.Mean = "the curve has no value here: "+p.Err.Error(), results.Float(math.NaN())
			case math.IsNaN(p.Y):
				r.why = "the curve's value is not a number"
			}
			out = append(out, r)
		}
	}
	return out
}

// floatsOrNil is a numeric selection's values; nil when it selects all.
func floatsOrNil(v spec.Values) []float64 {
	if v.List == nil {
		return nil
	}
	xs, _ := v.Floats()
	return xs
}

// matchParams reports whether a cell's params hold a selected value of
// every selected key they have.
func matchParams(sel spec.ParamTable, params map[string]any) bool {
	for _, k := range sel.Keys {
		v, ok := params[k]
		if ok && !slices.ContainsFunc(sel.Values[k].List, func(w any) bool { return sameValue(v, w) }) {
			return false
		}
	}
	return true
}

// sideLabel is how the evidence names a side's cell: its mechanism label
// and the coordinates the side pins ("Relative (preset = code)").
func (v *view) sideLabel(s *side, cell *plan.Cell) string {
	var pins []string
	if s.pinned["dataset"] {
		pins = append(pins, v.spec.DatasetAt(cell.Dataset).Label)
	}
	for _, k := range s.sel.Params.Keys {
		if s.pinned["param:"+k] {
			pins = append(pins, k+" = "+spec.FormatValue(cell.Params[k]))
		}
	}
	if s.pinned["epsilon"] && cell.Private {
		pins = append(pins, "ε = "+strconv.FormatFloat(cell.Epsilon, 'g', 4, 64))
	}
	l := v.spec.Mechanisms[cell.Mechanism].Label
	if len(pins) > 0 {
		l += " (" + strings.Join(pins, ", ") + ")"
	}
	return l
}

// notRunWhy says why a cell has no ok trial.
func (v *view) notRunWhy(cell *plan.Cell) string {
	label := v.spec.DatasetAt(cell.Dataset).Label
	if why, ok := v.skipped[label]; ok {
		return fmt.Sprintf("dataset %q %s", label, skipNote(why, v.spec.DatasetAt(cell.Dataset).Name))
	}
	if ic, ok := v.infeasible[cell.Key]; ok {
		return "infeasible (" + ic.floorText() + ")"
	}
	return "no trials stored"
}

// groupValue is a quantity's value in one cell: its mean, CI half-width
// and trials, per diagnostic group ("" when ungrouped), or why it has none.
type groupValue struct {
	group      string
	mean, half float64
	n          int
	count      *int // a proportion's trials with the indicator 1 (of n); nil otherwise
	why        string
}

// read returns the quantity's values in a cell's summary: one, or one per
// group for a diagnostic or noise key recorded per group ("node1/eta" for
// name "eta"). A missing quantity is a value with a why.
func (q claimQuantity) read(a *results.CellSummary) []groupValue {
	stat := func(st results.Stat) groupValue {
		g := groupValue{mean: st.Mean, half: st.CIHalf, n: st.Count}
		if math.IsNaN(st.Mean) {
			g.why = q.text() + " is not a number in some trial"
		}
		return g
	}
	missing := []groupValue{{mean: math.NaN(), half: math.NaN(), why: "no " + q.text() + " recorded"}}
	switch q.kind {
	case "metric":
		if st, ok := a.Metrics[q.name]; ok {
			return []groupValue{stat(st)}
		}
	case "trace":
		ts := a.Traces[q.name]
		t := q.iteration
		if t < 0 {
			t = len(ts) - 1
		}
		if t >= 0 && t < len(ts) {
			return []groupValue{stat(ts[t])}
		}
		if len(ts) > 0 {
			missing[0].why = fmt.Sprintf("trace %s stops at t = %d", q.name, len(ts)-1)
		}
	case "diagnostic", "noise":
		m := a.Diagnostics
		if q.kind == "noise" {
			m = a.Noise
		}
		var out []groupValue
		for _, gs := range keyedStats(m, q.name) {
			gv := stat(gs.stat)
			gv.group = gs.group
			out = append(out, gv)
		}
		if len(out) > 0 {
			return out
		}
	case "eps_spent":
		return []groupValue{{mean: a.EpsSpentMax, half: 0, n: a.Trials}}
	case "wall_s":
		if a.Wall.Count > 0 {
			return []groupValue{stat(a.Wall)}
		}
	case "proportion":
		return q.readProportion(a)
	}
	return missing
}

// timing reports whether the quantity is a wall-clock time: wall_s, or a
// diagnostic "wall_…" (results.IsTimingKey).
func (q claimQuantity) timing() bool {
	return q.kind == "wall_s" || q.kind == "diagnostic" && results.IsTimingKey(q.name)
}

// groupStat is a key's summary in one diagnostic group ("" when the key is
// recorded once per trial).
type groupStat struct {
	group string
	stat  results.Stat
}

// keyedStats returns the summaries of key name in m: the key itself, or
// else each group's "<group>/name", in the groups' order.
func keyedStats(m map[string]results.Stat, name string) []groupStat {
	if st, ok := m[name]; ok {
		return []groupStat{{"", st}}
	}
	var out []groupStat
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if g, n, ok := strings.Cut(k, "/"); ok && n == name {
			out = append(out, groupStat{g, m[k]})
		}
	}
	return out
}

// text names the quantity in statements and reasons.
func (q claimQuantity) text() string {
	switch q.kind {
	case "eps_spent":
		return "ε spent"
	case "wall_s":
		return "wall time per fit (s)"
	case "curve":
		return "the curve's value"
	case "table":
		return "table " + q.name
	case "proportion":
		return "the share of trials with " + q.name + " = 1"
	case "trace":
		if q.iteration < 0 {
			return "trace " + q.name + " at the last iteration"
		}
		return fmt.Sprintf("trace %s at t = %d", q.name, q.iteration)
	}
	return q.kind + " " + q.name
}

// point makes the evidence of a point from its rows (b nil for one-sided
// checks).
func (c *claim) point(v *view, a, b *row) ClaimPoint {
	p := ClaimPoint{Estimate: results.Float(math.NaN()), Low: results.Float(math.NaN()), High: results.Float(math.NaN()), Paper: results.Float(math.NaN())}
	var shown []coord
	for _, r := range []*row{a, b} {
		if r == nil {
			continue
		}
		side := r.side
		if r == a {
			p.A = &side
		} else {
			p.B = &side
		}
		for _, k := range r.coords {
			if !slices.ContainsFunc(p.coords, func(x coord) bool { return x.name == k.name }) {
				p.coords = append(p.coords, k)
				shown = append(shown, k)
			}
		}
		if p.Why == "" && r.why != "" {
			p.Why = r.why
		}
	}
	p.shown = shown
	if p.Why != "" {
		p.Outcome = NotRun
	}
	if a != nil {
		p.Paper = results.Float(c.paperAtPoint(a))
	}
	return p
}

// pointTexts names each point by its coordinates, leaving out the dataset
// and ε when the spec has one of each, and, when there are several points,
// the coordinates all of them share (the claim's selection says those).
func (v *view) pointTexts(points []ClaimPoint) {
	eps, _ := v.spec.Epsilon.Floats()
	shared := map[coord]int{}
	for _, p := range points {
		for _, k := range p.shown {
			shared[k]++
		}
	}
	for i := range points {
		p := &points[i]
		var parts []string
		for _, k := range p.shown {
			switch {
			case k.name == "dataset" && len(v.spec.Datasets) == 1, k.name == "epsilon" && len(eps) == 1,
				len(points) > 1 && shared[k] == len(points):
			default: // ε, params, dataset, group, panel, x, mechanism, row, column
				parts = append(parts, pointName(k))
			}
		}
		if p.step != "" {
			parts = append(parts, p.step)
		}
		p.Point = strings.Join(parts, ", ")
		if p.Point == "" {
			p.Point = "—"
		}
	}
}

// interval is a side's 95% CI: mean ± half, unbounded without a half-width
// (a single trial).
func interval(s *ClaimSide) (lo, hi float64) {
	if s.Count != nil { // a proportion: its exact binomial interval
		return clopperPearson(*s.Count, s.N)
	}
	m, h := float64(s.Mean), float64(s.Half)
	if math.IsNaN(h) {
		return math.Inf(-1), math.Inf(1)
	}
	return m - h, m + h
}

// rounding is the relative allowance for rounding in exact values (a
// curve's, ε spent): comparisons treat values this close as equal, so a
// computed 4.000000000000001 meets a bound of 4.
const rounding = 1e-12

// diffInterval is the interval of a − b from the sides' intervals:
// [lo_a − hi_b, hi_a − lo_b] (interval arithmetic [Moo66]), widened by
// the rounding allowance. It excludes 0 exactly when the two CIs do not
// overlap, the tables' tie rule.
func diffInterval(a, b *ClaimSide) (est, lo, hi float64) {
	alo, ahi := interval(a)
	blo, bhi := interval(b)
	r := rounding * math.Max(math.Abs(float64(a.Mean)), math.Abs(float64(b.Mean)))
	return float64(a.Mean) - float64(b.Mean), alo - bhi - r, ahi - blo + r
}

// ratioInterval is the interval of a / b from the sides' intervals: the
// least and greatest quotient of their ends when b's interval excludes 0,
// else unbounded (interval division [Moo66]). When both intervals are
// positive, it lies above 1 exactly when a's CI lies above b's.
func ratioInterval(a, b *ClaimSide) (est, lo, hi float64) {
	alo, ahi := interval(a)
	blo, bhi := interval(b)
	est = float64(a.Mean) / float64(b.Mean)
	if blo <= 0 && bhi >= 0 {
		return est, math.Inf(-1), math.Inf(1)
	}
	q := []float64{alo / blo, alo / bhi, ahi / blo, ahi / bhi}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range q {
		if math.IsNaN(x) { // ±∞/±∞: an unbounded a
			return est, math.Inf(-1), math.Inf(1)
		}
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return est, lo, hi
}

// signOutcome decides "the interval [lo, hi] lies strictly above 0" (sign
// +1) or "strictly below" (−1): holds when it does, contradicted when it
// lies strictly on the other side, a tie when it holds 0.
func signOutcome(lo, hi float64, sign int) string {
	if sign < 0 {
		lo, hi = -hi, -lo
	}
	switch {
	case lo > 0:
		return Holds
	case hi < 0:
		return Contradicted
	}
	return Tie
}

// rangeOutcome decides "[lo, hi] lies within [rlo, rhi]" (widened by the
// rounding allowance): holds when it does, contradicted when the two do
// not meet, a tie when they overlap.
func rangeOutcome(lo, hi, rlo, rhi float64) string {
	rlo, rhi = rlo-rounding*math.Abs(rlo), rhi+rounding*math.Abs(rhi)
	switch {
	case rlo <= lo && hi <= rhi:
		return Holds
	case hi < rlo || lo > rhi:
		return Contradicted
	}
	return Tie
}

// rangeText writes a region: "[0.774, 0.946]", "≥ 1", "≤ 10".
func rangeText(lo, hi float64) string {
	switch {
	case math.IsInf(lo, -1) && math.IsInf(hi, 1):
		return "any"
	case math.IsInf(lo, -1):
		return "≤ " + numText(hi)
	case math.IsInf(hi, 1):
		return "≥ " + numText(lo)
	}
	return "[" + numText(lo) + ", " + numText(hi) + "]"
}

// pairs joins a's rows with b's: each pair that agrees on every coordinate
// both have is a point; a row with no partner is a point not run.
func pairs(as, bs []row) [][2]*row {
	var out [][2]*row
	used := make([]bool, len(bs))
	for i := range as {
		found := false
		for j := range bs {
			if agree(&as[i], &bs[j]) {
				out = append(out, [2]*row{&as[i], &bs[j]})
				used[j], found = true, true
			}
		}
		if !found {
			out = append(out, [2]*row{&as[i], nil})
		}
	}
	for j := range bs {
		if !used[j] {
			out = append(out, [2]*row{nil, &bs[j]})
		}
	}
	return out
}

// agree reports whether two rows have the same value for every coordinate
// both have (but their mechanisms).
func agree(a, b *row) bool {
	for _, k := range a.coords {
		if isMechCoord(k.name) {
			continue
		}
		if w, ok := b.value(k.name); ok && w != k.value {
			return false
		}
	}
	return true
}

// isMechCoord reports whether a coordinate is a side's mechanism (or
// curve) label.
func isMechCoord(name string) bool { return strings.HasPrefix(name, "mechanism") }

// pairPoints makes the points of a two-sided check: each joined pair is
// checked by decide unless a side is missing or not run.
func (c *claim) pairPoints(v *view, as, bs []row, decide func(p *ClaimPoint, a, b *row)) []ClaimPoint {
	var out []ClaimPoint
	for _, pr := range pairs(as, bs) {
		a, b := pr[0], pr[1]
		p := c.point(v, a, b)
		switch {
		case a == nil || b == nil:
			_, p.Why = c.unpaired(v, a, b)
			p.Outcome = NotRun
		case p.Outcome != NotRun:
			decide(&p, a, b)
		}
		if p.Outcome != "" {
			out = append(out, p)
		}
	}
	return out
}

// unpaired returns the row of a pair without a partner (a or b is nil)
// and why it has none.
func (c *claim) unpaired(v *view, a, b *row) (*row, string) {
	have, missing, which := a, c.b, "b"
	if a == nil {
		have, missing, which = b, c.a, "a"
	}
	return have, v.missingWhy(have, missing, which)
}

// missingWhy says why a row of one side has no partner on the other
// (which, selecting s): the spec leaves its mechanism out on that dataset,
// or it has no matching cell.
func (v *view) missingWhy(have *row, s *side, which string) string {
	if have.di >= 0 {
		for _, mi := range s.mechs {
			if why, out := v.spec.Excluded(have.di, mi); out {
				return fmt.Sprintf("%s (%s) is not run on %s: %s", which, v.spec.Mechanisms[mi].Label, v.spec.Datasets[have.di].Label, why)
			}
		}
	}
	return "no matching value of " + which
}

// evalBetter: a better than b at each point: a − b's interval lies on the
// better side of 0, i.e. the two 95% CIs do not overlap, with a's on the
// better side (the tables' tie rule).
func evalBetter(c *claim, v *view, as, bs []row) []ClaimPoint {
	sign, expect := -1, "< 0 (a lower)"
	if c.higher {
		sign, expect = 1, "> 0 (a higher)"
	}
	return c.pairPoints(v, as, bs, func(p *ClaimPoint, a, b *row) {
		est, lo, hi := diffInterval(&a.side, &b.side)
		p.Estimate, p.Low, p.High, p.Expect = results.Float(est), results.Float(lo), results.Float(hi), expect
		p.Outcome = signOutcome(lo, hi, sign)
	})
}

// evalRatio: a / b within the region at each point.
func evalRatio(c *claim, v *view, as, bs []row) []ClaimPoint {
	return c.pairPoints(v, as, bs, func(p *ClaimPoint, a, b *row) {
		est, lo, hi := ratioInterval(&a.side, &b.side)
		c.inRegion(p, est, lo, hi)
	})
}

// evalDifference: a − b within the region at each point.
func evalDifference(c *claim, v *view, as, bs []row) []ClaimPoint {
	return c.pairPoints(v, as, bs, func(p *ClaimPoint, a, b *row) {
		est, lo, hi := diffInterval(&a.side, &b.side)
		c.inRegion(p, est, lo, hi)
	})
}

// evalValue: a within the region at each point.
func evalValue(c *claim, v *view, as, _ []row) []ClaimPoint {
	var out []ClaimPoint
	for i := range as {
		a := &as[i]
		p := c.point(v, a, nil)
		if p.Outcome != NotRun {
			lo, hi := interval(&a.side)
			c.inRegion(&p, float64(a.side.Mean), lo, hi)
		}
		out = append(out, p)
	}
	return out
}

// inRegion sets a point's estimate and outcome against the claim's region
// at its paper value.
func (c *claim) inRegion(p *ClaimPoint, est, lo, hi float64) {
	rlo, rhi := c.region(float64(p.Paper))
	p.Estimate, p.Low, p.High = results.Float(est), results.Float(lo), results.Float(hi)
	p.Expect = rangeText(rlo, rhi)
	p.Outcome = rangeOutcome(lo, hi, rlo, rhi)
}

// evalCrossover: a better than b where the axis is below at, b better than
// a above it; a point at at is not checked.
func evalCrossover(c *claim, v *view, as, bs []row) []ClaimPoint {
	sign := -1
	if c.higher {
		sign = 1
	}
	return c.pairPoints(v, as, bs, func(p *ClaimPoint, a, b *row) {
		x := a.axis
		if math.IsNaN(x) { // a has no axis (a non-private cell): b's
			x = b.axis
		}
		if sameFloat(x, c.at) {
			return // at the crossover: either may be better
		}
		s, expect := sign, "a better"
		if x > c.at {
			s, expect = -sign, "b better"
		}
		est, lo, hi := diffInterval(&a.side, &b.side)
		p.Estimate, p.Low, p.High = results.Float(est), results.Float(lo), results.Float(hi)
		p.Expect = map[int]string{1: "> 0", -1: "< 0"}[s] + " (" + expect + ")"
		p.Outcome = signOutcome(lo, hi, s)
	})
}

// evalMonotone: along the axis, each value's interval lies strictly above
// (increasing) or below (decreasing) the previous one's, within each group
// of rows that agree on every other coordinate. With a side b, the value
// is a − b (differenceRows).
func evalMonotone(c *claim, v *view, as, bs []row) []ClaimPoint {
	if c.b != nil {
		as = c.differenceRows(v, as, bs)
	}
	sign, expect := 1, "> 0 (increasing)"
	if c.spec.Direction == "decreasing" {
		sign, expect = -1, "< 0 (decreasing)"
	}
	axisName := c.axis
	type group struct {
		key  string
		rows []*row
	}
	var groups []*group
	for i := range as {
		r := &as[i]
		var parts []string
		for _, k := range r.coords {
			if k.name != axisName {
				parts = append(parts, k.name+"="+k.value)
			}
		}
		key := strings.Join(parts, "\x00")
		j := slices.IndexFunc(groups, func(g *group) bool { return g.key == key })
		if j < 0 {
			groups = append(groups, &group{key: key})
			j = len(groups) - 1
		}
		groups[j].rows = append(groups[j].rows, r)
	}
	var out []ClaimPoint
	for _, g := range groups {
		slices.SortStableFunc(g.rows, func(x, y *row) int { return cmpFloat(x.axis, y.axis) })
		for i := 1; i < len(g.rows); i++ {
			prev, next := g.rows[i-1], g.rows[i]
			p := c.point(v, prev, next)
			p.shown = withoutAxis(p.shown, axisName)
			p.step = axisText(axisName, prev) + " → " + axisText(axisName, next)
			if p.Outcome != NotRun {
				est, lo, hi := diffInterval(&next.side, &prev.side)
				p.Estimate, p.Low, p.High, p.Expect = results.Float(est), results.Float(lo), results.Float(hi), expect
				p.Outcome = signOutcome(lo, hi, sign)
			}
			out = append(out, p)
		}
	}
	return out
}

// differenceRows pairs a's rows with b's as two-sided checks do and
// returns a row of a − b per pair: mean a − b, CI half-width the sum of
// the two (the interval [lo_a − hi_b, hi_a − lo_b], [Moo66]), n the fewer
// trials. A row without a partner, or whose partner is not run, is not run.
func (c *claim) differenceRows(v *view, as, bs []row) []row {
	var out []row
	for _, pr := range pairs(as, bs) {
		a, b := pr[0], pr[1]
		if a == nil || b == nil {
			have, why := c.unpaired(v, a, b)
			r := *have
			r.why = why
			r.side = ClaimSide{Label: have.side.Label, Mean: results.Float(math.NaN()), Half: results.Float(math.NaN())}
			out = append(out, r)
			continue
		}
		r := *a
		r.coords = slices.Clone(a.coords)
		for _, k := range b.coords {
			if _, ok := r.value(k.name); !ok {
				r.coords = append(r.coords, k)
			}
		}
		if math.IsNaN(r.axis) { // a has no axis (a non-private cell): b's
			r.axis = b.axis
		}
		r.side = ClaimSide{Label: a.side.Label + " − " + b.side.Label, Mean: a.side.Mean - b.side.Mean,
			Half: a.side.Half + b.side.Half, N: min(a.side.N, b.side.N)}
		if r.why == "" {
			r.why = b.why
		}
		out = append(out, r)
	}
	return out
}

// withoutAxis drops the axis coordinate.
func withoutAxis(coords []coord, axis string) []coord {
	return slices.DeleteFunc(slices.Clone(coords), func(k coord) bool { return k.name == axis })
}

// axisText writes a row's axis value: "ε = 0.1", "clip_factor = 10",
// "alpha = 2".
func axisText(axis string, r *row) string {
	for _, k := range r.coords {
		if k.name == axis {
			if axis == "x" {
				return k.text
			}
			if axis == "epsilon" {
				return "ε = " + k.text
			}
			return strings.TrimPrefix(axis, "param:") + " = " + k.text
		}
	}
	return numText(r.axis)
}

// evaluate checks the claim on the view.
func (c *claim) evaluate(v *view) Claim {
	cs := &c.spec
	out := Claim{ID: cs.ID, Quote: cs.Quote, Where: cs.Where, Check: cs.Check, Reading: cs.Reading,
		Statement: c.statement(v.spec), Paper: c.paperText(v.spec), Timing: c.q.timing()}
	as := c.pooled(v.rows(c, c.a))
	var bs []row
	if c.b != nil {
		bs = c.pooled(v.rows(c, c.b))
	}
	out.Points = c.kind.eval(c, v, as, bs)
	v.pointTexts(out.Points)
	for _, s := range []*side{c.a, c.b} {
		if s != nil && s.dropped != "" {
			out.Why = s.dropped
		}
	}
	if out.Why == "" && len(out.Points) == 0 {
		out.Why = "no value selected in this run"
		if v.spec.QuickApplied {
			out.Why += " (the --quick overrides dropped them)"
		}
		if v.spec.Only != nil {
			out.Why += " (outside the --only subset drawn)"
		}
	}
	out.Verdict, out.Summary = verdict(&out, c.anyOf)
	return out
}

// verdict combines the outcomes of the claim's points into its verdict
// and summary, and counts them into cl. The units of the verdict are the
// points, or with any_of the groups of points that differ only in that
// coordinate (one group of every point for "points"): a group holds when
// one of its points holds, is contradicted when every point of it
// evaluated is, and ties otherwise. Over the units: holds when every unit
// evaluated holds; contradicted when any is ("a claim at every ε is
// contradicted if one ε contradicts it"); Partly, "holds at k of n", when
// the others tie; a tie when all tie. Units without a point evaluated are
// not run and do not count; a claim with none is not run.
func verdict(cl *Claim, anyOf string) (string, string) {
	var keys []string
	units := map[string][]string{} // unit key -> its points' outcomes
	var whys []string
	for _, p := range cl.Points {
		var parts []string
		for _, k := range p.coords {
			if anyOf != "points" && k.name != anyOf && !(anyOf == "mechanism" && isMechCoord(k.name)) {
				parts = append(parts, k.name+"="+k.value)
			}
		}
		key := strings.Join(parts, "\x00")
		if anyOf == "" {
			key = strconv.Itoa(len(keys)) // every point its own unit
		}
		if _, ok := units[key]; !ok {
			keys = append(keys, key)
		}
		units[key] = append(units[key], p.Outcome)
		if p.Outcome == NotRun && !slices.Contains(whys, p.Why) {
			whys = append(whys, p.Why)
		}
	}
	for _, k := range keys {
		switch unitOutcome(units[k]) {
		case Holds:
			cl.Held++
		case Tie:
			cl.Tied++
		case Contradicted:
			cl.Contradicting++
		case NotRun:
			cl.NotRun++
		}
	}
	n := cl.Held + cl.Tied + cl.Contradicting
	if n == 0 {
		if cl.Why == "" {
			cl.Why = strings.Join(whys, "; ")
		}
		return NotRun, "not run: " + cl.Why
	}
	unit := func(k int) string {
		switch anyOf {
		case "":
			return plural(k, "point", "points")
		case "points":
			return ""
		}
		return plural(k, "group", "groups")
	}
	var v, s string
	var notes []string // said in parentheses after the verdict
	switch {
	case cl.Contradicting > 0:
		v, s = Contradicted, "contradicted"
		if n > 1 {
			s += fmt.Sprintf(" at %d of %d %s", cl.Contradicting, n, unit(n))
		}
	case cl.Held == n:
		v, s = Holds, "holds"
	case cl.Held > 0:
		v, s = Partly, fmt.Sprintf("holds at %d of %d %s", cl.Held, n, unit(n))
		notes = append(notes, "the others tie")
	default:
		v, s = Tie, "tie"
	}
	if n > 1 && (v == Holds || v == Tie) && anyOf != "points" {
		notes = append(notes, fmt.Sprintf("%d %s", n, unit(n)))
	}
	switch anyOf {
	case "":
	case "points":
		notes = append(notes, "one point suffices")
	default:
		notes = append(notes, fmt.Sprintf("in each group, one %s suffices", coordNoun(anyOf)))
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, "; ") + ")"
	}
	if cl.NotRun > 0 {
		s += fmt.Sprintf("; %d %s not run", cl.NotRun, unit(cl.NotRun))
	}
	return v, s
}

// unitOutcome is the outcome of a unit of the verdict from its points':
// one holding suffices (a unit of one point is that point).
func unitOutcome(outs []string) string {
	evaluated, contra := 0, 0
	for _, o := range outs {
		switch o {
		case Holds:
			return Holds
		case Contradicted:
			contra++
			evaluated++
		case Tie:
			evaluated++
		}
	}
	switch {
	case evaluated == 0:
		return NotRun
	case contra == evaluated:
		return Contradicted
	}
	return Tie
}

// coordNoun names a coordinate in a summary: "mechanism", "ε", "split".
func coordNoun(name string) string {
	switch name {
	case "epsilon":
		return "ε"
	case "group":
		return "diagnostic group"
	}
	return strings.TrimPrefix(name, "param:")
}

// statement says what the claim checks, in words.
func (c *claim) statement(s *spec.Spec) string {
	a := c.sideText(s, c.a)
	var b string
	if c.b != nil {
		b = c.sideText(s, c.b)
	}
	// A curve is its own quantity: "Theorem 1 v2 − exact D_α".
	in, of := " in "+c.q.text(), c.q.text()+" of "
	switch c.q.kind {
	case "curve":
		in, of = "", "value of "
	case "table":
		of = "the entries of " + c.q.text() + ": "
	}
	switch c.spec.Check {
	case "better":
		return fmt.Sprintf("%s %s than %s%s", a, c.betterWord(), b, in)
	case "ratio":
		return fmt.Sprintf("%s / %s%s", a, b, in)
	case "difference":
		return fmt.Sprintf("%s − %s%s", a, b, in)
	case "value":
		return of + a
	case "crossover":
		return fmt.Sprintf("%s %s than %s%s below %s = %s, %s above", a, c.betterWord(), b, in, c.axisName(s), numText(c.at), b)
	case "monotone":
		if c.b != nil {
			a = a + " − " + b
		}
		return fmt.Sprintf("%s%s %s in %s", of, a, c.spec.Direction, c.axisName(s))
	}
	return c.spec.Check
}

func (c *claim) betterWord() string {
	if c.higher {
		return "higher"
	}
	return "lower"
}

// axisName names the claim's axis: "ε", a params key or the curves' x.
func (c *claim) axisName(s *spec.Spec) string {
	switch c.axis {
	case "epsilon":
		return "ε"
	case "x":
		return c.axisNameOf(s)
	}
	return strings.TrimPrefix(c.axis, "param:")
}

// axisNameOf is the name of the x of the curves side a reads ("x" when
// they read none).
func (c *claim) axisNameOf(s *spec.Spec) string {
	if c.a != nil && len(c.a.curves) > 0 {
		return s.Curves[c.a.curves[0]].X
	}
	return "x"
}

// sideText names a side in a statement: its mechanism or curve labels and
// what it pins.
func (c *claim) sideText(s *spec.Spec, sd *side) string {
	var names []string
	switch c.q.kind {
	case "curve":
		names = uniqueCurveLabels(s, sd.curves)
	case "table":
		names = textValues(sd.sel.Column)
		if names == nil {
			names = []string{"every column"}
		}
	default:
		for _, mi := range sd.mechs {
			names = append(names, s.Mechanisms[mi].Label)
		}
		if sd.dropped != "" {
			names = textValues(sd.sel.Mechanism)
		}
	}
	out := strings.Join(names, ", ")
	if len(names) > 1 {
		out = "{" + out + "}"
	}
	var pins []string
	for _, k := range sd.sel.Params.Keys {
		if sd.pinned["param:"+k] {
			pins = append(pins, k+" = "+valuesText(sd.sel.Params.Values[k]))
		}
	}
	for key, vals := range map[string]spec.Values{"dataset": sd.sel.Dataset, "epsilon": sd.sel.Epsilon, "panel": sd.sel.Panel, "x": sd.sel.X, "row": sd.sel.Row} {
		if sd.pinned[key] {
			pins = append(pins, map[string]string{"dataset": "on ", "epsilon": "ε = ", "panel": "", "x": "x = ", "row": "row "}[key]+valuesText(vals))
		}
	}
	slices.Sort(pins)
	if len(pins) > 0 {
		out += " (" + strings.Join(pins, ", ") + ")"
	}
	return out
}

// valuesText writes selected values: "random" or "random, label".
func valuesText(v spec.Values) string {
	var parts []string
	for _, x := range v.List {
		parts = append(parts, spec.FormatValue(x))
	}
	return strings.Join(parts, ", ")
}

// paperText says what the paper gives and how it is compared.
func (c *claim) paperText(s *spec.Spec) string {
	cs := &c.spec
	if len(c.paper) == 0 {
		return NoPaperValue
	}
	var num string
	if len(c.paper) == 1 {
		num = numText(c.paper[0])
	} else {
		var parts []string
		for i, p := range c.paper {
			on := "ε"
			if c.paperOn == "x" {
				on = c.axisNameOf(s)
			}
			parts = append(parts, fmt.Sprintf("%s at %s = %s", numText(p), on, numText(c.paperAt[i])))
		}
		num = strings.Join(parts, "; ")
	}
	switch {
	case cs.Check == "crossover":
		return "crossover at " + num
	case cs.Tolerance != nil:
		return fmt.Sprintf("%s, compared within ±%s%%", num, strconv.FormatFloat(100**cs.Tolerance, 'g', 4, 64))
	case cs.AbsTol != nil:
		return fmt.Sprintf("%s, compared within ±%s", num, numText(*cs.AbsTol))
	case cs.Factor != nil:
		return fmt.Sprintf("%s, compared within a factor %s", num, numText(*cs.Factor))
	case cs.PaperIs == "upper_bound":
		return num + ", an upper bound"
	case cs.PaperIs == "lower_bound":
		return num + ", a lower bound"
	}
	return num
}
