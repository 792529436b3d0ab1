package accounting

import (
	"fmt"
	"math"
	"slices"
	"sync"
)

// pldAccountant implements Accountant with privacy loss distributions
// ([KJPH21] FFT composition; [DGK+22] connect-the-dots discretisation;
// dp_accounting's PLDAccountant, b5b0286, is the reference it is checked
// against). It keeps the ledger's parts with their multiplicities and
// composes them when asked, at the exponential tilt that suits the
// question (pld_compose.go), for both directions of the add/remove
// relation; it reports the worse direction. Every answer is an upper
// bound: the discretisation is pessimistic, and the composition's rounding
// error is bounded and added to δ.
type pldAccountant struct {
	h     float64 // the interval asked for
	step  float64 // the grid step used, ≤ h (gridStep)
	led   ledger
	nonP  bool
	mu2   float64   // Σ count·(Δ/σ)² of the Gaussian parts: one Gaussian ([DRS19] Cor. 3.3)
	parts []pldPart // the other parts, merged by parameters

	mu     sync.Mutex
	leaves map[leafKey]*pldLeaf
}

// pldEvent is a leaf the PLD accountant evaluates.
type pldEvent interface {
	Event
	// pld returns what the leaf adds to a PLD ledger.
	pld() pldTerm
}

// pldTerm is what one leaf adds to a PLD ledger. The zero value adds
// nothing.
type pldTerm struct {
	// nonPrivate: no guarantee (δ = 1 at every ε).
	nonPrivate bool
	// gaussian > 0 is Δ/σ of a Gaussian mechanism; the ledger's Gaussians
	// merge into one, μ² = Σ count·(Δ/σ)² ([DRS19] Cor. 3.3).
	gaussian float64
	// part is any other mechanism's privacy loss distribution.
	part *pldPart
}

// pldPart is a part of the ledger other than a Gaussian (a sampled
// Gaussian, a Laplace mechanism, objective perturbation), with its
// multiplicity.
type pldPart struct {
	// key identifies the PLD: parts with equal keys (a comparable value)
	// have equal PLDs and merge.
	key any
	// loss returns the privacy loss distribution in one direction (add:
	// the add direction of add/remove neighbours), its continuous noise
	// truncated at log tail mass logMass.
	loss func(add bool, logMass float64) *lossDist
	// symmetric: the same PLD in both directions.
	symmetric bool
	// name describes the part (for messages).
	name   string
	count  int
	source Event
}

type leafKey struct {
	part    int // index in parts; −1 for the merged Gaussian
	add     bool
	logMass float64
}

// logMassTruncation is the log of the noise mass beyond the truncation
// points of a continuous noise (dp_accounting's log_mass_truncation_bound,
// −50); it moves to +∞ or to the end of the loss range (pessimistically).
// A query at δ small enough for it to matter truncates further.
const logMassTruncation = -50

// minGaussianMu2 is the smallest μ² = Σ count·(Δ/σ)² at which the ledger's
// merged Gaussian is discretised: a smaller one, which the sum of squares
// reaches by underflowing (to 0 for Δ/σ below about 1.5e-162), is taken
// as μ² = minGaussianMu2 instead. That is pessimistic, as a μ-GDP
// mechanism is μ′-GDP for every μ′ ≥ μ (the trade-off function G_μ
// decreases in μ, [DRS19] §2.2), and keeps σ = 1/μ and the loss's σ²
// finite. At μ = 1e-150 every finite loss lies within about 1e-148 of 0.
const minGaussianMu2 = 1e-300

func newPLDAccountant(h float64) *pldAccountant {
	return &pldAccountant{h: h, step: h, leaves: map[leafKey]*pldLeaf{}}
}

func (a *pldAccountant) Name() string { return "pld" }

// noPLD is the reason of the PLD accountant's *UnsupportedError.
const noPLD = "no privacy loss distribution is implemented for it (use the rdp accountant)"

// pldCheck returns an *UnsupportedError naming a leaf of e that the PLD
// accountant does not evaluate.
func pldCheck(e Event) error {
	return unsupportedLeaf("pld", e, false, func(l Event) bool { _, ok := l.(pldEvent); return ok }, noPLD)
}

