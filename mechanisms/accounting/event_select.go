package accounting

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Distribution is the law of the number of runs K in RepeatAndSelect.
type Distribution int

// The distributions of [PS22].
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

// RepeatAndSelect is private hyperparameter selection ([PS22]): draw K from
// Distribution with E[K] = Mean, run Event K times independently (each run
// may use its own hyperparameters) and release only the best run by a score
// (K = 0 releases a data-independent default). Shape is the TNB shape η
// (used only by TruncatedNegativeBinomial). The relation is the one of
// Event. Accountants evaluate it as one leaf (the RDP accountant from the
// RDP curve of Event, rdp_select.go); it is a wrapper: relations and
// placement rules look inside.
type RepeatAndSelect struct {
	Event        Event        `json:"event"`
	Distribution Distribution `json:"distribution"`
	Mean         float64      `json:"mean"`  // E[K] ≥ 1
	Shape        float64      `json:"shape"` // TNB η > 0
}

func init() {
	registerLeaf(RepeatAndSelect{Event: SelfComposed{Event: PoissonSampledGaussian{Q: 0.1, NoiseMultiplier: 2}, Count: 10}, Distribution: TruncatedNegativeBinomial, Mean: 4, Shape: 0.5})
}

// Kind implements Event.
func (RepeatAndSelect) Kind() string { return "repeat_and_select" }

func (RepeatAndSelect) isEvent() {}

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

// MarshalJSON encodes the event with its "kind"; the distribution is its name.
func (e RepeatAndSelect) MarshalJSON() ([]byte, error) {
	return withKind(e.Kind(), struct {
		Event        Event   `json:"event"`
		Distribution string  `json:"distribution"`
		Mean         float64 `json:"mean"`
		Shape        float64 `json:"shape"`
	}{e.Event, e.Distribution.String(), e.Mean, e.Shape})
}

func (RepeatAndSelect) decodeJSON(data []byte, path string) (Event, error) {
	var v struct {
		kindTag
		Event        json.RawMessage `json:"event"`
		Distribution string          `json:"distribution"`
		Mean         float64         `json:"mean"`
		Shape        float64         `json:"shape"`
	}
	if err := decodeStrict(data, &v); err != nil {
		return nil, decodeErr(path, "repeat_and_select", err)
	}
	d, err := ParseDistribution(v.Distribution)
	if err != nil {
		return nil, decodeErr(path, "repeat_and_select", err)
	}
	sub, err := unmarshalEvent(v.Event, path+".event")
	if err != nil {
		return nil, err
	}
	return RepeatAndSelect{Event: sub, Distribution: d, Mean: v.Mean, Shape: v.Shape}, nil
}

// relation implements leafEvent: the wrapped event's leaves fix it.
func (RepeatAndSelect) relation() string { return "" }

func (e RepeatAndSelect) wrapped() Event { return e.Event }

// rdp implements rdpEvent: the selection bound ([PS22] Thms 2 and 6) over
// the RDP curve of the wrapped event on the accountant's order set.
func (e RepeatAndSelect) rdp(o rdpOptions) (rdpTerm, error) {
	base, err := wrappedCurve(e.Event, o, "an (ε, δ) guarantee cannot be repeated a random number of times (RepeatAndSelect)")
	if err != nil {
		return rdpTerm{}, err
	}
	if base.infinite {
		return rdpTerm{infinite: true}, nil
	}
	sel := newSelector(e, base, o.orders)
	return rdpTerm{at: sel.at, sup: base.sup, supLeaf: base.supLeaf, costly: base.costly, nonMonotone: true}, nil
}
