package run

import (
	"math"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/mechanisms"
	"gonum.org/v1/gonum/mat"
)

// TestMetricsDefinedOnce: the metrics a spec may name (plan.Metrics, with
// their direction) and the evaluators the runner has (metricEval) are the
// same set, so adding a metric to one place without the other fails here,
// not at run time.
func TestMetricsDefinedOnce(t *testing.T) {
	for _, m := range plan.Metrics {
		if metricEval[m.Name] == nil {
			t.Errorf("metric %q is in plan.Metrics but has no evaluator in metricEval", m.Name)
		}
	}
	for name := range metricEval {
		if _, ok := plan.LookupMetric(name); !ok {
			t.Errorf("metricEval[%q] is not in plan.Metrics", name)
		}
	}
}

// TestMetricValues checks each evaluator on a 4-row example worked by hand,
// and that the direction plan.Metrics declares is the one the values move
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
	for _, m := range plan.Metrics {
		if m.Name == "excess_empirical_risk" {
			continue // TestExcessEmpiricalRisk: the better model there is x ↦ 0
		}
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

// TestMetricsOfUnscorableRowsAreNaN: a model whose score of a row is NaN
// (a Predictions model asked about a row it was not given, a diverged θ)
// has NaN metrics, accuracy and test_error included: before, accuracy took
// NaN > 0 as false, a prediction of label 0, and scored the share of 0s.
func TestMetricsOfUnscorableRowsAreNaN(t *testing.T) {
	x := mat.NewDense(4, 1, []float64{1, 2, -1, -2})
	bin := &datasets.Dataset{X: x, Y: []float64{0, 0, 0, 1}, Task: datasets.Binary}
	nan := &mechanisms.Linear{Theta: []float64{math.NaN()}}
	for _, m := range plan.Metrics {
		if got := metricEval[m.Name](nan, bin); !math.IsNaN(got) {
			t.Errorf("%s of a model scoring NaN = %v, want NaN", m.Name, got)
		}
	}
}

// TestExcessEmpiricalRisk: on the 4-row binary example, the metric is the
// mean logistic loss minus its minimum over |θ| ≤ 1, the minimum found here
// independently by a ternary search on the convex 1-D loss; x ↦ 0 (loss
// log 2) is better than x ↦ x (0.7201) on these labels, and the metric says
// so (lower is better, plan.Metrics' direction).
func TestExcessEmpiricalRisk(t *testing.T) {
	x := mat.NewDense(4, 1, []float64{1, 2, -1, -2})
	bin := &datasets.Dataset{X: x, Y: []float64{1, 1, 0, 1}, Task: datasets.Binary}
	loss := func(th float64) float64 {
		s := 0.0
		for i, xi := range []float64{1, 2, -1, -2} {
			u := th * xi
			s += math.Log1p(math.Exp(u)) - bin.Y[i]*u
		}
		return s / 4
	}
	lo, hi := -1.0, 1.0
	for i := 0; i < 200; i++ {
		a, b := lo+(hi-lo)/3, hi-(hi-lo)/3
		if loss(a) < loss(b) {
			hi = b
		} else {
			lo = a
		}
	}
	opt := loss((lo + hi) / 2)
	good := metricEval["excess_empirical_risk"](&mechanisms.Linear{Theta: []float64{0}}, bin)
	bad := metricEval["excess_empirical_risk"](&mechanisms.Linear{Theta: []float64{1}}, bin)
	if math.Abs(good-(math.Ln2-opt)) > 1e-9 || math.Abs(bad-(loss(1)-opt)) > 1e-9 {
		t.Errorf("excess risk %v (x ↦ 0), %v (x ↦ x); want %v, %v", good, bad, math.Ln2-opt, loss(1)-opt)
	}
	if m, _ := plan.LookupMetric("excess_empirical_risk"); m.Higher || !(good < bad) || !(good > 0) {
		t.Errorf("direction: Higher = %v, values %v < %v expected, both > 0", m.Higher, good, bad)
	}
}
