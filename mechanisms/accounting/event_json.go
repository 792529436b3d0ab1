package accounting

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// JSON: every event marshals to an object with a "kind" tag and its fields in
// snake_case; nested events marshal recursively. UnmarshalEvent decodes such
// an object back (strictly: unknown keys are errors).

func withKind(kind string, v any) ([]byte, error) {
	fields, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	head := fmt.Sprintf(`{"kind":%q`, kind)
	if bytes.Equal(fields, []byte("{}")) {
		return []byte(head + "}"), nil
	}
	return append([]byte(head+","), fields[1:]...), nil
}

// MarshalJSON encodes {"kind":"noop"}.
func (e NoOp) MarshalJSON() ([]byte, error) { return withKind(e.Kind(), struct{}{}) }

// MarshalJSON encodes {"kind":"non_private"}.
func (e NonPrivate) MarshalJSON() ([]byte, error) { return withKind(e.Kind(), struct{}{}) }

// MarshalJSON encodes the event with its "kind".
func (e Gaussian) MarshalJSON() ([]byte, error) {
	type plain Gaussian
	return withKind(e.Kind(), plain(e))
}

// MarshalJSON encodes the event with its "kind".
func (e Laplace) MarshalJSON() ([]byte, error) {
	type plain Laplace
	return withKind(e.Kind(), plain(e))
}

// MarshalJSON encodes the event with its "kind".
func (e PoissonSampledGaussian) MarshalJSON() ([]byte, error) {
	type plain PoissonSampledGaussian
	return withKind(e.Kind(), plain(e))
}

// MarshalJSON encodes the event with its "kind".
func (e SelfComposed) MarshalJSON() ([]byte, error) {
	type plain SelfComposed
	return withKind(e.Kind(), plain(e))
}

// MarshalJSON encodes the event with its "kind".
func (e Composed) MarshalJSON() ([]byte, error) {
	type plain Composed
	if e.Events == nil {
		e.Events = []Event{}
	}
	return withKind(e.Kind(), plain(e))
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

// MarshalJSON encodes the event with its "kind".
func (e ObjectivePerturbation) MarshalJSON() ([]byte, error) {
	type plain ObjectivePerturbation
	return withKind(e.Kind(), plain(e))
}

// MarshalJSON encodes the event with its "kind" (the nested objective
// perturbation without one).
func (e AMP) MarshalJSON() ([]byte, error) {
	type op ObjectivePerturbation
	return withKind(e.Kind(), struct {
		ObjPert  op      `json:"objpert"`
		Tau      float64 `json:"tau"`
		SigmaOut float64 `json:"sigma_out"`
	}{op(e.ObjPert), e.Tau, e.SigmaOut})
}

// MarshalJSON encodes the event with its "kind".
func (e GaussMix) MarshalJSON() ([]byte, error) {
	type plain GaussMix
	return withKind(e.Kind(), plain(e))
}

// MarshalJSON encodes the event with its "kind".
func (e RGM) MarshalJSON() ([]byte, error) {
	type plain RGM
	return withKind(e.Kind(), plain(e))
}

// decodeStrict decodes data into v, rejecting unknown keys and trailing data.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after the event object")
	}
	return nil
}

// UnmarshalEvent decodes an event written by json.Marshal (an object with a
// "kind" tag), recursively, and validates it. Unknown kinds or keys are errors.
func UnmarshalEvent(data []byte) (Event, error) {
	e, err := unmarshalEvent(data, "event")
	if err != nil {
		return nil, err
	}
	if err := Validate(e); err != nil {
		return nil, err
	}
	return e, nil
}

