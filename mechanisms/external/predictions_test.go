package external

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/datatest"
	"github.com/dplab/dplab/internal/npy"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms"
)

// pythonNumPy returns python(t) if it imports numpy (the predictions
// workers save .npy files with it), or skips.
func pythonNumPy(t testing.TB) string {
	t.Helper()
	py := python(t)
	if exec.Command(py, "-c", "import numpy").Run() != nil {
		t.Skip(py + " does not import numpy (apt-get install python3-numpy): the predictions tests run testdata/predict.py")
	}
	return py
}

// predictConfig is a worker of output "predictions" running
// testdata/predict.py.
func predictConfig(t testing.TB) Config {
	c := behaveConfig(t, ModeDeclare)
	c.Command = []string{pythonNumPy(t), "predict.py"}
	c.Output = OutputPredictions
	return c
}

// TestPredictionsReply fits testdata/predict.py, which answers with
// predictions h(x) on the evaluation rows (test rows, then training rows),
// for both tasks: the released model predicts, on every one of those rows,
// what the worker computed (x0² for regression; for a binary task its
// probability σ(5(x0·x1 − 0.1)) minus ½, a score positive for label 1),
// NaN on any other row; the evaluation file holds those rows in that order
// and is written once per split; the predictions file in dplab's directory
// is removed once read. (Fails before: output "predictions" did not exist.)
func TestPredictionsReply(t *testing.T) {
	c := predictConfig(t)
	defer closePool(c)
	for _, task := range []datasets.Task{datasets.Regression, datasets.Binary} {
		train, test := datatest.Tiny(t, task, 60, 3), datatest.Tiny(t, task, 25, 3)
		ctx := mechanisms.WithEvalRows(context.Background(), mechanisms.EvalRows{Test: test, Train: train})
		m := build(t, c, map[string]any{})
		rel, err := m.Fit(ctx, train, budget(), rngs.New(rngs.Derive("pred", task.String())))
		if err != nil {
			t.Fatalf("%s: %v", task, err)
		}
		want := func(x []float64) float64 {
			if task == datasets.Regression {
				return x[0] * x[0]
			}
			return 1/(1+math.Exp(-5*(x[0]*x[1]-0.1))) - 0.5
		}
		for _, part := range []*datasets.Dataset{test, train} {
			for i := range part.Rows() {
				x := part.X.RawRowView(i)
				if got := rel.Model.Predict(x); math.Abs(got-want(x)) > 1e-12 {
					t.Fatalf("%s: row %d predicts %v, the worker %v", task, i, got, want(x))
				}
			}
		}
		if v := rel.Model.Predict([]float64{9, 9, 9}); !math.IsNaN(v) {
			t.Errorf("%s: a row outside the evaluation rows predicts %v, want NaN", task, v)
		}
		if rel.Event == nil || !rel.Calibrated {
			t.Errorf("%s: release %+v, want the declared event, checked against the target", task, rel)
		}
		p := poolFor(c)
		staged, _ := train.Memo("external/eval-npy/test+training", nil)
		evalFile := filepath.Join(p.dir, staged.(*stagedFile).name)
		evals, _ := filepath.Glob(filepath.Join(p.dir, "eval-*.npy"))
		outs, _ := filepath.Glob(filepath.Join(p.dir, "predictions-*"))
		if len(outs) != 0 {
			t.Errorf("%s: predictions files left: %v", task, outs)
		}
		f, err := os.Open(evalFile)
		if err != nil {
			t.Fatal(err)
		}
		shape, rows, err := npy.Read(f)
		f.Close()
		if err != nil || shape[0] != 85 || shape[1] != 3 || rows[0] != test.X.At(0, 0) || rows[3*25] != train.X.At(0, 0) {
			t.Errorf("%s: evaluation file shape %v (%v), want the 25 test rows then the 60 training rows", task, shape, err)
		}
		st1, _ := os.Stat(evalFile)
		if _, err := m.Fit(ctx, train, budget(), rngs.New(rngs.Derive("pred2", task.String()))); err != nil {
			t.Fatal(err)
		}
		st2, _ := os.Stat(evalFile)
		if again, _ := filepath.Glob(filepath.Join(p.dir, "eval-*.npy")); len(again) != len(evals) || !st1.ModTime().Equal(st2.ModTime()) || !os.SameFile(st1, st2) {
			t.Errorf("%s: the second fit of the split rewrote its evaluation file: %v", task, again)
		}
	}
}

