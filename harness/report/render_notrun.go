package report

// Cells without results that figures and tables must still account for:
// infeasible cells (the target is below what the mechanism reaches on the
// data), (mechanism, dataset) pairs the spec leaves out, and the trials of
// private tuning that drew no run and released the data-independent model.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/plotting"
	"github.com/dplab/dplab/results"
)

// infeasibleCell is what a cell's infeasible trials (results.StatusInfeasible:
// the mechanism cannot reach the target ε on the data) say: how many, and
// the range of the smallest ε their calibrations reached.
type infeasibleCell struct {
	trials int
	lo, hi float64 // smallest ε reached, over the trials
	order  float64 // RDP order of an RDP target (lo, hi are RDP ε then); 0 otherwise
	reason string  // why, when no smallest ε was recorded (the record's error, shortened)
}

// addInfeasible counts an infeasible record of the cell, at at in the
// view's order: the order of an RDP target is the last one there, the
// reason the first one there.
func (n *cellNotes) addInfeasible(r *results.Record, at recordAt) {
	floor := math.NaN()
	if f, ok := r.Diagnostics[results.InfeasibleFloor]; ok {
		floor = float64(f)
	}
	c := n.infeasible
	if c == nil {
		c = &infeasibleCell{lo: floor, hi: floor}
		n.infeasible = c
	}
	c.trials++
	c.lo, c.hi = math.Min(c.lo, floor), math.Max(c.hi, floor)
	if line, _, _ := strings.Cut(r.Error, "\n"); math.IsNaN(floor) && line != "" && (c.reason == "" || at.before(n.reasonAt)) {
		c.reason, n.reasonAt = line, at
	}
	if o, ok := r.Diagnostics[results.InfeasibleOrder]; ok && (!n.ordered || n.orderAt.before(at)) {
		c.order, n.orderAt, n.ordered = float64(o), at, true
	}
}

// floorText is "smallest ε 4.26" (a range when trials differ; "smallest
// RDP ε at α = 2: …" for an RDP target).
func (c *infeasibleCell) floorText() string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 3, 64) }
	val := f(c.lo)
	if c.hi != c.lo {
		val = f(c.lo) + "–" + f(c.hi)
	}
	if math.IsNaN(c.lo) {
		if c.reason != "" {
			return c.reason
		}
		val = "not recorded"
	}
	if c.order > 0 {
		return fmt.Sprintf("smallest RDP ε at α = %g: %s", c.order, val)
	}
	return "smallest ε " + val
}

// infeasibleEntry is a table entry for a cell none of whose trials could
// run (every stored trial infeasible): "infeasible (smallest ε 4.26)".
func (v *view) infeasibleEntry(key string) (plotting.Entry, bool) {
	c, ok := v.infeasible[key]
	if !ok || v.agg[key].Trials > 0 {
		return plotting.Entry{}, false
	}
	return plotting.Entry{Present: true, Text: "infeasible (" + c.floorText() + ")"}, true
}

// infeasibleAt lists the mechanisms infeasible on dataset di at ε (legend
// and smallest ε), in spec order, among those want keeps.
func (v *view) infeasibleAt(di int, eps float64, want func(c *plan.Cell) bool) []string {
	var out []string
	for i := range v.cells {
		c := &v.cells[i]
		if c.Dataset != di || c.Epsilon != eps || !want(c) {
			continue
		}
		if ic, ok := v.infeasible[c.Key]; ok {
			out = append(out, fmt.Sprintf("%s (%s)", v.legend(c), ic.floorText()))
		}
	}
	return out
}

