package mechanisms

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/datasets/preprocess"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
	"gonum.org/v1/gonum/mat"
)

// Preprocessed is a mechanism behind non-private, data-dependent
// pre-processing ([HSS24]): its Fit
//
//  1. clips the training rows to the unit ball (preprocess.ClipRows:
//     data-independent; the steps' bounds assume the unit ball);
//  2. fits the steps on the clipped rows, non-privately (memoised on the
//     training set: fitting is deterministic);
//  3. checks the declared collection 𝓛 on them (Fitted.Check): a violation
//     fails the fit, or with ViolationGroup voids the sensitivities (group
//     privacy over all n rows);
//  4. fits the inner mechanism on the pre-processed rows (n fixed:
//     deduplication's removed rows are zero rows) with Budget.Wrap =
//     b.Wrap ∘ pipeline, so a calibrating mechanism meets its target with
//     the pre-processing's cost included, and private tuning's
//     repeat-and-select (b.Wrap) wraps one pre-processed run;
//  5. returns the inner release with Event the inner event charged behind
//     the pipeline (Charge: accounting.Preprocessed) and Model the released
//     predictor x ↦ model(π_S(clip(x))) (*PreprocessedModel).
type Preprocessed struct {
	// Inner is the mechanism that fits the pre-processed rows.
	Inner Mechanism
	// Steps is the one step, or the preprocess.Chain of several.
	Steps preprocess.Preprocessor
	// Text names the steps for errors ("impute-mean→pca-rank[k=5]").
	Text string
	// Collection is the declared collection 𝓛; N = 0 means the training
	// size.
	Collection preprocess.Collection
	// Mode selects the steps' sensitivities (safe or paper).
	Mode preprocess.Mode
	// Violation is what a fit on data outside Collection does.
	Violation Violation
	// ViolationNote is appended to a violation's error (ViolationFail).
	ViolationNote string
	// Charge returns the event charged for one run whose own event is e,
	// and why only group privacy applies to it ("" when [HSS24] Theorem 2
	// is considered). Nil charges nothing: a non-private inner mechanism,
	// whose NonPrivate ledger gives no guarantee either way.
	Charge func(e accounting.Event, c PipelineCharge) (accounting.Preprocessed, string)
}

// Violation is what a Preprocessed fit does when the training rows violate
// the declared collection.
type Violation int

// The violation policies.
const (
	ViolationFail   Violation = iota // the fit fails, naming the parameters
	ViolationGroup                   // group privacy over all n rows (PipelineCharge.Void)
	ViolationIgnore                  // the declared sensitivities charged whatever the data: a broken pipeline, for tests only
)

// PipelineCharge is how one run is charged behind the pre-processing: the
// sensitivities over the declared collection at the training size, or, when
// the data violate the collection and the pipeline falls back, group
// privacy over all rows.
type PipelineCharge struct {
	Sens preprocess.Sensitivity
	N    int   // training rows
	Void error // the violation that voids Sens; nil when the collection holds
}

// PreprocessedModel is the predictor a Preprocessed fit releases:
// x ↦ Model(π_S(clip(x))), with what the fit charged.
type PreprocessedModel struct {
	Model  Model             // the inner mechanism's model, on pre-processed rows
	Fitted preprocess.Fitted // π_S, fitted on the clipped training rows
	Charge PipelineCharge
	// Group says why only group privacy applies to the charged event; ""
	// when Theorem 2 is considered (or nothing is charged).
	Group string
}

// Predict implements Model: the inner model on the row clipped and mapped
// as held-out rows are. Scoring many rows, Map the part once instead.
func (m *PreprocessedModel) Predict(x []float64) float64 {
	y, err := m.Fitted.Transform(preprocess.ClipRows(mat.NewDense(1, len(x), append([]float64(nil), x...))))
	if err != nil {
		return math.NaN()
	}
	return m.Model.Predict(y.RawRowView(0))
}

// With returns m with inner model inner (e.g. a data-independent default
// released in place of a fit), the same steps and charge.
func (m *PreprocessedModel) With(inner Model) *PreprocessedModel {
	c := *m
	c.Model = inner
	return &c
}

