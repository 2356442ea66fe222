#!/usr/bin/env python3
"""`rocm-resolve install` drives real pip against the fixture index, then
verify (through the HIP test double and a fake torch) passes; after a triton
file is clobbered, verify fails naming the file, and install prints the
install puts the exact bytes back from its snapshot; real pip forced to reinstall
other builds over the stack is rolled back too, every RECORD hash matching afterwards.

Needs: /usr/bin/python3 with venv and pip (Debian python3-venv), the fixture
index server (tests/index/serve.py), the HIP test doubles (tests/gpu/hip6)."""
import base64
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

from fakewheel import TORCH, TRITON, fake_rocm_venv, wheel

src = os.environ["RR_SRCDIR"]
build = os.environ["RR_BUILDDIR"]
exe = os.path.join(build, "src", "cli", "rocm-resolve")
checks = {"passed": 0, "failed": 0}


def check(cond, what, detail=""):
    key = "passed" if cond else "failed"
    checks[key] += 1
    print(("ok   " if cond else "FAIL ") + what)
    if not cond and detail:
        print("     " + detail.replace("\n", "\n     "))


def record_problems(site, names):
    """RECORD entries (with a sha256) of the named dists whose file is missing or differs"""
    probs = []
    for d in sorted(os.listdir(site)):
        if not d.endswith(".dist-info") or d.split("-")[0] not in names:
            continue
        for line in open(os.path.join(site, d, "RECORD")):
            rel, h = (line.strip().split(",") + ["", ""])[:2]
            if not h.startswith("sha256="):
                continue
            try:
                got = base64.urlsafe_b64encode(hashlib.sha256(open(os.path.join(site, rel), "rb").read())
                                               .digest()).rstrip(b"=").decode()
            except OSError as e:
                probs.append(f"{d}: {rel}: {e}")
                continue
            if got != h[7:]:
                probs.append(f"{d}: {rel}: differs")
    return probs


