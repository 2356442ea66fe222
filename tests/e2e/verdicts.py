#!/usr/bin/python3
"""check answers the question it is asked, and the plan installs as a whole (issue 14,
items 1, 8 and 9), judged by the real uv and pip.

Against the fixture index on 127.0.0.1, in a real venv holding the fake ROCm 7.2 stack:
  - a breaker two and three levels down (rr-deep 1.1 -> rr-deep-mid>=2 -> rr-deep-mid 2.0
    pins another torchaudio; rr-top one level up): real uv and pip given the line as
    written replace torchaudio and torch; check fails (exit 1) with the whole chain; the
    plan pins the line (or holds the dependency) with that chain, uncut, in text and
    JSON, and uv and pip given the plan keep the stack;
  - check is the installers' verdict: where packages are met in an order that lets the
    installed torch be decided first, uv and pip keep it, and so does check (exit 0);
    in the other order uv replaces it, and check fails;
  - a package whose build needs torch (flash-attn, sdist only) is taken out of the plan
    with the command that builds it against the installed torch: given the plan, uv and
    pip install the rest; given the input, both fail to build it in isolation; the
    printed command (--no-build-isolation) works with both;
  - conflicts the stack plays no part in (a version no index has, two lines that
    exclude each other) exit 2 with the whole derivation, plan and check alike, never
    blaming the stack; real uv and pip refuse the same input."""
import importlib.util
import json
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2elib as E  # noqa: E402

FAIL_CLOSED = "rocm-resolve failed, no plan: see its error above\n"
TORCHAUDIO = "2.9.0+rocm7.2.0.gite3c6ee2b"


