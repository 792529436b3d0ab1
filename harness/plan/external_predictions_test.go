package plan

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/spec"
)

// predictionsSpec is externalSpec's spec on binary data, with the given
// top-level lines (metrics), block lines and external.output line out.
func predictionsSpec(t *testing.T, top, out, block string) string {
	t.Helper()
	path := externalSpec(t, t.TempDir(), block+"\n[mechanism.external]\ncommand = [\"python3\", \"w.py\"]\nmode = \"declare\"\n"+out+"\n")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(src), `name = "synthetic-linear"`, `name = "synthetic-logistic"`, 1)
	s = strings.Replace(s, "[[dataset]]", top+"\n[[dataset]]", 1)
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPredictionsRefusedWhereThetaIsNeeded: a block of output
// "predictions" is refused at validation, at external.output, naming the
// block and the metric, when the spec's metrics or its tuning's selection
// metric need a linear model's θ (excess_empirical_risk), when it runs
// behind pre-processing and in an audit grid; the same spec with a linear
// output validates. (Fails before: output was an unknown key.)
func TestPredictionsRefusedWhereThetaIsNeeded(t *testing.T) {
	const pred = `output = "predictions"`
	for _, tc := range []struct {
		name, top, out, block, key, want string
	}{
		{"spec metric", `metrics = ["test_accuracy", "excess_empirical_risk"]`, pred, "", "mechanism[0].external.output",
			`mechanism "Mine" answers with predictions (external.output = "predictions"), but metric "excess_empirical_risk" (Excess empirical risk) is computed from a linear model's θ`},
		{"tuning metric", "", pred, "[mechanism.tuning]\nmode = \"oracle\"\nmetric = \"excess_empirical_risk\"\ncandidates = { c = [1, 2] }\n", "mechanism[0].external.output",
			`metric "excess_empirical_risk" (Excess empirical risk) is computed from a linear model's θ: leave it out of tuning.metric`},
		{"preprocess", "", pred, "preprocess = [{ name = \"quantize\", eta = 0.5 }]\n", "mechanism[0].external.output", "cannot run behind preprocess"},
		{"unknown output", "", `output = "probabilities"`, "", "mechanism[0].external.output", `"probabilities": want "linear"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseFile(predictionsSpec(t, tc.top, tc.out, tc.block))
			var se *spec.SpecError
			if !errors.As(err, &se) || se.Key != tc.key || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v (key %q), want one at %s containing %q", err, keyOf(se), tc.key, tc.want)
			}
		})
	}
	if _, err := parseFile(predictionsSpec(t, `metrics = ["test_accuracy", "excess_empirical_risk"]`, `output = "linear"`, "")); err != nil {
		t.Errorf("a linear block scored by excess_empirical_risk: %v", err)
	}
	audit := `name = "a"
seed = 1
delta = 1e-5
epsilon = [1]
[audit]
confidence = 0.95
runs = 100
[[mechanism]]
name = "external"
label = "Mine"
[mechanism.external]
command = ["python3", "w.py"]
mode = "declare"
output = "predictions"
`
	path := filepath.Join(t.TempDir(), "audit.toml")
	os.WriteFile(path, []byte(audit), 0o644)
	if _, err := parseFile(path); err == nil || !strings.Contains(err.Error(), "cannot be audited") {
		t.Errorf("an audit of a predictions block: %v", err)
	}
}

// TestPredictionsOutputKeys: output "predictions" re-keys its cells (the
// metrics come from another computation), and output = "linear" written
// out keeps the keys of a spec that leaves it out.
func TestPredictionsOutputKeys(t *testing.T) {
	key := func(out string) string {
		s, err := parseFile(predictionsSpec(t, "", out, ""))
		if err != nil {
			t.Fatal(err)
		}
		return cellsOf(t, s)[0].Key
	}
	none, linear, pred := key(""), key(`output = "linear"`), key(`output = "predictions"`)
	if none != linear || pred == none {
		t.Errorf("keys: none %s, linear %s, predictions %s", none, linear, pred)
	}
}
