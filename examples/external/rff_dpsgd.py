"""DP-SGD on random Fourier features in NumPy: a non-linear external dplab
mechanism (mode "declare", output "predictions").

The model is logistic regression on D random Fourier features of the rows,
phi(x) = sqrt(2/D) cos(W x + b) with W ~ N(0, I/bandwidth^2) (D x d) and
b ~ U(0, 2 pi) [RR07, Algorithm 1: features whose inner products
approximate the Gaussian kernel exp(-||x - x'||^2 / (2 bandwidth^2))].
W and b are drawn from the trial's seed, not from the data, so they cost
no privacy. DP-SGD then trains [theta, intercept] on phi(x) exactly as
dpsgd_numpy.py trains on x [ACG+16, Algorithm 1]: Poisson sampling at rate
q = 1/ceil(n/B), per-example gradients of the logistic loss clipped to C,
N(0, (sigma C)^2 I) added to their sum, divided by B, a plain SGD step. The
ledger is the same as dplab's dpsgd and dpsgd_numpy.py declare,

    {"kind": "self_composed", "count": T,
     "event": {"kind": "poisson_sampled_gaussian", "q": q, "noise_multiplier": sigma}},

with sigma chosen by dpsgd_numpy.choose_sigma (its classic RDP conversion).
The model is not linear in x, so the worker answers with predictions: the
probability of label 1 on each row of dplab's evaluation file.
Citation keys: docs/references.md.

params: features (D, 200), bandwidth (1), epochs (5), batch (100), clip (1),
learning_rate (2).
"""

import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import dplab_worker  # noqa: E402
from dpsgd_numpy import choose_sigma  # noqa: E402


def fit(req):
    import numpy as np
    if req.task != "binary":
        raise ValueError("rff_dpsgd fits binary tasks only")
    X, y = req.load()
    n, d = X.shape
    p = req.params
    D = int(p.get("features", 200))
    bandwidth = float(p.get("bandwidth", 1.0))
    epochs = int(p.get("epochs", 5))
    batch = int(p.get("batch", 100))
    clip = float(p.get("clip", 1.0))
    lr = float(p.get("learning_rate", 2.0))
    per_epoch = math.ceil(n / batch)
    q, steps = 1.0 / per_epoch, epochs * per_epoch
    sigma = choose_sigma(q, steps, req.epsilon, req.delta)
    rng = np.random.default_rng(req.seed)
    W = rng.normal(0.0, 1.0 / bandwidth, size=(D, d))
    b = rng.uniform(0.0, 2 * math.pi, size=D)

    def features(A):
        return np.hstack([math.sqrt(2.0 / D) * np.cos(A @ W.T + b), np.ones((len(A), 1))])

    F = features(X)
    theta = np.zeros(D + 1)
    expected = q * n
    for _ in range(steps):
        rows = np.flatnonzero(rng.random(n) < q)
        g = np.zeros(D + 1)
        if rows.size:
            f = F[rows]
            grads = (1 / (1 + np.exp(-(f @ theta))) - y[rows])[:, None] * f
            norms = np.linalg.norm(grads, axis=1)
            g = (grads * np.minimum(1.0, clip / np.maximum(norms, 1e-300))[:, None]).sum(axis=0)
        theta = theta - lr * (g + rng.normal(0.0, sigma * clip, size=D + 1)) / expected
    event = {"kind": "self_composed", "count": steps,
             "event": {"kind": "poisson_sampled_gaussian", "q": q, "noise_multiplier": sigma}}
    probabilities = 1 / (1 + np.exp(-(features(req.load_eval()) @ theta)))
    return probabilities, event, {"steps": steps, "noise_multiplier": sigma, "features": D}


if __name__ == "__main__":
    dplab_worker.serve(fit)
