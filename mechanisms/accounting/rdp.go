package accounting

import (
	"math"
)

// The RDP accountant ([Mir17] Rényi differential privacy): the ledger's RDP
// curve is the sum over its leaves of count × the leaf's RDP at each order
// (adaptive composition, [Mir17] Prop. 1), converted to (ε, δ) by convert.go
// over an order set, optionally refined by a continuous search over α.

// rdpOptions are the RDP accountant's settings a leaf's curve may depend on.
type rdpOptions struct {
	orders   []float64 // the order set (RepeatAndSelect evaluates its base on it)
	sgmExact bool      // the sampled Gaussian's fractional orders by numerical integration
}

// rdpEvent is a leaf the RDP accountant evaluates (every leaf kind: see
// leafEvent).
type rdpEvent interface {
	Event
	// rdp returns the leaf's RDP curve under o.
	rdp(o rdpOptions) (rdpTerm, error)
}

// rdpTerm is one leaf's part of a ledger's RDP curve. The zero value adds
// nothing (NoOp).
type rdpTerm struct {
	// at returns the RDP at an order α ∈ (1, sup); +Inf means no finite
	// bound there. nil: no curve (see infinite and basic).
	at func(alpha float64) float64
	// sup is the supremum of the order domain; 0 means +Inf.
	sup float64
	// supLeaf is the leaf whose domain sets sup; nil means this leaf.
	supLeaf Event
	// costly: O(α) work per integer order (the sampled Gaussian), which
	// caps the continuous search at maxRefineOrderSGM.
	costly bool
	// nonMonotone: the bound may decrease in α (no pruning of the order
	// grid, no ⌈α⌉ fallback).
	nonMonotone bool
	// infinite: no guarantee at any order (NonPrivate).
	infinite bool
	// basic is an (ε, δ) guarantee composed basically with the curve
	// instead of a curve (ApproxDP).
	basic *ApproxDP
}

// curveTerm is one leaf's curve with its total multiplicity.
type curveTerm struct {
	at    func(alpha float64) float64
	count float64
}

// curve is the composed RDP curve of a ledger.
type curve struct {
	terms    []curveTerm
	infinite bool      // a NonPrivate leaf was composed
	monotone bool      // every leaf's bound is non-decreasing in α (pruning allowed)
	sup      float64   // supremum of the order domain
	supLeaf  Event     // the leaf that sets sup
	costly   bool      // a sampled Gaussian leaf: O(α) work per integer order
	approx   approxSum // ApproxDP leaves, composed basically with the curve
	memo     map[float64]float64
}

// Upper limits of the continuous search over α: a sampled Gaussian costs
// O(α) per integer order, closed forms O(1).
const (
	maxRefineOrderSGM    = 1 << 17
	maxRefineOrderClosed = 1e8
)