func (a *pldAccountant) Check(e Event) error {
	if _, err := a.led.prepare(a.Name(), e, 1); err != nil {
		return err
	}
	if err := pldCheck(e); err != nil {
		return err
	}
	// A dry run of the sizes: a part whose discretisation cannot fit is
	// rejected now, not at the first query.
	b := a.clone()
	return b.add(e, 1)
}

func (a *pldAccountant) Compose(e Event, count int) error {
	rel, err := a.led.prepare(a.Name(), e, count)
	if err != nil {
		return err
	}
	if err := pldCheck(e); err != nil {
		return err
	}
	if count == 0 {
		return nil
	}
	b := a.clone()
	if err := b.add(e, count); err != nil {
		return err
	}
	a.mu.Lock()
	if b.mu2 != a.mu2 || b.step != a.step {
		// The merged Gaussian or the grid changed; the other parts keep
		// their indices.
		for k := range a.leaves {
			if k.part < 0 || b.step != a.step {
				delete(a.leaves, k)
			}
		}
	}
	a.mu.Unlock()
	a.nonP, a.mu2, a.parts, a.step = b.nonP, b.mu2, b.parts, b.step
	a.led.append(e, count, rel)
	return nil
}

// clone copies the composable state (not the ledger or the cache).
func (a *pldAccountant) clone() *pldAccountant {
	return &pldAccountant{h: a.h, step: a.step, nonP: a.nonP, mu2: a.mu2, parts: append([]pldPart(nil), a.parts...), leaves: map[leafKey]*pldLeaf{}}
}

// add merges count repetitions of e into the parts.
func (a *pldAccountant) add(e Event, count int) error {
	err := walk(e, float64(count), false, func(l Event, n float64, _ bool) error {
		if n == 0 {
			return nil
		}
		p, ok := l.(pldEvent)
		if !ok {
			return &UnsupportedError{Accountant: "pld", Sub: l, Reason: noPLD}
		}
		return a.addTerm(l, p.pld(), n)
	})
	if err != nil {
		return err
	}
	if step := a.gridStep(); step != a.step {
		a.step = step
		for i := range a.parts {
			if err := a.sizeCheck(i, a.parts[i].source); err != nil {
				return err
			}
		}
		if a.mu2 > 0 {
			return a.sizeCheck(-1, Gaussian{Sigma: 1 / math.Sqrt(a.mu2), Sensitivity: 1})
		}
	}
	return nil
}

// gridStep returns the grid step for the ledger's parts: the interval h,
// or, when the parts' exact point masses all lie at ±ℓ for one loss
// ℓ ≥ h (a Laplace mechanism's ±ε₀), ℓ/⌈ℓ/h⌉ ∈ [h/2, h], on whose grid
// they lie. Connect-the-dots splits a point mass between the grid losses
// around it, moving part of it up by up to h: the T-fold Laplace
// mechanism's PLD then had δ(ε) > 0 up to T·h above its largest loss
// Tε₀, from which on the true δ is 0, and its ε at small δ (where ε
// approaches Tε₀) was up to T·h above the exact one and the RDP
// accountant's (issue 34). On the aligned grid the point masses stay
// where they are.
func (a *pldAccountant) gridStep() float64 {
	unit := 0.0
	for i := range a.parts {
		for _, add := range []bool{false, true} {
			for _, at := range a.parts[i].loss(add, logMassTruncation).atoms {
				if !at.exact || at.mass == 0 || at.loss == 0 {
					continue
				}
				if l := math.Abs(at.loss); unit == 0 {
					unit = l
				} else if l != unit {
					return a.h
				}
			}
		}
	}
	if !(unit >= a.h) || !finite(unit) {
		return a.h
	}
	// The grid loss k·step, as computed, at or just above ℓ: below it by
	// an ulp, the point mass would leave a crumb (about 1e-12 of it) one
	// grid step higher, a new largest loss of tiny mass.
	k := math.Ceil(unit / a.h)
	step := unit / k
	for k*step < unit {
		step = math.Nextafter(step, math.Inf(1))
	}
	return step
}

// maxPartCount is the most times the PLD accountant composes one part other
// than the merged Gaussian (whose count only scales μ²): 2^53, up to which
// walk's product of nested counts is exact in float64 and a part's total
// fits an int. A larger count is an error: converted to int it wrapped to a
// negative number, and a self-composed Gaussian with count 2^63 − 1 was
// reported as ε = 0.
const maxPartCount = 1 << 53

