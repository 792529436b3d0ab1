package accounting

import (
	"fmt"
	"math"
	"strings"
)

// Event describes what a mechanism did, in the form an accountant evaluates.
// Events are immutable value types; the set is closed (the interface is
// sealed). Every event states its mechanism completely and the neighbouring
// relation its guarantee refers to. Meanings never change: new behaviour gets
// a new event.
type Event interface {
	// Kind is the event's JSON "kind" tag, e.g. "gaussian".
	Kind() string
	isEvent()
}

// Neighbouring relations. An event's guarantee holds for datasets that are
// neighbours under its relation; an accountant composes only events whose
// relations agree (events that take their sensitivity as an input, such as
// Gaussian and Laplace, adopt the relation of the ledger they are in).
const (
	// RelationAddRemove: the datasets differ by adding or removing one record.
	RelationAddRemove = "add_remove"
	// RelationZeroOut: one record is replaced by the all-zero record.
	RelationZeroOut = "zero_out"
	// RelationReplaceOne: one record is replaced by an arbitrary record.
	RelationReplaceOne = "replace_one"
)

// NoOp releases nothing that depends on the data: ε = 0 under every relation.
type NoOp struct{}

// NonPrivate releases something with no privacy guarantee: ε = +Inf.
type NonPrivate struct{}

// Gaussian is the Gaussian mechanism M(D) = f(D) + N(0, Sigma² I) where the L2
// sensitivity ‖f(D) − f(D')‖₂ ≤ Sensitivity for neighbours D, D' under the
// relation of the ledger it is composed into (add/remove by default). Its
// noise multiplier is Sigma/Sensitivity. Sigma = 0 means no noise (ε = +Inf).
type Gaussian struct {
	Sigma       float64 `json:"sigma"`       // noise standard deviation, ≥ 0
	Sensitivity float64 `json:"sensitivity"` // L2 sensitivity, > 0
}

// Laplace is the Laplace mechanism M(D) = f(D) + Lap(Scale)^d (i.i.d. per
// coordinate, density exp(−|x|/Scale)/(2·Scale)) where the L1 sensitivity
// ‖f(D) − f(D')‖₁ ≤ Sensitivity under the ledger's relation. It is
// (Sensitivity/Scale)-DP. Scale = 0 means no noise (ε = +Inf).
type Laplace struct {
	Scale       float64 `json:"scale"`       // Laplace scale b, ≥ 0
	Sensitivity float64 `json:"sensitivity"` // L1 sensitivity, > 0
}

// PoissonSampledGaussian is one DP-SGD step: every record is included
// independently with probability Q, the per-record contributions (clipped to
// L2 norm C) are summed and N(0, (NoiseMultiplier·C)² I) is added. Relation:
// add/remove (the Poisson-subsampling analysis of Mironov, Talwar & Zhang
// 2019 is for add/remove neighbours).
type PoissonSampledGaussian struct {
	Q               float64 `json:"q"`                // sampling rate, in [0, 1]
	NoiseMultiplier float64 `json:"noise_multiplier"` // σ/C, ≥ 0
}

// SelfComposed is Count adaptive repetitions of Event (each repetition may
// depend on the outputs of the previous ones). Count = 0 is a NoOp.
type SelfComposed struct {
	Event Event `json:"event"`
	Count int   `json:"count"`
}

// Composed is the adaptive composition of Events, in order.
type Composed struct {
	Events []Event `json:"events"`
}

// NewComposed returns a Composed event holding a copy of events.
func NewComposed(events ...Event) Composed {
	return Composed{Events: append([]Event(nil), events...)}
}

// Distribution is the law of the number of runs K in RepeatAndSelect.
type Distribution int

// The distributions of Papernot & Steinke (ICLR 2022, arXiv:2110.03620v2).
const (
	// Poisson: K ~ Poisson(Mean) (Thm 6). The zero value.
	Poisson Distribution = iota
	// TruncatedNegativeBinomial: K ~ TNB(η = Shape, γ) on {1, 2, …} with
	// E[K] = Mean (Definition 1, Thm 2); Shape ∈ (0, ∞).
	TruncatedNegativeBinomial
	// Geometric: the TNB with η = 1.
	Geometric
	// Logarithmic: the TNB limit η → 0.
	Logarithmic
)

var distributionNames = [...]string{"poisson", "truncated_negative_binomial", "geometric", "logarithmic"}

// String returns the distribution's name ("poisson", "truncated_negative_binomial",
// "geometric", "logarithmic").
func (d Distribution) String() string {
	if d < 0 || int(d) >= len(distributionNames) {
		return fmt.Sprintf("Distribution(%d)", int(d))
	}
	return distributionNames[d]
}

