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
	"sort"
	"strconv"
	"strings"

	"github.com/dplab/dplab/experiments/spec"
	"github.com/dplab/dplab/internal/suggest"
	"github.com/dplab/dplab/results"
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
	// "node1/eta", gives a point per group), eps_spent, or curve (the
	// [[curve]] values).
	Quantity string `toml:"quantity"`
	// Iteration is a trace's index t; default its last.
	Iteration *int `toml:"iteration"`
	// Better is the quantity's good direction, lower or higher, for
	// better and crossover checks; a metric's own by default (and only).
	Better string `toml:"better"`
	// The claim's selection, shared by its sides: dataset, mechanism,
	// params, epsilon (cells) or curve, panel, x (curves).
	selection
	// A and B are the sides' own selections, over the claim's; a
	// coordinate a side sets is not paired with the other side.
	A *selection `toml:"a"`
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
	// Min and Max bound the region when the paper gives no number (this
	// spec's reading of its words; say it in reading).
	Min *float64 `toml:"min"`
	Max *float64 `toml:"max"`
	// AnyOf makes a group of points hold when one of them does: points
	// (all of them), or the coordinate its points differ in (mechanism,
	// dataset, epsilon, group, a params key; curve, panel, x). Default:
	// every point must hold.
	AnyOf string `toml:"any_of"`
	// Reading says how the spec reads words of the paper that give no
	// number ("close to": within a factor 2).
	Reading string `toml:"reading"`
}

// checkKind is a kind of check: how many sides it compares, which keys it
// needs, and how it turns the sides' rows into points. A new kind is an
// entry here, its evaluation, and its rule in experiments/README.md.
type checkKind struct {
	sides     int  // 1: a alone; 2: a against b
	direction bool // needs the quantity's better direction (better, crossover)
	region    bool // compares with a region: paper_value ± tolerance, or min/max
	axis      bool // needs an ordered axis (over): crossover, monotone
	eval      func(c *claim, v *view, as, bs []row) []ClaimPoint
}

// checkKinds are the check kinds by name.
var checkKinds = map[string]checkKind{
	"better":     {sides: 2, direction: true, eval: evalBetter},
	"ratio":      {sides: 2, region: true, eval: evalRatio},
	"difference": {sides: 2, region: true, eval: evalDifference},
	"value":      {sides: 1, region: true, eval: evalValue},
	"crossover":  {sides: 2, direction: true, axis: true, eval: evalCrossover},
	"monotone":   {sides: 1, axis: true, eval: evalMonotone},
}

// quantityKinds are the quantities a claim may read; those with a name
// take it after a colon ("metric:test_mse").
var quantityKinds = []string{"metric", "trace", "diagnostic", "noise", "eps_spent", "curve"}

// claim is a decoded and checked [[claim]] block, ready to evaluate.
type claim struct {
	spec  claimSpec
	index int
	kind  checkKind
	q     quantity
	a, b  *side
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
}

// quantity is what a claim reads of each selected cell or curve point.
type quantity struct {
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
		return "mechanism·b"
	}
	return "mechanism"
}

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
	c := &claim{index: b.Index}
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
		names := sortedNames(checkKinds)
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
	return c, nil
}

