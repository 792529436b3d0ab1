package report

import (
	"context"
	"os"
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
// the overrides to it, in 53 of the 62 cases).
func TestLoadPathLeavesSpecUnchanged(t *testing.T) {
	var paths []string
	for _, pat := range []string{"*.toml", "audits/*.toml", "timing/*.toml"} {
		m, _ := filepath.Glob(filepath.Join("../../experiments", pat))
		paths = append(paths, m...)
	}
	if len(paths) < 30 {
		t.Fatalf("found %d specs, want ≥ 30", len(paths))
	}
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, quick := range []bool{false, true} {
			decoded, snapshot := decodeSpec(t, path, src), decodeSpec(t, path, src)
			full, r, err := resolveSpec(decoded, quick)
			if err != nil {
				t.Errorf("%s (quick %v): %v", path, quick, err)
				continue
			}
			fullAgain, resolved, err := resolveSpec(decodeSpec(t, path, src), quick)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(decoded, snapshot) || !reflect.DeepEqual(full, fullAgain) {
				t.Errorf("%s (quick %v): validation or the [quick] overrides changed the spec they were given", path, quick)
			}
			if err := Check(r); err != nil {
				t.Errorf("%s (quick %v): %v", path, quick, err)
				continue
			}
			trials := 2
			if r.Audit != nil {
				trials = 1
			}
			if _, err := plan.New(context.Background(), r, plan.Options{Trials: trials}); err != nil {
				t.Errorf("%s (quick %v): %v", path, quick, err)
				continue
			}
			if !reflect.DeepEqual(decoded, snapshot) || !reflect.DeepEqual(r, resolved) {
				t.Errorf("%s (quick %v): the output checks or the plan changed the spec", path, quick)
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

// resolveSpec validates a decoded spec (full) and, for a --quick run,
// applies its [quick] overrides: r is the resolved spec of the run.
func resolveSpec(s *spec.Spec, quick bool) (full, r *spec.Spec, err error) {
	if full, err = plan.Validate(s); err != nil || !quick {
		return full, full, err
	}
	r, err = plan.ApplyQuick(full)
	return full, r, err
}