// ParseDistribution parses a distribution name (case-insensitive; "tnb" is
// accepted for the truncated negative binomial).
func ParseDistribution(s string) (Distribution, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "tnb" || s == "truncated-negative-binomial" {
		return TruncatedNegativeBinomial, nil
	}
	for i, n := range distributionNames {
		if s == n {
			return Distribution(i), nil
		}
	}
	return 0, fmt.Errorf("accounting: unknown distribution %q (want poisson, tnb, geometric or logarithmic)", s)
}

// RepeatAndSelect is private hyperparameter selection (Papernot & Steinke,
// ICLR 2022): draw K from Distribution with E[K] = Mean, run Event K times
// independently (each run may use its own hyperparameters) and release only
// the best run by a score (K = 0 releases a data-independent default). Shape
// is the TNB shape η (used only by TruncatedNegativeBinomial). The relation is
// the one of Event.
type RepeatAndSelect struct {
	Event        Event        `json:"event"`
	Distribution Distribution `json:"distribution"`
	Mean         float64      `json:"mean"`  // E[K] ≥ 1
	Shape        float64      `json:"shape"` // TNB η > 0
}

// ObjectivePerturbation is objective perturbation for a convex generalised
// linear model: θ^P = argmin Σ ℓ(θ; z) + (Lambda/2)‖θ‖² + bᵀθ with
// b ~ N(0, Sigma² I), solved exactly, where ℓ(θ; z) = f(xᵀθ; y) with
// f” ≤ Beta, ‖∇ℓ‖₂ ≤ L and ‖x‖ ≤ 1, and Lambda > Beta. Relation: add/remove.
// RDP: Redberg, Koskela & Wang, arXiv:2401.00583v1, Thm 3.2; tight privacy
// profile: Thm 3.1 (corrected form, see ObjPertDelta).
type ObjectivePerturbation struct {
	Sigma  float64 `json:"sigma"`  // objective noise σ > 0
	Lambda float64 `json:"lambda"` // ridge λ > Beta
	Beta   float64 `json:"beta"`   // smoothness β ≥ 0
	L      float64 `json:"l"`      // Lipschitz bound (or clip norm) L > 0
}

// AMP is approximate minima perturbation with gradient clipping (Redberg et
// al., arXiv:2401.00583v1, Algorithm 1): objective perturbation with
// ObjPert (whose L is the clip norm C) solved until ‖∇‖ ≤ Tau, then
// N(0, SigmaOut² I) added to the output. Relation: add/remove. RDP: Thm 4.1.
type AMP struct {
	ObjPert  ObjectivePerturbation `json:"objpert"`
	Tau      float64               `json:"tau"`       // gradient-norm tolerance τ ≥ 0
	SigmaOut float64               `json:"sigma_out"` // output noise σ_out > 0
}

// GaussMix is the Gaussian mixing mechanism (Lev et al., arXiv:2505.24603):
// M(X) = S X + σ ξ with S ~ N(0, I_{k×n}) secret and ξ ~ N(0, I_{k×d}), for K
// sketch rows and Gamma = (σ² + λ̄_min)/C_X² > 1 (row bound C_X, λ̄_min a lower
// bound on λ_min(XᵀX)). Relation: zero-out (one row replaced by 0).
// RDP: Lemma 1, for α ∈ (1, Gamma).
type GaussMix struct {
	K     int     `json:"k"`     // sketch size k ≥ 1
	Gamma float64 `json:"gamma"` // γ > 1
}

// RGM is the relative Gaussian mechanism (Hendrikx, Mangold & Bellet,
// arXiv:2308.15250v2): R(x) + N(0, (Gamma·‖R(x)‖² + σ²) I_D) for a query with
// (Eta, R_rel)-relative L2 sensitivity and σ² ≥ Gamma·Eta⁻²·(1 − Eta(α−1))·R_rel².
// Relation: replace-one. RDP: Theorem 1 of v2 (V1 selects the v1 formula,
// which is not a valid bound near its order limit; labelled variant only).
type RGM struct {
	Eta   float64 `json:"eta"`   // relative sensitivity η > 0 (≤ 1 for V1)
	Gamma float64 `json:"gamma"` // γ > 0
	D     int     `json:"d"`     // output dimension ≥ 1
	V1    bool    `json:"v1"`    // use the (invalid near its limit) v1 bound
}