// addTerm merges count repetitions of leaf l, whose term is t.
func (a *pldAccountant) addTerm(l Event, t pldTerm, count float64) error {
	switch {
	case t.nonPrivate:
		a.nonP = true
		return nil
	case t.gaussian > 0:
		r := t.gaussian
		// The floor keeps a Gaussian whose (Δ/σ)² underflows (σ/Δ above
		// about 1e150) in the ledger, pessimistically (minGaussianMu2).
		a.mu2 = math.Max(a.mu2+count*r*r, minGaussianMu2)
		return a.sizeCheck(-1, Gaussian{Sigma: 1 / math.Sqrt(a.mu2), Sensitivity: 1})
	case t.part == nil:
		return nil
	}
	part := *t.part
	i := slices.IndexFunc(a.parts, func(p pldPart) bool { return p.key == part.key })
	total := count
	if i >= 0 {
		total += float64(a.parts[i].count)
	}
	if !(total <= maxPartCount) {
		return fmt.Errorf("accounting: the pld accountant composes %s at most 2^53 times, not %g times; use the rdp accountant", part.name, total)
	}
	if i >= 0 {
		a.parts[i].count = int(total)
		return nil
	}
	part.count, part.source = int(count), l
	a.parts = append(a.parts, part)
	return a.sizeCheck(len(a.parts)-1, part.source)
}

// sizeCheck checks that the part's discretisation (both directions, at the
// default truncation) fits the grid limit, without building it.
func (a *pldAccountant) sizeCheck(part int, sub Event) error {
	for _, add := range []bool{false, true} {
		if _, _, err := a.lossDistOf(part, add, logMassTruncation).grid(a.step, sub); err != nil {
			return err
		}
	}
	return nil
}

// symmetric reports whether the part's PLD is the same in both directions.
func (a *pldAccountant) symmetric(part int) bool {
	return part < 0 || a.parts[part].symmetric
}

// lossDistOf returns the privacy loss distribution of a part in one
// direction.
func (a *pldAccountant) lossDistOf(part int, add bool, logMass float64) *lossDist {
	if part < 0 {
		return sgmLoss(1/math.Sqrt(a.mu2), 1, false, logMass)
	}
	return a.parts[part].loss(add, logMass)
}

// leaf returns the discretised PLD of a part in one direction (cached).
func (a *pldAccountant) leaf(part int, add bool, logMass float64, sub Event) (*pldLeaf, error) {
	if a.symmetric(part) {
		add = false
	}
	k := leafKey{part, add, logMass}
	a.mu.Lock()
	l, ok := a.leaves[k]
	a.mu.Unlock()
	if ok {
		return l, nil
	}
	l, err := a.lossDistOf(part, add, logMass).discretise(a.step, sub)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.leaves[k] = l
	a.mu.Unlock()
	return l, nil
}

// terms returns the ledger's discretised parts in one direction.
func (a *pldAccountant) terms(add bool, logMass float64) ([]leafTerm, error) {
	var out []leafTerm
	if a.mu2 > 0 {
		l, err := a.leaf(-1, add, logMass, Gaussian{Sigma: 1 / math.Sqrt(a.mu2), Sensitivity: 1})
		if err != nil {
			return nil, err
		}
		out = append(out, leafTerm{l, 1})
	}
	for i, p := range a.parts {
		l, err := a.leaf(i, add, logMass, p.source)
		if err != nil {
			return nil, err
		}
		out = append(out, leafTerm{l, p.count})
	}
	return out, nil
}

// directions returns the directions to evaluate: remove, and add when some
// part is asymmetric.
func (a *pldAccountant) directions() []bool {
	for i := range a.parts {
		if !a.symmetric(i) {
			return []bool{false, true}
		}
	}
	return []bool{false}
}

// partCount returns the number of composed parts (for the truncation).
func (a *pldAccountant) partCount() int {
	n := 0
	if a.mu2 > 0 {
		n++
	}
	for _, p := range a.parts {
		n += p.count
	}
	return n
}

