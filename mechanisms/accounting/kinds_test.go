package accounting

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/dplab/dplab/internal/buildtest"
)

// kindAccountants are the accountants checkKind runs every kind through.
var kindAccountants = []Config{{Kind: "rdp"}, {Kind: "pld"}, {Kind: "exact"}}

// checkKind is the conformance check of one event kind; its error names the
// kind. The example must be valid; its JSON must start with its "kind" tag
// and decode (through the entry's decoder) to an equal value that encodes
// to the same bytes; a leaf must have an RDP curve (the RDP accountant
// evaluates every leaf); and every accountant must either evaluate the
// example (Check, then Compose: finite or +Inf ε ≥ 0, δ ∈ [0, 1], no NaN) or
// reject it with an *UnsupportedError naming a leaf (the RDP accountant
// must not reject it). A panic anywhere is a failure, not a crash.
func checkKind(k eventKind) (err error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("event kind %q: %s", k.kind, fmt.Sprintf(format, args...))
	}
	defer func() {
		if p := recover(); p != nil {
			err = fail("panic: %v", p)
		}
	}()
	e := k.example
	if e == nil || e.Kind() != k.kind {
		return fail("the example's Kind() is not the table's kind")
	}
	if err := Validate(e); err != nil {
		return fail("invalid example: %v", err)
	}
	data, err := json.Marshal(e)
	if err != nil {
		return fail("marshal: %v", err)
	}
	if !bytes.HasPrefix(data, []byte(`{"kind":"`+k.kind+`"`)) {
		return fail("JSON %s does not start with its \"kind\" tag", data)
	}
	back, err := k.decode(data, "event")
	if err != nil {
		return fail("decode %s: %v", data, err)
	}
	if !reflect.DeepEqual(back, e) {
		return fail("JSON round trip of %s: got %#v, want %#v", data, back, e)
	}
	if again, _ := json.Marshal(back); !bytes.Equal(again, data) {
		return fail("re-encoding gives %s, want %s", again, data)
	}
	switch e.(type) {
	case Composed, SelfComposed:
	default:
		if _, ok := e.(rdpEvent); !ok {
			return fail("the rdp accountant cannot evaluate it: no rdp method (every leaf kind needs its RDP curve)")
		}
	}
	for _, cfg := range kindAccountants {
		a, err := cfg.New()
		if err != nil {
			return err
		}
		if err := a.Check(e); err != nil {
			var u *UnsupportedError
			if !errors.As(err, &u) || u.Sub == nil {
				return fail("%s accountant: Check: %v, want nil or an *UnsupportedError naming a leaf", a.Name(), err)
			}
			if a.Name() == "rdp" {
				return fail("the rdp accountant rejects it: %v", err)
			}
			continue
		}
		if err := a.Compose(e, 1); err != nil {
			return fail("%s accountant: Compose after a passing Check: %v", a.Name(), err)
		}
		g, err := a.Epsilon(1e-5)
		if err != nil || math.IsNaN(g.Epsilon) || g.Epsilon < 0 {
			return fail("%s accountant: ε(1e-5) = %v, %v", a.Name(), g.Epsilon, err)
		}
		d, err := a.Delta(1)
		if err != nil || !(d >= 0 && d <= 1) {
			return fail("%s accountant: δ(1) = %v, %v", a.Name(), d, err)
		}
	}
	return nil
}

// TestEventKinds runs the conformance check on every kind of the table, and
// checks that the table has (at least) the kinds the package documents.
func TestEventKinds(t *testing.T) {
	for _, k := range strings.Fields("amp approx_dp composed gaussian gaussmix laplace non_private noop objective_perturbation poisson_sampled_gaussian preprocessed pure_dp repeat_and_select rgm self_composed") {
		if _, ok := eventKinds[k]; !ok {
			t.Errorf("kind %q is not in the table", k)
		}
	}
	for _, k := range kinds() {
		t.Run(k.kind, func(t *testing.T) {
			t.Parallel()
			if err := checkKind(k); err != nil {
				t.Error(err)
			}
		})
	}
}

// scratchZCDP is a throwaway leaf kind, declared here as a new kind's file
// would declare it (it is not registered: registering in a test would add
// it to every test's table). Its RDP is ρα at every order: that of a
// Gaussian mechanism with noise multiplier 1/√(2ρ) ([Mir17] Prop. 7).
type scratchZCDP struct {
	Rho float64 `json:"rho"` // ρ ≥ 0
}

func (scratchZCDP) Kind() string { return "scratch_zcdp" }
func (scratchZCDP) isEvent()     {}
func (e scratchZCDP) Validate() error {
	if !finite(e.Rho) || e.Rho < 0 {
		return fieldErr(e, "rho", e.Rho, "a finite value ≥ 0")
	}
	return nil
}
func (e scratchZCDP) MarshalJSON() ([]byte, error) {
	type plain scratchZCDP
	return withKind(e.Kind(), plain(e))
}
func (scratchZCDP) relation() string { return "" }
func (e scratchZCDP) rdp(rdpOptions) (rdpTerm, error) {
	return rdpTerm{at: func(a float64) float64 { return e.Rho * a }}, nil
}

