"""Output-perturbed ridge regression, an external dplab mechanism (mode "calibrate").

theta = argmin_t (1/2n) sum_i (y_i - x_i.t)^2 + (lam/2) |t|^2, released with
Gaussian noise N(0, (z * Delta)^2 I), where z is the noise multiplier dplab
calibrates (the spec's event family is a replace-one Gaussian of sensitivity 1
and sigma z, the ratio that its privacy depends on) and Delta is the L2
sensitivity of the minimiser.

Sensitivity: for an objective (1/n) sum_i l(t; z_i) + (lam/2)|t|^2 with l
convex and L-Lipschitz in t, replacing one row moves the minimiser by at most
2L/(n lam) [CMS11, Corollary 8 (output perturbation, Chaudhuri, Monteleoni and
Sarwate 2011, JMLR 12)]. With |x| <= 1 and |y| <= 1 (dplab's max-row-norm and
max-abs scaling), the minimiser has |t| <= 1/sqrt(lam) (the objective at t = 0
is at most 1/2), and on that ball the squared loss's gradient (x.t - y) x has
norm at most L = 1 + 1/sqrt(lam).
"""

import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import dplab_worker  # noqa: E402


def fit(req):
    import numpy as np
    X, y = req.load()
    n, d = X.shape
    lam = float(req.params.get("lambda", 0.1))
    theta = np.linalg.solve(X.T @ X / n + lam * np.eye(d), X.T @ y / n)
    lipschitz = 1 + 1 / math.sqrt(lam)
    delta = 2 * lipschitz / (n * lam)
    rng = np.random.default_rng(req.seed)
    theta = theta + rng.normal(0.0, req.noise * delta, size=d)
    event = {"kind": "with_relation", "relation": "replace_one",
             "event": {"kind": "gaussian", "sigma": req.noise, "sensitivity": 1}}
    return {"theta": theta, "intercept": 0.0}, event, {"sensitivity": delta}


if __name__ == "__main__":
    dplab_worker.serve(fit)
