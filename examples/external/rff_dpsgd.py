"""DP-SGD on random Fourier features in NumPy: a non-linear external dplab
mechanism (mode "declare", output "predictions").

The model is logistic regression on D random Fourier features of the rows,
phi(x) = sqrt(2/D) cos(W x + b) with W ~ N(0, I/bandwidth^2) (D x d) and
b ~ U(0, 2 pi) [RR07, Algorithm 1: features whose inner products
approximate the Gaussian kernel exp(-||x - x'||^2 / (2 bandwidth^2))].
W and b are drawn from the trial's seed, not from the data, so they cost
no privacy. dpsgd_numpy.fit then trains on phi(x) in place of x: DP-SGD
[ACG+16, Algorithm 1] with its schedule, its clipping and its ledger,

    {"kind": "self_composed", "count": T,
     "event": {"kind": "poisson_sampled_gaussian", "q": q, "noise_multiplier": sigma}},

the one dplab's dpsgd declares. The model is not linear in x, so the
worker answers with predictions: the probability of label 1 on each row
of dplab's evaluation file. Citation keys: docs/references.md.

params: features (D, 200), bandwidth (1), and dpsgd_numpy.py's (epochs,
batch, clip, learning_rate, init, noise_scale).
"""

import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import dplab_worker  # noqa: E402
import dpsgd_numpy  # noqa: E402


class OnFeatures:
    """The request with its training rows mapped by features (for dpsgd_numpy.fit)."""

    def __init__(self, req, features):
        self.__dict__.update(req.__dict__)
        self._req, self._features = req, features

    def load(self):
        X, y = self._req.load()
        return self._features(X), y


def fit(req):
    import numpy as np
    p = req.params
    D = int(p.get("features", 200))
    bandwidth = float(p.get("bandwidth", 1.0))
    d = req.train["d"]
    rng = np.random.default_rng([req.seed, 1])  # apart from the stream dpsgd_numpy draws from req.seed
    W = rng.normal(0.0, 1.0 / bandwidth, size=(D, d))
    b = rng.uniform(0.0, 2 * math.pi, size=D)

    def features(A):
        return math.sqrt(2.0 / D) * np.cos(A @ W.T + b)

    model, event, diagnostics = dpsgd_numpy.fit(OnFeatures(req, features))
    scores = features(req.load_eval()) @ np.asarray(model["theta"]) + model["intercept"]
    diagnostics["features"] = D
    return 1 / (1 + np.exp(-scores)), event, diagnostics


if __name__ == "__main__":
    dplab_worker.serve(fit)
