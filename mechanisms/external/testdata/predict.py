"""A test worker on python/dplab_worker.py for output "predictions" (NumPy).

It predicts h(x) = x0^2 for a regression task and the probability
sigmoid(5 (x0 x1 - 0.1)) of label 1 for a binary one, on the evaluation
rows, whatever the training data; its event is a Gaussian of sigma 50 (in
mode "calibrate": of the noise sent).
params.behave picks what it answers:
  ok       those predictions, saved by the helper
  short    one prediction fewer than the evaluation rows
  long2d   the predictions as an n x 1 array
  nan      a NaN prediction
  float32  the predictions as float32
  missing  the path of a file that does not exist
  fifo     a FIFO at the out path (opening it for reading would block)
  errwrote the predictions saved to the out path, then an error reply
  model    a linear model instead of predictions
  prob     a binary task's probability 1.5
With params.oracle, the diagnostics hold the metrics computed here from
the predictions and the labels y = g(x) the test's data follow
(regression: g(x) = x0^2 + sin(x1); binary: 1 when x0 x1 > 0), over the
evaluation rows taken as test rows then training rows (the request's
train.n of them, which must equal the training file's rows).
Every reply's diagnostics carry the worker's pid.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import dplab_worker  # noqa: E402


def fit(req):
    import numpy as np
    E = req.load_eval()
    assert E.shape == (req.eval["n"], req.eval["d"]), (E.shape, req.eval)
    if req.task == "regression":
        pred = E[:, 0] ** 2
    else:
        pred = 1 / (1 + np.exp(-5 * (E[:, 0] * E[:, 1] - 0.1)))
    event = {"kind": "gaussian", "sigma": 50.0 if req.noise is None else req.noise, "sensitivity": 1}
    diag = {"pid": os.getpid()}
    b = req.params.get("behave", "ok")
    out = req.eval["out"]
    if req.params.get("oracle"):
        X, _ = req.load()
        n_train = req.train["n"]
        n_test = len(E) - n_train
        diag["train_rows_match"] = float(np.array_equal(E[n_test:], X))
        if req.task == "regression":
            y = E[:, 0] ** 2 + np.sin(E[:, 1])
            err = (y - pred) ** 2
            diag["oracle_test_mse"] = float(err[:n_test].mean())
            diag["oracle_train_mse"] = float(err[n_test:].mean())
        else:
            y = (E[:, 0] * E[:, 1] > 0).astype(float)
            hit = ((pred > 0.5).astype(float) == y)
            diag["oracle_test_accuracy"] = float(hit[:n_test].mean())
            diag["oracle_train_accuracy"] = float(hit[n_test:].mean())
    if b == "short":
        pred = pred[:-1]
    elif b == "long2d":
        pred = pred[:, None]
    elif b == "nan":
        pred[len(pred) // 2] = np.nan
    elif b == "float32":
        np.save(out, pred.astype(np.float32))
        return out, event, diag
    elif b == "missing":
        return out + ".nowhere.npy", event, diag
    elif b == "fifo":
        os.mkfifo(out)
        return out, event, diag
    elif b == "errwrote":
        np.save(out, pred)
        raise ValueError("an error after writing the predictions")
    elif b == "model":
        return {"theta": [0.0] * E.shape[1], "intercept": 0.0}, event, diag
    elif b == "prob":
        pred[0] = 1.5
    if pred.ndim == 2:
        np.save(out, pred)
        return out, event, diag
    return pred, event, diag


if __name__ == "__main__":
    dplab_worker.serve(fit)
