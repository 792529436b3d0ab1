package accounting

import (
	"fmt"
	"math"
)

// The analyses of a Preprocessed event: [HSS24] Theorem 2 in the paper's
// form and the tighter valid forms of preprocessing.md §4.4, and the group
// privacy baseline of §1.7.

// pipeline holds what the analyses of one Preprocessed event need.
type pipeline struct {
	e        Preprocessed
	enabled  map[string]bool // the requested analyses
	infinite bool            // the mechanism gives no guarantee (NonPrivate, σ = 0 …)
	base     *curve          // the mechanism's RDP curve (Event)
	rdp      func(float64) float64
	rdpSup   float64
	srdp     *SRDP
	l12, fro *thm2 // Theorem 2 on the L12 and Frobenius curves; nil when absent
	g        int   // the group size
	group    *groupTerm
}

// thm2 is one instance of [HSS24] Theorem 2: the mechanism's RDP curve ε(·)
// and its SRDP curve ε~(·, τ) at the pipeline's τ, each on (1, sup).
type thm2 struct {
	rdp, srdp       func(float64) float64
	rdpSup, srdpSup float64
	// linear: ε(α) = a·α and ε~(α, τ) = b·α (closed form of the p search).
	linear bool
	a, b   float64
	// pure: the mechanism is pure DP and pureVal = ε(∞) + ε~(∞, τ).
	pure    bool
	pureVal float64
	// maxOrder caps the orders the p search touches (costlyOrderCap for a
	// sampled Gaussian).
	maxOrder float64
}

// newPipeline evaluates the parts of e's analyses under the RDP options o.
func newPipeline(e Preprocessed, o rdpOptions) (*pipeline, error) {
	p := &pipeline{e: e, enabled: map[string]bool{}, srdp: e.SRDP}
	names := e.Analyses
	if len(names) == 0 {
		names = DefaultAnalyses()
	}
	for _, a := range names {
		p.enabled[a] = true
	}
	base, err := newCurve(e.Event, o)
	if err != nil {
		return nil, err
	}
	if base.approx.leaf != nil {
		return nil, &UnsupportedError{Accountant: "rdp", Sub: base.approx.leaf, Reason: "an (ε, δ) guarantee has no RDP curve for Theorem 2 or group privacy (inside preprocessed)"}
	}
	p.base = base
	if base.infinite {
		p.infinite = true
		return p, nil
	}
	p.rdp, p.rdpSup = base.atOrCeil, base.sup
	if base.costly {
		// Theorem 2's p search and group privacy touch many orders of a
		// sampled-Gaussian curve, O(α) each: evaluate it only on a grid
		// of 32 orders per doubling of α − 1 (and at integers), memoised
		// by the curve, and bound the orders in between (gridBound).
		p.rdp = base.gridBound
	}
	p.g = e.GroupSize()
	if p.group, err = newGroupTerm(e.Event, p.g, o); err != nil {
		return nil, err
	}
	if s := e.SRDP; s != nil {
		tau, tauF := e.Tau()
		p.l12 = newThm2(p, *s, tau, MetricL12)
		if s.SupportsFrobenius() {
			p.fro = newThm2(p, *s, tauF, MetricFrobenius)
		}
	}
	return p, nil
}

// newThm2 instantiates Theorem 2 for the pipeline's mechanism at distance
// tau in metric m.
func newThm2(p *pipeline, s SRDP, tau float64, m Metric) *thm2 {
	t := &thm2{rdp: p.rdp, rdpSup: p.rdpSup, srdpSup: s.Sup(tau, m), maxOrder: maxRefineOrderClosed}
	if p.base.costly {
		t.maxOrder = costlyOrderCap
	}
	t.srdp = func(a float64) float64 {
		if a >= t.srdpSup {
			return math.Inf(1)
		}
		return s.at(a, tau, m)
	}
	if a, ok := p.linearRDP(); ok {
		if b, ok := s.slope(tau, m); ok {
			t.linear, t.a, t.b = true, a, b
		}
	}
	if inf, ok := s.PureRDP(); ok {
		sr, _ := s.PureSRDP(tau, m)
		t.pure, t.pureVal = true, inf+sr
	}
	return t
}