// truncationFor returns the log noise-tail mass to truncate at for a query
// at δ: dp_accounting's e^{−50}, or less so that the truncated mass of all
// parts stays below 1e-4·δ.
func (a *pldAccountant) truncationFor(delta float64) float64 {
	lm := math.Log(1e-4 * delta / float64(max(1, a.partCount())))
	if !(lm < logMassTruncation) {
		return logMassTruncation
	}
	if lm < minLogMass {
		return minLogMass
	}
	// Round down to an integer so that nearby queries share leaves.
	return math.Floor(lm)
}

func (a *pldAccountant) Ledger() Event { return a.led.event() }

// Epsilon returns the larger of the two directions' smallest ε at δ.
func (a *pldAccountant) Epsilon(delta float64) (Guarantee, error) {
	if err := checkDelta(delta); err != nil {
		return Guarantee{}, err
	}
	g := Guarantee{Delta: delta, Accountant: a.Name(), Relation: a.led.rel()}
	if a.nonP {
		g.Epsilon = math.Inf(1)
		return g, nil
	}
	if a.mu2 == 0 && len(a.parts) == 0 {
		return g, nil
	}
	lm := a.truncationFor(delta)
	eps, err := a.eachDirection(lm, func(terms []leafTerm) (float64, error) {
		return epsilonOfTerms(terms, delta, a.step, a.Ledger())
	})
	if err != nil {
		return g, err
	}
	g.Epsilon, err = checkNumber("ε", eps)
	return g, err
}

// eachDirection evaluates f on the ledger's discretised parts (truncated
// at log mass lm) in each direction, concurrently (they are independent),
// and returns the larger value or the first error.
func (a *pldAccountant) eachDirection(lm float64, f func([]leafTerm) (float64, error)) (float64, error) {
	dirs := a.directions()
	vals, errs := make([]float64, len(dirs)), make([]error, len(dirs))
	var wg sync.WaitGroup
	for i, add := range dirs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			terms, err := a.terms(add, lm)
			if err != nil {
				errs[i] = err
				return
			}
			vals[i], errs[i] = f(terms)
		}()
	}
	wg.Wait()
	out := 0.0
	for i := range dirs {
		if errs[i] != nil {
			return 0, errs[i]
		}
		out = math.Max(out, vals[i])
	}
	return out, nil
}

// Delta returns the larger of the two directions' δ at ε.
func (a *pldAccountant) Delta(epsilon float64) (float64, error) {
	if err := checkEpsilon(epsilon); err != nil {
		return 0, err
	}
	if a.nonP {
		return 1, nil
	}
	if a.mu2 == 0 && len(a.parts) == 0 {
		return 0, nil
	}
	// The truncated tails put about partCount·e^{lm} at +∞: while that is
	// not negligible against the answer, truncate further (each answer is
	// a valid bound; keep the smallest).
	lm := float64(logMassTruncation)
	best := 1.0
	for it := 0; it < 6; it++ {
		d, err := a.eachDirection(lm, func(terms []leafTerm) (float64, error) {
			return deltaOfTerms(terms, epsilon, a.step, a.Ledger())
		})
		if err != nil {
			if it > 0 {
				break
			}
			return 0, err
		}
		best = math.Min(best, d)
		next := a.truncationFor(d)
		if float64(a.partCount())*math.Exp(lm) <= 1e-4*d || next >= lm || next < minLogMass {
			break
		}
		lm = next
	}
	return checkNumber("δ", best)
}

// minLogMass is the smallest noise-tail truncation: e^{−400} ≈ 1e-174,
// far below any δ a user asks for.
const minLogMass = -400

// maxTilt bounds the tilt θ (the order minus one): beyond it the tilted
// composition is concentrated on its top loss and nothing changes.
const maxTilt = 1e7

// errorShare is the largest share of δ that a composition's error bounds
// may take before epsilonOfTerms and deltaOfTerms recompose with a better
// tilt or a longer window (the answer is a valid bound either way; a share
// s moves ε by about s/θ).
const errorShare = 1e-5

