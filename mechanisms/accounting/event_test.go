package accounting

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// allEvents returns the example of every kind in the kind table and nested
// compositions of them (a function: the table is filled by init, after
// package variables).
func allEvents() []Event {
	var out []Event
	for _, k := range kinds() {
		out = append(out, k.example)
	}
	return append(out,
		Composed{},
		RepeatAndSelect{Event: Gaussian{Sigma: 1, Sensitivity: 1}, Distribution: Logarithmic, Mean: 3},
		Composed{Events: []Event{ApproxDP{Epsilon: 0.1}, SelfComposed{Event: Composed{Events: []Event{GaussMix{K: 3, Gamma: 50}, NoOp{}}}, Count: 3}}},
	)
}

// TestEventJSONRoundTrip: every event marshals with its "kind" and decodes
// back to an equal value.
func TestEventJSONRoundTrip(t *testing.T) {
	for _, e := range allEvents() {
		data, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("%s: %v", e.Kind(), err)
		}
		if !strings.Contains(string(data), `"kind":"`+e.Kind()+`"`) {
			t.Errorf("%s: no kind tag in %s", e.Kind(), data)
		}
		back, err := UnmarshalEvent(data)
		if err != nil {
			t.Fatalf("%s: decode %s: %v", e.Kind(), data, err)
		}
		want := e
		if c, ok := e.(Composed); ok && c.Events == nil {
			want = Composed{Events: []Event{}}
		}
		if !reflect.DeepEqual(back, want) {
			t.Errorf("round trip of %s: got %#v, want %#v", data, back, want)
		}
	}
}

// TestUnmarshalEventErrors: unknown kinds, unknown keys, missing kinds and
// invalid values are errors naming the problem.
func TestUnmarshalEventErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"kind":"gauss","sigma":1}`, `unknown event kind "gauss"`},
		{`{"sigma":1}`, `missing "kind"`},
		{`{"kind":"gaussian","sigma":1,"sensitivity":1,"extra":2}`, `unknown field "extra"`},
		{`{"kind":"self_composed","event":{"kind":"laplace","scale":1,"sensitivity":1,"q":1},"count":2}`, `event.event`},
		{`{"kind":"gaussian","sigma":-1,"sensitivity":1}`, `sigma = -1`},
		{`{"kind":"repeat_and_select","event":{"kind":"noop"},"distribution":"weird","mean":2,"shape":0}`, `unknown distribution`},
		{`[1,2]`, `decode event`},
	} {
		_, err := UnmarshalEvent([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one containing %q", c.in, err, c.want)
		}
	}
}

// TestValidate: invalid parameters are rejected with the field named.
func TestValidate(t *testing.T) {
	for _, c := range []struct {
		e    Event
		want string
	}{
		{Gaussian{Sigma: 1}, "sensitivity"},
		{Laplace{Scale: -1, Sensitivity: 1}, "scale"},
		{PoissonSampledGaussian{Q: 1.2, NoiseMultiplier: 1}, "q = 1.2"},
		{SelfComposed{Event: NoOp{}, Count: -1}, "count"},
		{SelfComposed{Count: 1}, "event is missing"},
		{Composed{Events: []Event{NoOp{}, nil}}, "events[1]"},
		{RepeatAndSelect{Event: NoOp{}, Mean: 0.5}, "mean"},
		{RepeatAndSelect{Event: NoOp{}, Mean: 2, Distribution: TruncatedNegativeBinomial}, "shape"},
		{ObjectivePerturbation{Sigma: 1, Lambda: 1, Beta: 1, L: 1}, "λ > β"},
		{AMP{ObjPert: ObjectivePerturbation{Sigma: 1, Lambda: 2, Beta: 1, L: 1}, Tau: 0.1}, "sigma_out"},
		{GaussMix{K: 5, Gamma: 1}, "γ > 1"},
		{RGM{Eta: 2, Gamma: 1, D: 1, V1: true}, "η ≤ 1"},
		{RGM{Eta: 0.1, Gamma: 1}, "d = 0"},
	} {
		err := Validate(c.e)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%#v: err = %v, want one containing %q", c.e, err, c.want)
		}
	}
	for _, e := range allEvents() {
		if err := Validate(e); err != nil {
			t.Errorf("%s: %v", e.Kind(), err)
		}
	}
}

// TestDistributionNames: String and ParseDistribution invert each other.
func TestDistributionNames(t *testing.T) {
	for d := Poisson; d <= Logarithmic; d++ {
		back, err := ParseDistribution(d.String())
		if err != nil || back != d {
			t.Errorf("%v: %v, %v", d, back, err)
		}
	}
	if d, err := ParseDistribution("TNB"); err != nil || d != TruncatedNegativeBinomial {
		t.Errorf("TNB: %v, %v", d, err)
	}
}
