#!/usr/bin/env python3
"""Are the real-index plans safe and their reasons true? (issue 7's "done when"; uses the
network: the five corpus files of bench/real.py, a few uv runs each; not a test.)

  bench/plan-check.py [--build build] [--only SUBSTRING] [--pip] [--keep]

1. A real CPython 3.12 venv holding the fake ROCm 7.2 stack of the end-to-end tests
   (tests/e2e/e2elib.py, installed by its own pip from local wheels).
2. Each file planned against the index this machine reaches:
     rocm-resolve plan --venv V INPUT > plan.txt
3. Real uv judges the plan in that venv:
     uv pip install --dry-run --python V/bin/python -r plan.txt
   It must succeed, and remove or replace nothing of the protected stack (torch,
   torchvision, torchaudio, triton, ...), and bring no nvidia-* or PyPI triton.
   With --pip, pip does the same (pip install --dry-run --report; slow on a mirror
   without PEP 658: it downloads whole wheels); where pip fails on the plan, the
   check passes only if pip fails on the input file itself at the same point (an
   sdist that no longer builds is the input's problem, not the plan's).
4. Each claim the plan prints about a newer release is put to uv on its own:
     "X==v  # held back: ..."   uv pip install --dry-run 'X>v'  must fail or touch
                                 the protected stack (else the hold is not needed)
     "#   REQ  (why)" (stripped)  uv pip install --dry-run 'REQ'  must fail or touch
                                 the protected stack (else the strip is not needed)
   and the version kept instead installs cleanly (X==v: uv dry-run keeps the stack).
Prints one line per check and a summary; exit 1 when any check fails.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
src = os.path.dirname(here)
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(src, "tests", "e2e"))
import e2elib  # noqa: E402
import real  # noqa: E402

PROTECTED = {"torch", "torchvision", "torchaudio", "triton", "pytorch-triton-rocm", "apex",
             "amdsmi"}


def norm(n):
    return re.sub(r"[-_.]+", "-", n).lower()


def uv_dry_run(uv, venv, args, env):
    """(rc, [(sign, name, version)], output) of uv pip install --dry-run"""
    r = subprocess.run([uv, "pip", "install", "--dry-run", "--no-config", "--python",
                        os.path.join(venv, "bin", "python")] + args,
                       capture_output=True, text=True, env=env, timeout=600)
    out = r.stdout + r.stderr
    changes = [(m.group(1), norm(m.group(2)), m.group(3))
               for m in re.finditer(r"^ ([+-]) ([A-Za-z0-9._-]+)==(\S+)", out, re.M)]
    return r.returncode, changes, out


def stack_touched(changes):
    """names of the protected stack uv would remove or replace, and CUDA parts it adds"""
    bad = sorted({n for s, n, _ in changes if n in PROTECTED})
    bad += sorted({n for s, n, _ in changes if s == "+" and n.startswith("nvidia-")})
    return bad


def claims(plan):
    """held-back pins and stripped requirements the plan states"""
    held, stripped = [], []
    in_stripped = False
    for line in plan.splitlines():
        m = re.match(r"^([A-Za-z0-9._-]+)==(\S+)\s+# held back: (.*)$", line)
        if m:
            held.append((m.group(1), m.group(2), m.group(3)))
        if line == "# stripped:":
            in_stripped = True
            continue
        m = re.match(r"^#   (\S.*?)  \((.*)\)$", line)
        if in_stripped and m:
            stripped.append((m.group(1), m.group(2)))
        elif not line.startswith("#   "):
            in_stripped = False
    return held, stripped


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--only")
    ap.add_argument("--pip", action="store_true")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    exe = a.build if os.path.isfile(a.build) else os.path.join(src, a.build, "src", "cli", "rocm-resolve")
    uv = real.find_uv(src)
    py312, _ = real.find_python312()
    if not (uv and py312):
        sys.exit("plan-check: needs uv and a CPython 3.12")
    corpus = os.path.normpath(os.path.join(src, "..", "shared", "corpus"))
    work = tempfile.mkdtemp(prefix="rr-plan-check-")
    env = e2elib.clean_env()
    env["XDG_CACHE_HOME"] = os.path.join(work, "xdg")
    e2elib.PY = py312
    # the fake torch needs setuptools on 3.12, as the real one does: fetched once
    wheels = os.path.join(work, "wheels")
    subprocess.run([py312, "-m", "pip", "download", "-q", "--no-deps", "-d", wheels, "setuptools"],
                   check=True, env=env)
    venv = e2elib.build_venv(os.path.join(work, "venv"), "rocm72", wheeldir=wheels)
    before = e2elib.installed(venv)
    fails = 0
    lines = []

    def report(ok, what):
        nonlocal fails
        fails += not ok
        lines.append(f"{'ok  ' if ok else 'FAIL'} {what}")
        print(lines[-1], flush=True)

    for inp in real.prepare_inputs(corpus, work, [f for f in real.FILES if not a.only or a.only in f]):
        label = inp["label"]
        plan_path = os.path.join(work, re.sub(r"[^A-Za-z0-9.-]+", "_", label) + ".plan.txt")
        r = subprocess.run([exe, "plan", "--venv", venv, inp["direct"]], capture_output=True, text=True,
                           env=env, timeout=600)
        with open(plan_path, "w") as f:
            f.write(r.stdout)
        report(r.returncode == 0, f"{label}: rocm-resolve plan (exit {r.returncode})")
        if r.returncode != 0:
            print(r.stderr[-2000:])
            continue
        rc, changes, out = uv_dry_run(uv, venv, ["-r", plan_path], env)
        bad = stack_touched(changes)
        report(rc == 0 and not bad, f"{label}: uv accepts the plan ({len(changes)} changes) and keeps the stack"
               + (f"; touches {bad}" if bad else "") + ("" if rc == 0 else f"; uv exit {rc}: {out[-400:]}"))
        if a.pip:
            rep = plan_path[:-len(".plan.txt")] + ".pip.json"

            def pip_on(reqs):
                return subprocess.run([os.path.join(venv, "bin", "python"), "-m", "pip", "install", "--dry-run",
                                       "-v", "--report", rep, "-r", reqs], capture_output=True, text=True, env=env,
                                      timeout=1800)

            def pip_failure(proc):
                """what pip stopped on: the sdist it could not build, else its last error line"""
                built = re.findall(r"Downloading (\S+\.(?:tar\.gz|zip))", proc.stdout + proc.stderr)
                errs = [x for x in proc.stderr.splitlines() if x.strip().startswith(("error", "ERROR"))]
                return (built[-1] if built and "subprocess-exited-with-error" in proc.stderr
                        else errs[-1].strip() if errs else f"exit {proc.returncode}")

            p = pip_on(plan_path)
            names = set()
            if p.returncode == 0 and os.path.exists(rep):
                import json
                names = {norm(x["metadata"]["name"]) for x in json.load(open(rep))["install"]}
            badp = sorted(n for n in names if n in PROTECTED or n.startswith("nvidia-"))
            if p.returncode == 0:
                report(not badp, f"{label}: pip accepts the plan and keeps the stack"
                       + (f"; would install {badp}" if badp else ""))
            else:
                # a failure the input itself meets with pip (an sdist that no longer builds)
                # is the input's, not the plan's: said as such, and still counted only if
                # the input fails the same way
                why = pip_failure(p)
                q = pip_on(inp["pip"])
                same = q.returncode != 0 and pip_failure(q) == why
                report(same, f"{label}: pip fails on the plan at {why}"
                       + ("; it fails on the input file itself at the same point (not the plan's doing)"
                          if same else f"; on the input: {'ok' if q.returncode == 0 else pip_failure(q)}"))
        held, stripped = claims(r.stdout)
        for name, ver, why in held:
            rc, ch, out = uv_dry_run(uv, venv, [f"{name}>{ver}"], env)
            touched = stack_touched(ch)
            report(rc != 0 or bool(touched),
                   f"{label}: held back {name}=={ver} ({why}): uv on '{name}>{ver}': "
                   + (f"exit {rc}" if rc else f"would touch {touched}" if touched else "installs cleanly"))
            rc, ch, out = uv_dry_run(uv, venv, [f"{name}=={ver}"], env)
            report(rc == 0 and not stack_touched(ch), f"{label}: {name}=={ver} itself keeps the stack")
        for req, why in stripped:
            # uv ignores Requires-Python upper bounds (its documented policy); pip, like
            # the spec, honours them: a strip for Requires-Python is put to pip too
            rc, ch, out = uv_dry_run(uv, venv, [req], env)
            touched = stack_touched(ch)
            uv_says = f"exit {rc}" if rc else f"would touch {touched}" if touched else "installs cleanly"
            p = subprocess.run([os.path.join(venv, "bin", "python"), "-m", "pip", "install", "--dry-run",
                                "-q", req], capture_output=True, text=True, env=env, timeout=1800)
            pip_says = f"exit {p.returncode}" if p.returncode else "installs"
            report(rc != 0 or bool(touched) or p.returncode != 0,
                   f"{label}: stripped '{req}' ({why[-90:]}): uv: {uv_says}; pip: {pip_says}")
    after = e2elib.installed(venv)
    report(before == after, "the venv is unchanged by all of it (dry runs only)")
    print(f"\n{len(lines) - fails} passed, {fails} failed")
    if a.keep:
        print("work dir:", work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if fails else 0)


main()