// epsilonOfTerms returns an upper bound on the smallest ε with δ(ε) ≤ delta
// for the composition of terms. It composes at the Chernoff-optimal tilt
// for delta; while an error bound takes more than errorShare of δ it
// recomposes with a longer window (wrapped tails) or at the saddle point of
// the ε found (rounding; damped to a factor 1.5 per step). A window too long
// for maxPLDPoints lowers the tilt instead: a smaller tilt shortens the
// tilted composition's tail (for a rarely sampled mechanism it is a
// compound-Poisson pile of bumps) at the price of a larger rounding share.
// Every composition gives a valid bound; it returns the smallest.
func epsilonOfTerms(terms []leafTerm, delta, h float64, sub Event) (float64, error) {
	if delta == 0 {
		// δ(ε) = 0 exactly from the largest composed loss on, if nothing is
		// at +∞.
		top := 0.0
		for _, t := range terms {
			if t.leaf.inf > 0 {
				return math.Inf(1), nil
			}
			top += float64(t.count) * t.leaf.loss(len(t.leaf.probs)-1)
		}
		return math.Max(0, top), nil
	}
	cm := compress(terms)
	cache := tilts{}
	theta := cm.chernoffTilt(delta)
	if theta >= maxTilt {
		theta = cm.conversionTilt(delta)
	}
	tau := initialTail(cache.of(terms, theta), theta, h)
	best, thetaCap := math.Inf(1), math.Inf(1)
	budget := pldWorkBudget
	var sizeErr error
	how := heldAuto
	for it := 0; it < 8; it++ {
		c, err := composeHeld(terms, cache, theta, tau, h, budget, sub, how)
		if se, big := err.(*SizeError); big && se.Limit < maxPLDPoints {
			break // the work budget is spent: keep the bounds found
		}
		if _, big := err.(*SizeError); big && math.IsInf(best, 1) {
			// No bound yet: a smaller tilt shortens a lumpy composition's
			// window, a longer wrapped tail (charged) a Gaussian-like one.
			// Trying either costs no transform when it does not fit.
			sizeErr = err
			if c2, err2 := composeHeld(terms, cache, theta/1.3, tau, h, budget, sub, how); err2 == nil {
				c, err, theta, thetaCap = c2, nil, theta/1.3, theta
			} else if c2, err2 := composeHeld(terms, cache, theta, math.Min(maxTail, tau*1e3), h, budget, sub, how); err2 == nil {
				c, err, tau = c2, nil, math.Min(maxTail, tau*1e3)
			}
		}
		if _, big := err.(*SizeError); big && math.IsInf(best, 1) && it >= 4 {
			break // five rounds of smaller tilts and longer tails did not fit
		}
		if _, big := err.(*SizeError); big && theta > 1e-3 {
			sizeErr, thetaCap = err, theta
			theta /= 1.3
			continue
		}
		if err != nil {
			return 0, err
		}
		budget -= c.size()
		eps, inside, eR, eA := c.epsilonUpper(delta)
		if math.IsInf(eps, 1) {
			if c.inf > delta {
				return eps, nil // the mass at +∞ alone exceeds δ
			}
			// The window's top cut off more than δ (charged at +∞): a
			// longer window, or, if it cannot be longer, no certificate.
			if tau <= minTail {
				break
			}
			tau = math.Max(minTail, tau*errorShare*delta/c.tailHi)
			continue
		}
		best = math.Min(best, eps)
		done := true
		if eA > errorShare*delta && tau > minTail {
			tau = math.Max(minTail, tau*errorShare*delta/eA/10)
			done = false
		}
		if !inside || !(eR <= errorShare*delta) {
			next := math.Min(1.5*theta+1, math.Max(theta/1.5, cm.saddleTilt(eps)))
			if math.IsNaN(eR) {
				// An untilting factor overflowed above the answer: the
				// tilt is far too steep (a Chernoff tilt near the point
				// where it ceases to exist); the conversion tilt is the
				// smaller.
				next = math.Min(theta/1.5, cm.conversionTilt(delta))
			}
			next = math.Min(next, thetaCap/1.1)
			if math.Abs(next-theta) > 0.02*theta {
				theta, done = next, false
			} else if how != heldPrecise && !(eR <= errorShare*delta) {
				// The tilt is settled and the rounding still takes more
				// than its share: compose precisely (heldPrecise).
				how, done = heldPrecise, false
			}
		}
		if done {
			break
		}
	}
	if math.IsInf(best, 1) {
		if sizeErr == nil {
			sizeErr = &SizeError{Sub: sub, Interval: h, Limit: maxPLDPoints, Coarsest: 2 * h}
		}
		return 0, sizeErr
	}
	return best, nil
}