// linearRDP returns a with ε(α) = a·α when the mechanism's ledger is made of
// Gaussian releases only ([Mir17] Prop. 7: α·Σ count·Δ²/(2σ²)).
func (p *pipeline) linearRDP() (float64, bool) {
	a, ok := 0.0, true
	walkRelations(p.e.Event, 1, func(l Event, count float64) {
		switch l := l.(type) {
		case Gaussian:
			a += count * gaussianRDP(l.Sigma/l.Sensitivity, 1)
		case NoOp:
		default:
			ok = false
		}
	})
	return a, ok && finite(a)
}

// walkRelations visits the leaves of e with their multiplicities, looking
// through WithRelation (whose RDP is its event's).
func walkRelations(e Event, count float64, visit func(Event, float64)) {
	_ = walk(e, count, false, func(l Event, c float64, _ bool) error {
		if w, ok := l.(WithRelation); ok {
			walkRelations(w.Event, c, visit)
			return nil
		}
		visit(l, c)
		return nil
	})
}

// costlyOrderCap is the largest order at which the analyses evaluate a
// costly curve (the sampled Gaussian: O(α) work per integer order, 40 ms at
// α ≈ 5·10⁴). Above it Theorem 2's p search does not go and group privacy
// has no bound (+Inf): never a wrong number, only a looser one where the
// optimum would need such an order (the sampled Gaussian's RDP is huge
// there).
const costlyOrderCap = 4096

// gridBound returns an RDP bound of c at order a from c's values at
// integer orders and on the grid {1 + 2^(k/32)}: at an integer a its value;
// otherwise, with g₀ < a < g₁ the grid orders around a (a itself where g₁
// leaves the domain (1, sup)),
//
//	ε(a) ≤ min(ε(g₁), [(1−t)(g₀−1)ε(g₀) + t(g₁−1)ε(g₁)]/(a−1)),   t = (a−g₀)/(g₁−g₀).
//
// Both are valid for every pair P, Q of neighbouring outputs: D_α(P‖Q) is
// non-decreasing in α ([vEH14] Thm 3), and (α−1)D_α(P‖Q) = log E_Q[(dP/dQ)^α]
// is convex in α (Hölder's inequality), so at a it is at most the chord
// between g₀ and g₁, where c bounds it. The chord, unlike the value at g₁
// alone (the rounding up this replaces), is continuous in a: Theorem 2's
// searches over p and over α on the staircase of rounded orders stopped on
// different steps as the noise moved, and the pipeline's ε rose with σ (issue
// 34: 1.7308164 at σ = 5.47149, 1.7307825 at 5.4714).
func (c *curve) gridBound(a float64) float64 {
	if a == math.Trunc(a) {
		return c.atOrCeil(a)
	}
	l := math.Log2(a - 1)
	g0, g1 := 1+math.Exp2(math.Floor(32*l)/32), 1+math.Exp2(math.Ceil(32*l)/32)
	if !(g0 < a && a < g1) || g1 >= c.sup {
		return c.atOrCeil(a) // on the grid, or beyond its last order
	}
	r0, r1 := c.atOrCeil(g0), c.atOrCeil(g1)
	t := (a - g0) / (g1 - g0)
	chord := ((1-t)*(g0-1)*r0 + t*(g1-1)*r1) / (a - 1)
	if !(chord <= r1) { // NaN (an infinite end) or above ε(g₁)
		return r1
	}
	return chord
}

// GroupSize returns the group size g of the group analysis: replace-one
// min(Δ∞ + offset, n), add/remove min(2Δ∞ + offset, 2n − 1), offset 0
// meaning 1 (see GroupSizeOffset; n = 0: no cap).
func (e Preprocessed) GroupSize() int {
	off := e.GroupSizeOffset
	if off == 0 {
		off = 1
	}
	if e.relation() == RelationAddRemove {
		g := 2*e.rows() + off
		if e.N > 0 && g > 2*e.N-1 {
			g = 2*e.N - 1
		}
		return g
	}
	g := e.rows() + off
	if e.N > 0 && g > e.N {
		g = e.N
	}
	return g
}