// newCurve returns the RDP curve of e: the sum over its leaves of count ×
// the leaf's RDP. A leaf without an RDP curve is an *UnsupportedError.
func newCurve(e Event, o rdpOptions) (*curve, error) {
	c := &curve{monotone: true, sup: math.Inf(1), memo: make(map[float64]float64, 64)} // room for a search's orders: no regrowth
	err := walk(e, 1, false, func(l Event, count float64, _ bool) error {
		if count == 0 {
			return nil
		}
		r, ok := l.(rdpEvent)
		if !ok {
			return &UnsupportedError{Accountant: "rdp", Sub: l, Reason: noRDP}
		}
		t, err := r.rdp(o)
		if err != nil {
			return err
		}
		c.add(l, t, count)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// wrappedCurve returns the RDP curve of the event a wrapper wraps (check
// its infinite flag: a NonPrivate leaf inside), or an *UnsupportedError
// naming its first (ε, δ) leaf, which has no curve: reason says why the
// wrapper cannot compose it basically.
func wrappedCurve(e Event, o rdpOptions, reason string) (*curve, error) {
	c, err := newCurve(e, o)
	if err != nil {
		return nil, err
	}
	if !c.infinite && c.approx.leaf != nil {
		return nil, &UnsupportedError{Accountant: "rdp", Sub: c.approx.leaf, Reason: reason}
	}
	return c, nil
}

// noRDP is the reason of the RDP accountant's *UnsupportedError.
const noRDP = "no RDP curve is implemented for it"

// add composes count repetitions of leaf l, whose term is t.
func (c *curve) add(l Event, t rdpTerm, count float64) {
	switch {
	case t.infinite:
		c.infinite = true
		return
	case t.basic != nil:
		c.approx.add(*t.basic, count)
		return
	case t.at == nil:
		return
	}
	if t.nonMonotone {
		c.monotone = false
	}
	c.costly = c.costly || t.costly
	c.terms = append(c.terms, curveTerm{at: t.at, count: count})
	if t.sup != 0 {
		leaf := t.supLeaf
		if leaf == nil {
			leaf = l
		}
		c.limit(t.sup, leaf)
	}
}

func (c *curve) limit(sup float64, leaf Event) {
	if sup < c.sup {
		c.sup, c.supLeaf = sup, leaf
	}
}

// at returns the ledger's RDP at order a > 1 (memoised).
func (c *curve) at(a float64) float64 {
	if c.infinite {
		return math.Inf(1)
	}
	if v, ok := c.memo[a]; ok {
		return v
	}
	sum := 0.0
	for _, t := range c.terms {
		v := t.at(a)
		if math.IsInf(v, 1) {
			sum = v
			break
		}
		sum += t.count * v
	}
	c.memo[a] = sum
	return sum
}

// atOrCeil returns the ledger's RDP at order a, or, where that has no finite
// value at a fractional a, its RDP at the integer order ⌈a⌉: when every
// leaf's bound is non-decreasing in α (the Rényi divergence is, [vEH14]
// Thm 3) that is a valid bound at a. The sampled Gaussian's fractional
// series gives up after maxFracTerms terms (dp_accounting's cap, kept on the
// grid so grid results match it) at orders of a few thousand; without the
// bound every fractional order there was +Inf and the continuous search
// stopped at the last integer order it had doubled to.
func (c *curve) atOrCeil(a float64) float64 {
	r := c.at(a)
	if math.IsInf(r, 1) && c.monotone && !c.infinite && a != math.Trunc(a) && math.Ceil(a) < c.sup {
		return c.at(math.Ceil(a))
	}
	return r
}

// gridMin returns the first index of the minimum of obj(a, RDP(a)) over the
// orders and that minimum. obj must be non-decreasing in its second
// argument. When every leaf bound is non-decreasing in α and the orders are
// ascending, an order a is skipped when obj(a, r₀) already exceeds the best
// value, r₀ being the RDP at the largest integer order below a (exact at
// integer orders, so r₀ ≤ RDP(a)): skipped orders could not be minimisers, and
// the result equals the full scan's.
func (c *curve) gridMin(orders []float64, obj func(a, r float64) float64) (int, float64) {
	n := len(orders)
	vals := make([]float64, n)
	done := make([]bool, n)
	rs := make([]float64, n)
	best := math.Inf(1)
	eval := func(i int) {
		rs[i] = c.at(orders[i])
		vals[i] = obj(orders[i], rs[i])
		done[i] = true
		if vals[i] < best {
			best = vals[i]
		}
	}
	ascending := true
	for i := 1; i < n; i++ {
		if orders[i] <= orders[i-1] {
			ascending = false
		}
	}
	isInt := func(a float64) bool { return a == math.Trunc(a) }
	if !c.monotone || !ascending {
		for i := range orders {
			eval(i)
		}
	} else {
		for i, a := range orders {
			if isInt(a) && a <= 64 {
				eval(i)
			}
		}
		rLow := 0.0
		for i, a := range orders {
			if !done[i] {
				lb := obj(a, rLow)
				if lb > best+1e-12*math.Abs(best) {
					continue
				}
				eval(i)
			}
			if isInt(a) && rs[i] > rLow && !math.IsInf(rs[i], 1) {
				rLow = rs[i]
			}
		}
	}
	idx, val := 0, math.Inf(1)
	for i := range orders {
		if done[i] && vals[i] < val {
			idx, val = i, vals[i]
		}
	}
	return idx, val
}

// refine minimises obj(α, RDP(α)) over continuous α around the grid's best
// order orders[g] (value v): Brent's method on [orders[g−1], orders[g+1]]
// (from 1.01 below the first order; beyond the last finite order the upper
// end doubles while the value improves, up to the order domain and at most
// 2^17 for a sampled Gaussian, 1e8 otherwise). It returns the better of the
// grid point and the continuous minimiser. A value v ≤ floor cannot improve
// (ε = 0) and is returned as is.
func (c *curve) refine(orders []float64, g int, v, floor float64, obj func(a, r float64) float64) (float64, float64) {
	if math.IsInf(v, 0) || v <= floor {
		return orders[g], v
	}
	f := func(a float64) float64 { return obj(a, c.atOrCeil(a)) }
	top := maxRefineOrderClosed
	if c.costly {
		top = maxRefineOrderSGM
	}
	if !math.IsInf(c.sup, 1) {
		top = math.Min(top, c.sup*(1-1e-9))
	}
	lo := 1.01
	if g > 0 {
		lo = orders[g-1]
	}
	mid, fmid := orders[g], v
	var hi float64
	if g+1 < len(orders) && orders[g+1] < top && !math.IsInf(f(orders[g+1]), 1) {
		hi = orders[g+1]
	} else {
		hi = math.Min(2*mid, top)
		for hi < top {
			fh := f(hi)
			if !(fh < fmid) {
				break
			}
			lo, mid, fmid = mid, hi, fh
			hi = math.Min(2*hi, top)
		}
	}
	if !(lo < mid && mid < hi) {
		return orders[g], v
	}
	a, fa := minimizeFrom(f, lo, mid, hi, 1e-10)
	if fa < v {
		return a, fa
	}
	return orders[g], v
}

// rdpAccountant implements Accountant with Rényi DP.
type rdpAccountant struct {
	cfg    Config
	orders []float64
	refine bool
	led    ledger
	cur    *curve
}

func newRDPAccountant(c Config) *rdpAccountant {
	return &rdpAccountant{cfg: c, orders: c.orderSet(), refine: c.Orders == "" || c.Orders == "default"}
}

func (a *rdpAccountant) Name() string { return "rdp" }

// Check validates e and its neighbouring relation, and checks that every
// leaf (inside RepeatAndSelect too) has an RDP curve (every registered leaf
// kind does).
func (a *rdpAccountant) Check(e Event) error {
	_, err := a.prepare(e, 1)
	return err
}

func (a *rdpAccountant) prepare(e Event, count int) (string, error) {
	rel, err := a.led.prepare(a.Name(), e, count)
	if err != nil {
		return "", err
	}
	return rel, rdpCheck(e)
}

// rdpCheck returns an *UnsupportedError naming a leaf of e (wrapped ones
// included) that has no RDP curve.
func rdpCheck(e Event) error {
	return unsupportedLeaf("rdp", e, true, func(l Event) bool { _, ok := l.(rdpEvent); return ok }, noRDP)
}

func (a *rdpAccountant) Compose(e Event, count int) error {
	rel, err := a.prepare(e, count)
	if err != nil {
		return err
	}
	if count == 0 {
		return nil
	}
	a.led.append(e, count, rel)
	a.cur = nil
	return nil
}

func (a *rdpAccountant) Ledger() Event { return a.led.event() }

func (a *rdpAccountant) options() rdpOptions {
	return rdpOptions{orders: a.orders, sgmExact: a.cfg.SGM == "exact"}
}

func (a *rdpAccountant) curve() (*curve, error) {
	if a.cur == nil {
		c, err := newCurve(a.led.event(), a.options())
		if err != nil {
			return nil, err
		}
		a.cur = c
	}
	return a.cur, nil
}

// Epsilon returns the smallest ε over the order set (refined over continuous
// α for Orders "default") and the order α* that attains it. ApproxDP parts
// are composed basically: the curve is converted at δ − ΣDelta and ΣEpsilon
// is added.
func (a *rdpAccountant) Epsilon(delta float64) (Guarantee, error) {
	if err := checkDelta(delta); err != nil {
		return Guarantee{}, err
	}
	g := Guarantee{Delta: delta, Accountant: a.Name(), Relation: a.led.rel()}
	c, err := a.curve()
	if err != nil {
		return g, err
	}
	var rest func(float64) (float64, error)
	if len(c.terms) > 0 || c.infinite {
		rest = func(delta float64) (float64, error) {
			eps, alpha, err := a.curveEpsilon(c, delta)
			g.Alpha = alpha
			return eps, err
		}
	}
	eps, err := c.approx.epsilon(delta, rest)
	g.Epsilon = eps
	return g, err
}

// curveEpsilon converts the RDP curve c to ε at δ, with the optimal order.
func (a *rdpAccountant) curveEpsilon(c *curve, delta float64) (float64, float64, error) {
	if delta == 0 {
		for _, o := range a.orders {
			if c.at(o) != 0 {
				return math.Inf(1), 0, nil
			}
		}
		return 0, 0, nil
	}
	conv := epsAt
	if a.cfg.Conversion == "classic" {
		conv = epsAtClassic
	}
	obj := func(o, r float64) float64 { return conv(o, r, delta) }
	i, v := c.gridMin(a.orders, obj)
	alpha := a.orders[i]
	if a.refine {
		alpha, v = c.refine(a.orders, i, v, 0, obj)
	}
	eps, err := checkNumber("ε", math.Max(0, v))
	return eps, alpha, err
}

// Delta returns the smallest δ over the order set (refined over continuous α
// for Orders "default"), plus the ApproxDP parts' ΣDelta at ε − ΣEpsilon.
func (a *rdpAccountant) Delta(epsilon float64) (float64, error) {
	if err := checkEpsilon(epsilon); err != nil {
		return 0, err
	}
	c, err := a.curve()
	if err != nil {
		return 0, err
	}
	var rest func(float64) (float64, error)
	if len(c.terms) > 0 || c.infinite {
		rest = func(epsilon float64) (float64, error) {
			conv := logDeltaAt
			if a.cfg.Conversion == "classic" {
				conv = logDeltaAtClassic
			}
			obj := func(o, r float64) float64 { return conv(o, r, epsilon) }
			i, v := c.gridMin(a.orders, obj)
			if a.refine {
				_, v = c.refine(a.orders, i, v, math.Inf(-1), obj)
			}
			return checkNumber("δ", math.Min(math.Exp(v), 1))
		}
	}
	return c.approx.deltaAt(epsilon, rest)
}

// RDP returns the RDP of e at order alpha > 1, unconverted (the sum over the
// ledger's leaves of count × the leaf's RDP), whatever the configured Kind.
// RepeatAndSelect uses the configuration's order set; SGM selects the
// fractional-order evaluator. An
// order outside a curve's domain is a *DomainError naming the leaf; +Inf
// means no finite bound at this order.
func (c Config) RDP(e Event, alpha float64) (float64, error) {
	if err := c.Validate(); err != nil {
		return 0, err
	}
	if err := Validate(e); err != nil {
		return 0, err
	}
	if _, err := LedgerRelation(e); err != nil {
		return 0, err
	}
	if err := approxInSelect(e); err != nil {
		return 0, err
	}
	if err := rdpCheck(e); err != nil {
		return 0, err
	}
	cur, err := newCurve(e, rdpOptions{orders: c.orderSet(), sgmExact: c.SGM == "exact"})
	if err != nil {
		return 0, err
	}
	if cur.approx.leaf != nil {
		return 0, cur.approx.errNoRDP()
	}
	if !(alpha > 1) || math.IsInf(alpha, 1) {
		return 0, &DomainError{Sub: e, Alpha: alpha, Lo: 1, Hi: math.Min(cur.sup, math.Inf(1))}
	}
	if alpha >= cur.sup {
		return 0, &DomainError{Sub: cur.supLeaf, Alpha: alpha, Lo: 1, Hi: cur.sup}
	}
	return checkNumber("RDP", cur.at(alpha))
}
