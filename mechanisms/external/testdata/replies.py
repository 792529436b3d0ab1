"""A stdlib-only test worker that answers each fit with the line
params.reply, a reply's JSON with the string "$id" where the request's id
goes, written as it is (nulls, long lines and all).
"""

import json
import sys

for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": 1}), flush=True)
        continue
    print(msg["params"]["reply"].replace('"$id"', str(msg["id"])), flush=True)
