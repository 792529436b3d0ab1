package accounting

import (
	"encoding/json"
	"math"
	"testing"
)

// memoHitFamilies are the families of TestCalibrateMemoHitCheap and
// BenchmarkCalibrateMemoHit: DP-SGD's, and a pre-processed one (a nested
// event, a pointer and a slice).
var memoHitFamilies = map[string]func(x float64) Event{
	"dpsgd": func(x float64) Event {
		return SelfComposed{Event: PoissonSampledGaussian{Q: 0.01, NoiseMultiplier: x}, Count: 10000}
	},
	"preprocessed": func(x float64) Event {
		return Preprocessed{Event: Gaussian{Sigma: x, Sensitivity: 1}, SRDP: &SRDP{Mechanism: SRDPGaussian, Sigma: x, Sensitivity: 1, L12: 1, LF: 1}, DeltaInf: 2, Delta2: 0.1, N: 1000, Analyses: []string{AnalysisGroup}}
	},
}

// TestCalibrateMemoHitCheap: a memo hit (every trial of a calibrated
// mechanism after its cell's first) allocates at most two values more than
// evaluating the family at its two reference points does: the key string
// (and room for one more). Keyed by the events' JSON it allocated 30 more
// (34 for the DP-SGD family, whose evaluations allocate 4; 38 for the
// pre-processed one, 8): fails before.
func TestCalibrateMemoHitCheap(t *testing.T) {
	tg := Target{Epsilon: 1, Delta: 1e-5}
	for name, family := range memoHitFamilies {
		cal := NewCalibrator(Config{})
		want, err := cal.Calibrate(family, tg, Bracket{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var sink Event
		own := testing.AllocsPerRun(20, func() {
			for _, x := range calReference {
				sink = family(x)
			}
		})
		_ = sink
		hit := testing.AllocsPerRun(20, func() {
			if x, err := cal.Calibrate(family, tg, Bracket{}); err != nil || x != want {
				t.Errorf("%s: memo hit %v, %v; want %v", name, x, err, want)
			}
		})
		if hit > own+2 {
			t.Errorf("%s: a memo hit allocates %v times, the family's two evaluations %v: want ≤ %v", name, hit, own, own+2)
		}
	}
}

// TestFamilyKeyAgreesWithJSON: the family key (a binary encoding of the
// events: their EventKeys) tells two events apart exactly when their JSON (the key it
// replaced, which holds every field) does. The events: every registered
// kind's example, nested once in SelfComposed and Composed, and the
// variants of each with one JSON field changed (by 1, by one ulp, a flipped
// bool, an edited string) that still decode; plus the −0/0 and fresh
// pointer cases. Equal keys for different JSON would share a calibration
// between different families; different keys for the same JSON would lose
// memo hits.
func TestFamilyKeyAgreesWithJSON(t *testing.T) {
	var events []Event
	for _, k := range kinds() {
		base := []Event{k.example, SelfComposed{Event: k.example, Count: 3}, Composed{Events: []Event{k.example, NoOp{}}}}
		for _, e := range base {
			events = append(events, e)
			data, err := json.Marshal(e)
			if err != nil {
				t.Fatalf("%s: %v", k.kind, err)
			}
			var tree any
			if err := json.Unmarshal(data, &tree); err != nil {
				t.Fatal(err)
			}
			for _, v := range jsonVariants(tree) {
				data, _ := json.Marshal(v)
				if e, err := unmarshalEvent(data, "variant"); err == nil {
					events = append(events, e)
				}
			}
		}
	}
	events = append(events, Gaussian{Sigma: 1, Sensitivity: 0}, Gaussian{Sigma: 1, Sensitivity: math.Copysign(0, -1)})
	pre := func() Event {
		return Preprocessed{Event: Gaussian{Sigma: 4, Sensitivity: 1}, SRDP: &SRDP{Mechanism: SRDPGaussian, Sigma: 4, Sensitivity: 1, L12: 1, LF: 1}, DeltaInf: 10, Delta2: 0.1, N: 1000}
	}
	events = append(events, pre(), pre())
	keys := make([]string, len(events))
	jsons := make([]string, len(events))
	for i, e := range events {
		key, ok := familyKey(func(float64) Event { return e })
		if ek, eok := EventKey(e); !ok || !eok || key != ek+ek {
			t.Fatalf("%#v: family key %v, event key %v, want the event's key twice", e, ok, eok)
		}
		data, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		keys[i], jsons[i] = key, string(data)
	}
	if len(events) < 200 {
		t.Fatalf("only %d events", len(events))
	}
	for i := range events {
		for j := range i {
			if (keys[i] == keys[j]) != (jsons[i] == jsons[j]) {
				t.Errorf("keys equal %v, JSON equal %v:\n%s\n%s", keys[i] == keys[j], jsons[i] == jsons[j], jsons[i], jsons[j])
			}
		}
	}
}

// jsonVariants returns copies of the decoded JSON tree v, each with one
// leaf (not a "kind" tag) changed: numbers + 1 and up one ulp, booleans
// negated, strings edited.
func jsonVariants(v any) []any {
	switch v := v.(type) {
	case float64:
		return []any{v + 1, math.Nextafter(v, math.Inf(1))}
	case bool:
		return []any{!v}
	case string:
		return []any{v + "x", ""}
	case []any:
		var out []any
		for i, el := range v {
			for _, w := range jsonVariants(el) {
				c := append([]any(nil), v...)
				c[i] = w
				out = append(out, c)
			}
		}
		return out
	case map[string]any:
		var out []any
		for k, el := range v {
			if k == "kind" {
				continue
			}
			for _, w := range jsonVariants(el) {
				c := map[string]any{}
				for k2, el2 := range v {
					c[k2] = el2
				}
				c[k] = w
				out = append(out, c)
			}
		}
		return out
	}
	return nil
}