// scratchNoRDP is scratchZCDP without its rdp method. leafKind (and so
// registerLeaf) does not accept it; TestLeafWithoutRDPDoesNotCompile shows
// the compiler's message.
type scratchNoRDP struct {
	Rho float64 `json:"rho"`
}

func (scratchNoRDP) Kind() string    { return "scratch_no_rdp" }
func (scratchNoRDP) isEvent()        {}
func (scratchNoRDP) Validate() error { return nil }
func (e scratchNoRDP) MarshalJSON() ([]byte, error) {
	type plain scratchNoRDP
	return withKind(e.Kind(), plain(e))
}

//lint:ignore U1000 the method set of a complete leaf but rdp: the point of the type
func (scratchNoRDP) relation() string { return "" }

// TestThrowawayEventKind: a complete throwaway leaf kind passes the
// conformance check and is accounted; the same kind without its RDP method
// (entered in a table by hand, past registerLeaf's constraint) fails the
// conformance check with an error naming it, and an accountant given it
// reports it by name as unsupported: no panic anywhere.
func TestThrowawayEventKind(t *testing.T) {
	if err := checkKind(leafKind(scratchZCDP{Rho: 0.05})); err != nil {
		t.Errorf("complete kind: %v", err)
	}
	// Composed with a Gaussian of noise multiplier m: RDP (ρ + 1/(2m²))·α
	// (tolerance 1e-15: one rounding per term).
	r, err := Config{}.RDP(Composed{Events: []Event{scratchZCDP{Rho: 0.05}, Gaussian{Sigma: 2, Sensitivity: 1}}}, 3)
	if want := (0.05 + 1/8.0) * 3; err != nil || !closeRel(r, want, 1e-15) {
		t.Errorf("RDP(3) = %v, %v; want %v", r, err, want)
	}

	bad := eventKind{kind: "scratch_no_rdp", example: scratchNoRDP{Rho: 0.05}, decode: fieldDecoder[scratchNoRDP]("scratch_no_rdp")}
	err = checkKind(bad)
	if err == nil || !strings.Contains(err.Error(), `event kind "scratch_no_rdp"`) || !strings.Contains(err.Error(), "no rdp method") {
		t.Errorf("kind without rdp: conformance error %v, want one naming scratch_no_rdp and its missing rdp method", err)
	}
	ledger := SelfComposed{Event: Composed{Events: []Event{Gaussian{Sigma: 1, Sensitivity: 1}, scratchNoRDP{Rho: 0.05}}}, Count: 2}
	for _, cfg := range kindAccountants {
		_, err := cfg.Epsilon(ledger, 1e-5)
		var u *UnsupportedError
		if !errors.As(err, &u) || u.Sub.Kind() != "scratch_no_rdp" {
			t.Errorf("%s: err = %v, want *UnsupportedError naming scratch_no_rdp", cfg.kind(), err)
		}
	}
	if _, err := (Config{}).RDP(RepeatAndSelect{Event: scratchNoRDP{}, Mean: 2}, 2); err == nil || !strings.Contains(err.Error(), "scratch_no_rdp") {
		t.Errorf("inside RepeatAndSelect: err = %v, want one naming scratch_no_rdp", err)
	}
}

// TestLeafWithoutRDPDoesNotCompile builds the package with one more file
// (through go build -overlay, nothing is written to the package) that
// declares a leaf kind without its rdp method and registers it: the build
// must fail with the compiler's message naming the type and the missing
// method. With go1.26.8 the message is
//
//	…/scratch.go:14:14: in call to registerLeaf, E (type scratchOverlay) does not satisfy leafEvent (missing method rdp)
//
// (The build stops at type checking: 0.2 s.)
func TestLeafWithoutRDPDoesNotCompile(t *testing.T) {
	code := "package accounting\n\n" +
		"type scratchOverlay struct{ Rho float64 `json:\"rho\"` }\n\n" +
		"func (scratchOverlay) Kind() string    { return \"scratch_overlay\" }\n" +
		"func (scratchOverlay) isEvent()        {}\n" +
		"func (scratchOverlay) Validate() error { return nil }\n" +
		"func (scratchOverlay) relation() string { return \"\" }\n" +
		"func (e scratchOverlay) MarshalJSON() ([]byte, error) { return withKind(e.Kind(), struct{}{}) }\n\n" +
		"// no rdp method\n\n" +
		"func init() {\n\tregisterLeaf(scratchOverlay{})\n}\n"
	buildtest.FailsWith(t, "zz_scratch_kind.go", code, "E (type scratchOverlay) does not satisfy leafEvent (missing method rdp)")
}
