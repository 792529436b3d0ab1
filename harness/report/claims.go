package report

// Paper claims as checks. A [[claim]] block states what a paper says (its
// words and where), and a check over the stored cells (or the [[curve]]
// values) that decides it with the tables' confidence intervals; every
// render writes the verdicts and their evidence (claims_file.go). The keys
// and the rules are documented in experiments/README.md, "Paper claims":
// keep the two together.
//
// A check reads one quantity (a metric, a trace at an iteration, a
// diagnostic or noise key, ε spent, a curve's value) of the cells each side
// selects, and is evaluated point by point: a point is a combination of
// the coordinates the selections leave free (dataset, ε, swept params, a
// diagnostic's group, a curve's panel and abscissa). Two-sided checks pair
// the cells of a and b that agree on every coordinate both have (a
// non-private cell has no ε, so it pairs with every ε).

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/internal/suggest"
)

// selection is the part of a claim, or of one of its sides (a, b), that
// selects cells or curve points. Empty keys select everything.
type selection struct {
	Dataset   spec.Values     `toml:"dataset"`   // dataset labels
	Mechanism spec.Values     `toml:"mechanism"` // mechanism labels (or registry names)
	Params    spec.ParamTable `toml:"params"`    // values per params key (cells without the key pass)
	Epsilon   spec.Values     `toml:"epsilon"`   // ε of the private cells (non-private cells pass)
	Curve     spec.Values     `toml:"curve"`     // curve labels (quantity "curve")
	Panel     spec.Values     `toml:"panel"`     // curve panels
	X         spec.Values     `toml:"x"`         // curve abscissae
	Row       spec.Values     `toml:"row"`       // table rows (quantity "table:NAME"; '*' matches any text)
	Column    spec.Values     `toml:"column"`    // table columns (quantity "table:NAME")
}

// claimSpec is a decoded [[claim]] block: a paper's claim and the check
// that decides it (experiments/README.md, "Paper claims").
type claimSpec struct {
	// ID names the claim in the claims files: lowercase letters, digits,
	// '_', '.', '-'; unique in the spec.
	ID string `toml:"id"`
	// Quote is the paper's words.
	Quote string `toml:"quote"`
	// Where is where the paper says it: version, section, figure, page.
	Where string `toml:"where"`
	// Check is the check kind: better, ratio, difference, value,
	// crossover or monotone.
	Check string `toml:"check"`
	// Quantity is what the check reads: metric:NAME, trace:NAME (at
	// iteration), diagnostic:KEY, noise:KEY (a KEY recorded per group,
	// "node1/eta", gives a point per group), eps_spent, wall_s (the wall
	// time of a fit, in seconds: a timing quantity), curve (the [[curve]]
	// values), table:NAME (the entries of a [[table]] block,
	// claims_table.go) or proportion:KEY (the share of trials whose 0/1
	// diagnostic KEY is 1, claims_proportion.go).
	Quantity string `toml:"quantity"`
	// Iteration is a trace's index t; default its last.
	Iteration *int `toml:"iteration"`
	// Better is the quantity's good direction, lower or higher, for
	// better and crossover checks; a metric's own by default (and only).
	Better string `toml:"better"`
	// The claim's selection, shared by its sides: dataset, mechanism,
	// params, epsilon (cells), curve, panel, x (curves) or row, column
	// (tables).
	selection
	// A is the side a's own selection, over the claim's; a coordinate a
	// side sets is not paired with the other side.
	A *selection `toml:"a"`
	// B is the side b's own selection, over the claim's (checks comparing
	// two sides).
	B *selection `toml:"b"`
	// Over is the axis of crossover and monotone checks: epsilon (the
	// default for cells), a swept params key, or x (curves).
	Over string `toml:"over"`
	// At is where a crossover's b starts to be better than a (this spec's
	// reading; paper_value when the paper gives it).
	At *float64 `toml:"at"`
	// Direction is a monotone check's: increasing or decreasing.
	Direction string `toml:"direction"`
	// PaperValue is the paper's number (ratio, difference, value: compared
	// within tolerance, abs_tolerance or factor; crossover: where it puts
	// the crossover), or a list of them, one per value of the claim's
	// epsilon (or x) list.
	PaperValue spec.Values `toml:"paper_value"`
	// PaperIs says what paper_value is: value (the default: compared
	// within a tolerance), upper_bound (the paper says x ≤ p) or
	// lower_bound (x ≥ p).
	PaperIs string `toml:"paper_is"`
	// Tolerance is a relative tolerance around paper_value: |x − p| ≤
	// tolerance·|p|.
	Tolerance *float64 `toml:"tolerance"`
	// AbsTol is an absolute tolerance around paper_value.
	AbsTol *float64 `toml:"abs_tolerance"`
	// Factor is a multiplicative tolerance around paper_value (> 1): p/f
	// ≤ x ≤ p·f.
	Factor *float64 `toml:"factor"`
	// Min is the region's lower bound when the paper gives no number
	// (this spec's reading of its words; say it in reading).
	Min *float64 `toml:"min"`
	// Max is the region's upper bound when the paper gives no number
	// (this spec's reading of its words; say it in reading).
	Max *float64 `toml:"max"`
	// AnyOf makes a group of points hold when one of them does: points
	// (all of them), or the coordinate its points differ in (mechanism,
	// dataset, epsilon, group, a params key; curve, panel, x). Default:
	// every point must hold.
	AnyOf string `toml:"any_of"`
	// Reading says how the spec reads words of the paper that give no
	// number ("close to": within a factor 2).
	Reading string `toml:"reading"`
	// Pool counts the trials of the points that differ only in this
	// coordinate together, as one point (proportion quantities only:
	// "⊥ in 40 of 40 trials for ε ≤ 2" pools epsilon).
	Pool string `toml:"pool"`
}