// decodeQuantity parses quantity = "kind[:name]" and iteration.
func (c *claim) decodeQuantity(b *Block) error {
	cs := &c.spec
	kind, name, hasName := strings.Cut(cs.Quantity, ":")
	c.q = quantity{kind: kind, name: name, iteration: -1}
	want := "want metric:NAME, trace:NAME, diagnostic:KEY, noise:KEY, eps_spent or curve"
	switch kind {
	case "metric", "trace", "diagnostic", "noise":
		if !hasName || name == "" {
			return b.Errorf("quantity", "quantity %q names no %s: %s", cs.Quantity, kind, want)
		}
	case "eps_spent", "curve":
		if hasName {
			return b.Errorf("quantity", "quantity %q: %s takes no name", cs.Quantity, kind)
		}
	default:
		return b.Errorf("quantity", "quantity %q%s: %s", cs.Quantity, suggest.DidYouMean(kind, quantityKinds), want)
	}
	if kind == "metric" {
		if _, ok := spec.LookupMetric(name); !ok {
			var names []string
			for _, m := range spec.Metrics {
				names = append(names, m.Name)
			}
			return b.Errorf("quantity", "unknown metric %q%s", name, suggest.DidYouMean(name, names))
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
	if c.kind.sides == 1 && cs.B != nil {
		return b.Errorf("b", "check %q reads one side (a, or the claim's own selection): b does not apply", cs.Check)
	}
	if c.kind.sides == 2 && (cs.A == nil || cs.B == nil) {
		return b.Errorf("check", "check %q compares two sides: give a = { … } and b = { … }", cs.Check)
	}
	var err error
	if c.a, err = c.resolveSide(b, "a", cs.A); err != nil {
		return err
	}
	if c.kind.sides == 2 {
		if c.b, err = c.resolveSide(b, "b", cs.B); err != nil {
			return err
		}
		c.b.isB = true
		// A coordinate either side pins is not paired.
		for k := range c.a.pinned {
			c.b.pinned[k] = true
		}
		for k := range c.b.pinned {
			c.a.pinned[k] = true
		}
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
		if len(own.Params.Keys) > 0 {
			merged := spec.ParamTable{Values: map[string]spec.Values{}}
			for _, k := range s.sel.Params.Keys {
				merged.Values[k] = s.sel.Params.Values[k]
			}
			for _, k := range own.Params.Keys {
				merged.Values[k] = own.Params.Values[k]
				s.pinned["param:"+k] = true
			}
			for k := range merged.Values {
				merged.Keys = append(merged.Keys, k)
			}
			sort.Strings(merged.Keys)
			s.sel.Params = merged
		}
	}
	sp := b.Spec
	where := key
	if where == "" {
		where = "the claim"
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
	// A params key must be one of a selected mechanism's.
	for _, k := range s.sel.Params.Keys {
		var known []string
		found := false
		for _, mi := range s.mechs {
			for _, pk := range sp.Mechanisms[mi].Params.Keys {
				found = found || pk == k
				known = append(known, pk)
			}
		}
		if !found {
			slices.Sort(known)
			return nil, b.Errorf(paramsKey(key, own, k), "no mechanism %s selects has params key %q%s (keys: %s)", where, k, suggest.DidYouMean(k, known), strings.Join(slices.Compact(known), ", "))
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
	curve := c.q.kind == "curve"
	for key, vals := range map[string]spec.Values{"dataset": sel.Dataset, "mechanism": sel.Mechanism, "epsilon": sel.Epsilon, "curve": sel.Curve, "panel": sel.Panel, "x": sel.X} {
		if vals.List == nil {
			continue
		}
		isCurveKey := key == "curve" || key == "panel" || key == "x"
		if isCurveKey != curve {
			if curve {
				return b.Errorf(prefix+key, "%s selects cells: quantity = \"curve\" reads [[curve]] blocks (curve, panel, x)", key)
			}
			return b.Errorf(prefix+key, "%s selects [[curve]] values: it needs quantity = \"curve\"", key)
		}
	}
	if curve && len(sel.Params.Keys) > 0 {
		return b.Errorf(prefix+"params", "params selects cells: quantity = \"curve\" reads [[curve]] blocks (curve, panel, x)")
	}
	var dsLabels, mechLabels, curveLabels, panels []string
	for _, d := range sp.Datasets {
		dsLabels = append(dsLabels, d.Label)
	}
	for _, m := range sp.Mechanisms {
		mechLabels = append(mechLabels, m.Label)
	}
	for _, cv := range sp.Curves {
		curveLabels = append(curveLabels, cv.Label)
		panels = append(panels, cv.Panel)
	}
	names := func(key string, vals spec.Values, known []string, what string, ok func(string) bool) error {
		for _, v := range vals.List {
			l, isText := v.(string)
			if !isText {
				return b.Errorf(prefix+key, "%s: want a %s or a list of them, got %v", key, what, v)
			}
			if !ok(l) && !sp.QuickDropped[l] {
				return b.Errorf(prefix+key, "no %s %q%s", what, l, suggest.DidYouMean(l, known))
			}
		}
		return nil
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
		m, _ := spec.LookupMetric(c.q.name)
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
		if cs.PaperValue.List != nil && !c.kind.axis {
			return b.Errorf("paper_value", "check %q takes no paper_value (a ratio, difference or value check does)", cs.Check)
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
		if c.q.kind == "curve" && a != "points" {
			break
		}
		c.anyOf = a
		return nil
	case "curve", "panel", "x":
		if c.q.kind == "curve" {
			c.anyOf = map[string]string{"curve": "mechanism", "panel": "panel", "x": "x"}[a]
			return nil
		}
	default:
		for _, s := range []*side{c.a, c.b} {
			if s == nil {
				continue
			}
			for _, mi := range s.mechs {
				if slices.Contains(b.Spec.Mechanisms[mi].Params.Keys, a) {
					c.anyOf = "param:" + a
					return nil
				}
			}
		}
	}
	return b.Errorf("any_of", "any_of = %q: want points, or a coordinate the points differ in: mechanism, dataset, epsilon, group or a swept params key (cells), curve, panel or x (curves)", a)
}

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

// coord is one coordinate of a row: its name ("dataset", "epsilon",
// "param:k", "group", "panel", "x") and value text.
type coord struct{ name, value string }

// row is one selected value: a cell's quantity (per diagnostic group) or a
// curve's value at one x, with its coordinates, or why it has none.
type row struct {
	coords []coord
	eps, x float64 // the cell's ε (+Inf: non-private) or the curve's x
	axis   float64 // the claim's axis value (NaN: none)
	di, mi int     // dataset and mechanism indices (−1 for curves)
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
	if c.q.kind == "curve" {
		return v.curveRows(c, s)
	}
	sp := v.spec
	xs := floatsOrNil(s.sel.Epsilon)
	var out []row
	for i := range v.cells {
		cell := &v.cells[i]
		if !slices.Contains(s.mechs, cell.Mechanism) || !matchText(s.sel.Dataset, sp.Datasets[cell.Dataset].Label) ||
			cell.Private && xs != nil && !slices.ContainsFunc(xs, func(e float64) bool { return sameFloat(e, cell.Epsilon) }) ||
			!matchParams(s.sel.Params, cell.Params) {
			continue
		}
		r := row{eps: cell.Epsilon, x: math.NaN(), axis: math.NaN(), di: cell.Dataset, mi: cell.Mechanism}
		add := func(name, value string) {
			if !s.pinned[name] {
				r.coords = append(r.coords, coord{name, value})
			}
		}
		add("dataset", sp.Datasets[cell.Dataset].Label)
		if len(s.mechs) > 1 {
			r.coords = append(r.coords, coord{s.mechCoord(), sp.Mechanisms[cell.Mechanism].Label})
		}
		_, swept := sp.Mechanisms[cell.Mechanism].Params.Points()
		for _, k := range swept {
			add("param:"+k, spec.FormatValue(cell.Params[k]))
		}
		if cell.Private {
			add("epsilon", strconv.FormatFloat(cell.Epsilon, 'g', 4, 64))
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
				gr.coords = append(gr.coords, coord{"group", g.group})
			}
			gr.side.Mean, gr.side.Half, gr.side.N = results.Float(g.mean), results.Float(g.half), g.n
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
			r := row{eps: math.NaN(), x: p.X, axis: p.X, di: -1, mi: -1}
			if len(uniqueCurveLabels(sp, s.curves)) > 1 {
				r.coords = append(r.coords, coord{s.mechCoord(), cv.Label})
			}
			if !s.pinned["panel"] {
				r.coords = append(r.coords, coord{"panel", cv.Panel})
			}
			if !s.pinned["x"] {
				r.coords = append(r.coords, coord{"x", cv.X + " = " + strconv.FormatFloat(p.X, 'g', 4, 64)})
			}
			r.side = ClaimSide{Label: cv.Label, Mean: results.Float(p.Y), Half: 0}
			if p.Err != nil {
				r.why, r.side.Mean = "the curve has no value here: "+p.Err.Error(), results.Float(math.NaN())
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
func (v *view) sideLabel(s *side, cell *spec.Cell) string {
	var pins []string
	if s.pinned["dataset"] {
		pins = append(pins, v.spec.Datasets[cell.Dataset].Label)
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
func (v *view) notRunWhy(cell *spec.Cell) string {
	label := v.spec.Datasets[cell.Dataset].Label
	if why, ok := v.skipped[label]; ok {
		return fmt.Sprintf("dataset %q skipped (%s)", label, shortReason(why))
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
	why        string
}

// read returns the quantity's values in a cell's summary: one, or one per
// group for a diagnostic or noise key recorded per group ("node1/eta" for
// name "eta"). A missing quantity is a value with a why.
func (q quantity) read(a *results.CellSummary) []groupValue {
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
		if st, ok := m[q.name]; ok {
			return []groupValue{stat(st)}
		}
		var out []groupValue
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if g, name, ok := strings.Cut(k, "/"); ok && name == q.name {
				gv := stat(m[k])
				gv.group = g
				out = append(out, gv)
			}
		}
		if len(out) > 0 {
			return out
		}
	case "eps_spent":
		return []groupValue{{mean: a.EpsSpentMax, half: 0, n: a.Trials}}
	}
	return missing
}

// text names the quantity in statements and reasons.
func (q quantity) text() string {
	switch q.kind {
	case "eps_spent":
		return "ε spent"
	case "curve":
		return "the curve's value"
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
			case k.name == "epsilon":
				parts = append(parts, "ε = "+k.value)
			case strings.HasPrefix(k.name, "param:"):
				parts = append(parts, strings.TrimPrefix(k.name, "param:")+" = "+k.value)
			default: // dataset, group, panel, x, mechanism
				parts = append(parts, k.value)
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
			have, missing, which := a, c.b, "b"
			if a == nil {
				have, missing, which = b, c.a, "a"
			}
			p.Outcome, p.Why = NotRun, v.missingWhy(have, missing, which)
		case p.Outcome != NotRun:
			decide(&p, a, b)
		}
		if p.Outcome != "" {
			out = append(out, p)
		}
	}
	return out
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
// of rows that agree on every other coordinate.
func evalMonotone(c *claim, v *view, as, _ []row) []ClaimPoint {
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
				return k.value
			}
			if axis == "epsilon" {
				return "ε = " + k.value
			}
			return strings.TrimPrefix(axis, "param:") + " = " + k.value
		}
	}
	return numText(r.axis)
}

// evaluate checks the claim on the view.
func (c *claim) evaluate(v *view) Claim {
	cs := &c.spec
	out := Claim{ID: cs.ID, Quote: cs.Quote, Where: cs.Where, Check: cs.Check, Reading: cs.Reading,
		Statement: c.statement(v.spec), Paper: c.paperText(v.spec), Timing: c.q.kind == "diagnostic" && results.IsTimingKey(c.q.name)}
	as := v.rows(c, c.a)
	var bs []row
	if c.b != nil {
		bs = v.rows(c, c.b)
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
	if c.q.kind == "curve" {
		in, of = "", "value of "
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
	if c.q.kind == "curve" {
		names = uniqueCurveLabels(s, sd.curves)
	} else {
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
	for key, vals := range map[string]spec.Values{"dataset": sd.sel.Dataset, "epsilon": sd.sel.Epsilon, "panel": sd.sel.Panel, "x": sd.sel.X} {
		if sd.pinned[key] {
			pins = append(pins, map[string]string{"dataset": "on ", "epsilon": "ε = ", "panel": "", "x": "x = "}[key]+valuesText(vals))
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
		return "paper gives no value"
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