func (NoOp) Kind() string                   { return "noop" }
func (NonPrivate) Kind() string             { return "non_private" }
func (Gaussian) Kind() string               { return "gaussian" }
func (Laplace) Kind() string                { return "laplace" }
func (PoissonSampledGaussian) Kind() string { return "poisson_sampled_gaussian" }
func (SelfComposed) Kind() string           { return "self_composed" }
func (Composed) Kind() string               { return "composed" }
func (RepeatAndSelect) Kind() string        { return "repeat_and_select" }
func (ObjectivePerturbation) Kind() string  { return "objective_perturbation" }
func (AMP) Kind() string                    { return "amp" }
func (GaussMix) Kind() string               { return "gaussmix" }
func (RGM) Kind() string                    { return "rgm" }

func (NoOp) isEvent()                   {}
func (NonPrivate) isEvent()             {}
func (Gaussian) isEvent()               {}
func (Laplace) isEvent()                {}
func (PoissonSampledGaussian) isEvent() {}
func (SelfComposed) isEvent()           {}
func (Composed) isEvent()               {}
func (RepeatAndSelect) isEvent()        {}
func (ObjectivePerturbation) isEvent()  {}
func (AMP) isEvent()                    {}
func (GaussMix) isEvent()               {}
func (RGM) isEvent()                    {}

// finite reports whether x is a finite float.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func fieldErr(e Event, field string, v any, want string) error {
	return fmt.Errorf("accounting: %s: %s = %v, want %s", e.Kind(), field, v, want)
}

// Validate reports whether the event is well formed (always nil).
func (NoOp) Validate() error { return nil }

// Validate reports whether the event is well formed (always nil).
func (NonPrivate) Validate() error { return nil }

// Validate checks Sigma ≥ 0 and Sensitivity > 0, both finite.
func (e Gaussian) Validate() error {
	if !finite(e.Sigma) || e.Sigma < 0 {
		return fieldErr(e, "sigma", e.Sigma, "a finite value ≥ 0")
	}
	if !finite(e.Sensitivity) || e.Sensitivity <= 0 {
		return fieldErr(e, "sensitivity", e.Sensitivity, "a finite value > 0 (use NoOp for a release that does not depend on the data)")
	}
	return nil
}

// Validate checks Scale ≥ 0 and Sensitivity > 0, both finite.
func (e Laplace) Validate() error {
	if !finite(e.Scale) || e.Scale < 0 {
		return fieldErr(e, "scale", e.Scale, "a finite value ≥ 0")
	}
	if !finite(e.Sensitivity) || e.Sensitivity <= 0 {
		return fieldErr(e, "sensitivity", e.Sensitivity, "a finite value > 0 (use NoOp for a release that does not depend on the data)")
	}
	return nil
}

// Validate checks Q ∈ [0, 1] and a finite NoiseMultiplier ≥ 0.
func (e PoissonSampledGaussian) Validate() error {
	if !(e.Q >= 0 && e.Q <= 1) {
		return fieldErr(e, "q", e.Q, "a sampling rate in [0, 1]")
	}
	if !finite(e.NoiseMultiplier) || e.NoiseMultiplier < 0 {
		return fieldErr(e, "noise_multiplier", e.NoiseMultiplier, "a finite value ≥ 0")
	}
	return nil
}

// Validate checks Count ≥ 0 and validates the sub-event.
func (e SelfComposed) Validate() error {
	if e.Count < 0 {
		return fieldErr(e, "count", e.Count, "≥ 0")
	}
	if e.Event == nil {
		return fmt.Errorf("accounting: self_composed: event is missing")
	}
	return Validate(e.Event)
}

// Validate validates every sub-event.
func (e Composed) Validate() error {
	for i, s := range e.Events {
		if s == nil {
			return fmt.Errorf("accounting: composed: events[%d] is missing", i)
		}
		if err := Validate(s); err != nil {
			return fmt.Errorf("composed: events[%d]: %w", i, err)
		}
	}
	return nil
}

// Validate checks the distribution parameters and the sub-event.
func (e RepeatAndSelect) Validate() error {
	if e.Distribution < Poisson || e.Distribution > Logarithmic {
		return fieldErr(e, "distribution", int(e.Distribution), "poisson, truncated_negative_binomial, geometric or logarithmic")
	}
	if !finite(e.Mean) || e.Mean < 1 {
		return fieldErr(e, "mean", e.Mean, "a finite expected number of runs ≥ 1")
	}
	if e.Distribution == TruncatedNegativeBinomial && (!finite(e.Shape) || e.Shape <= 0) {
		return fieldErr(e, "shape", e.Shape, "a finite TNB shape η > 0")
	}
	if e.Event == nil {
		return fmt.Errorf("accounting: repeat_and_select: event is missing")
	}
	return Validate(e.Event)
}

