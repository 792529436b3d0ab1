package accounting

import (
	"fmt"
	"math"
	"sync"
)

// pldAccountant implements Accountant with privacy loss distributions
// ([KJPH21] FFT composition; [DGK+22] connect-the-dots discretisation;
// dp_accounting's PLDAccountant, b5b0286). It keeps the PLD of the remove
// and add directions of the add/remove relation and reports the worse of
// the two. Every PLD is pessimistic: its δ(ε) is an upper bound.
type pldAccountant struct {
	h    float64
	led  ledger
	cur  pldPair
	nonP bool // a NonPrivate event was composed
}

func newPLDAccountant(h float64) *pldAccountant {
	id := identityPMF(h)
	return &pldAccountant{h: h, cur: pldPair{id, id}}
}

func (a *pldAccountant) Name() string { return "pld" }

// pldWalk calls leaf for each leaf of e with its multiplicity, after
// checking support; Gaussians are merged per SelfComposed (count-fold
// composition of N(0, σ²) is N(0, σ²/count)).
func pldCheck(e Event) error {
	switch e := e.(type) {
	case NoOp, NonPrivate, Gaussian, Laplace, PoissonSampledGaussian, ObjectivePerturbation:
		return nil
	case SelfComposed:
		return pldCheck(e.Event)
	case Composed:
		for _, s := range e.Events {
			if err := pldCheck(s); err != nil {
				return err
			}
		}
		return nil
	}
	return &UnsupportedError{Accountant: "pld", Sub: e, Reason: "no privacy loss distribution is implemented for it (use the rdp accountant)"}
}

func (a *pldAccountant) Check(e Event) error {
	if _, err := a.led.prepare(a.Name(), e, 1); err != nil {
		return err
	}
	return pldCheck(e)
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
	cur, nonP := a.cur, a.nonP
	if err := a.add(e, count, &cur, &nonP); err != nil {
		return err
	}
	a.cur, a.nonP = cur, nonP
	a.led.append(e, count, rel)
	return nil
}

// maxPLDPoints bounds the length of any discretised PLD (2^23 points, about
// 64 MiB per array): a finer interval is an error, not an out-of-memory.
const maxPLDPoints = 1 << 23

// add composes count repetitions of e into cur.
func (a *pldAccountant) add(e Event, count int, cur *pldPair, nonP *bool) error {
	if count == 0 {
		return nil
	}
	var p pldPair
	switch e := e.(type) {
	case NoOp:
		return nil
	case NonPrivate:
		*nonP = true
		return nil
	case SelfComposed:
		return a.add(e.Event, count*e.Count, cur, nonP)
	case Composed:
		for _, s := range e.Events {
			if err := a.add(s, count, cur, nonP); err != nil {
				return err
			}
		}
		return nil
	case Gaussian:
		if e.Sigma == 0 {
			*nonP = true
			return nil
		}
		// count-fold composition of the Gaussian mechanism is the Gaussian
		// mechanism with σ/√count ([DRS19] Cor. 3.3), discretised once.
		p = gaussianPLD(e.Sigma/e.Sensitivity/math.Sqrt(float64(count)), 1, a.h)
		count = 1
	case Laplace:
		if e.Scale == 0 {
			*nonP = true
			return nil
		}
		p = laplacePLD(e.Sensitivity/e.Scale, a.h)
	case PoissonSampledGaussian:
		switch {
		case e.Q == 0:
			return nil
		case e.NoiseMultiplier == 0:
			*nonP = true
			return nil
		}
		p = gaussianPLD(e.NoiseMultiplier, e.Q, a.h)
	case ObjectivePerturbation:
		p = objPertPLD(e, a.h)
	default:
		panic("accounting: pld: unchecked event " + e.Kind())
	}
	var win [2][2]int
	for i, q := range []*pmf{p.remove, p.add} {
		if q == nil {
			return &UnsupportedError{Accountant: "pld", Sub: e, Reason: fmt.Sprintf("its PLD needs more than %d points at interval %g (use a coarser --interval)", maxPLDPoints, a.h)}
		}
		lo, hi := selfConvolveBounds(q.probs, count, tailTruncation)
		if hi-lo+1 > maxPLDPoints {
			return &UnsupportedError{Accountant: "pld", Sub: e, Reason: fmt.Sprintf("its %d-fold composition needs %d points at interval %g (limit %d; use a coarser --interval)", count, hi-lo+1, a.h, maxPLDPoints)}
		}
		win[i] = [2]int{lo, hi}
	}
	var rem, add *pmf
	both(func() { rem = p.remove.selfComposeOn(count, win[0][0], win[0][1]) }, func() {
		if p.add != p.remove {
			add = p.add.selfComposeOn(count, win[1][0], win[1][1])
		}
	})
	if p.add == p.remove {
		add = rem
	}
	if len(cur.remove.probs)+len(rem.probs) > maxPLDPoints || len(cur.add.probs)+len(add.probs) > maxPLDPoints {
		return &UnsupportedError{Accountant: "pld", Sub: e, Reason: fmt.Sprintf("the composed PLD needs more than %d points at interval %g (use a coarser --interval)", maxPLDPoints, a.h)}
	}
	if cur.remove == cur.add && rem == add {
		c := cur.remove.compose(rem)
		*cur = pldPair{c, c}
		return nil
	}
	var cr, ca *pmf
	both(func() { cr = cur.remove.compose(rem) }, func() { ca = cur.add.compose(add) })
	*cur = pldPair{cr, ca}
	return nil
}

// both runs f and g concurrently (the remove and add directions are
// independent; each writes only its own result).
func both(f, g func()) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); g() }()
	f()
	wg.Wait()
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
	eps := a.cur.remove.epsilon(delta)
	if a.cur.add != a.cur.remove {
		eps = math.Max(eps, a.cur.add.epsilon(delta))
	}
	var err error
	g.Epsilon, err = checkNumber("ε", eps)
	return g, err
}

// Delta returns the larger of the two directions' δ at ε.
func (a *pldAccountant) Delta(epsilon float64) (float64, error) {
	if err := checkEpsilon(epsilon); err != nil {
		return 0, err
	}
	if a.nonP {
		return 1, nil
	}
	return checkNumber("δ", math.Max(a.cur.remove.delta(epsilon), a.cur.add.delta(epsilon)))
}