// checkKind is a kind of check: how many sides it compares, which keys it
// needs, and how it turns the sides' rows into points. A new kind is an
// entry here, its evaluation, its doc and example (claims_kinds.go: "dplab
// kinds" lists them, TestClaimCheckExamples runs the example), and its
// rule in experiments/README.md.
type checkKind struct {
	sides     int  // 1: a alone; 2: a against b
	optionalB bool // one-sided, or a − b when b is given (monotone)
	direction bool // needs the quantity's better direction (better, crossover)
	region    bool // compares with a region: paper_value ± tolerance, or min/max
	axis      bool // needs an ordered axis (over): crossover, monotone
	eval      func(c *claim, v *view, as, bs []row) []ClaimPoint
	doc       string // what it decides, for "dplab kinds"
	example   string // a small valid [[claim]] of the kind, without check
}

// checkKinds are the check kinds by name.
var checkKinds = map[string]checkKind{
	"better":     {sides: 2, direction: true, eval: evalBetter, doc: betterDoc, example: betterExample},
	"ratio":      {sides: 2, region: true, eval: evalRatio, doc: ratioDoc, example: ratioExample},
	"difference": {sides: 2, region: true, eval: evalDifference, doc: differenceDoc, example: differenceExample},
	"value":      {sides: 1, region: true, eval: evalValue, doc: valueDoc, example: valueExample},
	"crossover":  {sides: 2, direction: true, axis: true, eval: evalCrossover, doc: crossoverDoc, example: crossoverExample},
	"monotone":   {sides: 1, optionalB: true, axis: true, eval: evalMonotone, doc: monotoneDoc, example: monotoneExample},
}

// applies reports whether the [[claim]] key applies to checks of the kind
// (every key but check itself; those not listed here apply to all).
func (k checkKind) applies(key string) bool {
	switch key {
	case "check":
		return false
	case "b":
		return k.sides == 2 || k.optionalB
	case "better":
		return k.direction
	case "over":
		return k.axis
	case "at":
		return k.axis && k.sides == 2
	case "direction":
		return k.axis && k.sides == 1
	case "paper_value":
		return k.region || k.axis && k.sides == 2 // a crossover's: where the paper puts it
	case "paper_is", "tolerance", "abs_tolerance", "factor", "min", "max":
		return k.region
	}
	return true
}

// quantityKinds are the quantities a claim may read; those with a name
// take it after a colon ("metric:test_mse").
var quantityKinds = []string{"metric", "trace", "diagnostic", "noise", "eps_spent", "wall_s", "curve", "table", "proportion"}

// claim is a decoded and checked [[claim]] block, ready to evaluate.
type claim struct {
	spec claimSpec
	kind checkKind
	q    claimQuantity
	a, b *side
	// higher is the quantity's better direction (better, crossover).
	higher bool
	// lo, hi bound the region of ratio, difference and value checks;
	// paper holds the paper's value(s), paperAt the ε (axis "epsilon") or
	// x values a list of them is aligned with.
	lo, hi  float64
	paper   []float64
	paperAt []float64
	paperOn string // "epsilon" or "x": what paperAt holds
	axis    string // "epsilon", "x" or "param:<key>"; "" for checks without one
	at      float64
	// anyOf is the coordinate of any_of ("points": every point; ""
	// without): the points that differ only in it form a group, which
	// holds when one of them does.
	anyOf string
	// pool is the coordinate of pool ("" without): the points that differ
	// only in it are counted as one (claims_proportion.go).
	pool string
}

