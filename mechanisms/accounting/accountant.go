package accounting

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Accountant evaluates a ledger of composed events. Implementations: the RDP
// accountant ("rdp"), the PLD accountant ("pld") and the exact accountant
// ("exact", closed-form privacy profiles only). Accountants are not safe for
// concurrent use.
type Accountant interface {
	// Name is "rdp", "pld" or "exact".
	Name() string
	// Check is a dry run of Compose: it returns a *UnsupportedError naming
	// the offending sub-event if e cannot be evaluated, and changes nothing.
	Check(e Event) error
	// Compose adds count adaptive repetitions of e to the ledger. It is
	// atomic: on error the ledger is unchanged.
	Compose(e Event, count int) error
	// Epsilon returns the smallest ε the accountant can certify at δ, with
	// the optimal RDP order α* for the RDP accountant. +Inf means no
	// guarantee.
	Epsilon(delta float64) (Guarantee, error)
	// Delta returns the smallest δ the accountant can certify at ε.
	Delta(epsilon float64) (float64, error)
	// Ledger returns everything composed so far (a Composed event).
	Ledger() Event
}

// Guarantee is an (ε, δ) guarantee certified by an accountant.
type Guarantee struct {
	Epsilon, Delta float64
	Alpha          float64 // optimal RDP order α*; 0 when not an RDP result
	Accountant     string  // "rdp", "pld" or "exact"
	Relation       string  // neighbouring relation of the ledger
}

// Config selects and configures an accountant. The zero value is the RDP
// accountant on dp_accounting's order grid refined by a continuous search.
type Config struct {
	// Kind is "rdp" (default when empty), "pld" or "exact".
	Kind string
	// Orders is the RDP order set: "default" (dp_accounting's grid, then a
	// 1-D minimisation over continuous α around the grid's best order;
	// default when empty), "grid" (dp_accounting's DEFAULT_RDP_ORDERS exactly),
	// "opacus" (Opacus' DEFAULT_ALPHAS), "tfprivacy" (TF Privacy's
	// compute_dp_sgd_privacy orders) or "integer" (2..MaxOrder).
	Orders string
	// MaxOrder is the largest order of the "integer" set, at most
	// MaxIntegerOrder; 0 means 256.
	MaxOrder int
	// ExtraOrders are added to the order set (each > 1), e.g. the orders
	// beyond 256 that honest DP-SGD at small ε needs (objpert.md §2.7).
	ExtraOrders []float64
	// SGM selects how the Poisson-subsampled Gaussian is evaluated at
	// fractional orders: "bound" (default when empty) is dp_accounting's
	// series of absolute values (an upper bound on the RDP, equal to
	// dp_accounting's numbers); "exact" integrates the RDP numerically.
	// Integer orders are exact either way.
	SGM string
	// Interval is the PLD discretisation interval; 0 means 1e-4.
	Interval float64
	// Conversion is the RDP → (ε, δ) conversion of the RDP accountant:
	// "default" (when empty: [BBG+20] Thm 21 / [CKS20] Prop. 12 with the
	// KL bound) or "classic" ([Mir17] Prop. 3, what TF Privacy's tutorials
	// print); see convert.go.
	Conversion string
}

// MaxIntegerOrder is the largest Config.MaxOrder: a million orders (8 MB),
// far above any order an (ε, δ) conversion uses (objpert.md §2.7 goes to
// 8192).
const MaxIntegerOrder = 1_000_000

// DefaultInterval is the PLD discretisation interval used when
// Config.Interval is 0 (dp_accounting's default).
const DefaultInterval = 1e-4

// accountantKinds are the accountants Config.New builds.
var accountantKinds = []string{"rdp", "pld", "exact"}

