package accounting

import (
	"math"
	"testing"
)

// FuzzUnmarshalEvent: any JSON given as a ledger (dplab account json, a
// record's privacy.event) is decoded or refused with an error, and a decoded
// event is accounted (RDP, δ = 1e-5) to ε ≥ 0 or an error: never a panic
// or NaN.
func FuzzUnmarshalEvent(f *testing.F) {
	for _, s := range []string{
		`{"kind":"gaussian","sigma":2,"sensitivity":1}`,
		`{"kind":"self_composed","event":{"kind":"poisson_sampled_gaussian","q":0.01,"noise_multiplier":1},"count":1000}`,
		`{"kind":"composed","events":[{"kind":"laplace","scale":1,"sensitivity":1},{"kind":"approx_dp","epsilon":0,"delta":1e-7}]}`,
		`{"kind":"gaussmix","k":12,"gamma":30}`,
		`{"kind":"with_relation","event":{"kind":"gaussian","sigma":1,"sensitivity":2},"relation":"replace_one"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := UnmarshalEvent(data)
		if err != nil {
			return
		}
		r, err := Config{}.Epsilon(e, 1e-5)
		if err == nil && (math.IsNaN(r.Epsilon) || r.Epsilon < 0) {
			t.Fatalf("%s: ε = %v", data, r.Epsilon)
		}
	})
}