// deltaOfTerms returns an upper bound on δ(ε) of the composition of terms,
// composed at the saddle-point tilt for ε (lowered while the window does
// not fit), with a longer window while the wrapped tails' charge exceeds
// errorShare of the answer.
func deltaOfTerms(terms []leafTerm, eps, h float64, sub Event) (float64, error) {
	cm := compress(terms)
	if eps >= cm.top {
		// Nothing finite lies above ε: δ(ε) is the mass at +∞.
		logFinite := 0.0
		for _, t := range terms {
			logFinite += float64(t.count) * math.Log1p(-t.leaf.inf)
		}
		return -math.Expm1(logFinite), nil
	}
	cache := tilts{}
	theta := cm.saddleTilt(eps)
	tau := initialTail(cache.of(terms, theta), theta, h)
	best := math.Inf(1)
	budget := pldWorkBudget
	var sizeErr error
	how := heldAuto
	for it := 0; it < 8; it++ {
		c, err := composeHeld(terms, cache, theta, tau, h, budget, sub, how)
		if se, big := err.(*SizeError); big && se.Limit < maxPLDPoints {
			break // the work budget is spent: keep the bounds found
		}
		if _, big := err.(*SizeError); big && math.IsInf(best, 1) {
			sizeErr = err
			if c2, err2 := composeHeld(terms, cache, theta/1.3, tau, h, budget, sub, how); err2 == nil {
				c, err, theta = c2, nil, theta/1.3
			} else if c2, err2 := composeHeld(terms, cache, theta, math.Min(maxTail, tau*1e3), h, budget, sub, how); err2 == nil {
				c, err, tau = c2, nil, math.Min(maxTail, tau*1e3)
			}
		}
		if _, big := err.(*SizeError); big && math.IsInf(best, 1) && it >= 4 {
			break
		}
		if _, big := err.(*SizeError); big && theta > 1e-3 {
			sizeErr = err
			theta /= 1.3
			continue
		}
		if err != nil {
			return 0, err
		}
		budget -= c.size()
		d := c.deltaUpper(eps)
		best = math.Min(best, d)
		_, eR, eA := c.deltaParts(eps)
		again := false
		if how != heldPrecise && !(eR <= errorShare*d) {
			how, again = heldPrecise, true // as in epsilonOfTerms
		}
		if eA > errorShare*d && tau > minTail {
			tau, again = math.Max(minTail, tau*errorShare*d/eA/10), true
		}
		if !again {
			break
		}
	}
	if math.IsInf(best, 1) {
		if sizeErr == nil {
			sizeErr = &SizeError{Sub: sub, Interval: h, Limit: maxPLDPoints, Coarsest: 2 * h}
		}
		return 0, sizeErr
	}
	return best, nil
}

// compressed is the ledger's parts reduced to at most 4096 blocks each
// (mass, mass-weighted mean loss), to choose tilts: K(θ) = Σ n_i log M_i(θ),
// the cumulant generating function of the composed loss, and its
// derivative K'(θ), the tilted mean.
type compressed struct {
	parts []compressedPart
	top   float64 // Σ n_i (largest loss of part i)
}

type compressedPart struct {
	logMass, loss []float64
	count         float64
}

func compress(terms []leafTerm) *compressed {
	cm := &compressed{}
	for _, t := range terms {
		p := t.leaf
		// Blocks of bs bins, but the 64 bins at each end one by one: a
		// steep tilt sees only the ends, and K'(∞) is then the exact
		// largest loss.
		n := len(p.probs)
		bs := max(1, (n+4095)/4096)
		var cp compressedPart
		cp.count = float64(t.count)
		for s := 0; s < n; {
			e := min(s+bs, n)
			if s < 64 || s >= n-64 {
				e = s + 1
			} else if e > n-64 {
				e = n - 64
			}
			var m, ml float64
			for i := s; i < e; i++ {
				m += p.probs[i]
				ml += p.probs[i] * p.loss(i)
			}
			if m > 0 {
				cp.logMass = append(cp.logMass, math.Log(m))
				cp.loss = append(cp.loss, ml/m)
			}
			s = e
		}
		if len(cp.loss) > 0 {
			cm.top += cp.count * cp.loss[len(cp.loss)-1]
		}
		cm.parts = append(cm.parts, cp)
	}
	return cm
}

