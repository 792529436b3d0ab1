package run

import (
	"math"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/mechanisms"
)

// metricEval computes each metric of spec.Metrics on a fitted model.
var metricEval = map[string]func(m mechanisms.Model, d *datasets.Dataset) float64{
	"test_mse":       mse,
	"train_mse":      mse,
	"test_accuracy":  accuracy,
	"test_error":     func(m mechanisms.Model, d *datasets.Dataset) float64 { return 1 - accuracy(m, d) },
	"train_accuracy": accuracy,
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