// infeasibleText is the caption part naming the shown cells with
// infeasible trials, per mechanism (and dataset when several are shown),
// with their ε values and smallest ε: "INFEASIBLE (target ε below what the
// mechanism reaches on the data; nothing released, not drawn): RGM at
// ε = 0.1, 0.316 (smallest ε 4.26)". "" when there are none.
func (v *view) infeasibleText(keep func(*plan.Cell) bool) string {
	name := v.cellNamer(keep)
	type group struct {
		where string
		eps   []string
		cells []*infeasibleCell
	}
	var groups []*group
	byWhere := map[string]*group{}
	for i := range v.cells {
		c := &v.cells[i]
		ic, ok := v.infeasible[c.Key]
		if !ok || !keep(c) {
			continue
		}
		where := name(c)
		g := byWhere[where]
		if g == nil {
			g = &group{where: where}
			byWhere[where] = g
			groups = append(groups, g)
		}
		e := strconv.FormatFloat(c.Epsilon, 'g', 3, 64)
		if n := v.agg[c.Key].Trials; n > 0 {
			e += fmt.Sprintf(" (%d of %d trials)", ic.trials, ic.trials+n)
		}
		g.eps = append(g.eps, e)
		g.cells = append(g.cells, ic)
	}
	if len(groups) == 0 {
		return ""
	}
	var parts []string
	for _, g := range groups {
		merged := &infeasibleCell{lo: math.Inf(1), hi: math.Inf(-1)}
		for _, ic := range g.cells {
			merged.lo, merged.hi = math.Min(merged.lo, ic.lo), math.Max(merged.hi, ic.hi)
			merged.order = ic.order
			if merged.reason == "" {
				merged.reason = ic.reason
			}
		}
		floors := merged.floorText()
		if len(g.cells) > 1 && merged.lo != merged.hi {
			floors = strings.Replace(floors, "smallest", "smallest over these cells", 1)
		}
		parts = append(parts, fmt.Sprintf("%s at ε = %s (%s)", g.where, strings.Join(slices.Compact(g.eps), ", "), floors))
	}
	return "INFEASIBLE (target ε below the smallest the mechanism reaches on the data; nothing released, not drawn): " + strings.Join(parts, "; ")
}

// excludedText is the caption part naming the (mechanism, dataset) pairs
// the spec leaves out (MechanismSpec.Exclude) whose cells the output would
// show: "NOT RUN (excluded by the spec): GaussMix head on Synthetic-H: 16 s
// per trial …". A pair counts as shown when keep accepts a cell of it (a
// probe: the pair's first cell as plan.New would have made it). "" when none.
func (v *view) excludedText(keep func(*plan.Cell) bool) string {
	s := v.spec
	eps, _ := s.Epsilon.Floats()
	var parts []string
	for mi, m := range s.Mechanisms {
		// The probe copies one of the mechanism's cells (its privacy, entry
		// and first ε); a mechanism left out everywhere has none and is
		// probed as a private one.
		probe := plan.Cell{Mechanism: mi, Label: m.Label, Private: true, Trials: s.Trials}
		if len(eps) > 0 {
			probe.Epsilon = eps[0]
		}
		if i := slices.IndexFunc(v.cells, func(c plan.Cell) bool { return c.Mechanism == mi }); i >= 0 {
			probe = v.cells[i]
		}
		for di, d := range s.Datasets {
			why, out := s.Excluded(di, mi)
			if !out {
				continue
			}
			probe.Dataset = di
			if keep(&probe) {
				parts = append(parts, fmt.Sprintf("%s on %s: %s", m.Label, d.Label, why))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "NOT RUN (left out by the spec): " + strings.Join(parts, "; ")
}

// excludedEntry is a table entry for an excluded pair: "not run".
func excludedEntry() plotting.Entry { return plotting.Entry{Present: true, Text: "not run (see note)"} }

// dataIndependentText is the caption part counting, per shown cell, the
// trials whose private tuning drew K = 0 runs and so released the
// data-independent zero model (results.Record.DataIndependent): "K = 0
// (private tuning drew no run and released the data-independent zero
// model; counted in the mean, as the protocol releases it): DP-SGD at
// ε = 10 (1 of 20 trials)". "" when there are none.
func (v *view) dataIndependentText(keep func(*plan.Cell) bool) string {
	name := v.cellNamer(keep)
	var parts []string
	for i := range v.cells {
		c := &v.cells[i]
		a, ok := v.agg[c.Key]
		if !ok || a.DataIndependent == 0 || !keep(c) {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s at ε = %s (%d of %d %s)", name(c), strconv.FormatFloat(c.Epsilon, 'g', 3, 64),
			a.DataIndependent, a.Trials, plural(a.Trials, "trial", "trials")))
	}
	if len(parts) == 0 {
		return ""
	}
	return "K = 0 (private tuning drew no run and released the data-independent zero model; counted in the mean, as the protocol releases it; no noise): " + strings.Join(parts, ", ")
}

// cellNamer returns how a caption names a cell: its legend, after its
// dataset's label when the cells keep accepts span several datasets.
func (v *view) cellNamer(keep func(*plan.Cell) bool) func(c *plan.Cell) string {
	datasets := map[int]bool{}
	for i := range v.cells {
		if keep(&v.cells[i]) {
			datasets[v.cells[i].Dataset] = true
		}
	}
	return func(c *plan.Cell) string {
		if len(datasets) > 1 {
			return v.spec.DatasetAt(c.Dataset).Label + " " + v.legend(c)
		}
		return v.legend(c)
	}
}
