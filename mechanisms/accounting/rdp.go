package accounting

import (
	"math"
)

// The RDP accountant ([Mir17] Rényi differential privacy): the ledger's RDP
// curve is the sum over its leaves of count × the leaf's RDP at each order
// (adaptive composition, [Mir17] Prop. 1), converted to (ε, δ) by convert.go
// over an order set, optionally refined by a continuous search over α.

// curveTerm is one leaf of a ledger with its total multiplicity.
type curveTerm struct {
	e     Event
	count float64
	sel   *selector // RepeatAndSelect only
}

// curve is the composed RDP curve of a ledger.
type curve struct {
	terms    []curveTerm
	sgmExact bool
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

func newCurve(e Event, orders []float64, sgmExact bool) *curve {
	c := &curve{sgmExact: sgmExact, monotone: true, sup: math.Inf(1), memo: map[float64]float64{}}
	c.add(e, 1, orders)
	return c
}

func (c *curve) add(e Event, count float64, orders []float64) {
	if count == 0 {
		return
	}
	switch e := e.(type) {
	case NoOp:
	case NonPrivate:
		c.infinite = true
	case SelfComposed:
		c.add(e.Event, count*float64(e.Count), orders)
	case Composed:
		for _, s := range e.Events {
			c.add(s, count, orders)
		}
	case RepeatAndSelect:
		base := newCurve(e.Event, orders, c.sgmExact)
		if base.infinite {
			c.infinite = true
			return
		}
		c.monotone = false
		c.costly = c.costly || base.costly
		c.terms = append(c.terms, curveTerm{e: e, count: count, sel: newSelector(e, base, orders)})
		c.limit(base.sup, base.supLeaf)
	case ApproxDP:
		c.approx.add(e, count)
	case GaussMix:
		c.terms = append(c.terms, curveTerm{e: e, count: count})
		c.limit(gaussMixSup(e), e)
	case RGM:
		c.terms = append(c.terms, curveTerm{e: e, count: count})
		c.limit(rgmSup(e), e)
	case PoissonSampledGaussian:
		c.costly = true
		c.terms = append(c.terms, curveTerm{e: e, count: count})
	default:
		c.terms = append(c.terms, curveTerm{e: e, count: count})
	}
}

func (c *curve) limit(sup float64, leaf Event) {
	if sup < c.sup {
		c.sup, c.supLeaf = sup, leaf
	}
}

// leafAt returns one leaf's RDP at order a > 1.
func (c *curve) leafAt(t curveTerm, a float64) float64 {
	switch e := t.e.(type) {
	case Gaussian:
		return gaussianRDP(e.Sigma/e.Sensitivity, a)
	case Laplace:
		if e.Scale == 0 {
			return math.Inf(1)
		}
		return laplaceRDP(e.Sensitivity/e.Scale, a)
	case PoissonSampledGaussian:
		return sgmRDP(e.Q, e.NoiseMultiplier, a, c.sgmExact)
	case ObjectivePerturbation:
		return objPertRDP(e, a)
	case AMP:
		return ampRDP(e, a)
	case GaussMix:
		return gaussMixRDP(e.K, e.Gamma, a)
	case RGM:
		return rgmRDP(e, a)
	case RepeatAndSelect:
		return t.sel.at(a)
	}
	panic("accounting: RDP of unknown leaf " + t.e.Kind())
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
		v := c.leafAt(t, a)
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

// Check validates e and its neighbouring relation; the RDP accountant
// evaluates every event type.
func (a *rdpAccountant) Check(e Event) error {
	_, err := a.led.prepare(a.Name(), e, 1)
	return err
}

func (a *rdpAccountant) Compose(e Event, count int) error {
	rel, err := a.led.prepare(a.Name(), e, count)
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

func (a *rdpAccountant) curve() *curve {
	if a.cur == nil {
		a.cur = newCurve(a.led.event(), a.orders, a.cfg.SGM == "exact")
	}
	return a.cur
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
	c := a.curve()
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
	obj := func(o, r float64) float64 { return epsAt(o, r, delta) }
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
	c := a.curve()
	var rest func(float64) (float64, error)
	if len(c.terms) > 0 || c.infinite {
		rest = func(epsilon float64) (float64, error) {
			obj := func(o, r float64) float64 { return logDeltaAt(o, r, epsilon) }
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
	cur := newCurve(e, c.orderSet(), c.SGM == "exact")
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
