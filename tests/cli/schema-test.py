#!/usr/bin/env python3
"""plan and check --format json against data/plan.schema.json, with the structural
checker of stack-file-test.py, on every golden input and the demo; and the shapes shared
with inspect (torch, protected) checked to be the same object in both documents."""
import importlib.util
import json
import os
import subprocess
import sys

src = os.environ["RR_SRCDIR"]
exe = os.path.join(os.environ["RR_BUILDDIR"], "src", "cli", "rocm-resolve")
spec = importlib.util.spec_from_file_location("snap", os.path.join(src, "tests", "cli", "stack-file-test.py"))
snap = importlib.util.module_from_spec(spec)
sys.argv = sys.argv[:1]
spec.loader.exec_module(snap)
schema = json.load(open(os.path.join(src, "data", "plan.schema.json")))
env = dict(os.environ, RR_SYSROOT=os.path.join(src, "fixtures/venvs/sysroot-rocm72"),
           XDG_CACHE_HOME="/tmp/rocm-resolve-schema-test")
env.pop("VIRTUAL_ENV", None)
venv = os.path.join(src, "fixtures/venvs/rocm72")
inputs = [["demo/requirements.txt", "demo/more-requirements.txt", "-c", "demo/constraints.txt"],
          ["tests/cli/inputs/pyproject.toml"], ["tests/cli/inputs/credentials.txt"],
          ["tests/cli/inputs/safe.txt"], ["tests/cli/inputs/triton.txt"]]
n = 0
for cmd in ("plan", "check"):
    for args in inputs:
        args = [a for a in args if a != "-c"]
        r = subprocess.run([exe, cmd, "--no-index", "--format", "json", "--venv", venv] + args,
                           capture_output=True, cwd=src, env=env, timeout=60)
        doc = json.loads(r.stdout)
        snap.validate(schema, doc, f"{cmd} {' '.join(args)}")
        n += 1
insp = json.loads(subprocess.run([exe, "inspect", "--format", "json", "--venv", venv], capture_output=True,
                                 cwd=src, env=env, timeout=60).stdout)
plan = json.loads(subprocess.run([exe, "--no-index", "--format", "json", "--venv", venv, "demo/requirements.txt"],
                                 capture_output=True, cwd=src, env=env, timeout=60).stdout)
if insp["torch"] != plan["torch"]:
    snap.fail(f"torch differs: inspect {insp['torch']} plan {plan['torch']}")
if [p["name"] for p in insp["protected"]] != [p["name"] for p in plan["protected"]] or \
        set(insp["protected"][0]) != set(plan["protected"][0]):
    snap.fail("protected entries differ in shape between inspect and plan")
failures = getattr(snap, "failures", None)
nfail = len(failures) if isinstance(failures, list) else 0
print(f"{n + 1 - nfail} passed, {nfail} failed")
sys.exit(1 if nfail else 0)