def main():
    uv = E.require_uv()
    spec = importlib.util.spec_from_file_location("snap", os.path.join(E.SRC, "tests", "cli", "stack-file-test.py"))
    snap = importlib.util.module_from_spec(spec)
    argv, sys.argv = sys.argv, sys.argv[:1]
    spec.loader.exec_module(snap)
    sys.argv = argv
    schema = json.load(open(os.path.join(E.SRC, "data", "plan.schema.json")))
    work = tempfile.mkdtemp(prefix="rr-verdicts-")
    tap = E.Tap()
    check = tap.check

    try:
        v72 = E.build_venv(os.path.join(work, "v72"), "rocm72")
        with E.Index() as idx:
            simple = idx.simple()
            cache = os.path.join(work, "cache")

            def write(text):
                p = os.path.join(work, "requirements.txt")
                with open(p, "w") as fh:
                    fh.write(text)
                return p

            def plan(text, *extra):
                return E.rr(["--venv", v72, "--cache-dir", cache, "-i", simple, *extra, write(text)])

            def rr_check(text):
                return E.rr(["check", "--venv", v72, "--cache-dir", cache, "-i", simple, write(text)])

            def uv_on(text, *extra):
                return E.uv_dry_run(uv, v72, simple, text, os.path.join(work, "uvc"), extra)

            def pip_on(text, *extra):
                return E.pip_dry_run(v72, simple, text, work, extra)

            def keeps_stack(v):
                return v.rc == 0 and not ({"torch", "torchaudio", "torchvision", "triton"} & set(v.uninstall))

            # ---- item 1: the breaker two and three levels down
            raw_uv, raw_pip = uv_on("rr-deep\n"), pip_on("rr-deep\n")
            check("the world is dangerous: uv and pip given 'rr-deep' replace torchaudio (rr-deep-mid 2.0)",
                  "torchaudio" in raw_uv.uninstall and "torchaudio" in raw_pip.uninstall and
                  raw_uv.install.get("rr-deep-mid") == "2.0", f"{raw_uv}\n{raw_pip}")
            chain = ("rr-deep 1.1 -> rr-deep-mid>=2 -> rr-deep-mid 2.0 requires torchaudio==2.4.1; "
                     f"the protected torchaudio is {TORCHAUDIO}")
            c = rr_check("rr-deep\n")
            check("check fails (exit 1) naming the whole chain and what the plan does instead",
                  c.returncode == 1 and f"requirements.txt:1: rr-deep: {chain}; the plan has rr-deep==1.0" in c.stderr
                  and "stays intact" not in c.stderr, c.stderr)
            r = plan("rr-deep\n")
            check("the plan pins rr-deep==1.0 with the chain, held back",
                  r.returncode == 0 and f"rr-deep==1.0  # held back: {chain} (asked: rr-deep)" in r.stdout,
                  r.stdout + r.stderr)
            check("real uv and pip given the plan take rr-deep 1.0 and keep the stack",
                  all(keeps_stack(v) and v.install.get("rr-deep") == "1.0" for v in (uv_on(r.stdout), pip_on(r.stdout))),
                  r.stdout)
            r = plan("rr-top\n")
            top = "rr-top 2.0 -> rr-deep>=1.1 -> " + chain
            check("three levels down: the held-back line names the whole chain, uncut",
                  r.returncode == 0 and f"rr-top==1.0  # held back: {top} (asked: rr-top)" in r.stdout and
                  "[...]" not in r.stdout, r.stdout)
            c = rr_check("rr-top\n")
            check("check: the chain from the line as written", c.returncode == 1 and f"rr-top: {top}; " in c.stderr,
                  c.stderr)
            raw_uv = uv_on("rr-top\n")
            check("real uv given 'rr-top' takes rr-top 2.0 and replaces torchaudio (the claim holds)",
                  raw_uv.install.get("rr-top") == "2.0" and "torchaudio" in raw_uv.uninstall, raw_uv)
            r = plan("rr-deep-kit\n", "--format", "json")
            j = json.loads(r.stdout) if r.returncode == 0 else None
            hb = j and [h for h in j["held_back"] if h["name"] == "rr-deep"]
            check("kept at the top, held below: JSON held_back names rr-deep 1.0, the newest 1.1, and the chain",
                  j and j["decisions"][0]["action"] == "keep" and hb and hb[0]["version"] == "1.0" and
                  hb[0]["newest"] == "1.1" and hb[0]["why"] == chain, r.stdout + r.stderr)
            ch = j and j["changes"]
            check("JSON changes: what uv and pip would do through the line, the chain, what the plan does instead",
                  j and j["as_written"] and j["breaks_stack"] and len(ch) == 1 and ch[0]["name"] == "torchaudio" and
                  ch[0]["version"] == "2.4.1" and ch[0]["why"] == "rr-deep-kit 1.0 -> " + chain and
                  ch[0]["instead"] == "the plan holds rr-deep at 1.0" and not ch[0]["uv_only"], r.stdout)
            if j:
                snap.validate(schema, j, "plan rr-deep-kit")
            check("the JSON plan matches data/plan.schema.json", j and not snap.failures, r.stdout)
            vu, vp = uv_on("\n".join(j["plan"]) + "\n" if j else ""), pip_on("\n".join(j["plan"]) + "\n" if j else "")
            check("real uv and pip given that plan keep the stack and take rr-deep 1.0",
                  all(keeps_stack(v) and v.install.get("rr-deep") == "1.0" for v in (vu, vp)), f"{vu}\n{vp}")

            # ---- explaining holds: what it reads is fetched a level at a time, not a release
            # at a time (issue 17); rr-hold-lib 2.0's files answer 300 ms late
            slow = idx.simple("/_fault/slow/300/rr_hold_lib-2.0")
            hold = "rr-hold-a\nrr-hold-b\nrr-hold-lib<2\nrr-hold-lib2<2\n"
            idx.control("reset")
            r = E.rr(["--venv", v72, "--cache-dir", os.path.join(work, "cache-hold"), "-i", slow, "-vv", write(hold)])
            order = idx.control("order?a=in:rr_hold_lib2-2.0-py3&b=out:rr_hold_lib-2.0-py3")
            check("the holds' second level is asked for together: rr-hold-lib2 2.0 before rr-hold-lib 2.0 answers",
                  r.returncode == 0 and "rr-hold-a==1.0" not in r.stdout and order.get("order") == "before" and
                  "rr_hold_lib-2.0" in r.stderr and "rr_hold_lib2-2.0" in r.stderr, f"{order}\n{r.stdout}{r.stderr}")

            # ---- check is the installers' verdict: the order packages are met in
            first = "accelerate\nrr-parent\n"
            vu, vp = uv_on(first), pip_on(first)
            c = rr_check(first)
            check("torch decided first (accelerate): uv and pip keep the stack, and check passes (exit 0)",
                  keeps_stack(vu) and keeps_stack(vp) and c.returncode == 0 and "dependencies checked" in c.stderr,
                  f"{vu}\n{vp}\n{c.stderr}")
            second = "rr-parent\naccelerate\n"
            vu = uv_on(second)
            c = rr_check(second)
            check("rr-held met first: uv takes rr-held 1.1 and replaces torch, and check fails naming that line",
                  "torch" in vu.uninstall and vu.install.get("rr-held") == "1.1" and c.returncode == 1 and
                  "requirements.txt:1: rr-parent: rr-parent 2.0 -> rr-held 1.1 requires torch==2.8.0" in c.stderr and
                  "accelerate:" not in c.stderr, f"{vu}\n{c.stderr}")

            # ---- item 8: a build that needs torch
            text = "flash-attn\nrequests\n"
            raw_uv, raw_pip = uv_on(text), pip_on(text)
            check("the world is dangerous: uv and pip given 'flash-attn' fail to build it in isolation (no torch there)",
                  raw_uv.rc != 0 and raw_pip.rc != 0 and "torch" in raw_uv.log and "flash" in raw_uv.log,
                  raw_uv.log[-1500:] + "\n---\n" + raw_pip.log[-1500:])
            r = plan(text)
            cmd = "pip install --no-build-isolation flash-attn==2.8.3"
            check("the plan takes flash-attn out, saying why and what builds it against the installed torch",
                  r.returncode == 0 and re.search(r"^#   \S+:1: flash-attn: ", r.stdout, re.M) and cmd in r.stdout and
                  not re.search(r"^flash-attn", r.stdout, re.M) and "stripped 'flash-attn'" in r.stderr and
                  "github.com/ROCm/flash-attention" in r.stderr, r.stdout + r.stderr)
            vu, vp = uv_on(r.stdout), pip_on(r.stdout)
            check("real uv and pip given the plan install the rest as a whole",
                  all(keeps_stack(v) and "requests" in v.install and "flash-attn" not in v.install for v in (vu, vp)),
                  f"{vu.log[-1500:]}\n{vp.log[-1500:]}")
            vu = uv_on("flash-attn==2.8.3\n", "--no-build-isolation")
            vp = pip_on("flash-attn==2.8.3\n", "--no-build-isolation")
            check("the printed command works: uv and pip with --no-build-isolation build it against the venv's torch",
                  all(keeps_stack(v) and v.install.get("flash-attn") == "2.8.3" for v in (vu, vp)),
                  f"{vu.log[-1500:]}\n{vp.log[-1500:]}")
            r = plan("rr-needs-fa\nrequests\n")
            check("a line that needs flash-attn goes too, naming it and the command to run first",
                  r.returncode == 0 and re.search(r"^#   \S+:1: rr-needs-fa: ", r.stdout, re.M) and "needs flash-attn" in r.stdout and
                  cmd + " first" in r.stdout, r.stdout + r.stderr)
            c = rr_check(text)
            check("check: the build is no stack change (exit 0), but it is said",
                  c.returncode == 0 and "stripped 'flash-attn'" in c.stderr, c.stderr)

            # ---- item 9: conflicts the stack plays no part in
            for name, text, needles in (
                    ("a version no index has", "einops==99.0\nrequests\n",
                     ["requirements.txt:1: 'einops==99.0' cannot be installed, with the ROCm stack or without it",
                      "no version of einops matches"]),
                    ("two lines that exclude each other", "numpy<2\nopencv-python-headless>=4.12\n",
                     ["'numpy<2' and ", "requirements.txt:2: 'opencv-python-headless>=4.12' exclude each other",
                      "depends on numpy<2.3.0,>=2", "And because "])):
                vu, vp = uv_on(text), pip_on(text)
                check(f"{name}: real uv and pip refuse the input", vu.rc != 0 and vp.rc != 0, f"{vu.log}\n{vp.log}")
                r = plan(text)
                check(f"{name}: the plan fails closed (exit 2) with the whole derivation",
                      r.returncode == 2 and r.stdout == FAIL_CLOSED and all(s in r.stderr for s in needles),
                      r.stdout + r.stderr)
                c = rr_check(text)
                check(f"{name}: check exits 2 with the derivation and never blames the stack",
                      c.returncode == 2 and all(s in c.stderr for s in needles) and "break the ROCm stack" not in c.stderr,
                      c.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return tap.status()


if __name__ == "__main__":
    sys.exit(main())
