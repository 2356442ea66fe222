#!/usr/bin/python3
"""The plan as people pipe it (issue 8), judged by the real uv and pip.

Against the fixture index on 127.0.0.1, in a real venv holding the fake ROCm 7.2
stack (and the ROCm 6.4 layout, where pytorch-triton-rocm owns `triton/`):
  - fail closed: when rocm-resolve fails, `rocm-resolve ... | uv pip install -r -`
    and the same into pip exit non-zero naming rocm-resolve, with and without
    pipefail; stdout holds only the one line every installer rejects;
  - index hand-over: the plan names the index it was resolved against, so uv and
    pip given ONLY the plan (no index option, no index in the environment) find
    the packages there; credentials never appear in it;
  - every change is a decision with its real cause: a top-level requirement whose
    newest release pins another torch is pinned (action pin, reason held-back)
    with that chain; a transitive one is held in the plan; a release bounded only
    by Requires-Python is not pinned; check agrees (exit 1 exactly then);
  - a dependency on a clash-group member (PyPI triton next to pytorch-triton-rocm)
    is a conflict: the older release without it is chosen;
  - a project no index has is an index problem (exit 3), never a silent strip; one
    with no file for this platform cannot be installed at all (exit 2);
  - a multi-line derivation never breaks the file: every plan here is parsed by
    uv and pip (--dry-run)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2elib as E  # noqa: E402

FAIL_CLOSED = "rocm-resolve failed, no plan: see its error above\n"


def main():
    uv = E.require_uv()
    work = tempfile.mkdtemp(prefix="rr-pipeline-")
    tap = E.Tap()
    check = tap.check

    def write(name, text):
        p = os.path.join(work, name)
        with open(p, "w") as fh:
            fh.write(text)
        return p

    try:
        v72 = E.build_venv(os.path.join(work, "v72"), "rocm72")
        v64 = E.build_venv(os.path.join(work, "v64"), "rocm64")
        with E.Index() as idx:
            simple = idx.simple()
            cache = os.path.join(work, "cache")

            def rr(args, venv=v72, **kw):
                return E.rr(["--venv", venv, "--cache-dir", cache] + args, **kw)

            def pipe(shell, pipefail):
                """a shell pipeline as users write it; returns (status, stderr)"""
                env = E.clean_env(UV_CACHE_DIR=os.path.join(work, "uvc"), PATH=os.path.dirname(uv) + ":" + os.environ["PATH"])
                cmd = ("set -o pipefail; " if pipefail else "") + shell
                r = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, env=env, timeout=180)
                return r.returncode, r.stderr

            # ---- fail closed
            missing = os.path.join(work, "no-such-requirements.txt")
            r = rr(["-i", simple, missing])
            check("a failing run leaves only the fail-closed line on stdout",
                  r.returncode == 2 and r.stdout == FAIL_CLOSED, r.stdout + r.stderr)
            for pf in (False, True):
                st, err = pipe(f"{E.EXE} --venv {v72} -i {simple} {missing} | "
                               f"{uv} pip install --dry-run --python {v72}/bin/python -r -", pf)
                check(f"rocm-resolve fails | uv pip install -r - (pipefail={pf}): non-zero, names rocm-resolve",
                      st != 0 and "rocm-resolve failed" in err, f"status {st}\n{err}")
                st, err = pipe(f"{E.EXE} --venv {v72} -i {simple} {missing} | "
                               f"{v72}/bin/python -m pip install --dry-run -r /dev/stdin", pf)
                check(f"rocm-resolve fails | pip install -r /dev/stdin (pipefail={pf}): non-zero, names rocm-resolve",
                      st != 0 and "rocm-resolve failed" in err, f"status {st}\n{err}")

            # ---- index hand-over: the plan alone sends the installer to the right index
            req = write("handover.txt", "rr-parent\n")
            r = rr(["-i", simple, req])
            check("plan names the index it was resolved against",
                  r.returncode == 0 and f"--index-url {simple}\n" in r.stdout, r.stdout + r.stderr)
            planf = write("handover-plan.txt", r.stdout)
            env = E.clean_env(UV_CACHE_DIR=os.path.join(work, "uvc2"))
            u = subprocess.run([uv, "pip", "install", "--dry-run", "--python", f"{v72}/bin/python", "-r", planf],
                               capture_output=True, text=True, env=env, timeout=180)
            check("uv given only the plan resolves on the plan's index (rr-held 1.0, rr-parent)",
                  u.returncode == 0 and "rr-held==1.0" in u.stdout + u.stderr and "rr-parent==2.0" in u.stdout + u.stderr,
                  u.stdout + u.stderr)
            p = subprocess.run([f"{v72}/bin/python", "-m", "pip", "install", "--dry-run", "-r", planf],
                               capture_output=True, text=True, env=E.clean_env(), timeout=180)
            check("pip given only the plan resolves on the plan's index",
                  p.returncode == 0 and "rr-held-1.0" in p.stdout.replace("_", "-").lower(), p.stdout + p.stderr)
            hostport = idx.url[len("http://"):]
            r = rr(["-i", f"http://alice:s3cret@{hostport}/simple/", "--extra-index-url",
                    f"http://bob:hunter2@{hostport}/private/simple/", req])
            # --index-url first: pip lets a file's --index-url line drop the indexes named
            # before it (uv asks the default last wherever its line is)
            check("credentials never reach the plan; --index-url comes before --extra-index-url",
                  r.returncode == 0 and "s3cret" not in r.stdout and "hunter2" not in r.stdout and
                  r.stdout.index("--index-url") < r.stdout.index("--extra-index-url") and
                  "# credentials in index URLs are never written" in r.stdout, r.stdout + r.stderr)
            r = rr(["-i", simple, "--extra-index-url", "https://user:pw@download.pytorch.org/whl/cu121", req])
            check("a credentialed CUDA index from the command line is neither asked nor named",
                  r.returncode == 0 and "download.pytorch.org" not in r.stdout and "pw@" not in r.stderr and
                  "CUDA wheel index" in r.stderr, r.stdout + r.stderr)

            # ---- decisions with their real causes, and check agreeing
            def plan_json(text, venv=v72, extra=()):
                f = write("q.txt", text)
                r = rr(["-i", simple, "--format", "json", *extra, f], venv=venv)
                return r, (json.loads(r.stdout) if r.returncode == 0 else None)

            def check_rc(text, venv=v72):
                f = write("q.txt", text)
                return rr(["check", "-i", simple, f], venv=venv)

            r, j = plan_json("rr-held\n")
            d = j and j["decisions"][0]
            check("top-level held back: action pin, reason held-back, the chain names torch==2.8.0",
                  d and d["action"] == "pin" and d["reason"] == "held-back" and d["output"] == "rr-held==1.0"
                  and "rr-held 1.1 requires torch==2.8.0" in d["why"] and "protected torch" in d["why"],
                  r.stdout + r.stderr)
            c = check_rc("rr-held\n")
            check("check: exit 1 for it, naming file:line and what the plan does instead",
                  c.returncode == 1 and "q.txt:1: rr-held" in c.stderr and "the plan has rr-held==1.0" in c.stderr,
                  c.stderr)
            r, j = plan_json("rr-parent\n")
            check("transitive held back: a held_back entry with its cause, the top line kept",
                  j and j["decisions"][0]["action"] == "keep" and
                  [h["name"] for h in j["held_back"]] == ["rr-held"] and "torch==2.8.0" in j["held_back"][0]["why"]
                  and "rr-held==1.0  # rr-held 1.1 requires torch==2.8.0" in "\n".join(j["plan"]),
                  r.stdout + r.stderr)
            c = check_rc("rr-parent\n")
            check("check: exit 1 for a transitive breaker, the chain from the line as written",
                  c.returncode == 1 and "q.txt:1: rr-parent: rr-parent 2.0 -> rr-held 1.1 requires torch==2.8.0" in c.stderr
                  and "the plan holds rr-held at 1.0" in c.stderr, c.stderr)
            r, j = plan_json("rr-pybound\n")
            check("a release bounded only by Requires-Python is not pinned and no stack reason is claimed",
                  j and j["decisions"][0]["action"] == "keep" and not j["held_back"] and
                  "rr-pybound\n" in "\n".join(j["plan"]) + "\n", r.stdout)
            r, j = plan_json("rr-pyupper\n")
            d = j and j["decisions"][0]
            check("a newer release kept out only by a Requires-Python upper bound, which breaks the stack: "
                  "pinned, the cause naming uv",
                  d and d["action"] == "pin" and d["reason"] == "held-back" and d["output"] == "rr-pyupper==1.0"
                  and "uv ignores the Requires-Python upper bound of rr-pyupper 2.0" in d["why"]
                  and "torch==2.8.0" in d["why"], r.stdout + r.stderr)
            vu = E.uv_dry_run(uv, v72, simple, "rr-pyupper\n", os.path.join(work, "uvc6"))
            check("the claim holds: real uv given the bare line takes rr-pyupper 2.0 and replaces torch",
                  vu.install.get("rr-pyupper") == "2.0" and "torch" in vu.uninstall, vu.log)
            vp = E.pip_dry_run(v72, simple, "rr-pyupper\n", work)
            check("and real pip takes 1.0 (it honours the bound)", vp.install.get("rr-pyupper") == "1.0", vp.log)
            vu = E.uv_dry_run(uv, v72, simple, "\n".join(j["plan"]) + "\n" if j else "", os.path.join(work, "uvc6"))
            check("real uv given the plan takes 1.0 and keeps torch",
                  vu.rc == 0 and vu.install.get("rr-pyupper") == "1.0" and "torch" not in vu.uninstall, vu.log)
            c = check_rc("rr-pybound\nrequests\n")
            check("check: exit 0 when nothing had to change", c.returncode == 0 and "dependencies checked" in c.stderr,
                  c.stderr)
            r, j = plan_json("rr-tritondep\n", venv=v64)
            d = j and j["decisions"][0]
            check("rocm 6.4: a release needing PyPI triton is a conflict; the older one is pinned with the cause",
                  d and d["output"] == "rr-tritondep==1.0" and "triton>=3.0" in d["why"] and
                  "pytorch-triton-rocm" in d["why"] and not j["excludes"], r.stdout + r.stderr)
            r, j = plan_json("rr-tritondep\n", venv=v64, extra=("--uv-excludes", os.path.join(work, "excl.txt")))
            check("with --uv-excludes the newer release is kept and triton is excluded (opt-in)",
                  j and j["decisions"][0]["output"] == "rr-tritondep" and j["excludes"] == ["triton"] and
                  open(os.path.join(work, "excl.txt")).read().splitlines()[-1] == "triton", r.stdout + r.stderr)

            # ---- a project no index has
            f = write("typo.txt", "reqeusts\n")
            r = rr(["-i", simple, f])
            check("a project no index has: exit 3, named, fail-closed stdout",
                  r.returncode == 3 and "'reqeusts'" in r.stderr and r.stdout == FAIL_CLOSED, r.stdout + r.stderr)

            # ---- a bridged project venv: a .pth file reaches the stack's site-packages
            proj = os.path.join(work, "proj-venv")
            subprocess.run([E.PY, "-m", "venv", proj], check=True, env=E.clean_env())
            psite = E._site_packages(proj)[0]
            with open(os.path.join(psite, "_rocm_stack.pth"), "w") as fh:
                fh.write(E._site_packages(v72)[0] + "\n")
            excl = os.path.join(work, "bridged-excludes.txt")
            f = write("bridged.txt", "rr-parent\n")
            r = rr(["-i", simple, "--uv-excludes", excl, f], venv=proj)
            names = [l for l in open(excl).read().splitlines() if not l.startswith("#")] if r.returncode == 0 else []
            check("bridged venv: the plan header names the bridge; --uv-excludes lists the bridged stack",
                  r.returncode == 0 and "# bridged: " in r.stdout and {"torch", "triton"} <= set(names),
                  r.stdout + r.stderr)
            planf = write("bridged-plan.txt", r.stdout)
            vu = E.uv_dry_run(uv, proj, simple, r.stdout, os.path.join(work, "uvc4"), extra=("--excludes", excl))
            check("bridged venv: uv with the excludes installs rr-parent and leaves torch alone",
                  vu.rc == 0 and "rr-parent" in vu.install and "torch" not in vu.install and not vu.uninstall,
                  vu.log)
            vp = E.pip_dry_run(proj, simple, r.stdout, work)
            check("bridged venv: pip sees the bridged torch and installs no torch",
                  vp.rc == 0 and "torch" not in vp.install and "rr-parent" in vp.install, vp.log)
            vu = E.uv_dry_run(uv, proj, simple, r.stdout, os.path.join(work, "uvc5"))
            check("bridged venv: uv without the excludes does not quietly install a torch (it fails)",
                  "torch" not in vu.install, vu.log)

            # ---- --write-testcase: a real run replays offline on the in-memory world
            runner = os.path.join(E.BUILD, "src", "cli", "rr-testcase")
            cons = write("cons.txt", "urllib3<3\n")
            cases = [("rr-parent\nrequests\n-c cons.txt\n", v72, []),
                     ("vllm==0.10.1\npsutil\ntransformers\n", v72, []),
                     ("rr-tritondep\nrr-held\n", v64, ["--uv-excludes", os.path.join(work, "x.txt")]),
                     (open(os.path.join(E.SRC, "demo", "requirements.txt")).read()
                      .replace("-r more-requirements.txt", "").replace("-c constraints.txt", ""), v72, [])]
            for k, (text, venv, extra) in enumerate(cases):
                f = write(f"tc{k}.txt", text)
                tdir = os.path.join(work, f"testcase{k}")
                r = rr(["-i", simple, "--write-testcase", tdir, *extra, f], venv=venv)
                rp = subprocess.run([runner, os.path.join(tdir, "case.t")], capture_output=True, text=True,
                                    timeout=120) if r.returncode == 0 else None
                check(f"--write-testcase {k}: the run replays offline with the same plan, decisions and check",
                      rp is not None and rp.returncode == 0 and "1 passed" in rp.stdout,
                      r.stderr + (rp.stdout if rp else ""))
            # the replay can fail: a changed world changes the outcome
            case_t = os.path.join(work, "testcase0", "case.t")
            t = open(case_t).read().replace("=Req: torch==2.8.0", "=Req: torch>=2.0")
            open(case_t, "w").write(t)
            rp = subprocess.run([runner, case_t], capture_output=True, text=True, timeout=120)
            check("a replayed testcase fails when the world no longer holds rr-held back",
                  rp.returncode == 1 and "rr-held==1.0" in rp.stdout, rp.stdout)
            cons = None

            # ---- check (the hook) without a network: the cache, else the lines alone, said loudly
            f = write("hook.txt", "rr-parent\n")
            hook_cache = os.path.join(work, "hook-cache")
            with E.Index() as idx2:
                first = E.rr(["check", "--venv", v72, "--cache-dir", hook_cache, "-i", idx2.simple(), f])
                dead = idx2.simple()
            r = E.rr(["check", "--refresh", "--venv", v72, "--cache-dir", hook_cache, "-i", dead, f])
            check("check with the index gone answers from the cache, and says so (same verdict)",
                  first.returncode == 1 and r.returncode == 1 and "answered from the cache" in r.stderr and
                  "rr-parent 2.0 -> rr-held 1.1" in r.stderr, first.stderr + "\n---\n" + r.stderr)
            r = E.rr(["check", "--venv", v72, "--cache-dir", os.path.join(work, "empty-cache"), "-i", dead, f])
            check("check with no index and no cache judges the lines alone and says the dependencies were NOT checked",
                  r.returncode == 0 and "were NOT checked" in r.stderr and "dependencies not checked" in r.stderr,
                  r.stderr)
            r = E.rr(["--venv", v72, "--cache-dir", os.path.join(work, "empty-cache"), "-i", dead, f])
            check("plan with no index still fails closed (exit 3), no silent plan",
                  r.returncode == 3 and r.stdout == FAIL_CLOSED, r.stdout + r.stderr)

            # ---- a broken mirror (pages list nothing) vs a project with no file for this platform
            f = write("empty.txt", "requests\n")
            r = rr(["-i", idx.simple("/_fault/emptypages"), "--no-cache", f])
            check("an index page that lists no files: exit 3 naming it, fail-closed stdout",
                  r.returncode == 3 and "'requests'" in r.stderr and r.stdout == FAIL_CLOSED, r.stdout + r.stderr)
            f = write("winonly.txt", "rr-windows-only\nrequests\n")
            r = rr(["-i", simple, f])
            check("files only for another platform: the user's error with or without the stack (exit 2, "
                  "fail-closed), not 'no index has it'",
                  r.returncode == 2 and "'rr-windows-only' cannot be installed" in r.stderr and
                  "no index has" not in r.stderr and r.stdout == FAIL_CLOSED, r.stdout + r.stderr)

            # ---- every plan is a file both installers accept
            for text, venv in (("vllm==0.10.1\npsutil\n", v72), ("rr-held\nrr-parent\n", v72),
                               ("torchvision==0.19.1\n", v72), ("rr-tritondep\n", v64)):
                f = write("valid.txt", text)
                r = rr(["-i", simple, f], venv=venv)
                vu = E.uv_dry_run(uv, venv, simple, r.stdout, os.path.join(work, "uvc3"))
                vp = E.pip_dry_run(venv, simple, r.stdout, work)
                check(f"plan for {text.strip()!r} accepted by uv and pip",
                      r.returncode == 0 and vu.rc == 0 and vp.rc == 0,
                      r.stdout + "\n--- uv\n" + vu.log + "\n--- pip\n" + vp.log)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return tap.status()


if __name__ == "__main__":
    sys.exit(main())