// Validate checks Sigma > 0, L > 0, Beta ≥ 0 and Lambda > Beta, all finite.
func (e ObjectivePerturbation) Validate() error {
	switch {
	case !finite(e.Sigma) || e.Sigma <= 0:
		return fieldErr(e, "sigma", e.Sigma, "a finite value > 0")
	case !finite(e.L) || e.L <= 0:
		return fieldErr(e, "l", e.L, "a finite Lipschitz bound > 0")
	case !finite(e.Beta) || e.Beta < 0:
		return fieldErr(e, "beta", e.Beta, "a finite smoothness ≥ 0")
	case !finite(e.Lambda) || e.Lambda <= e.Beta:
		return fieldErr(e, "lambda", e.Lambda, fmt.Sprintf("a finite value > beta = %v (Thm 3.2 needs λ > β)", e.Beta))
	}
	return nil
}

// Validate checks the objective-perturbation part, Tau ≥ 0 and SigmaOut > 0.
func (e AMP) Validate() error {
	if err := e.ObjPert.Validate(); err != nil {
		return fmt.Errorf("amp: %w", err)
	}
	if !finite(e.Tau) || e.Tau < 0 {
		return fieldErr(e, "tau", e.Tau, "a finite value ≥ 0")
	}
	if !finite(e.SigmaOut) || e.SigmaOut <= 0 {
		return fieldErr(e, "sigma_out", e.SigmaOut, "a finite value > 0")
	}
	return nil
}

// Validate checks K ≥ 1 and a finite Gamma > 1.
func (e GaussMix) Validate() error {
	if e.K < 1 {
		return fieldErr(e, "k", e.K, "≥ 1")
	}
	if !finite(e.Gamma) || e.Gamma <= 1 {
		return fieldErr(e, "gamma", e.Gamma, "a finite value > 1 (Lemma 1 needs γ > 1)")
	}
	return nil
}

// Validate checks Eta > 0 (≤ 1 for V1), Gamma > 0 and D ≥ 1.
func (e RGM) Validate() error {
	if !finite(e.Eta) || e.Eta <= 0 || (e.V1 && e.Eta > 1) {
		want := "a finite value > 0"
		if e.V1 {
			want = "in (0, 1] (the v1 theorem needs η ≤ 1)"
		}
		return fieldErr(e, "eta", e.Eta, want)
	}
	if !finite(e.Gamma) || e.Gamma <= 0 {
		return fieldErr(e, "gamma", e.Gamma, "a finite value > 0")
	}
	if e.D < 1 {
		return fieldErr(e, "d", e.D, "≥ 1")
	}
	return nil
}

// validator is implemented by every event.
type validator interface{ Validate() error }

// Validate validates any event (nil is an error).
func Validate(e Event) error {
	if e == nil {
		return fmt.Errorf("accounting: event is missing")
	}
	v, ok := e.(validator)
	if !ok {
		panic("accounting: event without Validate: " + e.Kind())
	}
	return v.Validate()
}

// relationOf returns the neighbouring relation an event fixes ("" for events
// whose sensitivity is an input and which adopt the ledger's relation).
func relationOf(e Event) string {
	switch e.(type) {
	case PoissonSampledGaussian, ObjectivePerturbation, AMP:
		return RelationAddRemove
	case GaussMix:
		return RelationZeroOut
	case RGM:
		return RelationReplaceOne
	}
	return ""
}

// LedgerRelation returns the neighbouring relation of an event tree: the
// relation fixed by its relation-specific leaves, RelationAddRemove when none
// fixes one, and an *UnsupportedError naming the first leaf whose relation
// disagrees with the earlier ones.
func LedgerRelation(e Event) (string, error) {
	rel := ""
	var walk func(Event) error
	walk = func(e Event) error {
		switch e := e.(type) {
		case SelfComposed:
			return walk(e.Event)
		case Composed:
			for _, s := range e.Events {
				if err := walk(s); err != nil {
					return err
				}
			}
			return nil
		case RepeatAndSelect:
			return walk(e.Event)
		}
		r := relationOf(e)
		if r == "" {
			return nil
		}
		if rel != "" && r != rel {
			return &UnsupportedError{Sub: e, Reason: fmt.Sprintf("its neighbouring relation %s differs from %s of the rest of the ledger", r, rel)}
		}
		rel = r
		return nil
	}
	if err := walk(e); err != nil {
		return "", err
	}
	if rel == "" {
		rel = RelationAddRemove
	}
	return rel, nil
}