// groupTerm is the group-privacy RDP curve of a ledger for datasets that
// differ in g records.
type groupTerm struct {
	terms    []curveTerm
	sup      float64
	infinite bool
}

func (t *groupTerm) at(a float64) float64 {
	if t.infinite || a >= t.sup {
		return math.Inf(1)
	}
	s := 0.0
	for _, c := range t.terms {
		v := c.at(a)
		if math.IsInf(v, 1) {
			return v
		}
		s += c.count * v
	}
	return s
}

// newGroupTerm returns the group-privacy RDP of e for datasets at distance
// g, leaf by leaf (RDP composes over any fixed pair of datasets, [Mir17]
// Prop. 1, so the group bound of a composition is the sum of its leaves'):
//
//   - Gaussian and Laplace releases: the exact curve with the sensitivity
//     multiplied by g (‖f(S) − f(S')‖ ≤ gΔ by the triangle inequality over
//     a path of g neighbours): α g²Δ²/(2σ²) ([Mir17] Prop. 7) and ε_L(gΔ/b)
//     (Prop. 6; pure g·Δ/b at α → ∞);
//   - PureDP: g·ε (group privacy of pure DP);
//   - any other leaf, with c = ⌈log₂ g⌉: [Mir17] Prop. 2 — a 2^c-stable map
//     turns (α, ε)-RDP into (α/2^c, 3^c ε)-RDP for α ≥ 2^{c+1} — so at an
//     order β ≥ 2 the bound is 3^c·ε(2^c β), and for β ∈ (1, 2) the bound at
//     β = 2 (D_β ≤ D_2, [vEH14] Thm 3).
func newGroupTerm(e Event, g int, o rdpOptions) (*groupTerm, error) {
	t := &groupTerm{sup: math.Inf(1)}
	gf := float64(g)
	var err error
	walkRelations(e, 1, func(l Event, count float64) {
		if err != nil || count == 0 {
			return
		}
		switch l := l.(type) {
		case NoOp:
		case Gaussian:
			m := l.Sigma / (gf * l.Sensitivity)
			t.terms = append(t.terms, curveTerm{at: func(a float64) float64 { return gaussianRDP(m, a) }, count: count})
		case Laplace:
			eps0 := gf * l.Sensitivity / l.Scale
			t.terms = append(t.terms, curveTerm{at: func(a float64) float64 { return laplaceRDP(eps0, a) }, count: count})
		case PureDP:
			v := gf * l.Epsilon
			t.terms = append(t.terms, curveTerm{at: func(float64) float64 { return v }, count: count})
		default:
			var c *curve
			if c, err = newCurve(l, o); err != nil {
				return
			}
			if c.approx.leaf != nil {
				err = &UnsupportedError{Accountant: "rdp", Sub: c.approx.leaf, Reason: "an (ε, δ) guarantee has no RDP curve for group privacy (inside preprocessed)"}
				return
			}
			if c.infinite {
				t.infinite = true
				return
			}
			at, sup := mironovGroup(c, g)
			t.terms = append(t.terms, curveTerm{at: at, count: count})
			t.sup = math.Min(t.sup, sup)
		}
	})
	return t, err
}

// mironovGroup returns [Mir17] Prop. 2's group-privacy curve of c for
// distance g (see newGroupTerm) and the supremum of its orders.
func mironovGroup(c *curve, g int) (func(float64) float64, float64) {
	at, top := c.atOrCeil, c.sup
	if c.costly {
		at = c.gridBound
		top = math.Min(top, costlyOrderCap)
	}
	if g <= 1 {
		return at, c.sup
	}
	k := math.Ceil(math.Log2(float64(g)))
	pow2, pow3 := math.Exp2(k), math.Pow(3, k)
	return func(b float64) float64 {
		a := pow2 * math.Max(b, 2)
		if a >= top {
			return math.Inf(1)
		}
		return pow3 * at(a)
	}, top / pow2
}