// Validate checks the configuration.
func (c Config) Validate() error {
	if c.Kind != "" && !slices.Contains(accountantKinds, c.Kind) {
		return fmt.Errorf("accounting: unknown accountant %q (want rdp, pld or exact)", c.Kind)
	}
	switch c.Orders {
	case "", "default", "grid", "opacus", "tfprivacy", "integer":
	default:
		return fmt.Errorf("accounting: unknown order set %q (want default, grid, opacus, tfprivacy or integer)", c.Orders)
	}
	if c.MaxOrder != 0 && (c.MaxOrder < 2 || c.MaxOrder > MaxIntegerOrder) {
		// The integer set holds every order up to it: 2^63 − 1 panicked
		// allocating the slice.
		return fmt.Errorf("accounting: max order %d, want 2..%d (or 0 for 256)", c.MaxOrder, MaxIntegerOrder)
	}
	for _, a := range c.ExtraOrders {
		if !finite(a) || a <= 1 {
			return fmt.Errorf("accounting: extra order %v, want a finite order > 1", a)
		}
	}
	switch c.SGM {
	case "", "bound", "exact":
	default:
		return fmt.Errorf("accounting: unknown sampled-Gaussian evaluator %q (want bound or exact)", c.SGM)
	}
	if c.Conversion != "" && !slices.Contains(Conversions(), c.Conversion) {
		return fmt.Errorf("accounting: unknown conversion %q (want %s)", c.Conversion, strings.Join(Conversions(), " or "))
	}
	if !finite(c.Interval) || c.Interval < 0 {
		return fmt.Errorf("accounting: PLD interval %v, want a finite value > 0 (or 0 for %g)", c.Interval, DefaultInterval)
	}
	return nil
}

// kind returns the accountant kind with the default applied.
func (c Config) kind() string {
	if c.Kind == "" {
		return "rdp"
	}
	return c.Kind
}

func (c Config) interval() float64 {
	if c.Interval == 0 {
		return DefaultInterval
	}
	return c.Interval
}

// New returns a fresh accountant.
func (c Config) New() (Accountant, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	switch c.kind() {
	case "pld":
		return newPLDAccountant(c.interval()), nil
	case "exact":
		return &exactAccountant{}, nil
	}
	return newRDPAccountant(c), nil
}

// Epsilon composes e into a fresh accountant and returns its ε at delta.
// An invalid delta is refused before e is looked at, so that every
// accountant gives the same error for it, whether or not it evaluates e.
func (c Config) Epsilon(e Event, delta float64) (Guarantee, error) {
	if err := checkDelta(delta); err != nil {
		return Guarantee{}, err
	}
	acc, err := c.New()
	if err != nil {
		return Guarantee{}, err
	}
	if err := acc.Compose(e, 1); err != nil {
		return Guarantee{}, err
	}
	return acc.Epsilon(delta)
}

// Delta composes e into a fresh accountant and returns its δ at epsilon
// (an invalid epsilon is refused first, as in Epsilon).
func (c Config) Delta(e Event, epsilon float64) (float64, error) {
	if err := checkEpsilon(epsilon); err != nil {
		return 0, err
	}
	acc, err := c.New()
	if err != nil {
		return 0, err
	}
	if err := acc.Compose(e, 1); err != nil {
		return 0, err
	}
	return acc.Delta(epsilon)
}

func checkDelta(delta float64) error {
	if !(delta >= 0 && delta <= 1) {
		return fmt.Errorf("accounting: δ = %v, want a value in [0, 1]", delta)
	}
	return nil
}

// checkEpsilon refuses an ε that is NaN, negative or +Inf (δ at ε = +Inf is
// no guarantee anyone asks for, and the accountants answered 0, 1.9e-44 and
// NaN to it: issue 34).
func checkEpsilon(eps float64) error {
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return fmt.Errorf("accounting: ε = %v, want a finite value ≥ 0", eps)
	}
	return nil
}

// ledger is the shared bookkeeping of the accountants: the composed events
// and the relation they fix.
type ledger struct {
	events   []Event
	relation string
}

// add checks e's relation against the ledger and returns the new relation.
func (l *ledger) relationWith(e Event) (string, error) {
	rel, err := LedgerRelation(NewComposed(append(append([]Event(nil), l.events...), e)...))
	if err != nil {
		return "", err
	}
	return rel, nil
}

func (l *ledger) append(e Event, count int, rel string) {
	if count != 1 {
		e = SelfComposed{Event: e, Count: count}
	}
	l.events = append(l.events, e)
	l.relation = rel
}

func (l *ledger) event() Event { return NewComposed(l.events...) }

func (l *ledger) rel() string {
	if l.relation == "" {
		return RelationAddRemove
	}
	return l.relation
}

// prepare validates e and count and checks the relation; it returns the
// relation the ledger would have after composing.
func (l *ledger) prepare(name string, e Event, count int) (string, error) {
	if count < 0 {
		return "", fmt.Errorf("accounting: count = %d, want ≥ 0", count)
	}
	if err := Validate(e); err != nil {
		return "", err
	}
	if err := approxInSelect(e); err != nil {
		err.(*UnsupportedError).Accountant = name
		return "", err
	}
	rel, err := l.relationWith(e)
	if err != nil {
		if u, ok := err.(*UnsupportedError); ok {
			u.Accountant = name
		}
		return "", err
	}
	return rel, nil
}