// cgf returns K(θ) and K'(θ).
func (cm *compressed) cgf(theta float64) (k, dk float64) {
	for _, p := range cm.parts {
		top := math.Inf(-1)
		for i, lm := range p.logMass {
			top = max(top, lm+theta*p.loss[i])
		}
		var s, sl float64
		for i, lm := range p.logMass {
			w := math.Exp(lm + theta*p.loss[i] - top)
			s += w
			sl += w * p.loss[i]
		}
		k += p.count * (top + math.Log(s))
		dk += p.count * sl / s
	}
	return k, dk
}

// saddleTilt returns θ ≥ 0 with K'(θ) = ε (0 when the untilted mean is
// already above ε; maxTilt when ε is beyond the largest loss).
func (cm *compressed) saddleTilt(eps float64) float64 {
	f := func(t float64) float64 { _, d := cm.cgf(t); return d - eps }
	return cm.solveIncreasing(f)
}

// chernoffTilt returns the θ minimising the Chernoff bound's ε,
// (K(θ) + log(1/δ))/θ: the root of θK'(θ) − K(θ) = log(1/δ) (the left side
// is non-decreasing, its derivative is θK”(θ) ≥ 0), or maxTilt when there
// is none: θK' − K tends to −log p_top, p_top the mass of the largest
// composed loss, which can be below log(1/δ) (conversionTilt then serves).
func (cm *compressed) chernoffTilt(delta float64) float64 {
	target := -math.Log(delta)
	f := func(t float64) float64 { k, d := cm.cgf(t); return t*d - k - target }
	return cm.solveIncreasing(f)
}

// conversionTilt returns the θ minimising the conversion bound on ε at δ,
//
//	ε(θ) = (K(θ) + log(1/δ) − log(θ+1) + θ log(θ/(θ+1)))/θ,
//
// from δ(ε) = E[(1 − e^{ε−L})₊] ≤ e^{K(θ)−θε} sup_{x>0} (1 − e^{−x}) e^{−θx}
// = e^{K(θ)−θε} θ^θ/(θ+1)^{θ+1} ([CKS20] Prop. 12 at the order α = θ + 1,
// where (α−1)D_α = K(θ)): the root of θK'(θ) − K(θ) + log(θ+1) = log(1/δ)
// (the left side increases: its derivative is θK”(θ) + 1/(θ+1) > 0, and
// it grows without bound). It exists where the Chernoff tilt does not: a
// bounded loss whose largest value carries more than about δ of the mass
// (a Laplace mechanism composed a few times) sent the Chernoff tilt to
// maxTilt, where the untilting factors overflow one grid step below the
// top loss, and ε stayed at the top loss, Tε₀ (issue 34). It is smaller
// than the Chernoff tilt where both exist.
func (cm *compressed) conversionTilt(delta float64) float64 {
	target := -math.Log(delta)
	f := func(t float64) float64 { k, d := cm.cgf(t); return t*d - k + math.Log1p(t) - target }
	return cm.solveIncreasing(f)
}

// solveIncreasing returns the root in [0, maxTilt] of a non-decreasing f
// (0 if f(0) ≥ 0, maxTilt if f(maxTilt) < 0), by bracketing and bisection
// on log θ to a relative 1e-3 (a tilt need not be exact).
func (cm *compressed) solveIncreasing(f func(float64) float64) float64 {
	if f(0) >= 0 {
		return 0
	}
	lo, hi := 0.0, 1.0
	for !(f(hi) >= 0) {
		if hi >= maxTilt {
			return maxTilt
		}
		lo, hi = hi, math.Min(2*hi, maxTilt)
	}
	for hi-lo > 1e-3*hi {
		mid := 0.5 * (lo + hi)
		if lo > 0 {
			mid = math.Sqrt(lo * hi)
		}
		if f(mid) >= 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// String describes a part (for errors and debugging).
func (p pldPart) String() string { return fmt.Sprintf("%s×%d", p.name, p.count) }