// rows returns Δ∞, or n when the declared Δ∞ exceeds it: Δ∞ counts rows of
// the common part, of which there are fewer than n (a bound such as
// dedup's 2·max|B| can exceed n).
func (e Preprocessed) rows() int {
	if e.N > 0 && e.DeltaInf > e.N {
		return e.N
	}
	return e.DeltaInf
}

// Tau returns the distances Theorem 2 is applied at: τ = Δ₂·Δ∞ (L12,
// [HSS24] §3) and τ_F = Δ₂·√Δ∞ (Frobenius, footnote 3: Δ∞ rows move by at
// most Δ₂ each), with Δ∞ capped at n.
func (e Preprocessed) Tau() (l12, frobenius float64) {
	r := float64(e.rows())
	return e.Delta2 * r, e.Delta2 * math.Sqrt(r)
}

// PureEpsilon returns the pure ε (δ = 0) of a pipeline whose mechanism is
// pure DP (SRDP kind laplace or exponential; its event then has the same
// ε(∞), srdpMatchesEvent): the minimum over the requested analyses of the
// p = q = 1 form ε(∞) + ε~(∞, τ) ([HSS24] Eqs. 44–45: paper, tight_pq,
// tight_pq_min), its Frobenius twin (frobenius) and g·ε(∞) (group), with
// the analysis that attains it (ties: AllAnalyses order). ok is false for
// other mechanisms and for an invalid event.
func (e Preprocessed) PureEpsilon() (eps float64, analysis string, ok bool) {
	if e.Validate() != nil || e.SRDP == nil || !e.SRDP.Pure() {
		return 0, "", false
	}
	inf, _ := e.SRDP.PureRDP()
	tau, tauF := e.Tau()
	app := map[string]bool{}
	for _, a := range e.Applicable() {
		app[a] = true
	}
	eps = math.Inf(1)
	for _, a := range analysisOrder {
		if !app[a] {
			continue
		}
		var v float64
		switch a {
		case AnalysisPaper, AnalysisTightPQ, AnalysisTightPQMin:
			sr, _ := e.SRDP.PureSRDP(tau, MetricL12)
			v = inf + sr
		case AnalysisFrobenius:
			sr, _ := e.SRDP.PureSRDP(tauF, MetricFrobenius)
			v = inf + sr
		case AnalysisGroup:
			v = float64(e.GroupSize()) * inf
		default:
			continue // exact_factor has no α → ∞ form
		}
		if v < eps {
			eps, analysis = v, a
		}
	}
	return eps, analysis, analysis != ""
}

// analysisValues holds every analysis' RDP at one order (+Inf: not valid or
// not requested there), indexed as analysisOrder.
type analysisValues [6]float64

// min returns the smallest value (+Inf when none is finite).
func (v analysisValues) min() float64 {
	m := math.Inf(1)
	for _, x := range v {
		m = math.Min(m, x)
	}
	return m
}

// winner returns the index of the first smallest finite value, or −1.
func (v analysisValues) winner() int {
	w, m := -1, math.Inf(1)
	for i, x := range v {
		if x < m {
			w, m = i, x
		}
	}
	return w
}

