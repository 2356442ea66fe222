#!/usr/bin/env python3
"""`verify` names extensions that will not load, with no GPU.

A copy of the ROCm 7.2 fixture venv (fixtures/venvs/rocm72) gets real ELF files, built here
with gcc, each listed in its distribution's RECORD with its hash (so integrity still holds):
torch's torch/lib/libc10.so and torch/_C.*.so (the process `verify` models has imported
torch), an extension built for this torch (links libc10.so, relies on `import torch`), one
built for another torch (needs a c10 symbol this libc10.so lacks), a CUDA build linking
libcudart.so.12, a ROCm 7 build whose libamdhip64.so.7 comes from a TheRock-style
_rocm_sdk_core wheel through its RUNPATH, and a ROCm 5 build (libamdhip64.so.5, which this
machine's ld.so.cache may well hold: found or not, it is another major). The sysroot has no
/dev/kfd, so the GPU stages cannot run: the load stage alone fails verify (exit 1) and
names the CUDA-linked and the wrong-torch extensions. The run's time on the whole venv is
printed (and must stay under a second). Without a loadable libelf.so.1 (it is dlopen()ed)
the load stage is unavailable (exit 3), not a verdict. Then --format json, against the
schema's shape, and
`inspect`: the protected stack and what links it (torch's dependants found by linkage, as
torch-bound extensions declare no torch requirement), nothing else."""
import base64
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

SRC = os.environ["RR_SRCDIR"]
EXE = os.path.join(os.environ["RR_BUILDDIR"], "src", "cli", "rocm-resolve")
SITE_REL = os.path.join("lib", "python3.12", "site-packages")
EXT = "cpython-312-x86_64-linux-gnu.so"


def skip(msg):
    print(f"SKIP: {msg}")
    sys.exit(77)


def gcc(out, src, flags=(), cxx=False):
    os.makedirs(os.path.dirname(out), exist_ok=True)
    srcfile = out + (".cc" if cxx else ".c")
    with open(srcfile, "w") as f:
        f.write(src)
    r = subprocess.run(["g++" if cxx else "gcc", "-shared", "-fPIC", "-O1", "-o", out, srcfile] + list(flags),
                       capture_output=True, text=True)
    os.unlink(srcfile)
    if r.returncode:
        raise RuntimeError(r.stderr)


def record_line(site, rel):
    data = open(os.path.join(site, rel), "rb").read()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{rel},sha256={digest},{len(data)}\n"


def add_to_record(site, distinfo, rels):
    path = os.path.join(site, distinfo, "RECORD")
    lines = open(path).read().splitlines(keepends=True)
    own = [l for l in lines if l.startswith(f"{distinfo}/RECORD,")]
    rest = [l for l in lines if l not in own]
    with open(path, "w") as f:
        f.writelines(rest + [record_line(site, r) for r in rels] + own)


