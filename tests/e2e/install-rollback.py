"""`rocm-resolve install` with the real pip and uv against the fixture index (issue 9 item 4).

A venv holding the ROCm 6.4 layout, where pytorch-triton-rocm owns the triton/ module, and a
project needing liger-kernel, which depends on PyPI's triton. pip has no --excludes, so for
pip the plan treats that dependency as a conflict: liger-kernel is stripped, said on stderr.
The user then forces PyPI triton anyway (an extra requirement after `--`): install removes
the triton pip put over the protected module and puts pytorch-triton-rocm's bytes back;
every RECORD hash of the protected distributions matches again. uv, given the exclusions
(install opts in to them), installs liger-kernel and never brings triton: nothing to repair."""
import base64
import csv
import hashlib
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2elib as E  # noqa: E402

checks = {"passed": 0, "failed": 0}


def check(cond, what, detail=""):
    checks["passed" if cond else "failed"] += 1
    print(("ok   " if cond else "FAIL ") + what)
    if not cond and detail:
        print("     " + str(detail).replace("\n", "\n     "))


def record_problems(venv, names):
    probs = []
    for sp in E._site_packages(venv):
        for d in sorted(os.listdir(sp)):
            if not d.endswith(".dist-info"):
                continue
            meta = open(os.path.join(sp, d, "METADATA"), encoding="utf-8").read()
            name = E.norm(meta.split("Name:", 1)[1].split("\n", 1)[0].strip())
            if name not in names:
                continue
            for row in csv.reader(open(os.path.join(sp, d, "RECORD"))):
                if len(row) < 2 or not row[1].startswith("sha256="):
                    continue
                try:
                    data = open(os.path.join(sp, row[0]), "rb").read()
                except OSError as e:
                    probs.append(f"{row[0]}: {e}")
                    continue
                got = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                if got != row[1][7:]:
                    probs.append(f"{row[0]}: differs")
    return probs


def main():
    uv = E.find_uv()
    if not os.access(E.EXE, os.X_OK):
        E.skip(f"{E.EXE} not built")
    work = tempfile.mkdtemp(prefix="rr-e2e-rollback-")
    try:
        protected = {E.norm(n) for n, *_ in E.LAYOUTS["rocm64"]["stack"]}
        with E.Index() as idx:
            req = os.path.join(work, "requirements.txt")
            with open(req, "w") as f:
                f.write("liger-kernel\n")
            for tool in ("pip", "uv"):
                if tool == "uv" and not uv:
                    print("# uv not found: the uv half is skipped")
                    continue
                venv = E.build_venv(os.path.join(work, f"venv-{tool}"), "rocm64")
                env = E.clean_env(XDG_CACHE_HOME=os.path.join(work, f"cache-{tool}"),
                                  XDG_STATE_HOME=os.path.join(work, f"state-{tool}"),
                                  RR_SYSROOT=os.path.join(work, "no-gpu"),
                                  PIP_CACHE_DIR=os.path.join(work, "pip-cache"),
                                  UV_CACHE_DIR=os.path.join(work, "uv-cache"),
                                  PATH=os.path.dirname(uv) + ":" + os.environ.get("PATH", "") if uv
                                  else os.environ.get("PATH", ""))
                forced = ["triton"] if tool == "pip" else []
                r = E.rr(["install", "--installer", tool, "--index-url", idx.simple(), "--venv", venv, req,
                          "--", "--index-url", idx.simple(), *forced], env=env, timeout=300)
                have = E.installed(venv)
                log = f"exit {r.returncode}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}"
                # the e2e torch is metadata only (no torch.cuda): verify's torch stage fails
                # there, so the verdict judged here is integrity's, and no installer failure
                check(r.returncode in (0, 1) and "integrity: PASS" in r.stdout
                      and "the installer failed" not in r.stderr,
                      f"{tool}: install succeeds and verify's integrity passes", log)
                if tool == "pip":
                    check("liger-kernel" not in have and "stripped 'liger-kernel'" in r.stderr,
                          "pip: liger-kernel (needs PyPI triton) is stripped, and stderr says so",
                          f"{have}\n{r.stderr}")
                else:
                    check("liger-kernel" in have, f"{tool}: liger-kernel is installed", have)
                check(not record_problems(venv, protected),
                      f"{tool}: every RECORD hash of the protected distributions matches",
                      record_problems(venv, protected))
                check("triton" not in have and have.get("pytorch-triton-rocm") == "3.4.0",
                      f"{tool}: PyPI triton is not installed next to pytorch-triton-rocm", have)
                if tool == "pip":
                    check("ships module 'triton' of protected pytorch-triton-rocm" in r.stderr
                          and "removed:" in r.stderr and "restored from the snapshot:" in r.stderr,
                          "pip: install names the triton it removed and the files it restored", r.stderr)
                    if os.environ.get("RR_TRANSCRIPT"):
                        with open(os.environ["RR_TRANSCRIPT"], "w") as f:
                            f.write(r.stderr)
                else:
                    check("the protected stack matches the snapshot" in r.stderr
                          and "restored" not in r.stderr,
                          "uv: the exclusions kept triton out; nothing to repair", r.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{checks['passed']} passed, {checks['failed']} failed")
    return 1 if checks["failed"] else 0


sys.exit(main())
