#!/usr/bin/env python3
"""Fill a scenario's empty `result ... <inline>` blocks with what the runner prints (-r).
    tests/scenarios/pipeline/fill.py build/src/cli/rr-testcase FILE.t
Read the result before committing it: the expectation is what you claim is right."""
import subprocess
import sys

runner, path = sys.argv[1], sys.argv[2]
out = subprocess.run([runner, "-r", path], capture_output=True, text=True, check=True).stdout
blocks, cur = [], None
for line in out.splitlines():
    if line.startswith("result "):
        cur = [line]
        blocks.append(cur)
    elif cur is not None:
        cur.append(line)
src = open(path).read().splitlines()
res, k, i = [], 0, 0
while i < len(src):
    line = src[i]
    if line.startswith("result "):
        res.extend(blocks[k])
        k += 1
        i += 1
        while i < len(src) and src[i].startswith("#>"):
            i += 1
        continue
    res.append(line)
    i += 1
open(path, "w").write("\n".join(res) + "\n")
