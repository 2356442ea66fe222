#!/usr/bin/python3
"""A torch-bound ROCm counterpart's extensions checked against the installed torch before the
plan takes it (issue 29 item 2), with real uv.

The ROCm 7.2 fixture venv gets torch/lib/libc10.so, libtorch.so and libc10_hip.so, built here
with gcc, defining the symbols torch-scatter-rocm 2.1.2.post7's extensions need
(fixtures/index/world.txt: its wheel carries gcc-built ELF members that link them through
TheRock's RUNPATH, and the HIP runtime, libamdhip64.so.7, which this machine lacks).
torch-scatter-rocm 2.1.2.post8 and torch-sparse-rocm 0.6.18.post7 also need
c10::detail::torchInternalAssertFail, which this torch does not define. For
`torch-scatter` and `torch-sparse`:
  - torch-scatter-rocm 2.1.2.post8 is turned down, naming the missing symbol and the torch;
    the plan keeps the installer off it (!=2.1.2.post8) and its comment says that 2.1.2.post7's
    two extensions were checked, libamdhip64.so.7 not being found here said as unknown;
  - torch-sparse has no fitting build: the line is stripped, naming the symbol and the torch;
  - --lock pins torch-scatter-rocm==2.1.2.post7 and names no torch-sparse-rocm;
  - real uv installs the plan: torch-scatter-rocm 2.1.2.post7 in, no torch-sparse-rocm, the
    stack untouched;
  - with the wheels unreadable (the index's files are garbage) the fit is said to be unknown,
    with the reason.
The old code took torch-scatter-rocm 2.1.2.post8 and torch-sparse-rocm unread ("unknown").
The bytes fetched for each candidate's libraries are printed."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2elib as E  # noqa: E402

PROTECTED = ("torch", "torchvision", "torchaudio", "triton")
TORCH = "2.9.1+rocm7.2.0.lw.git7e1940d4"
MISSING = ("c10::detail::torchInternalAssertFail(char const*, char const*, unsigned int, "
           "char const*, char const*)")
# the symbols the stub libraries define (mangled), by library
STUBS = {
    "libc10.so": ["_ZN3c106detail14torchCheckFailEPKcS2_jS2_"],
    "libtorch.so": ["_ZN5torch8autograd12VariableInfoC1Ev"],
    "libc10_hip.so": ["_ZN3c103hip19getCurrentHIPStreamEa"],
}


def stub_torch(site):
    lib = os.path.join(site, "torch", "lib")
    os.makedirs(lib, exist_ok=True)
    for name, syms in STUBS.items():
        src = os.path.join(lib, name + ".c")
        with open(src, "w") as fh:
            fh.write("".join(f'int rr_def{i}(void) __asm__("{s}");\nint rr_def{i}(void) {{ return {i}; }}\n'
                             for i, s in enumerate(syms)))
        subprocess.run(["gcc", "-shared", "-fPIC", "-o", os.path.join(lib, name), src, f"-Wl,-soname,{name}"],
                       check=True, capture_output=True)
        os.unlink(src)


def fetched(idx, key):
    """bytes and requests of the range answers for key's files, from the server's count"""
    st = idx.control("stats")
    return {p: n for p, n in st.get("paths", {}).items() if key in p and p.endswith(".whl")}


def main():
    if not os.access(E.EXE, os.X_OK):
        E.skip(f"{E.EXE} not built")
    if not shutil.which("gcc"):
        E.skip("no gcc to build the fixture shared objects")
    uv = E.find_uv()
    if not uv:
        E.skip("uv not found")
    t = E.Tap()
    work = tempfile.mkdtemp(prefix="rr-counterpart-symbols-")
    try:
        venv = E.build_venv(os.path.join(work, "v"), "rocm72")
        stub_torch(E._site_packages(venv)[0])
        req = os.path.join(work, "requirements.txt")
        with open(req, "w") as fh:
            fh.write("torch-scatter\ntorch-sparse\n")
        with E.Index() as idx:
            base = ["--venv", venv, "--cache-dir", os.path.join(work, "cache"), "-i", idx.simple()]
            p = E.rr(base + [req])
            lines = [x.split("#")[0].strip() for x in p.stdout.splitlines()]
            print(p.stdout + p.stderr)
            print("# paths asked of the index for the wheels read:",
                  fetched(idx, "torch_s"))
            t.check("the plan exits 0", p.returncode == 0, p.stderr)
            t.check("the release built for another torch is kept out, the one that fits is the plan's",
                    "torch-scatter-rocm!=2.1.2.post8" in lines, p.stdout)
            t.check("the comment says the extensions' symbols were checked, and what is unknown",
                    "its extensions' symbols were checked against the installed torch "
                    "(torch-scatter-rocm 2.1.2.post8 was built against another torch" in p.stdout
                    and "torch-scatter-rocm 2.1.2.post7: 2 shared objects" in p.stdout
                    and ("not found on this machine, so unknown: libamdhip64.so.7" in p.stdout
                         or os.path.exists("/opt/rocm/lib/libamdhip64.so.7")), p.stdout)
            t.check("the turned-down release names the missing symbol and the torch",
                    f"torch {TORCH} does not define: {MISSING}" in p.stdout, p.stdout)
            t.check("torch-sparse, with no build that fits, is stripped naming the symbol",
                    not any(x.startswith("torch-sparse") for x in lines)
                    and "torch-sparse: its ROCm build does not fit the installed torch: torch-sparse-rocm "
                    "0.6.18.post7 was built against another torch: torch_sparse/_convert_cuda.so needs a "
                    f"symbol of torch's that torch {TORCH} does not define: {MISSING}" in p.stdout
                    and "# 0 kept, 1 replaced, 0 pinned, 1 stripped" in p.stdout, p.stdout + p.stderr)
            j = json.loads(E.rr(base + ["--format", "json", req]).stdout)
            dec = {d["name"]: d for d in j["decisions"]}
            t.check("JSON: torch-sparse stripped as a counterpart, torch-scatter replaced",
                    dec.get("torch-sparse", {}).get("action") == "strip"
                    and dec.get("torch-sparse", {}).get("reason") == "counterpart"
                    and dec.get("torch-scatter", {}).get("output") == "torch-scatter-rocm!=2.1.2.post8",
                    {k: (d.get("action"), d.get("reason"), d.get("output")) for k, d in dec.items()})
            lk = E.rr(base + ["--lock", req])
            t.check("--lock pins the release that fits and names no torch-sparse-rocm",
                    "torch-scatter-rocm==2.1.2.post7 \\" in lk.stdout and "torch-sparse-rocm" not in
                    "".join(x.split("#")[0] for x in lk.stdout.splitlines()), lk.stdout)
            before, files = E.installed(venv), E.stack_files(venv)
            u = E.uv_install_plan(uv, venv, p.stdout, work)
            have = E.installed(venv)
            t.check("real uv installs the plan: the release that fits, nothing else, the stack untouched",
                    u.returncode == 0 and have.get("torch-scatter-rocm") == "2.1.2.post7"
                    and "torch-sparse-rocm" not in have
                    and all(have.get(n) == before.get(n) for n in PROTECTED)
                    and E.stack_files(venv) == files, u.stdout + u.stderr)
            # the wheels unreadable: their fit is unknown, and why
            g = E.rr(["--venv", venv, "--cache-dir", os.path.join(work, "cache2"), "-i",
                      idx.simple("/_fault/garbage"), req])
            t.check("an unreadable wheel: the fit is unknown, with the reason",
                    g.returncode == 0 and "torch-scatter-rocm" in g.stdout
                    and "is unknown (their symbols were not read: " in g.stdout
                    and "not a zip file" in g.stdout, g.stdout + g.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return t.status()


if __name__ == "__main__":
    sys.exit(main())