// values returns every analysis' RDP at order α (requested ones; +Inf
// elsewhere) and, per analysis, a note: why it does not apply, or the p
// and q its branches used.
func (p *pipeline) values(alpha float64) (analysisValues, [6]string) {
	var v analysisValues
	var notes [6]string
	for i := range v {
		v[i] = math.Inf(1)
	}
	if p.infinite {
		for i := range notes {
			notes[i] = "the mechanism gives no guarantee"
		}
		return v, notes
	}
	for i, name := range analysisOrder {
		if !p.enabled[name] {
			notes[i] = "not requested"
			continue
		}
		t := p.l12
		if name == AnalysisFrobenius {
			t = p.fro
		}
		if name != AnalysisGroup && t == nil {
			switch {
			case p.srdp == nil:
				notes[i] = "no SRDP curve: Theorem 2 does not apply"
			default:
				notes[i] = "no Frobenius curve for this mechanism"
			}
			continue
		}
		switch name {
		case AnalysisPaper:
			v[i] = t.paper(alpha)
			if alpha < 11 && !t.pure {
				notes[i] = "at α' = 11 (the paper's α ≥ 11; D_α ≤ D_11 below)"
			}
		case AnalysisExactFactor:
			v[i] = t.exactFactor(alpha)
		case AnalysisTightPQ, AnalysisFrobenius:
			b1, p1, b2, p2 := t.branches(alpha)
			v[i] = math.Max(b1, b2)
			if t.pure && t.pureVal < v[i] {
				v[i], notes[i] = t.pureVal, "p = q = 1 (pure DP)"
			} else {
				notes[i] = fmt.Sprintf("p = %.6g, q = %.6g", p1, p2)
			}
		case AnalysisTightPQMin:
			b1, p1, b2, p2 := t.branches(alpha)
			v[i], notes[i] = b1, fmt.Sprintf("branch 1, p = %.6g", p1)
			if b2 < b1 {
				v[i], notes[i] = b2, fmt.Sprintf("branch 2, q = %.6g", p2)
			}
			if t.pure && t.pureVal < v[i] {
				v[i], notes[i] = t.pureVal, "p = q = 1 (pure DP)"
			}
		case AnalysisGroup:
			v[i] = p.group.at(alpha)
			notes[i] = fmt.Sprintf("g = %d", p.g)
		}
		if math.IsNaN(v[i]) {
			v[i] = math.Inf(1)
		}
		if math.IsInf(v[i], 1) && notes[i] == "" {
			notes[i] = "the orders it needs are outside the mechanism's domain"
		}
	}
	return v, notes
}

// sup returns the supremum of the orders at which some requested analysis
// can be finite (+Inf when unbounded).
func (p *pipeline) sup() float64 {
	s := 0.0
	if p.enabled[AnalysisGroup] {
		s = math.Max(s, p.group.sup)
	}
	for _, it := range []struct {
		t     *thm2
		names []string
	}{{p.l12, []string{AnalysisPaper, AnalysisExactFactor, AnalysisTightPQ, AnalysisTightPQMin}}, {p.fro, []string{AnalysisFrobenius}}} {
		if it.t == nil {
			continue
		}
		for _, n := range it.names {
			if !p.enabled[n] {
				continue
			}
			if it.t.pure {
				return math.Inf(1)
			}
			dom := math.Min(it.t.rdpSup, it.t.srdpSup)
			if n == AnalysisPaper || n == AnalysisExactFactor {
				dom /= 2
			}
			s = math.Max(s, dom)
		}
	}
	if s <= 1 {
		return math.Inf(1) // nothing is finite anywhere: values are +Inf
	}
	return s
}

// paperFactor is [HSS24]'s bound on (2α−1)/(2(α−1)) for α ≥ 11 (App. D,
// Eq. 43 step (b): 21/20 at α = 11, decreasing after).
const paperFactor = 1.05

// paper returns [HSS24] Eq. 43 (Theorem 2 with p = q = 2, monotonicity,
// and the factor rounded to 1.05):
//
//	ε^(α) ≤ 1.05·(ε~(2α, τ) + ε(2α)),   α ≥ 11,
//
// and below 11 its value at 11 (valid: D_α ≤ D_11, [vEH14] Thm 3; the
// conversion never prefers those orders). Pure-DP mechanisms: Eqs. 44–45,
// ε(∞) + ε~(∞, τ) at every order.
func (t *thm2) paper(alpha float64) float64 {
	if t.pure {
		return t.pureVal
	}
	a := 2 * math.Max(alpha, 11)
	if a >= t.rdpSup || a >= t.srdpSup {
		return math.Inf(1)
	}
	return paperFactor * (t.srdp(a) + t.rdp(a))
}

