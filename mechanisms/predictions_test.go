package mechanisms

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/dplab/dplab/datasets"
	"gonum.org/v1/gonum/mat"
)

// TestPredictionsModel: a Predictions model predicts the value given for
// each row of its parts (taken in order), NaN for any other row; rows with
// equal features and different values, a value count that is not the row
// count and a non-finite value are errors.
func TestPredictionsModel(t *testing.T) {
	part := func(rows ...[]float64) *datasets.Dataset {
		x := mat.NewDense(len(rows), len(rows[0]), nil)
		for i, r := range rows {
			x.SetRow(i, r)
		}
		return &datasets.Dataset{X: x, Y: make([]float64, len(rows))}
	}
	test := part([]float64{1, 2}, []float64{3, 4})
	train := part([]float64{5, 6}, []float64{1, 2}, []float64{-0.5, 0})
	m, err := NewPredictions([]*datasets.Dataset{test, train}, []float64{10, 20, 30, 10, 40})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		x    []float64
		want float64
	}{{[]float64{1, 2}, 10}, {[]float64{3, 4}, 20}, {[]float64{5, 6}, 30}, {[]float64{-0.5, 0}, 40}} {
		if got := m.Predict(c.x); got != c.want {
			t.Errorf("Predict(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if got := m.Predict([]float64{1, 3}); !math.IsNaN(got) {
		t.Errorf("a row it was not given: %v, want NaN", got)
	}
	for _, c := range []struct {
		vals []float64
		want string
	}{
		{[]float64{10, 20, 30, 11, 40}, "same features have different predictions, 10 and 11 (row 3)"},
		{[]float64{10, 20, 30, 10}, "4 predictions for 5 evaluation rows"},
		{[]float64{10, 20, math.Inf(1), 10, 40}, "prediction 2 is +Inf"},
	} {
		if _, err := NewPredictions([]*datasets.Dataset{test, train}, c.vals); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.vals, err, c.want)
		}
	}
	e := EvalRows{Test: test, Train: train}
	if e.Roles() != "test+training" || len(e.Parts()) != 2 || e.Parts()[0] != test {
		t.Errorf("roles %q, parts %v", e.Roles(), e.Parts())
	}
	if got, ok := EvalRowsFrom(WithEvalRows(context.Background(), e)); !ok || got != e {
		t.Errorf("EvalRowsFrom: %v, %v", got, ok)
	}
	if _, ok := EvalRowsFrom(context.Background()); ok {
		t.Error("a context without evaluation rows has some")
	}
}
