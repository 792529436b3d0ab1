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
// each row of its parts (taken in order), known by the row's storage: rows
// with equal features keep their own values (before, a last-bit difference
// between two such rows failed the trial), and a copy of a row's features,
// or any other slice, is NaN; a value count that is not the row count and a
// non-finite value are errors.
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
	vals := []float64{10, 20, 30, 10 + 1e-15, 40} // rows 0 and 3: equal features
	m, err := NewPredictions([]*datasets.Dataset{test, train}, vals)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for _, p := range []*datasets.Dataset{test, train} {
		for r := range p.Rows() {
			if got := m.Predict(p.X.RawRowView(r)); got != vals[i] {
				t.Errorf("row %d: Predict = %v, want %v", i, got, vals[i])
			}
			i++
		}
	}
	for _, x := range [][]float64{{1, 2}, {1, 3}, nil} {
		if got := m.Predict(x); !math.IsNaN(got) {
			t.Errorf("Predict(%v), a slice that is no evaluation row: %v, want NaN", x, got)
		}
	}
	for _, c := range []struct {
		vals []float64
		want string
	}{
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
