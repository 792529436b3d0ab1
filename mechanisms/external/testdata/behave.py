"""A stdlib-only test worker for dplab's external-mechanism protocol.

params.behave picks what it does with a fit request:
  ok        theta = 0.1 * ones(d), a Gaussian event of sigma params.sigma (default 50)
  overspend as ok with sigma 0.1: more epsilon than any test target
  exit      writes "behave: exiting mid-trial" to stderr and exits 3
  hang      writes "behave: hanging" to stderr and sleeps
  garbage   writes "behave: garbage" to stderr and a line that is not JSON
  flood     writes three lines that are not JSON
  nan       a NaN intercept (written as the bare token NaN, not JSON)
  shape     theta of d + 1 coefficients
  badevent  an event of an unknown kind
  nonprivate the event {"kind":"non_private"}
  raise     raises ValueError (an error reply; the worker lives on)
  calibrate theta as ok, the event {"kind":"gaussian","sigma":noise,"sensitivity":1}
  wrongnoise as calibrate with sigma 2 * noise
Every reply's diagnostics carry the worker's pid; params.pidfile, when set,
names a file the worker appends its pid to on each request.
"""

import json
import os
import sys
import time

for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": 1}), flush=True)
        continue
    p = msg["params"]
    b = p.get("behave", "ok")
    if "pidfile" in p:
        with open(p["pidfile"], "a") as f:
            f.write("%d\n" % os.getpid())
    d = msg["train"]["d"]
    model = {"theta": [0.1] * d, "intercept": 0.0}
    event = {"kind": "gaussian", "sigma": float(p.get("sigma", 50)), "sensitivity": 1}
    diag = {"pid": os.getpid()}
    if b == "overspend":
        event["sigma"] = 0.1
    elif b == "exit":
        sys.stderr.write("behave: exiting mid-trial\n")
        sys.stderr.flush()
        sys.exit(3)
    elif b == "hang":
        sys.stderr.write("behave: hanging\n")
        sys.stderr.flush()
        time.sleep(3600)
    elif b == "garbage":
        sys.stderr.write("behave: garbage\n")
        sys.stderr.flush()
        print("this is not json", flush=True)
        continue
    elif b == "flood":
        print("flood 1\nflood 2\nflood 3", flush=True)
        continue
    elif b == "nan":
        model["intercept"] = float("nan")
    elif b == "shape":
        model["theta"].append(0.0)
    elif b == "badevent":
        event = {"kind": "no_such_kind"}
    elif b == "nonprivate":
        event = {"kind": "non_private"}
    elif b == "raise":
        print(json.dumps({"type": "error", "id": msg["id"], "error": "Traceback (most recent call last):\n  File x\nValueError: behave raised\n"}), flush=True)
        continue
    elif b in ("calibrate", "wrongnoise"):
        event["sigma"] = msg["noise"] * (2 if b == "wrongnoise" else 1)
    print(json.dumps({"type": "result", "id": msg["id"], "model": model, "event": event, "diagnostics": diag}), flush=True)