func unmarshalEvent(data []byte, path string) (Event, error) {
	var head struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("accounting: decode %s: %w", path, err)
	}
	fail := func(err error) (Event, error) {
		return nil, fmt.Errorf("accounting: decode %s (kind %q): %w", path, head.Kind, err)
	}
	type kinded struct {
		Kind string `json:"kind"`
	}
	switch head.Kind {
	case "noop":
		if err := decodeStrict(data, &kinded{}); err != nil {
			return fail(err)
		}
		return NoOp{}, nil
	case "non_private":
		if err := decodeStrict(data, &kinded{}); err != nil {
			return fail(err)
		}
		return NonPrivate{}, nil
	case "gaussian":
		var v struct {
			kinded
			Gaussian
		}
		if err := decodeStrict(data, &v); err != nil {
			return fail(err)
		}
		return v.Gaussian, nil
	case "laplace":
		var v struct {
			kinded
			Laplace
		}
		if err := decodeStrict(data, &v); err != nil {
			return fail(err)
		}
		return v.Laplace, nil
	case "poisson_sampled_gaussian":
		var v struct {
			kinded
			PoissonSampledGaussian
		}
		if err := decodeStrict(data, &v); err != nil {
			return fail(err)
		}
		return v.PoissonSampledGaussian, nil
	case "self_composed":
		var v struct {
			kinded
			Event json.RawMessage `json:"event"`
			Count int             `json:"count"`
		}
		if err := decodeStrict(data, &v); err != nil {
			return fail(err)
		}
		sub, err := unmarshalEvent(v.Event, path+".event")
		if err != nil {
			return nil, err
		}
		return SelfComposed{Event: sub, Count: v.Count}, nil
	case "composed":
		var v struct {
			kinded
			Events []json.RawMessage `json:"events"`
		}
		if err := decodeStrict(data, &v); err != nil {
			return fail(err)
		}
		out := Composed{Events: make([]Event, len(v.Events))}
		for i, raw := range v.Events {
			sub, err := unmarshalEvent(raw, fmt.Sprintf("%s.events[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out.Events[i] = sub
		}
		return out, nil
	case "repeat_and_select":
		var v struct {
			kinded
			Event        json.RawMessage `json:"event"`
			Distribution string          `json:"distribution"`
			Mean         float64         `json:"mean"`
			Shape        float64         `json:"shape"`
		}
		if err := decodeStrict(data, &v); err != nil {
			return fail(err)
		}
		d, err := ParseDistribution(v.Distribution)
		if err != nil {
			return fail(err)
		}
		sub, err := unmarshalEvent(v.Event, path+".event")
		if err != nil {
			return nil, err
		}
		return RepeatAndSelect{Event: sub, Distribution: d, Mean: v.Mean, Shape: v.Shape}, nil
	case "objective_perturbation":
		var v struct {
			kinded
			ObjectivePerturbation
		}
		if err := decodeStrict(data, &v); err != nil {
			return fail(err)
		}
		return v.ObjectivePerturbation, nil
	case "amp":
		var v struct {
			kinded
			ObjPert  ObjectivePerturbation `json:"objpert"`
			Tau      float64               `json:"tau"`
			SigmaOut float64               `json:"sigma_out"`
		}
		if err := decodeStrict(data, &v); err != nil {
			return fail(err)
		}
		return AMP{ObjPert: v.ObjPert, Tau: v.Tau, SigmaOut: v.SigmaOut}, nil
	case "gaussmix":
		var v struct {
			kinded
			GaussMix
		}
		if err := decodeStrict(data, &v); err != nil {
			return fail(err)
		}
		return v.GaussMix, nil
	case "approx_dp":
		var v struct {
			kinded
			ApproxDP
		}
		if err := decodeStrict(data, &v); err != nil {
			return fail(err)
		}
		return v.ApproxDP, nil
	case "rgm":
		var v struct {
			kinded
			RGM
		}
		if err := decodeStrict(data, &v); err != nil {
			return fail(err)
		}
		return v.RGM, nil
	case "":
		return nil, fmt.Errorf("accounting: decode %s: missing \"kind\"", path)
	}
	return nil, fmt.Errorf("accounting: decode %s: unknown event kind %q", path, head.Kind)
}
