#!/usr/bin/env python3
"""Every run option that changes the answer survives --write-testcase (issue 30).

The run's options are one table (src/flow/options.c; `rr-testcase --options` prints it).
For every option the table marks as changing the resolution or the plan, this test runs
`plan` on the fixture index with a sample use of it, checks that the sample really
changes the outcome (the plan or its decisions differ from the same run without it), then
writes the run with --write-testcase and replays case.t offline with rr-testcase: the
replay must reproduce the recorded outcome, or the run must refuse --write-testcase. An
option the table adds without a sample here fails the test, so no resolving option can
be left out. On the code before the table, --all-extras and --policy were not written to
case.t and their replays failed."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from clitest import build, checks, clean_env, exe, fixture_index, rocm72 as venv, src, summary, write

runner = os.path.join(build, "src", "cli", "rr-testcase")


def check(ok, name, detail=""):
    checks["passed" if ok else "failed"] += 1
    print(f"{'ok' if ok else 'not ok'} - {name}")
    if not ok and detail:
        print("    " + str(detail)[:4000].replace("\n", "\n    "))


def env():
    e = clean_env()
    e["PATH"] = "/usr/bin:/bin"  # no uv on PATH: the default installer is pip, as written
    return e


PYPROJECT = """[project]
name = "roundtrip"
version = "0.1"
dependencies = ["einops", "rr-pre"]

[project.optional-dependencies]
gpu = ["onnxruntime-gpu"]

[dependency-groups]
dev = ["torch==2.4.0"]
"""

# a policy that says einops is CUDA-only: its line is stripped
POLICY = {"schema": 1, "cuda_only": [{"id": "test-einops", "pattern": "^einops$",
                                      "reason": "a test rule"}]}


def samples(w, url):
    """option word -> (extra arguments, the input) for a run that the option changes"""
    pp = os.path.join(w, "pyproject.toml")
    req = os.path.join(w, "requirements.txt")
    cons = os.path.join(w, "constraints.txt")
    pol = os.path.join(w, "policy.json")
    stack = os.path.join(w, "stack.json")
    excl = os.path.join(w, "excludes.txt")
    tri = os.path.join(w, "tritondep.txt")
    numpy = os.path.join(w, "numpy.txt")
    priv = os.path.join(w, "private.txt")
    pre = os.path.join(w, "pre.txt")
    return {
        "--constraint": (["-c", cons], req),
        "--editable": (["-e", os.path.join(w, "eproj")], req),
        "--extra": (["--extra", "gpu"], pp),
        "--all-extras": (["--all-extras"], pp),
        "--group": (["--group", "dev"], pp),
        "--all-groups": (["--all-groups"], pp),
        "--policy": (["--policy", pol], pp),
        "--protect": (["--protect", "numpy"], numpy),
        "--pre": (["--pre"], pre),
        "--no-index": (["--no-index"], pp),
        "--venv": (["--venv", os.path.join(src, "fixtures", "venvs", "pytorch-rocm64")], pp),
        "--stack": (["--stack", stack], pp),
        "--installer": (["--installer", "uv"], pp),
        "--default-index": (["--default-index", url + "/simple/"], priv),
        "--extra-index-url": (["--extra-index-url", url + "/private/simple/"], priv),
        "--uv-excludes": (["--uv-excludes", excl], tri),
    }


def main():
    tmp = tempfile.mkdtemp(prefix="rr-options-roundtrip-")
    try:
        with fixture_index() as url:
            w = os.path.join(tmp, "w")
            os.makedirs(w)
            write(os.path.join(w, "pyproject.toml"), PYPROJECT)
            write(os.path.join(w, "requirements.txt"), "requests\n")
            write(os.path.join(w, "constraints.txt"), "numpy<3\n")
            os.makedirs(os.path.join(w, "eproj"))
            write(os.path.join(w, "eproj", "pyproject.toml"),
                  '[project]\nname = "eproj"\nversion = "0.1"\ndependencies = ["einops"]\n')
            write(os.path.join(w, "policy.json"), json.dumps(POLICY))
            write(os.path.join(w, "tritondep.txt"), "rr-tritondep\n")
            write(os.path.join(w, "numpy.txt"), "numpy>=1\n")
            write(os.path.join(w, "private.txt"), "rr-private-only\n")
            write(os.path.join(w, "pre.txt"), "rr-pre\n")
            r = subprocess.run([exe, "inspect", "--venv", venv, "--format", "json"], capture_output=True,
                               text=True, env=env())
            write(os.path.join(w, "stack.json"), r.stdout)

            table = subprocess.run([runner, "--options"], capture_output=True, text=True).stdout.split("\n")
            rows = [line.split() for line in table if line.strip()]
            resolving = [r[0] for r in rows if r[2] == "resolves"]
            check(len(resolving) >= 10 and "--all-extras" in resolving and "--policy" in resolving,
                  "rr-testcase --options lists the resolving options", table)
            cases = samples(w, url)
            for word in resolving:
                if word not in cases:
                    check(False, f"{word}: the table's resolving option has a sample here")
                    continue
                args, inp = cases[word]
                base = [exe, "plan", "--format", "json", "--cache-dir", os.path.join(tmp, "cache")]
                if word == "--uv-excludes":
                    # the pytorch.org layout: a dependency on PyPI triton clashes with its
                    # protected pytorch-triton-rocm, which only an exclusion keeps out
                    base += ["--venv", os.path.join(src, "fixtures", "venvs", "pytorch-rocm64")]
                elif word not in ("--venv", "--stack"):
                    base += ["--venv", venv]
                if word != "--default-index":
                    base += ["--default-index", url + "/simple/"]
                if word == "--default-index":
                    base += ["--extra-index-url", url + "/private/simple/"]
                without = subprocess.run(base + [inp], capture_output=True, text=True, env=env(), cwd=w)
                d = os.path.join(tmp, "case" + word.replace("-", "_"))
                with_ = subprocess.run(base + args + ["--write-testcase", d, inp], capture_output=True,
                                       text=True, env=env(), cwd=w)
                if with_.returncode == 2 and "--write-testcase" in with_.stderr:
                    check(True, f"{word}: refused with --write-testcase")
                    continue

                def outcome(p):
                    try:
                        j = json.loads(p.stdout)
                    except ValueError:
                        return p.returncode, p.stdout + p.stderr
                    if "plan" not in j:
                        return p.returncode, j
                    return p.returncode, [x for x in j["plan"] if not x.startswith("# rocm-resolve")], \
                        [(x["source"], x["action"], x["reason"], x["output"]) for x in j["decisions"]]

                check(with_.returncode == 0 and os.path.isfile(os.path.join(d, "case.t")),
                      f"{word}: the run with it writes a testcase", with_.stderr)
                if word not in ("--stack", "--installer"):
                    # --stack reads the same environment as --venv; the installer is found
                    # (uv on PATH) or given: both only need to replay
                    check(outcome(without) != outcome(with_), f"{word}: the sample changes the outcome",
                          outcome(with_))
                p = subprocess.run([runner, os.path.join(d, "case.t")], capture_output=True, text=True,
                                   timeout=120)
                check(p.returncode == 0 and "1 passed" in p.stdout,
                      f"{word}: rr-testcase replays it to the same outcome", p.stdout[-3000:])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
