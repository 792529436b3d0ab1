"""DP-SGD for logistic regression in NumPy, an external dplab mechanism (mode "declare").

Every step Poisson-samples the rows at rate q = 1/ceil(n/B), clips each
per-example gradient of the logistic loss (with an intercept) to norm C, adds
N(0, (sigma C)^2 I) to their sum, divides by the expected batch size B and
takes a plain SGD step [ACG+16, Algorithm 1], from PyTorch's default
initialisation of a linear layer, as dplab's dpsgd. The run is T = epochs*ceil(n/B)
compositions of the Poisson-subsampled Gaussian mechanism, the same ledger as
dplab's built-in dpsgd declares:

    {"kind": "self_composed", "count": T,
     "event": {"kind": "poisson_sampled_gaussian", "q": q, "noise_multiplier": sigma}}

The worker chooses sigma itself: the smallest (to 1e-4 relative, rounded up)
for which its own RDP bound meets (epsilon, delta). That bound uses integer
orders 2..256 and the closed form of the sampled Gaussian's RDP at an integer
order [MTZ19, Section 3.3, Theorem 5 / eq. (6)]:

    A_a = sum_{k=0}^{a} binom(a, k) (1-q)^(a-k) q^k exp((k^2 - k) / (2 sigma^2)),
    RDP(a) = log(A_a) / (a - 1),

converted by eps = min_a T RDP(a) + log(1/delta)/(a - 1) [Mir17, Prop. 3],
looser than dplab's conversion, so dplab's accountant finds eps spent <= target.

params: epochs (5), batch (256), clip (1), learning_rate (0.5), init
("pytorch", or "zeros": theta starts at 0, as an audit wants), no_bias (false),
noise_scale (1: multiplies the noise actually added while the ledger still
declares the chosen sigma; < 1 makes a deliberately broken, under-noised
mechanism, for tests and audits).
"""

import functools
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import dplab_worker  # noqa: E402


ORDERS = list(range(2, 257))


def sgm_rdp(q, sigma):
    """RDP of one Poisson-subsampled Gaussian step at each integer order of ORDERS [MTZ19]."""
    import numpy as np
    a = np.array(ORDERS, dtype=float)[:, None]
    if q == 1:
        return a[:, 0] / (2 * sigma * sigma)
    k = np.arange(ORDERS[-1] + 1, dtype=float)[None, :]
    logfact = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, ORDERS[-1] + 1)))])
    kk = k.astype(int)[0]
    valid = k <= a
    ai = a.astype(int)[:, 0]
    logbinom = logfact[ai][:, None] - logfact[kk][None, :] - logfact[np.clip(ai[:, None] - kk[None, :], 0, None)]
    terms = logbinom + (a - k) * math.log1p(-q) + k * math.log(q) + (k * k - k) / (2 * sigma * sigma)
    terms = np.where(valid, terms, -np.inf)
    m = terms.max(axis=1)
    return (m + np.log(np.exp(terms - m[:, None]).sum(axis=1))) / (a[:, 0] - 1)


def epsilon(q, sigma, steps, delta):
    """Classic RDP to (eps, delta) conversion [Mir17, Prop. 3], minimised over ORDERS."""
    import numpy as np
    a = np.array(ORDERS, dtype=float)
    return float(np.min(steps * sgm_rdp(q, sigma) + math.log(1 / delta) / (a - 1)))


@functools.lru_cache(maxsize=None)
def choose_sigma(q, steps, eps, delta):
    """The smallest sigma (bisection on a log scale) whose bound meets eps."""
    lo, hi = 1e-2, 1.0
    while epsilon(q, hi, steps, delta) > eps:
        lo, hi = hi, hi * 2
        if hi > 1e6:
            raise ValueError("no noise multiplier below 1e6 meets eps = %g" % eps)
    while hi / lo > 1 + 1e-4:
        mid = math.sqrt(lo * hi)
        if epsilon(q, mid, steps, delta) > eps:
            lo = mid
        else:
            hi = mid
    return hi


def fit(req):
    import numpy as np
    X, y = req.load()
    n, d = X.shape
    p = req.params
    epochs = int(p.get("epochs", 5))
    batch = int(p.get("batch", 256))
    clip = float(p.get("clip", 1.0))
    lr = float(p.get("learning_rate", 0.5))
    per_epoch = math.ceil(n / batch)
    q, steps = 1.0 / per_epoch, epochs * per_epoch
    sigma = choose_sigma(q, steps, req.epsilon, req.delta)
    used = sigma * float(p.get("noise_scale", 1.0))
    rng = np.random.default_rng(req.seed)
    Xb = np.hstack([X, np.ones((n, 1))])
    # PyTorch's nn.Linear(d, 1) initialisation, as dplab's dpsgd (solvers.LinearInit):
    # weights and intercept from U(-1/sqrt(d), 1/sqrt(d)).
    theta = rng.uniform(-1 / math.sqrt(d), 1 / math.sqrt(d), size=d + 1)
    if p.get("init", "pytorch") == "zeros":
        theta[:] = 0
    elif p.get("init", "pytorch") != "pytorch":
        raise ValueError("init must be 'pytorch' or 'zeros', got %r" % p["init"])
    if p.get("no_bias", False):
        Xb[:, d] = 0  # the intercept's column: no gradient, and theta[d] stays 0
        theta[d] = 0
    labels = y if req.task == "binary" else None
    if labels is None:
        raise ValueError("dpsgd_numpy fits binary tasks only")
    expected = q * n
    clipped = 0
    for _ in range(steps):
        rows = np.flatnonzero(rng.random(n) < q)
        g = np.zeros(d + 1)
        if rows.size:
            xb = Xb[rows]
            z = xb @ theta
            grads = (1 / (1 + np.exp(-z)) - labels[rows])[:, None] * xb
            norms = np.linalg.norm(grads, axis=1)
            scale = np.minimum(1.0, clip / np.maximum(norms, 1e-300))
            clipped += int(np.sum(norms > clip))
            g = (grads * scale[:, None]).sum(axis=0)
        g = g + rng.normal(0.0, used * clip, size=d + 1)
        theta = theta - lr * g / expected
        if p.get("no_bias", False):
            theta[d] = 0
    event = {"kind": "self_composed", "count": steps,
             "event": {"kind": "poisson_sampled_gaussian", "q": q, "noise_multiplier": sigma}}
    model = {"theta": theta[:d], "intercept": float(theta[d])}
    return model, event, {"steps": steps, "noise_multiplier": used, "clipped": clipped}


if __name__ == "__main__":
    dplab_worker.serve(fit)
