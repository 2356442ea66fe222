#!/usr/bin/env python3
"""Golden CLI cases: tests/cli/cases/<name>.cmd

A case file holds 'key: value' lines:
  args: <arguments, shell-split; @SRC@ is the source root, @BUILD@ the build dir>
  env: NAME=value            (repeatable)
  stdin: <file>              (optional, relative to the source root)
  expect-exit: <n>
  expect-stdout: <file next to the case> | <empty>
  expect-stderr: <file next to the case> | <empty> | contains <text>
The runner compares byte for byte (after replacing the source root with @SRC@)
and checks that no input file under the source root changed.
RR_UPDATE_GOLDEN=1 rewrites the expected files."""
import hashlib
import os
import shlex
import subprocess
import sys

src = os.environ["RR_SRCDIR"]
exe = os.path.join(os.environ["RR_BUILDDIR"], "src", "cli", "rocm-resolve")
update = os.environ.get("RR_UPDATE_GOLDEN") == "1"
cases_dir = os.path.join(src, "tests", "cli", "cases")


def digest_tree(paths):
    out = {}
    for p in paths:
        if os.path.isfile(p):
            out[p] = hashlib.sha256(open(p, "rb").read()).hexdigest()
    return out


def run_case(path):
    spec = {"env": []}
    for line in open(path):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        k, _, v = line.partition(":")
        v = v.strip()
        if k == "env":
            spec["env"].append(v)
        else:
            spec[k] = v
    build = os.environ["RR_BUILDDIR"]
    args = [a.replace("@SRC@", src).replace("@BUILD@", build) for a in shlex.split(spec["args"])]
    env = dict(os.environ)
    env.pop("VIRTUAL_ENV", None)
    env["XDG_CACHE_HOME"] = "/tmp/rocm-resolve-cli-tests"
    env["XDG_DATA_HOME"] = "/tmp/rocm-resolve-cli-tests-data"
    for e in spec["env"]:
        k, _, v = e.partition("=")
        env[k] = v.replace("@SRC@", src).replace("@BUILD@", build)
    inputs = [a for a in args if os.path.exists(a)]
    for a in list(inputs):
        if os.path.isdir(a):
            inputs += [os.path.join(a, f) for f in os.listdir(a)]
    before = digest_tree(inputs)
    stdin = open(os.path.join(src, spec["stdin"]), "rb") if "stdin" in spec else subprocess.DEVNULL
    r = subprocess.run([exe] + args, stdin=stdin, capture_output=True, env=env, cwd=src, timeout=60)
    problems = []
    if digest_tree(inputs) != before:
        problems.append("an input file was modified")
    want_exit = int(spec.get("expect-exit", "0"))
    if r.returncode != want_exit:
        problems.append(f"exit {r.returncode}, expected {want_exit}")
    for stream, data in (("stdout", r.stdout), ("stderr", r.stderr)):
        text = data.decode(errors="replace").replace(src, "@SRC@")
        want = spec.get("expect-" + stream)
        if want is None:
            continue
        if want == "<empty>":
            if text:
                problems.append(f"{stream} not empty:\n{text}")
        elif want.startswith("contains "):
            needle = want[len("contains "):]
            if needle not in text:
                problems.append(f"{stream} lacks {needle!r}:\n{text}")
        else:
            golden = os.path.join(os.path.dirname(path), want)
            if update:
                open(golden, "w").write(text)
            elif not os.path.exists(golden) or open(golden).read() != text:
                exp = open(golden).read() if os.path.exists(golden) else "<missing>"
                problems.append(f"{stream} differs from {want}:\n--- expected\n{exp}\n--- actual\n{text}")
    return problems


def main():
    names = sorted(f for f in os.listdir(cases_dir) if f.endswith(".cmd"))
    passed = failed = 0
    for n in names:
        problems = run_case(os.path.join(cases_dir, n))
        if problems:
            failed += 1
            print(f"FAIL {n}")
            for p in problems:
                print("  " + p.replace("\n", "\n  "))
        else:
            passed += 1
            print(f"PASS {n}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not names else 0


sys.exit(main())
