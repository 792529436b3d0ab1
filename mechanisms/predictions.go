package mechanisms

import (
	"context"
	"encoding/binary"
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
// worker's answer computed from a model dplab never sees): Predict looks a
// row up by its features and returns NaN for a row it was not given, so a
// metric of rows outside them is NaN, never a guess.
type Predictions struct {
	byRow map[string]float64
}

// NewPredictions returns the model predicting values[i] for the i-th row of
// parts, taken in order. values must hold one finite number per row, and
// rows with equal features must have equal predictions (a model is a
// function of the features).
func NewPredictions(parts []*datasets.Dataset, values []float64) (*Predictions, error) {
	n := 0
	for _, p := range parts {
		n += p.Rows()
	}
	if len(values) != n {
		return nil, fmt.Errorf("%d predictions for %d evaluation rows", len(values), n)
	}
	m := &Predictions{byRow: make(map[string]float64, n)}
	i := 0
	for _, p := range parts {
		for r := range p.Rows() {
			v := values[i]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("prediction %d is %v", i, v)
			}
			k := rowKey(p.X.RawRowView(r))
			if old, ok := m.byRow[k]; ok && old != v {
				return nil, fmt.Errorf("evaluation rows with the same features have different predictions, %v and %v (row %d): a model's prediction is a function of the features", old, v, i)
			}
			m.byRow[k] = v
			i++
		}
	}
	return m, nil
}

// Predict implements Model: the prediction given for a row with x's
// features, NaN when none was.
func (m *Predictions) Predict(x []float64) float64 {
	if v, ok := m.byRow[string(rowBits(x))]; ok { // no string allocated
		return v
	}
	return math.NaN()
}

// rowKey is x's float64 bits as a string.
func rowKey(x []float64) string { return string(rowBits(x)) }

// rowBits is x's float64 bits, little-endian.
func rowBits(x []float64) []byte {
	b := make([]byte, 8*len(x))
	for j, v := range x {
		binary.LittleEndian.PutUint64(b[8*j:], math.Float64bits(v))
	}
	return b
}
