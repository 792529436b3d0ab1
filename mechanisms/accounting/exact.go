package accounting

import "math"

// exactAccountant evaluates the tight closed-form privacy profile of ledgers
// that have one: any adaptive composition of Gaussian mechanisms (μ-GDP with
// μ = √(Σ count·(Δ/σ)²), GaussianDelta) or a single objective perturbation
// (ObjPertDelta, [RKW23] Thm 3.1). Other ledgers are unsupported.
type exactAccountant struct {
	led ledger
}

func (a *exactAccountant) Name() string { return "exact" }

// exactEvent is a leaf the exact accountant evaluates.
type exactEvent interface {
	Event
	// exact returns the leaf's part of a closed-form privacy profile.
	exact() exactTerm
}

// exactTerm is one leaf's part of a closed-form privacy profile. The zero
// value adds nothing.
type exactTerm struct {
	nonPrivate bool                   // no guarantee
	gaussian   float64                // > 0: Δ/σ of a Gaussian mechanism (μ-GDP with μ = Δ/σ)
	objPert    *ObjectivePerturbation // one objective perturbation ([RKW23] Thm 3.1)
}

// exactProfile classifies a ledger: kind "" (empty), "gaussian" with μ²,
// "objpert" with the event, or "inf" (NonPrivate); or an *UnsupportedError.
func exactProfile(e Event) (kind string, mu2 float64, op ObjectivePerturbation, err error) {
	nObj := 0.0
	walkErr := walk(e, 1, false, func(l Event, count float64, _ bool) error {
		if count == 0 {
			return nil
		}
		x, ok := l.(exactEvent)
		if !ok {
			return &UnsupportedError{Accountant: "exact", Sub: l, Reason: "no closed-form privacy profile (use the rdp or pld accountant)"}
		}
		t := x.exact()
		switch {
		case t.nonPrivate:
			kind = "inf"
		case t.gaussian > 0:
			m := t.gaussian
			mu2 += count * m * m
		case t.objPert != nil:
			nObj += count
			op = *t.objPert
		}
		return nil
	})
	if err = walkErr; err != nil {
		return "", 0, op, err
	}
	switch {
	case kind == "inf":
		return "inf", 0, op, nil
	case nObj > 0 && (nObj != 1 || mu2 > 0):
		return "", 0, op, &UnsupportedError{Accountant: "exact", Sub: op,
			Reason: "the closed-form profile covers one objective perturbation alone; compositions need the pld or rdp accountant"}
	case nObj == 1:
		return "objpert", 0, op, nil
	case mu2 > 0:
		return "gaussian", mu2, op, nil
	}
	return "", 0, op, nil
}

func (a *exactAccountant) Check(e Event) error {
	if _, err := a.led.prepare(a.Name(), e, 1); err != nil {
		return err
	}
	_, _, _, err := exactProfile(NewComposed(append(append([]Event(nil), a.led.events...), e)...))
	return err
}

func (a *exactAccountant) Compose(e Event, count int) error {
	rel, err := a.led.prepare(a.Name(), e, count)
	if err != nil {
		return err
	}
	if count == 0 {
		return nil
	}
	next := append(append([]Event(nil), a.led.events...), SelfComposed{Event: e, Count: count})
	if _, _, _, err := exactProfile(NewComposed(next...)); err != nil {
		return err
	}
	a.led.append(e, count, rel)
	return nil
}

func (a *exactAccountant) Ledger() Event { return a.led.event() }

func (a *exactAccountant) Epsilon(delta float64) (Guarantee, error) {
	if err := checkDelta(delta); err != nil {
		return Guarantee{}, err
	}
	g := Guarantee{Delta: delta, Accountant: a.Name(), Relation: a.led.rel()}
	kind, mu2, op, err := exactProfile(a.led.event())
	if err != nil {
		return g, err
	}
	switch kind {
	case "inf":
		g.Epsilon = math.Inf(1)
	case "gaussian":
		g.Epsilon, err = GaussianEpsilon(math.Sqrt(mu2), delta)
	case "objpert":
		g.Epsilon, err = ObjPertEpsilon(op, delta)
	}
	return g, err
}

func (a *exactAccountant) Delta(epsilon float64) (float64, error) {
	if err := checkEpsilon(epsilon); err != nil {
		return 0, err
	}
	kind, mu2, op, err := exactProfile(a.led.event())
	if err != nil {
		return 0, err
	}
	switch kind {
	case "inf":
		return 1, nil
	case "gaussian":
		return GaussianDelta(math.Sqrt(mu2), epsilon), nil
	case "objpert":
		return objPertDelta(op, epsilon), nil
	}
	return 0, nil
}