// TestMalformedPredictions: each malformed predictions reply fails its
// trial with an error naming the worker, the request and what is wrong
// (a FIFO named as the file too, which would block a read: before, the
// trial hung), the next trial succeeds on a new worker, and no failed fit
// leaves its predictions file behind (before, an error reply after the
// worker wrote it left it until the run's end). (A binary task: the
// regression one differs only in not requiring probabilities; long mode
// runs it too.)
func TestMalformedPredictions(t *testing.T) {
	c := predictConfig(t)
	defer closePool(c)
	tasks := []datasets.Task{datasets.Binary, datasets.Regression}
	if testing.Short() {
		tasks = tasks[:1] // each case restarts a NumPy worker
	}
	for _, task := range tasks {
		train, test := datatest.Tiny(t, task, 40, 2), datatest.Tiny(t, task, 10, 2)
		ctx := mechanisms.WithEvalRows(context.Background(), mechanisms.EvalRows{Test: test, Train: train})
		fit := func(behave string) (*mechanisms.Release, error) {
			return build(t, c, map[string]any{"behave": behave}).Fit(ctx, train, budget(), rngs.New(rngs.Derive("bad", behave)))
		}
		cases := map[string]string{
			"short":    "shape [49]: want (50,)",
			"long2d":   "shape [50 1]: want (50,)",
			"nan":      "prediction 25 is NaN",
			"float32":  `dtype "<f4": want '<f8'`,
			"missing":  "nowhere.npy: no such file",
			"fifo":     "not a regular file",
			"errwrote": "an error after writing the predictions",
			"model":    `output "predictions": the reply holds a model`,
		}
		if task == datasets.Binary {
			cases["prob"] = "prediction 0 is 1.5: a binary task's predictions are probabilities of label 1, in [0, 1]"
		}
		for behave, want := range cases {
			_, err := fit(behave)
			names := behave == "errwrote" || err != nil && strings.Contains(err.Error(), "external worker") && strings.Contains(err.Error(), "predict.py") // an error reply is the worker's own words
			if err == nil || !strings.Contains(err.Error(), want) || !names {
				t.Errorf("%s %s: error %v, want one naming the worker and containing %q", task, behave, err, want)
			} else if behave != "model" && behave != "errwrote" && !strings.Contains(err.Error(), "the predictions of request ") {
				t.Errorf("%s %s: error %v names no request", task, behave, err)
			}
			if left, _ := filepath.Glob(filepath.Join(poolFor(c).dir, "predictions-*")); len(left) > 0 {
				t.Errorf("%s %s: the failed fit left %v in the staging directory", task, behave, left)
			}
			if _, err := fit("ok"); err != nil {
				t.Fatalf("%s: ok after %s: %v", task, behave, err)
			}
		}
	}
}

// TestPredictionsProtocol: a worker answering the hello with protocol 1
// (testdata/behave.py) serves a linear block but is refused for output
// "predictions" with the version it needs; a fit of output "predictions"
// given no evaluation rows fails with a clear error; an unknown output is
// refused by name.
func TestPredictionsProtocol(t *testing.T) {
	c := behaveConfig(t, ModeDeclare)
	c.Output = OutputPredictions
	defer closePool(c)
	train := datatest.Tiny(t, datasets.Regression, 30, 2)
	ctx := mechanisms.WithEvalRows(context.Background(), mechanisms.EvalRows{Train: train})
	_, err := build(t, c, map[string]any{}).Fit(ctx, train, budget(), rngs.New(rngs.Derive("v1")))
	if err == nil || !strings.Contains(err.Error(), `the worker speaks protocol 1: output "predictions" needs protocol 2`) {
		t.Errorf("a protocol-1 worker for predictions: %v", err)
	}
	_, err = build(t, c, map[string]any{}).Fit(context.Background(), train, budget(), rngs.New(rngs.Derive("v1")))
	if err == nil || !strings.Contains(err.Error(), "needs the rows the trial scores") {
		t.Errorf("no evaluation rows: %v", err)
	}
	c.Output = "probabilities"
	if err := c.Check(); err == nil || !strings.HasPrefix(err.Error(), `output: "probabilities"`) {
		t.Errorf("unknown output: %v", err)
	}
}
