package plan_test

import (
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
)

// quickSetSpec is onlySpec with a [quick] block that replaces trials, ε
// and one of AdaSSP's params and drops Ridge.
const quickSetSpec = onlySpec + `
[quick]
trials = 2
epsilon = [1]
mechanisms = ["AdaSSP"]
params.AdaSSP = { rho = 1e-3 }
`

// TestQuickRefusesOverriddenSet: under --quick, a --set that [quick]
// replaces or that targets a block [quick] drops would be silently
// ignored; it is an error naming the quick.* key to set instead. A --set
// [quick] leaves alone, or one of quick.* itself, applies.
func TestQuickRefusesOverriddenSet(t *testing.T) {
	for _, c := range []struct {
		set, want string
	}{
		{"trials=50", "--quick replaces trials with quick.trials: set that instead (--set quick.trials=…)"},
		{"epsilon=[1, 4]", "--quick replaces epsilon with quick.epsilon: set that instead (--set quick.epsilon=…)"},
		{`mechanism[label="AdaSSP"].params.rho=1e-2`, `--quick replaces mechanism[0].params.rho with quick.params.AdaSSP.rho: set that instead (--set quick.params.AdaSSP.rho=…)`},
		{`mechanism[label="Ridge"].params.lambda=1`, `--quick drops mechanism "Ridge" (quick.mechanisms): this --set would have no effect`},
	} {
		s, err := plan.ParseWith("q.toml", []byte(quickSetSpec), spec.LoadOptions{Set: []string{c.set}})
		if err != nil {
			t.Fatalf("--set %s: %v", c.set, err)
		}
		if _, err := plan.ApplyQuick(s); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "q.toml") {
			t.Errorf("--quick --set %s: got %v, want %q", c.set, err, c.want)
		}
	}
	for _, set := range []string{"quick.trials=5", "delta=1e-7", `mechanism[label="AdaSSP"].params.calibration="accountant"`} {
		s, err := plan.ParseWith("q.toml", []byte(quickSetSpec), spec.LoadOptions{Set: []string{set}})
		if err != nil {
			t.Fatalf("--set %s: %v", set, err)
		}
		if _, err := plan.ApplyQuick(s); err != nil {
			t.Errorf("--quick --set %s: %v", set, err)
		}
	}
}

// TestQuickRefusesCappedAuditRuns: under --quick, a --set of audit.runs or
// of a mechanism's runs above quick.runs would be capped to quick.runs
// (ApplyQuick) and silently not run; it is an error naming quick.runs. A
// value at or below it applies.
func TestQuickRefusesCappedAuditRuns(t *testing.T) {
	src := `name = "a"
seed = 1
delta = 1e-5
epsilon = [1]
[audit]
runs = 4000
[[mechanism]]
name = "gaussian"
label = "G"
runs = 2000
[quick]
runs = 300
`
	for _, c := range []struct {
		set, want string
		runs      int // the audit's runs under --quick when accepted
	}{
		{"audit.runs=5000", "--quick caps audit.runs at quick.runs = 300: set that instead (--set quick.runs=…)", 0},
		{`mechanism[label="G"].runs=1000`, "--quick caps mechanism[0].runs at quick.runs = 300", 0},
		{"audit.runs=200", "", 200},
		{"quick.runs=500", "", 500},
	} {
		s, err := plan.ParseWith("a.toml", []byte(src), spec.LoadOptions{Set: []string{c.set}})
		if err != nil {
			t.Fatalf("--set %s: %v", c.set, err)
		}
		q, err := plan.ApplyQuick(s)
		if c.want != "" {
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("--quick --set %s: got %v, want %q", c.set, err, c.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("--quick --set %s: %v", c.set, err)
		} else if q.Audit.Runs != c.runs {
			t.Errorf("--quick --set %s: audit runs %d, want %d", c.set, q.Audit.Runs, c.runs)
		}
	}
}
