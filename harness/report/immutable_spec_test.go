package report

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
)

// TestLoadPathLeavesSpecUnchanged (issue 36: nothing mutates the spec):
// for every shipped spec (experiments/, audits/, timing/) in full and
// --quick mode, the whole load path (plan.Validate, plan.ApplyQuick,
// report.Check, plan.New with a trial override) leaves the decoded spec
// equal to a second decoding of the same source: defaults, [quick] sizes,
// warnings and index hashes live in the resolved spec the plan step
// returns, never in the decoded one. The resolved spec, in turn, is left
// as resolved by the output blocks' checks and the plan (fails before:
// Validate filled the defaults into the decoded spec and ApplyQuick applied
// the overrides to it, in 53 of the 62 cases). It is also the check that
// every shipped spec (and example spec: validation starts no worker),
// full and --quick, validates (plan.Validate,
// plan.ApplyQuick) and has figures and tables its kinds accept
// (report.Check), read as the CLI reads it (spec.ReadSource).
func TestLoadPathLeavesSpecUnchanged(t *testing.T) {
	var paths []string
	for _, pat := range []string{"experiments/*.toml", "experiments/audits/*.toml", "experiments/timing/*.toml", "examples/*/*.toml"} {
		m, _ := filepath.Glob(filepath.Join("../..", pat))
		paths = append(paths, m...)
	}
	if len(paths) < 30 {
		t.Fatalf("found %d specs, want ≥ 30", len(paths))
	}
	for _, path := range paths {
		src, err := spec.ReadSource(path)
		if err != nil {
			t.Fatal(err)
		}
		// Validation is the same in both modes: each spec is validated twice
		// (the run's and the oracle's); --quick's overrides are applied to
		// each before any check or plan sees either.
		decoded, snapshot := decodeSpec(t, path, src), decodeSpec(t, path, src)
		full, err := plan.Validate(decoded)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		fullAgain, err := plan.Validate(decodeSpec(t, path, src))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(decoded, snapshot) || !reflect.DeepEqual(full, fullAgain) {
			t.Errorf("%s: validation changed the spec it was given", path)
		}
		quick, err := plan.ApplyQuick(full)
		if err != nil {
			t.Errorf("%s (quick true): %v", path, err)
			continue
		}
		if !reflect.DeepEqual(decoded, snapshot) || !reflect.DeepEqual(full, fullAgain) {
			t.Errorf("%s (quick true): the [quick] overrides changed the spec they were given", path)
		}
		quickAgain, err := plan.ApplyQuick(fullAgain)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			quick       bool
			r, resolved *spec.Spec
		}{{false, full, fullAgain}, {true, quick, quickAgain}} {
			if err := Check(c.r); err != nil {
				t.Errorf("%s (quick %v): %v", path, c.quick, err)
				continue
			}
			trials := 2
			if c.r.Audit != nil {
				trials = 1
			}
			if _, err := plan.New(context.Background(), c.r, plan.Options{Trials: trials}); err != nil {
				t.Errorf("%s (quick %v): %v", path, c.quick, err)
				continue
			}
			if !reflect.DeepEqual(decoded, snapshot) || !reflect.DeepEqual(c.r, c.resolved) {
				t.Errorf("%s (quick %v): the output checks or the plan changed the spec", path, c.quick)
			}
		}
	}
}

// decodeSpec decodes spec source src strictly.
func decodeSpec(t *testing.T, path string, src []byte) *spec.Spec {
	t.Helper()
	s, err := spec.Decode(path, src, spec.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
