package accounting

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
)

// ask answers "dplab account EVENT ARGS..." through the Request API, as the
// command does (flags after the event).
func ask(t *testing.T, event string, args ...string) (*Answer, error) {
	t.Helper()
	var r Request
	fs := flag.NewFlagSet("account", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	r.DefineFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%s %v: %v", event, args, err)
	}
	r.MarkGiven(fs)
	return r.Answer(event)
}

// scratchZCDPForm is the command-line form a file declaring scratchZCDP
// (kinds_test.go) would register: "zcdp --rho R", its own parameter.
// The root package's TestAccountNewKindByOneFile builds dplab with the two
// as one more file of this package.
func scratchZCDPForm() form {
	return form{
		name: "zcdp", rank: 10, required: []string{"rho"}, // ρ is no noise: nothing to calibrate
		params: []param{{"rho", 0.0, "zCDP ρ (zcdp)"}},
		usage:  "  zcdp     --rho R                            a release of RDP ρα at every order\n",
		build: func(r *Request, c calibration) (Event, error) {
			return scratchZCDP{Rho: c.pick(r.float("rho"))}, nil
		},
	}
}

// TestQueryNewKindNeedsNoCommandEdit: a kind registered with a form in its
// own file (here: in this test) is an EVENT of "dplab account" with its own
// flag, listed and documented in the command's help, answered (and refused
// by an accountant that cannot evaluate it, or a calibration it has no
// noise for), through the API the command calls and nothing else (the
// command holds no event names: TestAccountCommandHoldsNoEventKinds;
// TestAccountNewKindByOneFile builds dplab with the kind and runs it).
func TestQueryNewKindNeedsNoCommandEdit(t *testing.T) {
	const name = "zcdp"
	registerLeaf(scratchZCDP{Rho: 0.5})
	registerForm("scratch_zcdp", scratchZCDPForm())
	t.Cleanup(func() { delete(eventKinds, "scratch_zcdp") })

	if !slices.Contains(EventNames(), name) || !strings.Contains(QueryHelp(), "zcdp     --rho R") {
		t.Errorf("the new form is not listed (%v) or not in the help", EventNames())
	}
	ans, err := ask(t, name, "--rho", "0.125", "--steps", "10", "--delta", "1e-5")
	if err != nil {
		t.Fatal(err)
	}
	// Oracle: the Gaussian of noise multiplier 1/√(2ρ) = 2, composed 10
	// times (the same RDP curve, to the bit: α/8 both).
	want, err := Config{}.Epsilon(SelfComposed{Event: Gaussian{Sigma: 2, Sensitivity: 1}, Count: 10}, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	if got := float64(*ans.Results[0].Epsilon); got != want.Epsilon {
		t.Errorf("ε = %v, want %v (the Gaussian of σ = 2)", got, want.Epsilon)
	}
	if got, _ := json.Marshal(ans.Results[0].Event); string(got) != `{"kind":"self_composed","event":{"kind":"scratch_zcdp","rho":0.125},"count":10}` {
		t.Errorf("event %s", got)
	}
	if _, err := ask(t, name, "--rho", "1", "--delta", "1e-5", "--accountant", "exact"); err == nil || !strings.Contains(err.Error(), "scratch_zcdp") {
		t.Errorf("the exact accountant: err %v, want one naming the kind it cannot evaluate", err)
	}
	if _, err := ask(t, name, "--calibrate", "sigma", "--epsilon", "1", "--delta", "1e-5"); err == nil ||
		err.Error() != "--calibrate does not apply to event zcdp (it has no noise flag)" {
		t.Errorf("--calibrate: err %v", err)
	}
	if _, err := ask(t, name, "--rho", "1", "--lambda", "1", "--delta", "1e-5"); err == nil ||
		err.Error() != "flag --lambda does not apply to event zcdp" {
		t.Errorf("another form's flag: err %v", err)
	}
}

// TestQueryForms: every parameter is defined once; every form's parameters
// are defined, its calibrated one is among its required ones, and its help
// block starts with its name.
func TestQueryForms(t *testing.T) {
	params := map[string]bool{}
	for _, p := range queryParams() {
		if params[p.name] {
			t.Errorf("parameter --%s defined twice", p.name)
		}
		params[p.name] = true
	}
	for _, k := range kinds() {
		f := k.form
		if f == nil {
			continue
		}
		if !strings.HasPrefix(strings.TrimSpace(f.usage), f.name+" ") {
			t.Errorf("form %s: help %q does not start with its name", f.name, f.usage)
		}
		for _, n := range append(append([]string(nil), f.required...), f.optional...) {
			if !params[n] {
				t.Errorf("form %s: parameter --%s is not defined", f.name, n)
			}
		}
		if f.calibrated != "" && !slices.Contains(f.required, f.calibrated) {
			t.Errorf("form %s: calibrated --%s is not among its required parameters", f.name, f.calibrated)
		}
	}
}

// TestQueryAnswersAsBefore pins answers of the API to numbers computed
// directly with the accountants (and, through the golden text files under
// testdata/cli/account, to the command's output before the move).
func TestQueryAnswersAsBefore(t *testing.T) {
	cases := []struct {
		event string
		args  []string
		want  Event
	}{
		{"gaussian", []string{"--sigma", "2", "--steps", "10"}, SelfComposed{Event: Gaussian{Sigma: 2, Sensitivity: 1}, Count: 10}},
		{"sgm", []string{"--n", "60000", "--batch-size", "256", "--epochs", "60", "--sigma", "1.1"},
			SelfComposed{Event: PoissonSampledGaussian{Q: 256.0 / 60000, NoiseMultiplier: 1.1}, Count: 14063}},
		{"objpert", []string{"--sigma", "5", "--lambda", "20", "--beta", "1", "--lipschitz", "1"}, ObjectivePerturbation{Sigma: 5, Lambda: 20, Beta: 1, L: 1}},
		{"json", []string{"--event", `{"kind":"laplace","scale":2,"sensitivity":1}`, "--select", "poisson:3"},
			RepeatAndSelect{Event: Laplace{Scale: 2, Sensitivity: 1}, Distribution: Poisson, Mean: 3}},
	}
	for _, tc := range cases {
		ans, err := ask(t, tc.event, append(tc.args, "--delta", "1e-5")...)
		if err != nil {
			t.Fatalf("%s %v: %v", tc.event, tc.args, err)
		}
		want, err := Config{}.Epsilon(tc.want, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		r := ans.Results[0]
		got, _ := json.Marshal(r.Event)
		wantJSON, _ := json.Marshal(tc.want)
		if !bytes.Equal(got, wantJSON) || float64(*r.Epsilon) != want.Epsilon || float64(*r.Order) != want.Alpha {
			t.Errorf("%s %v: event %s ε = %v at α = %v; want %s ε = %v at α = %v", tc.event, tc.args, got, *r.Epsilon, *r.Order, wantJSON, want.Epsilon, want.Alpha)
		}
	}
}

// TestQueryZeroRequest: a Request whose flags were never defined is an
// error, not a panic.
func TestQueryZeroRequest(t *testing.T) {
	var r Request
	if _, err := r.Answer("gaussian"); err == nil {
		t.Error("Answer without DefineFlags: no error")
	}
}

// TestFloatJSON: infinities are the strings "inf" and "-inf", finite
// numbers encoding/json's.
func TestFloatJSON(t *testing.T) {
	for x, want := range map[float64]string{math.Inf(1): `"inf"`, math.Inf(-1): `"-inf"`, 1e-5: "0.00001", 2.5e21: "2.5e+21"} {
		if b, err := json.Marshal(Float(x)); err != nil || string(b) != want {
			t.Errorf("Float(%v) = %s, %v; want %s", x, b, err, want)
		}
	}
}

// TestPLDGridNoteAtLimit finds the least σ whose Gaussian PLD fits the
// default grid (bisecting on Compose's size check) and checks that
// pldGridNote qualifies a calibration stopped there, and only there.
func TestPLDGridNoteAtLimit(t *testing.T) {
	t.Parallel()
	cfg := Config{Kind: "pld"}
	gaussian := func(s float64) Event { return Gaussian{Sigma: s, Sensitivity: 1} }
	fits := func(s float64) bool {
		acc, err := cfg.New()
		if err != nil {
			t.Fatal(err)
		}
		err = acc.Compose(gaussian(s), 1)
		var se *SizeError
		if err != nil && !errors.As(err, &se) {
			t.Fatal(err)
		}
		return err == nil
	}
	lo, hi := 1e-4, 1.0
	if fits(lo) || !fits(hi) {
		t.Fatalf("the PLD grid holds σ = %g: %v, σ = %g: %v; want false, true", lo, fits(lo), hi, fits(hi))
	}
	for hi-lo > 1e-9*hi {
		if mid := (lo + hi) / 2; fits(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	if note := pldGridNote(cfg, gaussian, hi, 57, 1e6, 0.5, "sigma"); !strings.Contains(note, "grid limit") {
		t.Errorf("σ = %v at the grid's limit, ε below the target: note %q, want a grid-limit note", hi, note)
	}
	if note := pldGridNote(cfg, gaussian, hi*1.01, 57, 1e6, 0.5, "sigma"); note != "" {
		t.Errorf("σ = %v above the grid's limit: note %q, want none", hi*1.01, note)
	}
	if note := pldGridNote(cfg, gaussian, hi, 1e6, 1e6, 0.5, "sigma"); note != "" {
		t.Errorf("ε at the target: note %q, want none", note)
	}
}