// exactFactor returns Eq. 43 before its rounding, valid at every α > 1:
//
//	ε^(α) ≤ (2α−1)/(2(α−1))·(ε~(2α, τ) + ε(2α))
//
// (p = q = 2 in Theorem 2 gives the two branches (2α−1)/(2(α−1))·ε~(2α) +
// ε(2α−1) and (2α−1)/(2(α−1))·ε(2α) + ε~(2α−1); both are at most the above
// because the factor is ≥ 1 and the true divergences at 2α − 1 are at most
// those at 2α — which the bounds at 2α bound, monotone or not).
func (t *thm2) exactFactor(alpha float64) float64 {
	a := 2 * alpha
	if a >= t.rdpSup || a >= t.srdpSup {
		return math.Inf(1)
	}
	return (2*alpha - 1) / (2 * (alpha - 1)) * (t.srdp(a) + t.rdp(a))
}

// branches returns the two branches of [HSS24] Theorem 2 (Eq. 3), each
// minimised over its own parameter (the theorem holds "for all p, q ≥ 1"):
//
//	T1(p) = (αp−1)/(p(α−1))·ε~(αp, τ) + ε((pα−1)/(p−1))
//	T2(q) = (αq−1)/(q(α−1))·ε(αq)     + ε~((qα−1)/(q−1), τ)
//
// with the minimisers p and q. Theorem 2 takes max(min T1, min T2)
// (tight_pq). Each branch also bounds the divergence in both directions, so
// min(min T1, min T2) is valid (tight_pq_min) [derived, preprocessing.md
// §2.6]: for neighbours S₁ = S ∪ {z₁}, S₂ = S ∪ {z₂} and either order of the
// pair, [HSS24] Lemma J (the weak triangle inequality of [Mir17]) through
// S~ = π₂(S) ∪ {π₁(z₁)} bounds D_α(A(π₁(S₁)) ‖ A(π₂(S₂))) by T1 (π₁(S₁)
// and S~ are at distance ≤ τ: SRDP; S~ and π₂(S₂) are neighbours: RDP) —
// the paper's construction — and through S~' = π₁(S) ∪ {π₂(z₂)} by T2
// (π₁(S₁) and S~' are neighbours: RDP at αq; S~' and π₂(S₂) are at distance
// ≤ τ: SRDP at (qα−1)/(q−1)). The paper pairs T1 with one direction and T2
// with the other (App. B, erratum 16), but RDP and SRDP are suprema over
// ordered pairs, so both constructions serve both directions. Under
// add/remove (S₂ = S) the same two constructions apply with S~' = π₁(S).
// TestTightPQMinAgainstLaplace checks the result against the attainable
// divergence of a Laplace pipeline, where the two branches differ.
//
// For linear curves ε = aα, ε~ = bα on unbounded domains both branches have
// the closed form α(√a + √b)² at p = 1 + (α−1)√(a/b)/α (preprocessing.md
// §2.8(b)); otherwise each branch is searched over log(p − 1) (a grid that
// includes p = 2, then Brent's method), every order it touches inside the
// curves' domains. Any p gives a valid bound; the search only decides how
// tight it is.
func (t *thm2) branches(alpha float64) (b1, p1, b2, p2 float64) {
	if t.linear && math.IsInf(t.rdpSup, 1) && math.IsInf(t.srdpSup, 1) {
		s := math.Sqrt(t.a) + math.Sqrt(t.b)
		v := alpha * s * s
		p1, p2 = math.Inf(1), math.Inf(1)
		if t.b > 0 {
			p1 = 1 + (alpha-1)*math.Sqrt(t.a/t.b)/alpha
		}
		if t.a > 0 {
			p2 = 1 + (alpha-1)*math.Sqrt(t.b/t.a)/alpha
		}
		return v, p1, v, p2
	}
	rs, ss := math.Min(t.rdpSup, t.maxOrder), math.Min(t.srdpSup, t.maxOrder)
	b1, p1 = thm2Branch(alpha, t.srdp, ss, t.rdp, rs)
	b2, p2 = thm2Branch(alpha, t.rdp, rs, t.srdp, ss)
	return b1, p1, b2, p2
}