// Map returns the rows of d clipped and mapped by the fitted steps, as
// held-out rows are (memoised on d): what Model scores. Features are kept
// when the steps keep the columns.
func (m *PreprocessedModel) Map(d *datasets.Dataset) (*datasets.Dataset, error) {
	type mapped struct {
		f preprocess.Fitted // held, so the key's address is not reused
		d *datasets.Dataset
	}
	v, err := d.Memo(fmt.Sprintf("preprocess-map|%p", m.Fitted), func() (any, error) {
		x, err := m.Fitted.Transform(preprocess.ClipRows(d.X))
		if err != nil {
			return nil, err
		}
		out := &datasets.Dataset{Name: d.Name, Task: d.Task, X: x, Y: d.Y}
		if _, c := x.Dims(); c == d.Cols() {
			out.Features = d.Features
		}
		return mapped{m.Fitted, out}, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(mapped).d, nil
}

// prepared is a training set after the steps: the fitted steps and π_S(S).
type prepared struct {
	fitted preprocess.Fitted
	train  *datasets.Dataset
}

// prepare clips train, fits the steps on it and maps it (memoised on train).
func (w *Preprocessed) prepare(train *datasets.Dataset) (*prepared, error) {
	v, err := train.Memo("preprocess-fit|"+w.Steps.String(), func() (any, error) {
		clipped := &datasets.Dataset{Name: train.Name, Task: train.Task, X: preprocess.ClipRows(train.X), Y: train.Y, Features: train.Features}
		f, err := w.Steps.Fit(clipped.X)
		if err != nil {
			return nil, err
		}
		out, err := f.Output().Dataset(clipped, false)
		if err != nil {
			return nil, err
		}
		return &prepared{fitted: f, train: out}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("pre-processing %s: %w", w.Text, err)
	}
	return v.(*prepared), nil
}

// Sensitivity returns the steps' (Δ∞, Δ₂) over the declared collection for
// a training set of n rows (the collection's n when declared).
func (w *Preprocessed) Sensitivity(n int) (preprocess.Sensitivity, error) {
	c := w.Collection
	if c.N == 0 {
		c.N = n
	}
	return w.Steps.Sensitivity(c, w.Mode)
}

// wrap returns the Budget.Wrap of one run charged as c, outside b's own
// (tuning ∘ pipeline).
func (w *Preprocessed) wrap(b Budget, c PipelineCharge) Budget {
	if w.Charge == nil {
		return b
	}
	outer := b.Wrap
	b.Wrap = func(e accounting.Event) accounting.Event {
		ev, _ := w.Charge(e, c)
		if outer == nil {
			return ev
		}
		return outer(ev)
	}
	return b
}

// Fit implements Mechanism.
func (w *Preprocessed) Fit(ctx context.Context, train *datasets.Dataset, b Budget, rs rngs.Streams) (*Release, error) {
	p, err := w.prepare(train)
	if err != nil {
		return nil, err
	}
	c := PipelineCharge{N: p.train.Rows()}
	if err := p.fitted.Check(w.Collection); err != nil {
		var v *preprocess.ViolationError
		switch {
		case !errors.As(err, &v):
			return nil, err
		case w.Violation == ViolationIgnore:
		case w.Violation == ViolationGroup:
			c.Void = err
		case w.ViolationNote != "":
			return nil, fmt.Errorf("%w (%s)", err, w.ViolationNote)
		default:
			return nil, err
		}
	}
	if c.Sens, err = w.Sensitivity(c.N); err != nil {
		return nil, fmt.Errorf("pre-processing %s at n = %d: %w", w.Text, c.N, err)
	}
	rel, err := w.Inner.Fit(ctx, p.train, w.wrap(b, c), rs)
	if err != nil {
		return nil, err
	}
	out := *rel
	model := &PreprocessedModel{Model: rel.Model, Fitted: p.fitted, Charge: c}
	if w.Charge != nil && rel.Event != nil {
		out.Event, model.Group = w.Charge(rel.Event, c)
	}
	out.Model = model
	return &out, nil
}

// ShapeRows is the training size the declared shapes charge the steps at
// when the collection does not declare n (the data are not seen yet).
const ShapeRows = 1000

// EventShapes implements EventShaper: the inner mechanism's shapes charged
// behind the pipeline at a representative training size.
func (w *Preprocessed) EventShapes(b Budget) ([]accounting.Event, error) {
	sens, err := w.Sensitivity(ShapeRows)
	if err != nil {
		return nil, fmt.Errorf("pre-processing %s: %w", w.Text, err)
	}
	c := PipelineCharge{Sens: sens, N: ShapeRows}
	shapes, err := w.Inner.EventShapes(w.wrap(b, c))
	if err != nil || w.Charge == nil {
		return shapes, err
	}
	out := make([]accounting.Event, len(shapes))
	for i, s := range shapes {
		out[i], _ = w.Charge(s, c)
	}
	return out, nil
}