def new_dist(site, name, version, rels):
    distinfo = f"{name.replace('-', '_')}-{version}.dist-info"
    os.makedirs(os.path.join(site, distinfo))
    with open(os.path.join(site, distinfo, "METADATA"), "w") as f:
        f.write(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\n")
    with open(os.path.join(site, distinfo, "INSTALLER"), "w") as f:
        f.write("pip\n")
    with open(os.path.join(site, distinfo, "RECORD"), "w") as f:
        for r in rels + [f"{distinfo}/METADATA", f"{distinfo}/INSTALLER"]:
            f.write(record_line(site, r))
        f.write(f"{distinfo}/RECORD,,\n")


def build(venv):
    site = os.path.join(venv, SITE_REL)
    torch_info = [d for d in os.listdir(site) if d.startswith("torch-") and d.endswith(".dist-info")][0]
    # torch: libc10.so (c10::foo, c10::bar) and the extension `import torch` loads
    gcc(os.path.join(site, "torch/lib/libc10.so"),
        "namespace c10 { int foo(int x) { return x + 1; } int bar() { return 2; } }\n",
        ["-Wl,-soname,libc10.so"], cxx=True)
    gcc(os.path.join(site, f"torch/_C.{EXT}"),
        "namespace c10 { int bar(); }\nextern \"C\" int PyInit__C(void) { return c10::bar(); }\n",
        ["-L" + os.path.join(site, "torch/lib"), "-lc10", "-Wl,--enable-new-dtags,-rpath,$ORIGIN/lib"], cxx=True)
    add_to_record(site, torch_info, ["torch/lib/libc10.so", f"torch/_C.{EXT}"])
    # torch extensions: no RUNPATH to torch/lib, as torch.utils.cpp_extension builds them
    c10 = ["-L" + os.path.join(site, "torch/lib"), "-lc10"]
    gcc(os.path.join(site, f"torch_good/_ops.{EXT}"),
        "namespace c10 { int foo(int); }\nextern \"C\" int PyInit__ops(void) { return c10::foo(1); }\n",
        c10, cxx=True)
    new_dist(site, "torch-good", "1.0", [f"torch_good/_ops.{EXT}"])
    # built against another torch: its c10 had a function this one lacks
    gcc(os.path.join(site, f"torch_scatter/_scatter_hip.{EXT}"),
        "namespace c10 { namespace detail { int torchCheckFail(const char *, int); } int foo(int); }\n"
        "extern \"C\" int PyInit__scatter_hip(void) { return c10::detail::torchCheckFail(\"x\", 1) + c10::foo(2); }\n",
        c10, cxx=True)
    new_dist(site, "torch-scatter", "2.1.2", [f"torch_scatter/_scatter_hip.{EXT}"])
    # a CUDA build: libcudart.so.12 (the stub it was linked against is not installed)
    stub = tempfile.mkdtemp(prefix="rr-cudart-")
    gcc(os.path.join(stub, "libcudart.so.12"), "int cudaMalloc(void **p, unsigned long n) { return 0; }\n",
        ["-Wl,-soname,libcudart.so.12"])
    gcc(os.path.join(site, f"cupy/_core/core.{EXT}"),
        "int cudaMalloc(void **, unsigned long);\nint PyInit_core(void) { void *p; return cudaMalloc(&p, 1); }\n",
        ["-L" + stub, "-l:libcudart.so.12"])
    new_dist(site, "cupy-cuda12x", "13.6.0", [f"cupy/_core/core.{EXT}"])
    # ROCm 7 through TheRock's layout, and a ROCm 5 build
    gcc(os.path.join(site, "_rocm_sdk_core/lib/libamdhip64.so.7"), "int hipInit(unsigned f) { return (int)f; }\n",
        ["-Wl,-soname,libamdhip64.so.7"])
    new_dist(site, "rocm-sdk-core", "7.2.0", ["_rocm_sdk_core/lib/libamdhip64.so.7"])
    gcc(os.path.join(site, f"cupy_rocm7/_core.{EXT}"),
        "int hipInit(unsigned);\nint PyInit__core(void) { return hipInit(0); }\n",
        ["-L" + os.path.join(site, "_rocm_sdk_core/lib"), "-l:libamdhip64.so.7",
         "-Wl,--enable-new-dtags,-rpath,$ORIGIN/../_rocm_sdk_core/lib"])
    new_dist(site, "cupy-rocm-7-0", "14.2.0", [f"cupy_rocm7/_core.{EXT}"])
    gcc(os.path.join(stub, "libamdhip64.so.5"), "int hipInit(unsigned f) { return (int)f; }\n",
        ["-Wl,-soname,libamdhip64.so.5"])
    gcc(os.path.join(site, f"cupy_rocm5/_core.{EXT}"),
        "int hipInit(unsigned);\nint PyInit__core(void) { return hipInit(0); }\n",
        ["-L" + stub, "-l:libamdhip64.so.5"])
    new_dist(site, "cupy-rocm-5-0", "13.0.0", [f"cupy_rocm5/_core.{EXT}"])
    shutil.rmtree(stub)


def main():
    if not shutil.which("gcc") or not shutil.which("g++"):
        skip("no gcc/g++ to build the fixture shared objects")
    bad = []
    tmp = tempfile.mkdtemp(prefix="rr-elf-verify-")
    try:
        venv = os.path.join(tmp, "venv")
        shutil.copytree(os.path.join(SRC, "fixtures", "venvs", "rocm72"), venv, symlinks=True)
        build(venv)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "CONDA", "LD_"))}
        env["RR_SYSROOT"] = os.path.join(SRC, "fixtures", "venvs", "sysroot-rocm72")
        env["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
        best = None
        for _ in range(3):
            t0 = time.monotonic()
            r = subprocess.run([EXE, "verify", "--venv", venv], capture_output=True, text=True, env=env)
            dt = time.monotonic() - t0
            best = dt if best is None else min(best, dt)
        out = r.stdout
        print(out)
        print(f"verify on the whole fixture venv (rocm72 and 6 distributions with ELF files): {best * 1000:.1f} ms "
              "(best of 3; all four stages, the GPU ones end at once for want of /dev/kfd)")
        if r.returncode != 1:
            bad.append(f"exit {r.returncode}, expected 1 (the load stage fails): {r.stderr}")
        load = [l for l in out.splitlines() if l.startswith("load: ")]
        if not load or not load[0].startswith("load: FAIL"):
            bad.append(f"the load stage does not fail: {load}")
        for want in ["cupy-cuda12x 13.6.0: links the CUDA library libcudart.so.12 (not found here): CUDA code "
                     "does not run on a ROCm GPU",
                     "torch-scatter 2.1.2: torch_scatter/_scatter_hip.cpython-312-x86_64-linux-gnu.so: 1 undefined "
                     "symbol: c10::detail::torchCheckFail(char const*, int) (not in the libraries it loads from "
                     "torch 2.9.1+rocm7.2.0.lw.git7e1940d4)",
                     "cupy-rocm-5-0 13.0.0: cupy_rocm5/_core.cpython-312-x86_64-linux-gnu.so: links libamdhip64.so.5, "
                     "the HIP runtime of ROCm 5; this environment's is ROCm 7 (torch's HIP 7.2.26015-fc0010cf6a)",
                     "integrity: PASS"]:
            if want not in out:
                bad.append(f"verify does not say {want!r}")
        for fine in ["torch-good", "cupy-rocm-7-0", "rocm-sdk-core", "torch 2.9"]:
            if any(l.strip().startswith(fine) for l in out.splitlines()):
                bad.append(f"{fine} loads, yet verify names it")
        if best >= 1.0:
            bad.append(f"verify took {best:.2f} s on the fixture venv: the load check must be well under a second")

        r = subprocess.run([EXE, "verify", "--format", "json", "--venv", venv], capture_output=True, text=True,
                           env=env)
        doc = json.loads(r.stdout)
        # the structural checker the other schema tests use (tests/cli/stack-file-test.py)
        spec = importlib.util.spec_from_file_location("snap", os.path.join(SRC, "tests", "cli",
                                                                            "stack-file-test.py"))
        snap = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(snap)
        snap.validate(json.load(open(os.path.join(SRC, "data", "verify.schema.json"))), doc, "verify")
        bad += snap.failures
        if doc["schema"] != 3 or doc["exit_code"] != 1 or r.returncode != 1:
            bad.append(f"json: schema {doc['schema']}, exit_code {doc['exit_code']}, status {r.returncode}")
        stage = [s for s in doc["stages"] if s["name"] == "load"]
        dists = {d["name"]: d for d in stage[0]["dists"]} if stage else {}
        if not stage or stage[0]["verdict"] != "fail":
            bad.append(f"json: the load stage is {stage}")
        kinds = {n: sorted(p["kind"] for p in d["problems"]) for n, d in dists.items()}
        want = {"cupy-cuda12x": ["not-found", "cuda"], "torch-scatter": ["symbols"],
                "cupy-rocm-5-0": ["rocm-major"] if dists.get("cupy-rocm-5-0", {}).get("loads")
                else ["not-found", "rocm-major"],
                "torch-good": [], "cupy-rocm-7-0": [], "rocm-sdk-core": [], "torch": []}
        for n, k in want.items():
            if sorted(kinds.get(n, ["(absent)"])) != sorted(k):
                bad.append(f"json: {n}: problems {kinds.get(n)}, expected {k}")
        if dists.get("torch-scatter", {}).get("links") != ["torch"]:
            bad.append(f"json: torch-scatter links {dists.get('torch-scatter', {}).get('links')}, expected torch")
        if dists.get("torch-scatter", {}).get("loads") is not False or dists.get("cupy-cuda12x", {}).get("loads"):
            bad.append("json: loads is wrong for torch-scatter or cupy-cuda12x")

        # no libelf.so.1 to load (an unloadable one first on the path): nothing is checked,
        # which is said, not taken for a verdict on the venv
        nolib = os.path.join(tmp, "nolibelf")
        os.makedirs(nolib)
        open(os.path.join(nolib, "libelf.so.1"), "w").close()
        r = subprocess.run([EXE, "verify", "--venv", venv], capture_output=True, text=True,
                           env=dict(env, LD_LIBRARY_PATH=nolib))
        if r.returncode != 3 or "load: UNAVAILABLE the load check could not run: cannot load libelf.so.1" not in r.stdout \
                or "install libelf1" not in r.stdout:
            bad.append(f"verify without libelf: exit {r.returncode}, expected 3 and the load stage unavailable:\n{r.stdout}")
        r = subprocess.run([EXE, "inspect", "--venv", venv], capture_output=True, text=True,
                           env=dict(env, LD_LIBRARY_PATH=nolib))
        if r.returncode != 0 or "native code:    not checked: cannot load libelf.so.1" not in r.stdout:
            bad.append(f"inspect without libelf: exit {r.returncode}:\n{r.stdout}")

        # inspect: the protected stack and what links it, nothing else
        r = subprocess.run([EXE, "inspect", "--venv", venv], capture_output=True, text=True, env=env)
        native = r.stdout[r.stdout.find("native code:"):]
        print(native)
        for want in ["  torch 2.9.1+rocm7.2.0.lw.git7e1940d4: 2 ELF files load\n",
                     "  torch-scatter 2.1.2 (links torch): 1 ELF file will not load\n",
                     "      - torch_scatter/_scatter_hip.cpython-312-x86_64-linux-gnu.so: 1 undefined symbol: "
                     "c10::detail::torchCheckFail(char const*, int)",
                     "  torch-good 1.0 (links torch): 1 ELF file loads\n",
                     "  rocm-sdk-core 7.2.0: 1 ELF file loads\n",
                     "  cupy-rocm-7-0 14.2.0 (links rocm-sdk-core): 1 ELF file loads\n"]:
            if want not in native:
                bad.append(f"inspect does not say {want!r}")
        for unrelated in ["cupy-cuda12x", "cupy-rocm-5-0"]:
            if unrelated in native:
                bad.append(f"inspect names {unrelated}, which links nothing of the protected stack")
        if r.returncode != 0:
            bad.append(f"inspect exits {r.returncode}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if bad:
        print("FAILED:\n  " + "\n  ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
