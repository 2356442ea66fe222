#!/usr/bin/env python3
"""Print one closing line over meson test logs: 'N passed, N failed, N skipped'."""
import json
import sys

passed = failed = skipped = 0
for build in sys.argv[1:]:
    try:
        lines = open(f"{build}/meson-logs/testlog.json").read().splitlines()
    except OSError:
        continue
    for line in lines:
        result = json.loads(line).get("result")
        if result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif result == "SKIP":
            skipped += 1
        else:
            failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
