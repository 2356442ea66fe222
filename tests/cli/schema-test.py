#!/usr/bin/env python3
"""plan and check --format json against data/plan.schema.json, with the structural
checker of stack-file-test.py, on every golden input and the demo; and the shapes shared
with inspect (torch, protected) checked to be the same object in both documents.
verify --format json against data/verify.schema.json on the fake GPU runtimes and torch
venvs (pass, fail, unavailable), its torch in inspect's shape. A failing --format json
run (a usage error, a parse error, an index nobody answers on) prints exactly one
document on stdout, valid against data/error.schema.json, its exit_code the status."""
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


def one_document(r, what):
    """stdout as one JSON document, else None after a failure"""
    try:
        return json.loads(r.stdout)
    except ValueError:
        snap.fail(f"{what}: stdout is not one JSON document: {r.stdout[:300]!r} {r.stderr[:300]!r}")
        return None


# verify: every verdict a stage can reach, on the fake HIP runtime and fake torch venvs
vschema = json.load(open(os.path.join(src, "data", "verify.schema.json")))
ischema = json.load(open(os.path.join(src, "data", "inspect.schema.json")))
build = os.environ["RR_BUILDDIR"]
for case, hip, want in (("ok", "ok", 0), ("matmul", "ok", 1), ("importerror", "ok", 1),
                        ("nogpu", "nodevice", 3)):
    venv_gpu = os.path.join(src, "fixtures/gpu/venvs", case)
    genv = dict(env, RR_SYSROOT=os.path.join(src, "fixtures/gpu/sysfs/mi300"),
                LD_LIBRARY_PATH=os.path.join(build, "tests/gpu/hip6"), RR_FAKE_HIP_MODE=hip)
    r = subprocess.run([exe, "verify", "--format", "json", "--venv", venv_gpu],
                       capture_output=True, cwd=src, env=genv, timeout=120)
    n += 1
    doc = one_document(r, f"verify {case}")
    if doc is None:
        continue
    snap.validate(vschema, doc, f"verify {case}")
    if r.returncode != want or doc.get("exit_code") != want:
        snap.fail(f"verify {case}: exit {r.returncode}, exit_code {doc.get('exit_code')}, expected {want}")
    if doc.get("venv") != venv_gpu:
        snap.fail(f"verify {case}: venv {doc.get('venv')!r}, expected {venv_gpu!r}")
    probe = doc["stages"][2].get("probe")
    if set(((probe or {}).get("torch") or {})) != set(ischema["properties"]["torch"]["properties"]):
        snap.fail(f"verify {case}: the probe's torch is not inspect's shape: {probe}")

# a failing --format json run: the error object alone on stdout
eschema = json.load(open(os.path.join(src, "data", "error.schema.json")))
bad = os.path.join(src, "tests/cli/inputs/bad-requirement.txt")
safe = os.path.join(src, "tests/cli/inputs/safe.txt")
for what, args, want, kind in (
        ("usage", ["--no-such-option", "--format", "json", safe], 2, "usage"),
        ("usage, check", ["check", "--format=json", "--venv", venv, "--frobnicate", safe], 2, "usage"),
        ("parse", ["--no-index", "--format", "json", "--venv", venv, bad], 2, "parse"),
        ("index down", ["--format", "json", "--no-cache", "--venv", venv, "--index-url",
                        "http://127.0.0.1:9/schema-test/simple", safe], 3, "network"),
        ("inspect, no venv", ["inspect", "--format", "json", "--venv", "/nonexistent/venv"], 3, None)):
    r = subprocess.run([exe] + args, capture_output=True, cwd=src, env=dict(env, NO_PROXY="127.0.0.1"),
                       timeout=60)
    n += 1
    doc = one_document(r, what)
    if doc is None:
        continue
    snap.validate(eschema, doc, what)
    e = doc.get("error", {})
    if r.returncode != want or e.get("exit_code") != want or (kind and e.get("kind") != kind):
        snap.fail(f"{what}: exit {r.returncode}, error {e}, expected {want} {kind}")
    if kind == "parse" and (e.get("path") != bad or e.get("line") != 4 or e.get("col") != 6 or
                            e.get("text") != "torch=>2.4.0"):
        snap.fail(f"{what}: the error's place is not bad-requirement.txt:4:6: {e}")
    if e.get("message", "") not in r.stderr.decode():
        snap.fail(f"{what}: the message is not the one on stderr: {e} / {r.stderr!r}")

failures = getattr(snap, "failures", None)
nfail = len(failures) if isinstance(failures, list) else 0
print(f"{max(0, n + 1 - nfail)} passed, {nfail} failed")
sys.exit(1 if nfail else 0)