def main():
    if not os.path.exists("/usr/bin/python3"):
        print("SKIP: /usr/bin/python3 missing")
        return 77
    tmp = tempfile.mkdtemp(prefix="rr-install-")
    server = None
    try:
        made = fake_rocm_venv(tmp, src)
        if isinstance(made, str):
            print("SKIP: " + made)
            return 77
        venv, torch_files, problem = made
        py = os.path.join(venv, "bin", "python")
        check(not problem, "fake ROCm torch and triton installed into a real venv", problem)

        server = subprocess.Popen(["/usr/bin/python3", os.path.join(src, "tests", "index", "serve.py"),
                                   "--world", os.path.join(src, "fixtures", "index", "world.txt")],
                                  stdout=subprocess.PIPE, text=True)
        url = server.stdout.readline().strip()
        req = os.path.join(tmp, "requirements.txt")
        with open(req, "w") as f:
            f.write(f"--index-url {url}/simple/\ntqdm\nidna\ntorch==2.4.0\n")

        env = dict(os.environ)
        env.pop("VIRTUAL_ENV", None)
        env.update({
            "RR_SYSROOT": os.path.join(src, "fixtures", "gpu", "sysfs", "mi300"),
            "LD_LIBRARY_PATH": os.path.join(build, "tests", "gpu", "hip6"),
            "RR_FAKE_HIP_MODE": "ok", "RR_FAKE_TORCH": "ok",
            "XDG_CACHE_HOME": os.path.join(tmp, "cache"), "XDG_STATE_HOME": os.path.join(tmp, "state"),
            "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_CACHE_DIR": "1",
        })
        r = subprocess.run([exe, "install", "--installer", "pip", "--venv", venv, req],
                           capture_output=True, text=True, env=env, timeout=300)
        check(r.returncode == 0, "install exits 0 after pip and a passing verify",
              f"exit {r.returncode}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}")
        check("kernel: PASS" in r.stdout and "torch: PASS" in r.stdout and "integrity: PASS" in r.stdout,
              "verify after install: integrity, kernel and torch pass", r.stdout)
        r = subprocess.run([py, "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True)
        have = dict(l.split("==", 1) for l in r.stdout.split() if "==" in l)
        check(have.get("tqdm") and have.get("idna"), "pip installed the requested packages", r.stdout)
        check(have.get("torch") == TORCH and have.get("triton") == TRITON,
              "the ROCm torch and triton are untouched (torch==2.4.0 was pinned back)", r.stdout)

        # a CUDA triton "installed over" the ROCm one: same path, other bytes
        site = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              capture_output=True, text=True).stdout.strip()
        with open(os.path.join(site, "triton", "_C", "libtriton.so"), "wb") as f:
            f.write(b"\x7fELF CUDA triton from PyPI\n")
        r = subprocess.run([exe, "verify", "--venv", venv], capture_output=True, text=True, env=env,
                           timeout=300)
        check(r.returncode == 1, "verify exits 1 after the clobber", f"exit {r.returncode}\n{r.stdout}{r.stderr}")
        check("integrity: FAIL" in r.stdout and "triton/_C/libtriton.so" in r.stdout,
              "verify names the clobbered triton file", r.stdout)
        # install puts the clobbered bytes back (the file was rewritten in place before it
        # ran: the snapshot from the first install still holds them)
        r = subprocess.run([exe, "install", "--installer", "pip", "--venv", venv, req],
                           capture_output=True, text=True, env=env, timeout=300)
        check(r.returncode == 0 and "triton/_C/libtriton.so" in r.stderr and "integrity: PASS" in r.stdout,
              "install after the clobber puts triton's bytes back and verify passes",
              f"exit {r.returncode}\n{r.stdout}{r.stderr}")
        check("--force-reinstall" not in r.stderr and "uv pip install" not in r.stderr,
              "no reinstall commands (the ROCm wheels cannot be downloaded again)", r.stderr)
        check(not record_problems(site, ["torch", "triton"]), "every RECORD hash matches after the repair",
              record_problems(site, ["torch", "triton"]))

        # real pip forced to reinstall over the stack: same names and versions, other bytes
        # (a rebuilt triton with a CUDA backend, a torch with another library)
        other = os.path.join(tmp, "other-builds")
        os.makedirs(other)
        wheel(other, "torch", TORCH, dict(torch_files, **{"torch/lib/libtorch_hip.so": b"\x7fELF other\n"}),
              [f'triton=={TRITON}; platform_system == "Linux"'])
        wheel(other, "triton", TRITON, {
            "triton/__init__.py": b"__version__ = '3.5.1'  # CUDA\n",
            "triton/_C/libtriton.so": b"\x7fELF CUDA triton\n",
            "triton/backends/nvidia/driver.py": b"# nvidia backend\n"})
        r = subprocess.run([exe, "install", "--installer", "pip", "--venv", venv, req, "--",
                            "--force-reinstall", "--find-links", other],
                           capture_output=True, text=True, env=env, timeout=300)
        pip_replaced = "Successfully installed" in r.stderr + r.stdout or "restored from the snapshot" in r.stderr
        check(r.returncode == 0 and "restored from the snapshot" in r.stderr and "integrity: PASS" in r.stdout,
              "pip --force-reinstall over the stack: install restores it and verify passes",
              f"exit {r.returncode}\n{r.stdout}{r.stderr}")
        check(pip_replaced and not record_problems(site, ["torch", "triton"]),
              "pip --force-reinstall over the stack: every RECORD hash matches afterwards",
              record_problems(site, ["torch", "triton"]))
        check(not os.path.exists(os.path.join(site, "triton", "backends", "nvidia")),
              "pip --force-reinstall over the stack: the other build's own files are removed", r.stderr)
        with open(os.path.join(tmp, "transcript-force-reinstall.txt"), "w") as f:
            f.write(r.stderr)
        if os.environ.get("RR_TRANSCRIPT"):
            shutil.copy(os.path.join(tmp, "transcript-force-reinstall.txt"), os.environ["RR_TRANSCRIPT"])

        # the load stage after install checks what the installer added or changed: an
        # extension linking a CUDA library arrives (a name no policy knows), next to an older
        # broken one the installer did not touch, which `verify` names and install does not
        if shutil.which("gcc"):
            kdir = os.path.join(tmp, "kernels")
            os.makedirs(kdir)
            for name, code, flags in (
                    ("libcudart.so.12", "int cudaMalloc(void **p, unsigned long n) { return 0; }\n",
                     ["-Wl,-soname,libcudart.so.12"]),
                    ("_k.so", "int cudaMalloc(void **, unsigned long);\n"
                     "int PyInit__k(void) { void *p; return cudaMalloc(&p, 1); }\n", ["-L" + kdir, "-l:libcudart.so.12"]),
                    ("_old.so", "int gone_fn(void);\nint PyInit__old(void) { return gone_fn(); }\n", [])):
                with open(os.path.join(kdir, "k.c"), "w") as f:
                    f.write(code)
                subprocess.run(["gcc", "-shared", "-fPIC", "-o", os.path.join(kdir, name), os.path.join(kdir, "k.c")]
                               + flags, check=True)
            kw = wheel(kdir, "fastkernels", "1.0", {"fastkernels/__init__.py": b"",
                                                   "fastkernels/_k.so": open(os.path.join(kdir, "_k.so"), "rb").read()})
            ow = wheel(kdir, "oldkernels", "0.1", {"oldkernels/__init__.py": b"",
                                                  "oldkernels/_old.so": open(os.path.join(kdir, "_old.so"), "rb").read()})
            r = subprocess.run([py, "-m", "pip", "install", "-q", "--no-index", "--no-deps", ow],
                               capture_output=True, text=True)
            r = subprocess.run([exe, "verify", "--venv", venv], capture_output=True, text=True, env=env, timeout=300)
            check(r.returncode == 1 and "oldkernels 0.1: oldkernels/_old.so: 1 undefined symbol: gone_fn" in r.stdout,
                  "verify names an extension that will not load (every distribution)", f"exit {r.returncode}\n{r.stdout}")
            req2 = os.path.join(tmp, "requirements-kernels.txt")
            with open(req2, "w") as f:
                f.write(f"--index-url {url}/simple/\nfastkernels @ file://{kw}\n")
            r = subprocess.run([exe, "install", "--installer", "pip", "--venv", venv, req2],
                               capture_output=True, text=True, env=env, timeout=300)
            check(r.returncode == 1 and "load: FAIL" in r.stdout and "(the distributions the installer added or changed)"
                  in r.stdout and "fastkernels 1.0: links the CUDA library libcudart.so.12 (not found here)" in r.stdout,
                  "install: the CUDA-linked extension it added fails the load stage, exit 1",
                  f"exit {r.returncode}\n{r.stdout}{r.stderr}")
            check("oldkernels" not in r.stdout, "install: an extension the installer did not touch is not its finding",
                  r.stdout)
    finally:
        if server:
            server.terminate()
            server.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{checks['passed']} passed, {checks['failed']} failed")
    return 1 if checks["failed"] else 0


sys.exit(main())