// claimQuantity is what a claim reads of each selected cell or curve point.
type claimQuantity struct {
	kind, name string
	iteration  int // trace: the index t; -1: the last
}

// side is one side of a claim: the claim's selection with the side's own
// keys over it.
type side struct {
	sel selection
	// pinned are the coordinates the side's own keys fix: they tell the
	// sides apart and are not paired ("dataset", "epsilon", "param:k",
	// "panel", "x").
	pinned map[string]bool
	// mechs and curves are the spec's mechanism and curve indices the
	// side selects.
	mechs, curves []int
	// dropped says why the side has nothing to evaluate in this run (its
	// mechanism or dataset dropped by --quick); "" otherwise.
	dropped string
	isB     bool // the side b
}

// mechCoord is the name of the coordinate of a side selecting several
// mechanisms (or curves): "mechanism" for a, "mechanism·b" for b. The two
// sides' mechanisms differ by design: the coordinate is never paired.
func (s *side) mechCoord() string {
	if s.isB {
		return "mechanism" + sideB
	}
	return "mechanism"
}

// sideCoord is the name of a coordinate that names a side's points but is
// never paired with the other side's: name·a or name·b (pointName shows
// both as name).
func (s *side) sideCoord(name string) string {
	if s.isB {
		return name + sideB
	}
	return name + sideA
}

// sideA and sideB mark coordinates of one side only (sideCoord).
const (
	sideA = "·a"
	sideB = "·b"
)

var claimIDRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]*$`)

// decodeClaims decodes and checks every [[claim]] block of s.
func decodeClaims(s *spec.Spec) ([]*claim, error) {
	var out []*claim
	ids := map[string]int{}
	for i := range s.Claims {
		b := &Block{Spec: s, Kind: "claim", Index: i, Out: &spec.OutputSpec{Params: s.Claims[i]}}
		c, err := decodeClaim(b)
		if err != nil {
			return nil, err
		}
		if j, ok := ids[c.spec.ID]; ok {
			return nil, b.Errorf("id", "claim id %q is already claim[%d]'s", c.spec.ID, j)
		}
		ids[c.spec.ID] = i
		out = append(out, c)
	}
	return out, nil
}

// decodeClaim decodes one [[claim]] block strictly and checks it against
// the spec: labels, params keys, ε, curves and the keys its check needs.
func decodeClaim(b *Block) (*claim, error) {
	c := &claim{}
	cs := &c.spec
	if err := b.Decode(cs); err != nil {
		return nil, err
	}
	switch {
	case !claimIDRE.MatchString(cs.ID):
		return nil, b.Errorf("id", "a claim needs an id: lowercase letters, digits, '_', '.', '-' (got %q)", cs.ID)
	case strings.TrimSpace(cs.Quote) == "":
		return nil, b.Errorf("quote", "a claim needs quote: the paper's words")
	case strings.TrimSpace(cs.Where) == "":
		return nil, b.Errorf("where", "a claim needs where: where the paper says it (version, section, figure, page)")
	}
	kind, ok := checkKinds[cs.Check]
	if !ok {
		names := slices.Sorted(maps.Keys(checkKinds))
		return nil, b.Errorf("check", "check %q%s: want one of %s", cs.Check, suggest.DidYouMean(cs.Check, names), strings.Join(names, ", "))
	}
	c.kind = kind
	if err := c.decodeQuantity(b); err != nil {
		return nil, err
	}
	if err := c.decodeSides(b); err != nil {
		return nil, err
	}
	if err := c.decodeDirection(b); err != nil {
		return nil, err
	}
	if err := c.decodeAxis(b); err != nil {
		return nil, err
	}
	if err := c.decodeRegion(b); err != nil {
		return nil, err
	}
	if err := c.decodeAnyOf(b); err != nil {
		return nil, err
	}
	if err := c.decodePool(b); err != nil {
		return nil, err
	}
	return c, nil
}

// decodeQuantity parses quantity = "kind[:name]" and iteration.
func (c *claim) decodeQuantity(b *Block) error {
	cs := &c.spec
	kind, name, hasName := strings.Cut(cs.Quantity, ":")
	c.q = claimQuantity{kind: kind, name: name, iteration: -1}
	want := "want metric:NAME, trace:NAME, diagnostic:KEY, noise:KEY, eps_spent, wall_s, curve, table:NAME or proportion:KEY"
	switch kind {
	case "metric", "trace", "diagnostic", "noise", "table", "proportion":
		if !hasName || name == "" {
			return b.Errorf("quantity", "quantity %q names no %s: %s", cs.Quantity, kind, want)
		}
	case "eps_spent", "wall_s", "curve":
		if hasName {
			return b.Errorf("quantity", "quantity %q: %s takes no name", cs.Quantity, kind)
		}
	default:
		return b.Errorf("quantity", "quantity %q%s: %s", cs.Quantity, suggest.DidYouMean(kind, quantityKinds), want)
	}
	if kind == "metric" {
		if _, ok := plan.LookupMetric(name); !ok {
			var names []string
			for _, m := range plan.Metrics {
				names = append(names, m.Name)
			}
			return b.Errorf("quantity", "unknown metric %q%s", name, suggest.DidYouMean(name, names))
		}
	}
	if kind == "table" {
		if err := checkTableName(b, name); err != nil {
			return err
		}
	}
	if cs.Iteration != nil {
		if kind != "trace" {
			return b.Errorf("iteration", "iteration applies to a trace quantity only")
		}
		if *cs.Iteration < 0 {
			return b.Errorf("iteration", "iteration = %d: want t ≥ 0", *cs.Iteration)
		}
		c.q.iteration = *cs.Iteration
	}
	return nil
}

// decodeSides resolves the sides a (and b) and checks their selections.
func (c *claim) decodeSides(b *Block) error {
	cs := &c.spec
	if err := c.checkSelection(b, "", &cs.selection); err != nil {
		return err
	}
	if c.kind.sides == 1 && cs.B != nil && !c.kind.optionalB {
		return b.Errorf("b", "check %q reads one side (a, or the claim's own selection): b does not apply", cs.Check)
	}
	if c.kind.sides == 2 && (cs.A == nil || cs.B == nil) {
		return b.Errorf("check", "check %q compares two sides: give a = { … } and b = { … }", cs.Check)
	}
	if cs.B != nil && cs.A == nil { // monotone on a − b
		return b.Errorf("b", "check %q reads a − b when b is given: give a = { … } too", cs.Check)
	}
	var err error
	if c.a, err = c.resolveSide(b, "a", cs.A); err != nil {
		return err
	}
	if cs.B != nil {
		if c.b, err = c.resolveSide(b, "b", cs.B); err != nil {
			return err
		}
		// A coordinate a side pins is not among its rows' coordinates,
		// so it is never paired; the other side keeps it, to name its
		// points (b pinned at x = 101: a's points are its x).
		c.b.isB = true
	}
	return nil
}

// resolveSide merges the side's own selection (key a or b; nil: none) over
// the claim's and checks it.
func (c *claim) resolveSide(b *Block, key string, own *selection) (*side, error) {
	s := &side{sel: c.spec.selection, pinned: map[string]bool{}}
	if own != nil {
		if err := c.checkSelection(b, key+".", own); err != nil {
			return nil, err
		}
		over := func(dst *spec.Values, src spec.Values, coord string) {
			if src.List != nil {
				*dst = src
				if coord != "" {
					s.pinned[coord] = true
				}
			}
		}
		over(&s.sel.Dataset, own.Dataset, "dataset")
		over(&s.sel.Mechanism, own.Mechanism, "")
		over(&s.sel.Epsilon, own.Epsilon, "epsilon")
		over(&s.sel.Curve, own.Curve, "")
		over(&s.sel.Panel, own.Panel, "panel")
		over(&s.sel.X, own.X, "x")
		over(&s.sel.Row, own.Row, "row")
		over(&s.sel.Column, own.Column, "column")
		if len(own.Params.Keys) > 0 {
			for _, k := range own.Params.Keys {
				s.pinned["param:"+k] = true
			}
			s.sel.Params = s.sel.Params.Merged(own.Params)
		}
	}
	sp := b.Spec
	where := key
	if where == "" {
		where = "the claim"
	}
	if c.q.kind == "table" { // its rows are found when the table is built
		return s, nil
	}
	if c.q.kind == "curve" {
		for i, cv := range sp.Curves {
			if matchText(s.sel.Curve, cv.Label) && matchText(s.sel.Panel, cv.Panel) {
				s.curves = append(s.curves, i)
			}
		}
		if len(s.curves) == 0 {
			return nil, b.Errorf(key, "%s selects no curve", where)
		}
		return s, nil
	}
	for i, m := range sp.Mechanisms {
		if selectsMechanism(s.sel.Mechanism, m) {
			s.mechs = append(s.mechs, i)
		}
	}
	for _, l := range textValues(s.sel.Mechanism) {
		if sp.QuickDropped[l] {
			s.dropped = fmt.Sprintf("mechanism %q is not in this --quick run", l)
		}
	}
	for _, l := range textValues(s.sel.Dataset) {
		if sp.QuickDropped[l] {
			s.dropped = fmt.Sprintf("dataset %q is not in this --quick run", l)
		}
	}
	if s.dropped != "" {
		return s, nil
	}
	if len(s.mechs) == 0 {
		return nil, b.Errorf(key, "%s selects no mechanism", where)
	}
	// A params key must be one of a selected mechanism's, and each value
	// one of its values (a --quick run may have replaced them).
	for _, k := range s.sel.Params.Keys {
		var known []string
		var values []any
		for _, mi := range s.mechs {
			for _, pk := range sp.Mechanisms[mi].Params.Keys {
				known = append(known, pk)
				if pk == k {
					values = append(values, sp.Mechanisms[mi].Params.Values[k].List...)
				}
			}
		}
		if values == nil {
			slices.Sort(known)
			return nil, b.Errorf(paramsKey(key, own, k), "no mechanism %s selects has params key %q%s (keys: %s)", where, k, suggest.DidYouMean(k, known), strings.Join(slices.Compact(known), ", "))
		}
		for _, w := range s.sel.Params.Values[k].List {
			if sp.QuickApplied || slices.ContainsFunc(values, func(x any) bool { return sameValue(x, w) }) {
				continue
			}
			var texts []string
			for _, x := range values {
				texts = append(texts, spec.FormatValue(x))
			}
			texts = slices.Compact(texts)
			hint := ""
			if str, ok := w.(string); ok {
				hint = suggest.DidYouMean(str, texts)
			}
			return nil, b.Errorf(paramsKey(key, own, k), "no mechanism %s selects has %s = %s%s (values: %s)", where, k, spec.FormatValue(w), hint, strings.Join(texts, ", "))
		}
	}
	return s, nil
}

// paramsKey is the key path of params key k: on the side when the side
// sets it, else on the claim.
func paramsKey(side string, own *selection, k string) string {
	if own != nil && slices.Contains(own.Params.Keys, k) {
		return side + ".params." + k
	}
	return "params." + k
}

// checkSelection checks the labels, ε and curve keys of a selection (the
// claim's, prefix "", or a side's, prefix "a." or "b.") against the spec.
func (c *claim) checkSelection(b *Block, prefix string, sel *selection) error {
	sp := b.Spec
	// Each key selects in one family: cells, [[curve]] values or the
	// entries of a [[table]]; the quantity reads one of them.
	family := func(kind string) string {
		switch kind {
		case "curve":
			return "curves"
		case "table":
			return "table"
		}
		return "cells"
	}
	want := family(c.q.kind)
	type selKey struct {
		key, family string
		vals        spec.Values
	}
	keys := []selKey{{"dataset", "cells", sel.Dataset}, {"mechanism", "cells", sel.Mechanism}, {"epsilon", "cells", sel.Epsilon},
		{"curve", "curves", sel.Curve}, {"panel", "curves", sel.Panel}, {"x", "curves", sel.X},
		{"row", "table", sel.Row}, {"column", "table", sel.Column}}
	if len(sel.Params.Keys) > 0 {
		keys = append(keys, selKey{"params", "cells", spec.Values{List: []any{}}})
	}
	for _, k := range keys {
		if k.vals.List == nil || k.family == want {
			continue
		}
		switch {
		case want == "curves":
			return b.Errorf(prefix+k.key, "%s selects %s: quantity = \"curve\" reads [[curve]] blocks (curve, panel, x)", k.key, map[string]string{"cells": "cells", "table": "[[table]] entries"}[k.family])
		case want == "table":
			return b.Errorf(prefix+k.key, "%s selects %s: quantity = %q reads the entries of a [[table]] block (row, column)", k.key, map[string]string{"cells": "cells", "curves": "[[curve]] values"}[k.family], c.spec.Quantity)
		case k.family == "curves":
			return b.Errorf(prefix+k.key, "%s selects [[curve]] values: it needs quantity = \"curve\"", k.key)
		default:
			return b.Errorf(prefix+k.key, "%s selects [[table]] entries: it needs quantity = \"table:NAME\"", k.key)
		}
	}
	dsLabels, mechLabels, curveLabels, panels := sp.DatasetLabels(), sp.MechanismLabels(), sp.CurveLabels(), sp.CurvePanels()
	names := func(key string, vals spec.Values, known []string, what string, ok func(string) bool) error {
		for _, v := range vals.List {
			l, isText := v.(string)
			if !isText {
				return b.Errorf(prefix+key, "%s: want a %s or a list of them, got %v", key, what, v)
			}
			if !ok(l) && !sp.QuickDropped[l] {
				return b.Errorf(prefix+key, "%s", plan.UnknownName(what, l, known))
			}
		}
		return nil
	}
	for key, vals := range map[string]spec.Values{"row": sel.Row, "column": sel.Column} {
		for _, v := range vals.List {
			if _, isText := v.(string); !isText {
				return b.Errorf(prefix+key, "%s: want a label (a text, '*' matching any text) or a list of them, got %v", key, v)
			}
		}
	}
	if err := names("dataset", sel.Dataset, dsLabels, "dataset labelled", func(l string) bool { return slices.Contains(dsLabels, l) }); err != nil {
		return err
	}
	if err := names("mechanism", sel.Mechanism, mechLabels, "mechanism labelled", func(l string) bool {
		return slices.ContainsFunc(sp.Mechanisms, func(m spec.MechanismSpec) bool { return m.Label == l || m.Name == l })
	}); err != nil {
		return err
	}
	if err := names("curve", sel.Curve, curveLabels, "curve labelled", func(l string) bool { return slices.Contains(curveLabels, l) }); err != nil {
		return err
	}
	if err := names("panel", sel.Panel, panels, "curve panel", func(l string) bool { return slices.Contains(panels, l) }); err != nil {
		return err
	}
	if sel.Epsilon.List != nil {
		eps, err := sel.Epsilon.Floats()
		if err != nil {
			return b.Errorf(prefix+"epsilon", "epsilon: want numbers: %v", err)
		}
		grid, _ := sp.Epsilon.Floats()
		for _, e := range eps {
			// A --quick run's grid is smaller: its claims say "not run"
			// for the ε it dropped.
			if !sp.QuickApplied && !slices.ContainsFunc(grid, func(g float64) bool { return sameFloat(g, e) }) {
				return b.Errorf(prefix+"epsilon", "ε = %g is not in the spec's grid %v", e, grid)
			}
		}
	}
	if sel.X.List != nil {
		if _, err := sel.X.Floats(); err != nil {
			return b.Errorf(prefix+"x", "x: want numbers: %v", err)
		}
	}
	return nil
}

// decodeDirection sets the quantity's better direction for the checks that
// need one: a metric's own (Metric.Higher), else better = "lower" |
// "higher".
func (c *claim) decodeDirection(b *Block) error {
	cs := &c.spec
	if !c.kind.direction {
		if cs.Better != "" {
			return b.Errorf("better", "check %q takes no better direction", cs.Check)
		}
		return nil
	}
	given := cs.Better
	if given != "" && given != "lower" && given != "higher" {
		return b.Errorf("better", "better = %q: want lower or higher", given)
	}
	if c.q.kind == "metric" {
		m, _ := plan.LookupMetric(c.q.name)
		own := map[bool]string{true: "higher", false: "lower"}[m.Higher]
		if given != "" && given != own {
			return b.Errorf("better", "better = %q, but %s is better %s", given, m.Name, own)
		}
		c.higher = m.Higher
		return nil
	}
	if given == "" {
		return b.Errorf("better", "check %q on %s needs better = \"lower\" or \"higher\" (only metrics know their direction)", cs.Check, cs.Quantity)
	}
	c.higher = given == "higher"
	return nil
}

// decodeAxis checks over, at and direction (crossover, monotone).
func (c *claim) decodeAxis(b *Block) error {
	cs := &c.spec
	if !c.kind.axis {
		for key, set := range map[string]bool{"over": cs.Over != "", "at": cs.At != nil, "direction": cs.Direction != ""} {
			if set {
				return b.Errorf(key, "%s applies to crossover and monotone checks only", key)
			}
		}
		return nil
	}
	if c.q.kind == "table" {
		return b.Errorf("check", "check %q needs an ordered axis: a table's rows have none", cs.Check)
	}
	switch over := cs.Over; {
	case over == "" && c.q.kind == "curve", over == "x":
		c.axis = "x"
	case over == "" || over == "epsilon":
		c.axis = "epsilon"
	default:
		c.axis = "param:" + over
	}
	if (c.axis == "x") != (c.q.kind == "curve") {
		return b.Errorf("over", "over = %q: a curve's axis is x, a cell's epsilon or a swept params key", cs.Over)
	}
	for _, s := range []*side{c.a, c.b} {
		if s == nil || s.dropped != "" {
			continue
		}
		if s.pinned[c.axis] {
			return b.Errorf("over", "the axis %s is fixed on a side: it cannot vary", cs.Over)
		}
		for _, mi := range s.mechs {
			m := b.Spec.Mechanisms[mi]
			if k, ok := strings.CutPrefix(c.axis, "param:"); ok {
				vals, ok := m.Params.Values[k]
				if !ok {
					return b.Errorf("over", "over = %q: mechanism %q has no params key %q%s", cs.Over, m.Label, k, suggest.DidYouMean(k, m.Params.Keys))
				}
				if _, err := vals.Floats(); err != nil {
					return b.Errorf("over", "over = %q: the values of %q must be numbers to be ordered: %v", cs.Over, k, err)
				}
			}
		}
	}
	if c.kind.sides == 2 { // crossover: where a stops being better
		switch {
		case cs.At != nil && cs.PaperValue.List != nil:
			return b.Errorf("at", "give at (this spec's reading) or paper_value (the paper's crossover), not both")
		case cs.At != nil:
			c.at = *cs.At
		case cs.PaperValue.List != nil:
			p, err := cs.PaperValue.Floats()
			if err != nil || len(p) != 1 {
				return b.Errorf("paper_value", "a crossover's paper_value is one number: where the paper puts it")
			}
			c.at, c.paper = p[0], p
		default:
			return b.Errorf("at", "a crossover needs at (or paper_value): the axis value where b starts to be better than a")
		}
	} else {
		if cs.At != nil {
			return b.Errorf("at", "at applies to crossover checks only")
		}
		if cs.Direction != "increasing" && cs.Direction != "decreasing" {
			return b.Errorf("direction", "direction = %q: want increasing or decreasing", cs.Direction)
		}
	}
	if c.kind.sides == 2 && cs.Direction != "" {
		return b.Errorf("direction", "direction applies to monotone checks only")
	}
	return nil
}

// decodeRegion checks the region keys of ratio, difference and value
// checks: paper_value with one of tolerance, abs_tolerance and factor, or
// min and/or max (this spec's reading of a paper that gives no number).
func (c *claim) decodeRegion(b *Block) error {
	cs := &c.spec
	tols := map[string]*float64{"tolerance": cs.Tolerance, "abs_tolerance": cs.AbsTol, "factor": cs.Factor}
	bounds := map[string]*float64{"min": cs.Min, "max": cs.Max}
	if !c.kind.region {
		for _, m := range []map[string]*float64{tols, bounds} {
			for key, v := range m {
				if v != nil {
					return b.Errorf(key, "check %q compares no region: %s does not apply", cs.Check, key)
				}
			}
		}
		if cs.PaperValue.List != nil && !c.kind.applies("paper_value") {
			return b.Errorf("paper_value", "check %q takes no paper_value (a ratio, difference, value or crossover check does)", cs.Check)
		}
		if cs.PaperIs != "" {
			return b.Errorf("paper_is", "check %q compares no region: paper_is does not apply", cs.Check)
		}
		return nil
	}
	var tolKey string
	for _, key := range []string{"tolerance", "abs_tolerance", "factor"} {
		if v := tols[key]; v != nil {
			if tolKey != "" {
				return b.Errorf(key, "give one of tolerance, abs_tolerance and factor (also %s)", tolKey)
			}
			tolKey = key
			if !(*v > 0) || math.IsInf(*v, 0) || key == "factor" && *v <= 1 {
				return b.Errorf(key, "%s = %g: want a finite number > %s", key, *v, map[bool]string{true: "1", false: "0"}[key == "factor"])
			}
		}
	}
	c.lo, c.hi = math.Inf(-1), math.Inf(1)
	if cs.PaperValue.List == nil {
		switch {
		case cs.PaperIs != "":
			return b.Errorf("paper_is", "paper_is needs paper_value")
		case tolKey != "":
			return b.Errorf(tolKey, "%s needs paper_value: the paper's number it is a tolerance of", tolKey)
		case cs.Min == nil && cs.Max == nil:
			return b.Errorf("check", "check %q needs paper_value (with tolerance, abs_tolerance or factor) or min and/or max", cs.Check)
		}
		if cs.Min != nil {
			c.lo = *cs.Min
		}
		if cs.Max != nil {
			c.hi = *cs.Max
		}
		if !(c.lo <= c.hi) {
			return b.Errorf("max", "max = %g is below min = %g", c.hi, c.lo)
		}
		return nil
	}
	for key, v := range bounds {
		if v != nil {
			return b.Errorf(key, "give paper_value with a tolerance, or min/max, not both")
		}
	}
	switch cs.PaperIs {
	case "", "value":
		if tolKey == "" {
			return b.Errorf("paper_value", "paper_value needs tolerance (relative), abs_tolerance or factor: how close counts as the paper's")
		}
	case "upper_bound", "lower_bound":
		if tolKey != "" {
			return b.Errorf(tolKey, "paper_is = %q compares with the bound itself: %s does not apply", cs.PaperIs, tolKey)
		}
	default:
		return b.Errorf("paper_is", "paper_is = %q: want value, upper_bound or lower_bound", cs.PaperIs)
	}
	p, err := cs.PaperValue.Floats()
	if err != nil {
		return b.Errorf("paper_value", "paper_value: want a number or a list of numbers: %v", err)
	}
	if tolKey == "factor" && slices.ContainsFunc(p, func(x float64) bool { return !(x > 0) }) {
		return b.Errorf("paper_value", "factor needs positive paper values")
	}
	c.paper = p
	if len(p) > 1 {
		// One paper value per ε or x the claim lists, in that order.
		on, list := "epsilon", cs.Epsilon
		if c.q.kind == "curve" {
			on, list = "x", cs.X
		}
		at, _ := list.Floats()
		if len(at) != len(p) {
			return b.Errorf("paper_value", "%d paper values need the claim's %s list of the same length (the paper's value at each), got %d", len(p), on, len(at))
		}
		c.paperAt, c.paperOn = at, on
	}
	return nil
}

// decodeAnyOf checks any_of: "points", or a coordinate the points may
// differ in.
func (c *claim) decodeAnyOf(b *Block) error {
	a := c.spec.AnyOf
	switch a {
	case "":
		return nil
	case "points", "mechanism", "dataset", "epsilon", "group":
		if (c.q.kind == "curve" || c.q.kind == "table") && a != "points" {
			break
		}
		c.anyOf = a
		return nil
	case "curve", "panel", "x":
		if c.q.kind == "curve" {
			c.anyOf = map[string]string{"curve": "mechanism", "panel": "panel", "x": "x"}[a]
			return nil
		}
	case "row", "column":
		if c.q.kind == "table" {
			c.anyOf = a
			return nil
		}
	default:
		if c.hasParamsKey(b.Spec, a) {
			c.anyOf = "param:" + a
			return nil
		}
	}
	return b.Errorf("any_of", "any_of = %q: want points, or a coordinate the points differ in: mechanism, dataset, epsilon, group or a swept params key (cells), curve, panel or x (curves), row or column (tables)", a)
}

// hasParamsKey reports whether a mechanism a side selects has params key
// k (a coordinate its points may differ in).
func (c *claim) hasParamsKey(sp *spec.Spec, k string) bool {
	for _, s := range []*side{c.a, c.b} {
		if s == nil {
			continue
		}
		for _, mi := range s.mechs {
			if slices.Contains(sp.Mechanisms[mi].Params.Keys, k) {
				return true
			}
		}
	}
	return false
}

// sameFloat reports whether two ε or x values are the same (to 1e-9
// relative, as tables select ε).
func sameFloat(a, b float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// matchText reports whether a selection of labels (empty: all) holds l.
func matchText(vals spec.Values, l string) bool {
	return vals.List == nil || slices.Contains(textValues(vals), l)
}

// textValues are the string values of a selection.
func textValues(vals spec.Values) []string {
	var out []string
	for _, v := range vals.List {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// selectsMechanism reports whether a mechanism selection (labels, or
// registry names; empty: all) holds m.
func selectsMechanism(vals spec.Values, m spec.MechanismSpec) bool {
	if vals.List == nil {
		return true
	}
	for _, l := range textValues(vals) {
		if l == m.Label {
			return true
		}
	}
	// A registry name selects its blocks unless it is also some block's
	// label (then it names that block).
	return slices.Contains(textValues(vals), m.Name) && !slices.ContainsFunc(textValues(vals), func(l string) bool { return l != m.Name && l == m.Label })
}

// uniqueCurveLabels are the distinct labels of the curve blocks idx.
func uniqueCurveLabels(s *spec.Spec, idx []int) []string {
	var out []string
	for _, i := range idx {
		if !slices.Contains(out, s.Curves[i].Label) {
			out = append(out, s.Curves[i].Label)
		}
	}
	return out
}

// sameValue reports whether a cell's param value equals a selected one
// (numbers by value, anything else by its text).
func sameValue(a, b any) bool {
	x, errA := spec.AsFloat(a)
	y, errB := spec.AsFloat(b)
	if errA == nil && errB == nil {
		return x == y
	}
	return fmt.Sprint(a) == fmt.Sprint(b)
}
