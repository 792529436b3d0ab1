package run

import (
	"context"
	"math"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/solvers"
)

// metricEval computes each metric of plan.Metrics on a fitted model.
var metricEval = map[string]func(m mechanisms.Model, d *datasets.Dataset) float64{
	"test_mse":              mse,
	"train_mse":             mse,
	"test_accuracy":         accuracy,
	"test_error":            func(m mechanisms.Model, d *datasets.Dataset) float64 { return 1 - accuracy(m, d) },
	"train_accuracy":        accuracy,
	"excess_empirical_risk": excessEmpiricalRisk,
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
// else 0) matches; NaN when a score is (a model that cannot score a row, as
// mse is NaN then, not a guess of label 0).
func accuracy(m mechanisms.Model, d *datasets.Dataset) float64 {
	n := d.Rows()
	if n == 0 {
		return math.NaN()
	}
	var correct int
	for i := 0; i < n; i++ {
		u := m.Predict(d.X.RawRowView(i))
		if math.IsNaN(u) {
			return math.NaN()
		}
		pred := 0.0
		if u > 0 {
			pred = 1
		}
		if pred == d.Y[i] {
			correct++
		}
	}
	return float64(correct) / float64(n)
}

// excessRiskRadius is the radius of the ball the excess empirical risk's
// reference minimises over ([HSS24] Prop. 8's proof projects onto the unit
// ball).
const excessRiskRadius = 1.0

// excessEmpiricalRisk is the mean logistic loss (1/n)Σ log(1 + e^{uᵢ}) − yᵢuᵢ
// of the model's scores uᵢ on d, minus min over ‖θ‖ ≤ 1 of the same loss of
// x ↦ θᵀx (solvers.LogisticInBall, computed once per dataset). NaN when the
// reference cannot be computed.
func excessEmpiricalRisk(m mechanisms.Model, d *datasets.Dataset) float64 {
	return excessRisk(m, d, d)
}

// excessRisk is excessEmpiricalRisk with the model's scores on the rows of
// d and the reference minimum over the rows of ref, which hold the same
// examples (labels) in the same order: a pre-processed trial scores its
// predictor x ↦ model(π_S(clip(x))) through d = π_S(clip(ref)) against the
// original training rows ref (preprocessing.md D22). NaN when they differ
// in length or the reference cannot be computed.
func excessRisk(m mechanisms.Model, d, ref *datasets.Dataset) float64 {
	n := d.Rows()
	if n == 0 || ref.Rows() != n {
		return math.NaN()
	}
	var s float64
	for i := 0; i < n; i++ {
		u := m.Predict(d.X.RawRowView(i))
		// log(1 + eᵘ) = max(u, 0) + log1p(e^−|u|): no overflow
		s += math.Max(u, 0) + math.Log1p(math.Exp(-math.Abs(u))) - d.Y[i]*u
	}
	opt, err := ref.Memo("excess-risk-reference", func() (any, error) {
		_, v, err := solvers.LogisticInBall(context.Background(), ref.X, ref.Y, excessRiskRadius)
		return v, err
	})
	if err != nil {
		return math.NaN()
	}
	return s/float64(n) - opt.(float64)
}
