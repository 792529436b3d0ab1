package run

import (
	"math"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/experiments/spec"
	"github.com/dplab/dplab/mechanisms"
	"gonum.org/v1/gonum/mat"
)

// TestMetricsDefinedOnce: the metrics a spec may name (spec.Metrics, with
// their direction) and the evaluators the runner has (metricEval) are the
// same set, so adding a metric to one place without the other fails here,
// not at run time.
func TestMetricsDefinedOnce(t *testing.T) {
	for _, m := range spec.Metrics {
		if metricEval[m.Name] == nil {
			t.Errorf("metric %q is in spec.Metrics but has no evaluator in metricEval", m.Name)
		}
	}
	for name := range metricEval {
		if _, ok := spec.LookupMetric(name); !ok {
			t.Errorf("metricEval[%q] is not in spec.Metrics", name)
		}
	}
}

// TestMetricValues checks each evaluator on a 4-row example worked by hand,
// and that the direction spec.Metrics declares is the one the values move
// in as the model improves (a perfect model is best).
func TestMetricValues(t *testing.T) {
	x := mat.NewDense(4, 1, []float64{1, 2, -1, -2})
	reg := &datasets.Dataset{X: x, Y: []float64{1, 2, -1, 0}, Task: datasets.Regression}
	bin := &datasets.Dataset{X: x, Y: []float64{1, 1, 0, 1}, Task: datasets.Binary}
	identity := &mechanisms.Linear{Theta: []float64{1}}
	zero := &mechanisms.Linear{Theta: []float64{0}}
	want := map[string][2]float64{ // metric -> {identity, zero}
		// Residuals of x ↦ x: 0, 0, 0, 2 → 4/4; of x ↦ 0: 1, 2, −1, 0 → 6/4.
		"test_mse": {1, 1.5}, "train_mse": {1, 1.5},
		// Labels of x ↦ x (score > 0 → 1): 1, 1, 0, 0 → 3 of 4 right;
		// x ↦ 0 predicts 0 everywhere → 1 of 4.
		"test_accuracy": {0.75, 0.25}, "train_accuracy": {0.75, 0.25}, "test_error": {0.25, 0.75},
	}
	for _, m := range spec.Metrics {
		d := reg
		if m.Task == datasets.Binary {
			d = bin
		}
		w, ok := want[m.Name]
		if !ok {
			t.Errorf("metric %q has no hand-worked case here", m.Name)
			continue
		}
		good, bad := metricEval[m.Name](identity, d), metricEval[m.Name](zero, d)
		if math.Abs(good-w[0]) > 1e-15 || math.Abs(bad-w[1]) > 1e-15 {
			t.Errorf("%s = %v (x ↦ x), %v (x ↦ 0); want %v, %v", m.Name, good, bad, w[0], w[1])
		}
		if better := good > bad; better != m.Higher {
			t.Errorf("%s: Higher = %v, but the better model scores %v vs %v", m.Name, m.Higher, good, bad)
		}
	}
}
