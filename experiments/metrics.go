package experiments

import (
	"math"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/plotting"
)

// metric is a utility measure computed on a fitted model.
type metric struct {
	Name   string
	Title  string // axis label
	Task   datasets.Task
	Better plotting.Better
	// On says which part of the data it is computed on.
	On   string // "test", "train" or "validation"
	eval func(m mechanisms.Model, d *datasets.Dataset) float64
}

// metrics is the list of known metrics; the first of a task is its default
// selection metric.
var metrics = []metric{
	{Name: "test_mse", Title: "Test MSE", Task: datasets.Regression, Better: plotting.Lower, On: "test", eval: mse},
	{Name: "train_mse", Title: "Train MSE", Task: datasets.Regression, Better: plotting.Lower, On: "train", eval: mse},
	{Name: "test_accuracy", Title: "Test accuracy", Task: datasets.Binary, Better: plotting.Higher, On: "test", eval: accuracy},
	{Name: "test_error", Title: "Test error rate", Task: datasets.Binary, Better: plotting.Lower, On: "test", eval: func(m mechanisms.Model, d *datasets.Dataset) float64 { return 1 - accuracy(m, d) }},
	{Name: "train_accuracy", Title: "Train accuracy", Task: datasets.Binary, Better: plotting.Higher, On: "train", eval: accuracy},
}

func lookupMetric(name string) (metric, bool) {
	for _, m := range metrics {
		if m.Name == name {
			return m, true
		}
	}
	return metric{}, false
}

// defaultMetrics returns the metrics of task t.
func defaultMetrics(t datasets.Task) []string {
	var out []string
	for _, m := range metrics {
		if m.Task == t {
			out = append(out, m.Name)
		}
	}
	return out
}

// mse is the mean squared error (1/n)Σ(yᵢ − f(xᵢ))².
func mse(m mechanisms.Model, d *datasets.Dataset) float64 {
	n := d.Rows()
	if n == 0 {
		return math.NaN()
	}
	var s float64
	for i := 0; i < n; i++ {
		r := d.Y[i] - m.Predict(d.X.RawRowView(i))
		s += r * r
	}
	return s / float64(n)
}

// accuracy is the fraction of examples whose label (1 when the score is > 0,
// else 0) matches.
func accuracy(m mechanisms.Model, d *datasets.Dataset) float64 {
	n := d.Rows()
	if n == 0 {
		return math.NaN()
	}
	var correct int
	for i := 0; i < n; i++ {
		pred := 0.0
		if m.Predict(d.X.RawRowView(i)) > 0 {
			pred = 1
		}
		if pred == d.Y[i] {
			correct++
		}
	}
	return float64(correct) / float64(n)
}
