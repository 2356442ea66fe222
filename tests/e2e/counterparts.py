#!/usr/bin/python3
"""ROCm builds of CUDA-only projects in the plan (issue 29 item 2), with real uv.

On the fixture index (cupy-cuda12x and its ROCm 7 and ROCm 5 builds, onnxruntime-gpu
and onnxruntime-rocm, torch-scatter as an sdist and torch-scatter-rocm):
  - in the ROCm 7.2 venv, the plan for cupy-cuda12x>=13, onnxruntime-gpu and torch-scatter
    replaces each with its ROCm build (cupy-rocm-7-0>=13, onnxruntime-rocm,
    torch-scatter-rocm), says so in a comment and on stderr, says that torch-scatter-rocm's
    fit to the installed torch is unknown (this venv's torch has no torch/lib to check its
    extensions against: tests/e2e/counterpart-symbols.py checks them), keeps the CUDA
    names in the exclusions, and
    JSON's decisions say "counterpart"; check names the replacement; --lock pins the
    ROCm builds with their hashes (the newest torch-scatter-rocm, its symbols unread);
  - real uv installs that plan into the venv, the stack untouched (versions and files);
  - in a ROCm 6.4 venv no ROCm 6 build of cupy exists (only the ROCm 5 and 7 ones): the
    line is stripped, naming the builds looked for, never cupy-rocm-5-0 or -7-0.
The old code stripped all three as CUDA-only or kept torch-scatter, an sdist whose
build needs torch."""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2elib as E  # noqa: E402

PROTECTED = ("torch", "torchvision", "torchaudio", "triton")


def main():
    uv = E.require_uv()
    t = E.Tap()
    work = tempfile.mkdtemp(prefix="rr-counterparts-")
    try:
        venv = E.build_venv(os.path.join(work, "v"), "rocm72")
        req = os.path.join(work, "requirements.txt")
        with open(req, "w") as fh:
            fh.write("cupy-cuda12x>=13\nonnxruntime-gpu\ntorch-scatter\neinops\n")
        with E.Index() as idx:
            simple = idx.simple()
            base = ["--venv", venv, "--cache-dir", os.path.join(work, "cache"), "-i", simple]
            p = E.rr(base + [req])
            lines = [x.split("#")[0].strip() for x in p.stdout.splitlines()]
            t.check("the plan exits 0", p.returncode == 0, p.stderr)
            t.check("each CUDA-only line is replaced by its ROCm build",
                    "cupy-rocm-7-0>=13" in lines and "onnxruntime-rocm" in lines
                    and "torch-scatter-rocm" in lines and "einops" in lines
                    and not any(x.startswith(("cupy-cuda", "onnxruntime-gpu", "torch-scatter ",
                                              "torch-scatter=")) or x == "torch-scatter"
                                for x in lines), p.stdout)
            t.check("a comment says what replaced what, and why",
                    "# replaced: cupy-cuda12x>=13 is CUDA-only" in p.stdout
                    and "cupy-rocm-7-0 is its ROCm build" in p.stdout, p.stdout)
            t.check("the header counts the replaced lines apart from the kept ones",
                    "# 1 kept, 3 replaced, 0 pinned, 0 stripped" in p.stdout, p.stdout)
            t.check("stderr says each replacement",
                    "'cupy-cuda12x>=13' replaced" in p.stderr and "'onnxruntime-gpu' replaced" in p.stderr
                    and "'torch-scatter' replaced" in p.stderr, p.stderr)
            t.check("the torch-bound build's fit to the installed torch is said to be unknown, and why",
                    "torch-scatter-rocm" in p.stdout and "is unknown (their symbols were not read: the "
                    "installed torch has no " in p.stdout, p.stdout)
            j = json.loads(E.rr(base + ["--format", "json", req]).stdout)
            reasons = {d["name"]: (d["reason"], d["output"]) for d in j["decisions"]}
            t.check("JSON: the decisions say counterpart, with the ROCm build as the output",
                    reasons.get("cupy-cuda12x") == ("counterpart", "cupy-rocm-7-0>=13")
                    and reasons.get("onnxruntime-gpu") == ("counterpart", "onnxruntime-rocm"),
                    reasons)
            excl = os.path.join(work, "excludes.txt")
            E.rr(base + ["--uv-excludes", excl, req])
            names = open(excl).read().split() if os.path.exists(excl) else []
            t.check("the CUDA builds stay in uv's exclusions", {"cupy-cuda12x", "onnxruntime-gpu"} <= set(names),
                    names)
            c = E.rr(["check"] + base + [req])
            t.check("check fails on the CUDA lines and names their replacement",
                    c.returncode == 1 and "the plan has cupy-rocm-7-0>=13" in c.stderr, c.stderr)
            lk = E.rr(base + ["--lock", req])
            t.check("--lock pins the ROCm builds with their hashes",
                    "cupy-rocm-7-0==14.2.0 \\" in lk.stdout and "onnxruntime-rocm==1.22.2.post3 \\" in lk.stdout
                    and "torch-scatter-rocm==2.1.2.post8 \\" in lk.stdout, lk.stdout)
            before = E.installed(venv)
            files = E.tree_digest(venv)
            u = E.uv_install_plan(uv, venv, p.stdout, work)
            have = E.installed(venv)
            t.check("real uv installs the plan: the ROCm builds in, the stack untouched",
                    u.returncode == 0 and have.get("cupy-rocm-7-0") == "14.2.0"
                    and have.get("onnxruntime-rocm") == "1.22.2.post3"
                    and all(have.get(n) == before.get(n) for n in PROTECTED) and E.tree_digest(venv) == files,
                    u.stdout + u.stderr)
            # ROCm 6.4: cupy has ROCm 5 and 7 builds here, no ROCm 6 one
            p = E.rr(["-v", "--venv", os.path.join(E.SRC, "fixtures", "venvs", "pytorch-rocm64"), "--cache-dir",
                      os.path.join(work, "cache"), "-i", simple, req])
            t.check("ROCm 6.4: cupy-cuda12x stripped, naming the ROCm 6 builds looked for",
                    p.returncode == 0 and "cupy-rocm" not in "".join(x.split("#")[0] for x in p.stdout.splitlines())
                    and "cupy-rocm-6-4" in p.stderr + p.stdout and "cupy-rocm-6-0" in p.stderr + p.stdout
                    and "onnxruntime-rocm" in p.stdout, p.stdout + p.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return t.status()


if __name__ == "__main__":
    sys.exit(main())