// Limits of the search over p: p − 1 ∈ [1e-6, 1e6] on a grid of 48 steps
// in log(p − 1) (thm2.maxOrder caps the orders).
const (
	pSearchLo   = 1e-6
	pSearchHi   = 1e6
	pSearchGrid = 48
)

// thm2Branch minimises f(p) = (α − 1/p)/(α − 1)·A(αp) + B(α + (α−1)/(p−1))
// (Theorem 2's branch: (pα−1)/(p−1) = α + (α−1)/(p−1)) over p > 1 with αp in
// (1, supA) and the second order in (1, supB); it returns +Inf and p = 0
// when no p is feasible.
func thm2Branch(alpha float64, A func(float64) float64, supA float64, B func(float64) float64, supB float64) (float64, float64) {
	// Feasible p: p < supA/α and p − 1 > (α − 1)/(supB − α).
	if supB <= alpha || supA <= alpha {
		return math.Inf(1), 0
	}
	lo := math.Max(math.Log(pSearchLo), math.Log((alpha-1)/(supB-alpha)))
	hi := math.Min(math.Log(pSearchHi), math.Log(supA/alpha-1))
	if !(lo < hi) {
		return math.Inf(1), 0
	}
	f := func(u float64) float64 {
		p := 1 + math.Exp(u)
		a1, a2 := alpha*p, alpha+(alpha-1)/(p-1)
		if !(a1 < supA) || !(a2 < supB) {
			return math.Inf(1)
		}
		v := (alpha-1/p)/(alpha-1)*A(a1) + B(a2)
		if math.IsNaN(v) {
			return math.Inf(1)
		}
		return v
	}
	us := make([]float64, 0, pSearchGrid+2)
	for i := 0; i <= pSearchGrid; i++ {
		us = append(us, lo+(hi-lo)*float64(i)/pSearchGrid)
	}
	if lo < 0 && 0 < hi {
		us = append(us, 0) // p = 2, the paper's choice
	}
	bestU, best := 0.0, math.Inf(1)
	for _, u := range us {
		if v := f(u); v < best {
			bestU, best = u, v
		}
	}
	if math.IsInf(best, 1) {
		return best, 0
	}
	step := (hi - lo) / pSearchGrid
	a, b := math.Max(lo, bestU-step), math.Min(hi, bestU+step)
	if a < bestU && bestU < b {
		if u, v := minimizeFrom(f, a, bestU, b, 1e-9); v < best {
			bestU, best = u, v
		}
	}
	return best, 1 + math.Exp(bestU)
}

// AnalysisValue is one analysis' RDP at an order.
type AnalysisValue struct {
	Analysis string  `json:"analysis"`
	RDP      float64 `json:"rdp"`            // +Inf: not valid at this order (see Note)
	Note     string  `json:"note,omitempty"` // why not, or the p and q used, or the group size
}

// PipelineOrder is a Preprocessed event's RDP at one order: every
// analysis, the minimum and the analysis that attains it.
type PipelineOrder struct {
	Alpha    float64         `json:"alpha"`
	RDP      float64         `json:"rdp"`      // the minimum over the analyses (+Inf: none valid)
	Analysis string          `json:"analysis"` // the winner ("" when none is valid); ties go to the first in AllAnalyses order
	Values   []AnalysisValue `json:"values"`   // every analysis, in AllAnalyses order
}

