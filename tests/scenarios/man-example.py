#!/usr/bin/env python3
"""Run the EXAMPLES scenario of man/rocm-resolve-scenario.5 through rr-testcase,
so the documented example can never drift from what the resolver does."""
import os
import subprocess
import sys
import tempfile

runner, manpage = sys.argv[1], sys.argv[2]
text = open(manpage, encoding="utf-8").read()
body = text.split(".SH EXAMPLES\n", 1)[1].split(".nf\n", 1)[1].split(".fi\n", 1)[0]
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "man-example.t")
    with open(path, "w", encoding="utf-8") as f:
        f.write(body)
    sys.exit(subprocess.run([runner, path]).returncode)
