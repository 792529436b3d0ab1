package spec

import "github.com/dplab/dplab/datasets"

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
}

// Metrics is the list of known metrics; the first of a task is its default
// selection metric. experiments/run computes each by name.
var Metrics = []Metric{
	{Name: "test_mse", Title: "Test MSE", Task: datasets.Regression, On: "test"},
	{Name: "train_mse", Title: "Train MSE", Task: datasets.Regression, On: "train"},
	{Name: "test_accuracy", Title: "Test accuracy", Task: datasets.Binary, Higher: true, On: "test"},
	{Name: "test_error", Title: "Test error rate", Task: datasets.Binary, On: "test"},
	{Name: "train_accuracy", Title: "Train accuracy", Task: datasets.Binary, Higher: true, On: "train"},
}

// LookupMetric returns the metric called name.
func LookupMetric(name string) (Metric, bool) {
	for _, m := range Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// DefaultMetrics returns the names of the metrics of task t.
func DefaultMetrics(t datasets.Task) []string {
	var out []string
	for _, m := range Metrics {
		if m.Task == t {
			out = append(out, m.Name)
		}
	}
	return out
}
