"""A real wheel for the CLI tests that install (install-test.py, rough-edges-test.py):
files {relpath: bytes}, METADATA, WHEEL and a RECORD with sha256, as pip and uv expect."""
import base64
import hashlib
import os
import subprocess
import zipfile

TORCH = "2.9.1+rocm7.2.0.lw.git7e1940d4"
TRITON = "3.5.1+rocm7.2.0.gita272dfa8"


def wheel(outdir, name, version, files, requires=()):
    """a real wheel: files {relpath: bytes}, METADATA, WHEEL, RECORD with sha256"""
    dist = f"{name}-{version}"
    fn = os.path.join(outdir, f"{name}-{version}-py3-none-any.whl")
    di = f"{dist}.dist-info"
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n" + "".join(
        f"Requires-Dist: {r}\n" for r in requires)
    files = dict(files)
    files[f"{di}/METADATA"] = meta.encode()
    files[f"{di}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: rocm-resolve-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = []
    for rel, data in files.items():
        h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{rel},sha256={h},{len(data)}")
    record.append(f"{di}/RECORD,,")
    files[f"{di}/RECORD"] = ("\n".join(record) + "\n").encode()
    with zipfile.ZipFile(fn, "w") as z:
        for rel, data in files.items():
            z.writestr(rel, data)
    return fn


def fake_rocm_venv(tmp, src):
    """a real venv (tmp/venv) holding a fake ROCm torch and triton, installed by real pip:
    (venv, torch's files, pip's error or ""), or a string saying why none can be made"""
    venv = os.path.join(tmp, "venv")
    if not os.path.exists("/usr/bin/python3"):
        return "/usr/bin/python3 missing"
    r = subprocess.run(["/usr/bin/python3", "-m", "venv", venv], capture_output=True, text=True)
    if r.returncode:
        return "cannot create a venv (python3-venv missing?)\n" + r.stderr
    lib = os.path.join(src, "fixtures", "gpu", "venvs", "_lib", "torch")
    torch_files = {f"torch/{f}": open(os.path.join(lib, f), "rb").read()
                   for f in os.listdir(lib) if f.endswith(".py")}
    torch_files["torch/lib/libtorch_hip.so"] = b"\x7fELF fake torch library\n"
    wheels = [
        wheel(tmp, "torch", TORCH, torch_files,
              [f'triton=={TRITON}; platform_system == "Linux"']),
        wheel(tmp, "triton", TRITON, {
            "triton/__init__.py": b"__version__ = '3.5.1'\n",
            "triton/_C/libtriton.so": b"\x7fELF ROCm triton\n" * 64,
            "triton/backends/amd/driver.py": b"# amd backend\n"}),
    ]
    r = subprocess.run([os.path.join(venv, "bin", "python"), "-m", "pip", "install", "-q",
                        "--no-index", "--no-deps"] + wheels, capture_output=True, text=True)
    return venv, torch_files, r.stderr if r.returncode else ""
