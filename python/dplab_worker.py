"""dplab_worker: the Python side of dplab's external-mechanism protocol.

docs/external.md describes the protocol: dplab starts the worker, sends one
JSON object per line on its stdin and reads one JSON reply per line on its
stdout; stderr is free for logging (dplab quotes its tail when a trial
fails). This module is standard library only; it imports NumPy lazily, to
load the training split's .npy files (and, for a block of output
"predictions", the evaluation rows, and to save the predictions).

Usage::

    import dplab_worker

    def fit(request):
        X, y = request.load()          # numpy arrays (n×d float64, n)
        ...
        model = {"theta": theta.tolist(), "intercept": b}
        event = {"kind": "gaussian", "sigma": request.noise, "sensitivity": 1}
        return model, event, {"steps": 10}

    if __name__ == "__main__":
        dplab_worker.serve(fit)

A block with output = "predictions" (protocol version 2) gets requests
with an evaluation file; fit returns the predictions on its rows in place
of the model::

    def fit(request):
        X, y = request.load()
        ...
        E = request.load_eval()        # the rows dplab scores (n_eval × d)
        return predict(E), event, {}   # n_eval values: regression values,
                                       # or probabilities of label 1

An exception raised by fit becomes an error reply carrying its traceback:
the trial fails and the worker serves the next request.
"""

import json
import os
import sys
import traceback

PROTOCOL = 2  # the highest version spoken; the hello answers min(PROTOCOL, dplab's)


class Request:
    """One fit request: the fields of docs/external.md as attributes."""

    def __init__(self, msg):
        self.raw = msg
        self.id = msg["id"]
        self.task = msg["task"]            # "regression" or "binary"
        self.train = msg["train"]          # {"x": path, "y": path, "n": rows, "d": cols}
        self.epsilon = msg["epsilon"]
        self.delta = msg["delta"]
        self.noise = msg.get("noise")      # the calibrated noise (mode "calibrate")
        self.params = msg.get("params", {})
        self.seed = int(msg["seed"])       # uint64
        self.eval = msg.get("eval")        # {"x", "n", "d", "out"}: output "predictions" only

    def load(self):
        """Returns (X, y) as NumPy arrays, read from the .npy files."""
        import numpy as np
        return np.load(self.train["x"]), np.load(self.train["y"])

    def load_eval(self):
        """Returns the evaluation rows (n_eval × d) to predict on (output "predictions")."""
        if self.eval is None:
            raise ValueError("this request has no evaluation rows: the block's output is not \"predictions\"")
        import numpy as np
        return np.load(self.eval["x"])


def _save_predictions(request, predictions):
    """Saves predictions as float64 .npy to the request's out path; a str is a file fit wrote."""
    if isinstance(predictions, str):
        return predictions
    import numpy as np
    np.save(request.eval["out"], np.asarray(predictions, dtype="<f8"))  # little-endian on any host: dplab reads '<f8' only
    return request.eval["out"]


def _write(out, obj):
    out.write(json.dumps(obj, allow_nan=False) + "\n")
    out.flush()


def _plain(x):
    """Turns NumPy scalars and arrays into JSON-ready Python values."""
    if hasattr(x, "tolist"):
        return x.tolist()
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


def serve(fit, stdin=None, stdout=None):
    """Serves fit requests until stdin closes.

    fit(request) returns (model, event, diagnostics): model a dict with
    "theta" (a list of d numbers) and "intercept" or, when the request has
    evaluation rows (request.eval), the predictions on them (an array-like
    of request.eval["n"] numbers, saved as float64 .npy to
    request.eval["out"], or the path of a .npy file fit wrote); event the ledger as a
    dplab event (a dict, the JSON of `dplab account json`); diagnostics a
    dict of numbers or None. What fit (or a library it calls) prints goes
    to stderr: the replies keep the process's stdout to themselves.
    """
    stdin = stdin or sys.stdin
    if stdout is None:
        sys.stdout.flush()
        stdout = os.fdopen(os.dup(1), "w")
        os.dup2(2, 1)  # writes to fd 1, Python's or C's, land on stderr
        sys.stdout = sys.stderr
    for line in stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            _write(stdout, {"type": "hello", "protocol": min(PROTOCOL, int(msg.get("protocol", 1)))})
            continue
        if kind != "fit":
            _write(stdout, {"type": "error", "id": msg.get("id", 0),
                            "error": "unknown message type %r" % kind})
            continue
        try:
            req = Request(msg)
            model, event, diagnostics = fit(req)
            reply = {"type": "result", "id": msg["id"],
                     "event": _plain(event), "diagnostics": _plain(diagnostics or {})}
            if req.eval is not None and not isinstance(model, dict):
                reply["predictions"] = _save_predictions(req, model)
            else:
                reply["model"] = _plain(model)
            line = json.dumps(reply, allow_nan=False)
        except Exception:
            line = json.dumps({"type": "error", "id": msg["id"], "error": traceback.format_exc()})
        stdout.write(line + "\n")
        stdout.flush()
