"""A test worker on python/dplab_worker.py whose fit prints to stdout
(Python's print and a raw write to fd 1), as a chatty library would."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import dplab_worker  # noqa: E402


def fit(request):
    print("fit: a progress line on stdout")
    os.write(1, b"fit: a raw line on fd 1\n")
    model = {"theta": [0.1] * request.train["d"], "intercept": 0.0}
    return model, {"kind": "gaussian", "sigma": 50.0, "sensitivity": 1}, {"pid": os.getpid()}


if __name__ == "__main__":
    dplab_worker.serve(fit)
