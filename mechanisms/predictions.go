package mechanisms

import (
	"context"
	"fmt"
	"math"

	"github.com/dplab/dplab/datasets"
)

// EvalRows are the parts of a trial's split that the runner scores a
// release on: the parts its metrics read and its tuning selection's (nil:
// not scored). A mechanism that releases predictions instead of a model
// (an external worker with output "predictions", docs/external.md) reads
// them from its fit's context and returns a *Predictions covering them.
type EvalRows struct{ Test, Validation, Train *datasets.Dataset }

// Parts returns the parts that are set, in the order test, validation,
// training: the order of the rows of an external worker's evaluation file.
func (e EvalRows) Parts() []*datasets.Dataset {
	var out []*datasets.Dataset
	for _, p := range []*datasets.Dataset{e.Test, e.Validation, e.Train} {
		if p != nil {
			out = append(out, p)
		}
	}
	return out
}

// Roles names the parts that are set (e.g. "test+training"): with the
// training part a fit receives, it identifies the rows of Parts.
func (e EvalRows) Roles() string {
	s := ""
	for i, p := range []*datasets.Dataset{e.Test, e.Validation, e.Train} {
		if p != nil {
			if s != "" {
				s += "+"
			}
			s += [3]string{"test", "validation", "training"}[i]
		}
	}
	return s
}

type evalRowsKey struct{}

// WithEvalRows returns ctx carrying e, the rows a trial will score the
// releases of the fits made with it.
func WithEvalRows(ctx context.Context, e EvalRows) context.Context {
	return context.WithValue(ctx, evalRowsKey{}, e)
}

// EvalRowsFrom returns the rows ctx carries (WithEvalRows), and whether it
// carries any.
func EvalRowsFrom(ctx context.Context) (EvalRows, bool) {
	e, ok := ctx.Value(evalRowsKey{}).(EvalRows)
	return e, ok && len(e.Parts()) > 0
}

// Predictions is a model known only by its predictions on given rows (a
// worker's answer computed from a model dplab never sees). It knows each
// row by its storage, the row view (RawRowView) of the evaluation parts the
// metrics read, not by its feature values: rows with equal features may get
// predictions that differ in the last bits (a worker's BLAS may round a row
// by its place in a batch), and it holds one map entry per row, not a copy
// of it. Predict of any other slice is NaN, and so is a metric over it
// (harness/run's metrics), never a guess.
type Predictions struct {
	byRow map[*float64]float64
}

// NewPredictions returns the model predicting values[i] for the i-th row of
// parts, taken in order; values must hold one finite number per row.
func NewPredictions(parts []*datasets.Dataset, values []float64) (*Predictions, error) {
	n := 0
	for _, p := range parts {
		if p.Rows() > 0 && p.Cols() == 0 {
			return nil, fmt.Errorf("evaluation rows without features")
		}
		n += p.Rows()
	}
	if len(values) != n {
		return nil, fmt.Errorf("%d predictions for %d evaluation rows", len(values), n)
	}
	m := &Predictions{byRow: make(map[*float64]float64, n)}
	i := 0
	for _, p := range parts {
		for r := range p.Rows() {
			v := values[i]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("prediction %d is %v", i, v)
			}
			m.byRow[&p.X.RawRowView(r)[0]] = v
			i++
		}
	}
	return m, nil
}

// Predict implements Model: the prediction given for the evaluation row x
// is a view of, NaN for any other slice.
func (m *Predictions) Predict(x []float64) float64 {
	if len(x) > 0 {
		if v, ok := m.byRow[&x[0]]; ok {
			return v
		}
	}
	return math.NaN()
}
