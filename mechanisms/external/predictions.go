package external

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/npy"
	"github.com/dplab/dplab/mechanisms"
)

// Output "predictions" (docs/external.md, protocol version 2): the request
// names a features-only evaluation file, the rows the trial scores
// (mechanisms.EvalRows: test, validation, training, in that order, each
// part present only when a metric or the tuning selection reads it), and
// the worker answers with the path of a .npy file of one prediction per
// row: the predicted value for a regression task, the probability of label
// 1 for a binary one. dplab scores the predictions as it scores a model
// (mechanisms.Predictions).

// evalFiles names a fit's evaluation rows and where to put its predictions.
type evalFiles struct {
	X    string `json:"x"`   // n × d features, .npy
	Rows int    `json:"n"`   // rows
	Cols int    `json:"d"`   // features
	Out  string `json:"out"` // a path the worker may write its predictions to
}

// maxHeaderSlack bounds the bytes of a predictions file beyond its values.
const maxHeaderSlack = 1 << 20

// evalData writes the rows of eval (the parts of train's split a trial
// scores) as one features-only .npy file into the pool's data directory,
// once per split and set of parts (stageOnce on train, named by the
// content's SHA-256), and returns it with the path request id's
// predictions may be written to.
func (p *pool) evalData(train *datasets.Dataset, eval mechanisms.EvalRows, id int64) (*evalFiles, error) {
	dir, err := p.dataDir()
	if err != nil {
		return nil, err
	}
	parts := eval.Parts()
	f := &evalFiles{Cols: train.Cols(), Out: filepath.Join(dir, fmt.Sprintf("predictions-%d.npy", id))}
	for _, q := range parts {
		f.Rows += q.Rows()
	}
	// The parts' rows, one part after the other (views, not copies).
	f.X, err = p.stageOnce(train, "external/eval-npy/"+eval.Roles(), "eval-", func(w io.Writer) error {
		rows := make([][]float64, 0, f.Rows)
		for _, q := range parts {
			for r := range q.Rows() {
				rows = append(rows, q.X.RawRowView(r))
			}
		}
		return npy.WriteRows(w, []int{f.Rows, f.Cols}, f.Rows, func(i int) []float64 { return rows[i] })
	})
	return f, err
}

// predictions returns the model of a reply of output "predictions" to req:
// the file it names, read strictly (float64, one finite value per
// evaluation row, probabilities in [0, 1] for a binary task), and removed
// when it is the request's out path.
func (m *Mechanism) predictions(rep *reply, req request, eval mechanisms.EvalRows) (*mechanisms.Predictions, error) {
	n := req.Eval.Rows
	if len(rep.Predictions) == 0 {
		if rep.Model != nil {
			return nil, fmt.Errorf(`output "predictions": the reply holds a model, not "predictions", the path of a .npy file of the %d predictions (docs/external.md)`, n)
		}
		return nil, fmt.Errorf(`output "predictions": the reply holds no "predictions", the path of a .npy file of the %d predictions`, n)
	}
	var path string
	if err := json.Unmarshal(rep.Predictions, &path); err != nil || path == "" {
		return nil, fmt.Errorf(`"predictions" must be the path of a .npy file (a JSON string), got %s`, clip(rep.Predictions))
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(m.cfg.Dir, path)
	}
	vals, err := readPredictions(path, n)
	if err != nil {
		return nil, fmt.Errorf("the predictions of request %d, file %s: %w", req.ID, path, err)
	}
	if req.Task == datasets.Binary.String() {
		for i, v := range vals {
			if !(v >= 0 && v <= 1) {
				return nil, fmt.Errorf("the predictions of request %d, file %s: prediction %d is %v: a binary task's predictions are probabilities of label 1, in [0, 1]", req.ID, path, i, v)
			}
			vals[i] = v - 0.5 // a score: label 1 when positive (mechanisms.Model)
		}
	}
	return mechanisms.NewPredictions(eval.Parts(), vals)
}

// readPredictions reads the n predictions of a .npy file: float64, shape
// (n,), finite.
func readPredictions(path string, n int) ([]float64, error) {
	// A regular file only: opening a FIFO (or a device) the worker named
	// would block the trial beyond its timeout, deaf to Ctrl-C.
	if st, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errors.New("no such file")
		}
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%v)", st.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > int64(8*n+maxHeaderSlack) {
		return nil, fmt.Errorf("%d bytes, more than %d predictions take", st.Size(), n)
	}
	shape, vals, err := npy.Read(f)
	if err != nil {
		return nil, err
	}
	if len(shape) != 1 || shape[0] != n {
		return nil, fmt.Errorf("shape %v: want (%d,), one prediction per evaluation row", shape, n)
	}
	for i, v := range vals {
		if !finite(v) {
			return nil, fmt.Errorf("prediction %d is %v", i, v)
		}
	}
	return vals, nil
}

// protocol is the protocol version c's hello carries: the one its output
// needs.
func (c Config) protocol() int {
	if c.Predicts() {
		return ProtocolPredictions
	}
	return ProtocolVersion
}

// checkProtocol refuses a worker's hello version v that c's output cannot
// use: below the version c needs, or above the highest dplab speaks.
func (c Config) checkProtocol(v int) error {
	switch {
	case v > ProtocolPredictions || v < ProtocolVersion:
		return fmt.Errorf("the worker speaks protocol %d, dplab %d to %d", v, ProtocolVersion, ProtocolPredictions)
	case v < c.protocol():
		return fmt.Errorf(`the worker speaks protocol %d: output "predictions" needs protocol %d (the evaluation file and the predictions reply, docs/external.md)`, v, c.protocol())
	}
	return nil
}
