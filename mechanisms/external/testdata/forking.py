"""A stdlib-only test worker that starts a helper process, as a worker
running a process pool or a subprocess would: on its first fit it starts a
child that sleeps (its stdio on /dev/null, so nothing ties it to dplab's
pipes) and answers every fit as behave.py's "ok", with the child's pid in
the diagnostics. The worker exits when its stdin closes; the child would
sleep on.
"""

import json
import subprocess
import sys

child = None
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": 1}), flush=True)
        continue
    if child is None:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    d = msg["train"]["d"]
    print(json.dumps({"type": "result", "id": msg["id"], "model": {"theta": [0.1] * d, "intercept": 0.0},
                      "event": {"kind": "gaussian", "sigma": 50.0, "sensitivity": 1},
                      "diagnostics": {"child": child.pid}}), flush=True)
