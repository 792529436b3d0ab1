package plan

import (
	"math"

	"github.com/dplab/dplab/datasets"
)

// Metric is a utility measure of a fitted model: its name in specs and
// records, its axis label, its task, and which way is better (the direction
// lives with the metric: tuning selects by it and tables bold by it).
type Metric struct {
	Name   string
	Title  string // axis label
	Task   datasets.Task
	Higher bool // higher is better (accuracy); false: lower is better (MSE, error)
	// On says which part of the data it is computed on.
	On string // "test", "train" or "validation"
	// OptIn metrics are computed only when a spec lists them (they cost
	// more than a pass over the data); DefaultMetrics leaves them out.
	OptIn bool
	// Linear metrics are computed from a linear model's scores against
	// linear models (they need θ): a mechanism answering with predictions
	// (an external block of output "predictions") cannot be scored by them.
	Linear bool
	// Min and Max are the range of the metric's values (±Inf: unbounded);
	// figures clip their bands to it (a CI of accuracies near 1 would
	// otherwise reach above 1).
	Min, Max float64
}

// Metrics is the list of known metrics; the first of a task is its default
// selection metric. harness/run computes each by name.
var Metrics = []Metric{
	{Name: "test_mse", Title: "Test MSE", Task: datasets.Regression, On: "test", Min: 0, Max: inf},
	{Name: "train_mse", Title: "Train MSE", Task: datasets.Regression, On: "train", Min: 0, Max: inf},
	{Name: "test_accuracy", Title: "Test accuracy", Task: datasets.Binary, Higher: true, On: "test", Min: 0, Max: 1},
	{Name: "test_error", Title: "Test error rate", Task: datasets.Binary, On: "test", Min: 0, Max: 1},
	{Name: "train_accuracy", Title: "Train accuracy", Task: datasets.Binary, Higher: true, On: "train", Min: 0, Max: 1},
	// The mean logistic loss on the training rows minus its minimum over the
	// linear models without intercept in the unit ball ([HSS24] Prop. 8,
	// Figure 3; preprocessing.md §5 D22): ≥ 0 for models of that class
	// (a released model outside the ball can go below, so unbounded).
	{Name: "excess_empirical_risk", Title: "Excess empirical risk", Task: datasets.Binary, On: "train", OptIn: true, Linear: true, Min: -inf, Max: inf},
}

var inf = math.Inf(1)

// LookupMetric returns the metric called name.
func LookupMetric(name string) (Metric, bool) {
	for _, m := range Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// DefaultMetrics returns the names of the metrics of task t that are not
// opt-in.
func DefaultMetrics(t datasets.Task) []string {
	var out []string
	for _, m := range Metrics {
		if m.Task == t && !m.OptIn {
			out = append(out, m.Name)
		}
	}
	return out
}