// PreprocessedAnalyses returns the RDP of e at order α > 1 under every
// analysis (AllAnalyses order; the ones not requested are +Inf with the note
// "not requested"), their minimum — e's RDP — and the analysis that
// produced it, for records and tables to state. cfg supplies the RDP
// options (the order set RepeatAndSelect uses, the sampled-Gaussian
// evaluator).
func PreprocessedAnalyses(cfg Config, e Preprocessed, alpha float64) (PipelineOrder, error) {
	if err := cfg.Validate(); err != nil {
		return PipelineOrder{}, err
	}
	if err := e.Validate(); err != nil {
		return PipelineOrder{}, err
	}
	if _, err := LedgerRelation(e); err != nil {
		return PipelineOrder{}, err
	}
	if !(alpha > 1) || math.IsInf(alpha, 1) {
		return PipelineOrder{}, &DomainError{Sub: e, Alpha: alpha, Lo: 1, Hi: math.Inf(1)}
	}
	p, err := newPipeline(e, rdpOptions{orders: cfg.orderSet(), sgmExact: cfg.SGM == "exact"})
	if err != nil {
		return PipelineOrder{}, err
	}
	v, notes := p.values(alpha)
	out := PipelineOrder{Alpha: alpha, RDP: v.min()}
	if w := v.winner(); w >= 0 {
		out.Analysis = analysisOrder[w]
	}
	for i, name := range analysisOrder {
		out.Values = append(out.Values, AnalysisValue{Analysis: name, RDP: v[i], Note: notes[i]})
	}
	return out, nil
}

// Applicable returns the analyses e considers that can apply to its
// mechanism (requested, with an SRDP curve where they need one, a
// Frobenius curve for frobenius), in AllAnalyses order.
func (e Preprocessed) Applicable() []string {
	names := e.Analyses
	if len(names) == 0 {
		names = DefaultAnalyses()
	}
	req := map[string]bool{}
	for _, n := range names {
		req[n] = true
	}
	var out []string
	for _, n := range analysisOrder {
		switch {
		case !req[n]:
		case n == AnalysisGroup:
			out = append(out, n)
		case e.SRDP == nil:
		case n == AnalysisFrobenius && !e.SRDP.SupportsFrobenius():
		default:
			out = append(out, n)
		}
	}
	return out
}

// Only returns a copy of e that considers the one analysis a.
func (e Preprocessed) Only(a string) Preprocessed {
	e.Analyses = []string{a}
	return e
}

// AnalysisGuarantee is one analysis' (ε, δ) guarantee alone.
type AnalysisGuarantee struct {
	Analysis string  `json:"analysis"`
	Epsilon  float64 `json:"epsilon"`         // +Inf: no guarantee from this analysis
	Alpha    float64 `json:"alpha,omitempty"` // its optimal order (RDP accountant)
	Err      string  `json:"error,omitempty"`
}

// PipelineGuarantee is a Preprocessed event's (ε, δ) guarantee with the
// analysis that produced it.
type PipelineGuarantee struct {
	Guarantee                       // the pointwise minimum's, converted by the accountant
	Analysis    string              `json:"analysis"`     // the winner at Guarantee.Alpha
	PerAnalysis []AnalysisGuarantee `json:"per_analysis"` // each applicable analysis alone
}

// PreprocessedEpsilon returns e's ε at δ under cfg (an RDP accountant: the
// PLD and exact accountants do not evaluate Preprocessed) with the analysis
// that wins at the optimal order, and each applicable analysis' ε alone
// (its own curve converted; the minimum's ε is at most each of them).
func PreprocessedEpsilon(cfg Config, e Preprocessed, delta float64) (PipelineGuarantee, error) {
	g, err := cfg.Epsilon(e, delta)
	if err != nil {
		return PipelineGuarantee{}, err
	}
	out := PipelineGuarantee{Guarantee: g}
	if g.Alpha > 1 {
		at, err := PreprocessedAnalyses(cfg, e, g.Alpha)
		if err != nil {
			return out, err
		}
		out.Analysis = at.Analysis
	}
	for _, a := range e.Applicable() {
		ag := AnalysisGuarantee{Analysis: a}
		if g1, err := cfg.Epsilon(e.Only(a), delta); err != nil {
			ag.Epsilon, ag.Err = math.Inf(1), err.Error()
		} else {
			ag.Epsilon, ag.Alpha = g1.Epsilon, g1.Alpha
		}
		out.PerAnalysis = append(out.PerAnalysis, ag)
	}
	return out, nil
}
