"""Shared helpers for the end-to-end tests (tests/e2e/*.py) and bench/resolve.py.

Everything here is real: the fixture index is tests/index/serve.py on 127.0.0.1,
the venvs are made with `/usr/bin/python3 -m venv`, the ROCm builds in them are
tiny but genuine wheels installed by the venv's own pip, and the installers whose
answers we judge are the real uv and pip. No network beyond 127.0.0.1."""
import base64
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

SRC = os.environ.get("RR_SRCDIR") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("RR_BUILDDIR") or os.path.join(SRC, "build")
EXE = os.path.join(BUILD, "src", "cli", "rocm-resolve")
PY = "/usr/bin/python3"
SKIP = 77


def skip(msg):
    print(f"SKIP: {msg}")
    sys.exit(SKIP)


def find_uv():
    cand = os.path.join(SRC, ".venv-tools", "bin", "uv")
    if os.access(cand, os.X_OK):
        return cand
    return shutil.which("uv")


def require_uv():
    """uv's path, after skipping (77) the test when the binary is not built or uv is not found"""
    if not os.access(EXE, os.X_OK):
        skip(f"{EXE} not built")
    uv = find_uv()
    if not uv:
        skip("uv not found")
    return uv


def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def clean_env(**extra):
    """An environment with no index, cache or venv settings leaking in from the caller."""
    env = {k: v for k, v in os.environ.items()
           if not re.match(r"^(UV_|PIP_|VIRTUAL_ENV$|CONDA_|PYTHON|XDG_CACHE_HOME$|http_proxy|https_proxy|HTTP_PROXY|HTTPS_PROXY|ALL_PROXY|all_proxy)", k)}
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INPUT"] = "1"
    env["UV_NO_PROGRESS"] = "1"
    env["NO_COLOR"] = "1"
    env.update(extra)
    return env


# ---------------------------------------------------------------- fixture index

class Index:
    """tests/index/serve.py as a context manager; .url is http://127.0.0.1:PORT"""

    def __init__(self, world=None, extra_args=()):
        self.world = world or os.path.join(SRC, "fixtures", "index", "world.txt")
        self.extra_args = list(extra_args)  # serve.py options (--auth USER:PASS@PREFIX)

    def __enter__(self):
        self.proc = subprocess.Popen([PY, os.path.join(SRC, "tests", "index", "serve.py"), "--world", self.world]
                                     + self.extra_args,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("http://127.0.0.1:"):
            err = self.proc.stderr.read()
            self.proc.kill()
            raise RuntimeError(f"fixture index did not start: {line!r} {err}")
        self.url = line
        return self

    def __exit__(self, *a):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def simple(self, prefix=""):
        return f"{self.url}{prefix}/simple/"

    def control(self, what):
        """the answer of /_control/WHAT (reset, stats, order?a=...&b=...), parsed"""
        import urllib.request
        with urllib.request.urlopen(f"{self.url}/_control/{what}", timeout=10) as r:
            body = r.read()
        return json.loads(body) if body.strip().startswith(b"{") else {}


# ---------------------------------------------------------------- wheels and venvs

def make_wheel(outdir, name, version, requires=(), files=None, extras=(), requires_python=None):
    """Write a real wheel (METADATA, WHEEL, RECORD + package files); return its path.
    files maps archive paths to text; default: <name>/__init__.py."""
    dn = re.sub(r"[-_.]+", "_", name).lower()
    info = f"{dn}-{version}.dist-info"
    meta = [f"Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}",
            f"Summary: fake {name} build for rocm-resolve end-to-end tests"]
    if requires_python:
        meta.append(f"Requires-Python: {requires_python}")
    meta += [f"Provides-Extra: {e}" for e in extras]
    meta += [f"Requires-Dist: {r}" for r in requires]
    content = dict(files or {f"{dn}/__init__.py": f'__version__ = "{version}"\n'})
    content[f"{info}/METADATA"] = "\n".join(meta) + "\n\n"
    content[f"{info}/WHEEL"] = "Wheel-Version: 1.0\nGenerator: rocm-resolve-e2e\nRoot-Is-Purelib: true\nTag: py3-none-any\n\n"
    record = []
    for path, text in content.items():
        data = text.encode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    content[f"{info}/RECORD"] = "\n".join(record) + "\n"
    path = os.path.join(outdir, f"{dn}-{version}-py3-none-any.whl")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for p, text in content.items():
            zi = zipfile.ZipInfo(p, date_time=(2024, 1, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            z.writestr(zi, text)
    return path


def torch_files(version, hip):
    return {
        "torch/__init__.py": f'from .version import __version__\n',
        "torch/version.py": (
            "from typing import Optional\n\n"
            "__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'xpu']\n"
            f"__version__ = '{version}'\n"
            "debug = False\n"
            "cuda: Optional[str] = None\n"
            "git_version = '7e1940d400000000000000000000000000000000'\n"
            f"hip: Optional[str] = '{hip}'\n"
            "xpu: Optional[str] = None\n"),
    }


TORCH_BASE_REQS = ["filelock", "typing-extensions>=4.10.0", 'setuptools; python_version >= "3.12"',
                   "sympy>=1.13.3", "networkx>=2.5.1", "jinja2", "fsspec>=0.8.5"]
TORCH_EXTRAS_REQS = ['optree>=0.13.0; extra == "optree"', 'opt-einsum>=3.3; extra == "opt-einsum"']
LINUX = 'platform_system == "Linux" and platform_machine == "x86_64"'

# plain dependencies the images carry, at versions the fixture world also has
BASE_DEPS = [
    ("filelock", "3.19.1", []), ("typing_extensions", "4.15.0", []), ("mpmath", "1.3.0", []),
    ("sympy", "1.14.0", ["mpmath<1.4,>=1.1.0"]), ("networkx", "3.4.2", []),
    ("MarkupSafe", "3.0.2", []), ("Jinja2", "3.1.6", ["MarkupSafe>=2.0"]), ("fsspec", "2025.9.0", []),
    ("numpy", "2.3.3", []), ("pillow", "11.3.0", []), ("packaging", "25.0", []),
]

LAYOUTS = {
    # rocm/pytorch ROCm 7.2 image: triton is AMD's own build, pinned exactly by torch
    "rocm72": {
        "torch": "2.9.1+rocm7.2.0.lw.git7e1940d4",
        "hip": "7.2.26015-fc0010cf6a",
        "stack": [
            ("torch", "2.9.1+rocm7.2.0.lw.git7e1940d4",
             TORCH_BASE_REQS + [f"triton==3.5.1+rocm7.2.0.gita272dfa8; {LINUX}"] + TORCH_EXTRAS_REQS,
             "torch"),
            ("torchvision", "0.24.0+rocm7.2.0.gitb919bd0c",
             ["numpy", "torch==2.9.1", "pillow!=8.3.*,>=5.3.0", 'scipy; extra == "scipy"'], "torchvision"),
            ("torchaudio", "2.9.0+rocm7.2.0.gite3c6ee2b", ["torch==2.9.1"], "torchaudio"),
            ("triton", "3.5.1+rocm7.2.0.gita272dfa8", ['cmake<4.0,>=3.20; extra == "build"'], "triton"),
        ],
    },
    # download.pytorch.org/whl/rocm6.4: the triton module comes from pytorch-triton-rocm
    "rocm64": {
        "torch": "2.8.0+rocm6.4",
        "hip": "6.4.43482-0f2d60242",
        "stack": [
            ("torch", "2.8.0+rocm6.4",
             TORCH_BASE_REQS + [f"pytorch-triton-rocm==3.4.0; {LINUX}"] + TORCH_EXTRAS_REQS, "torch"),
            ("torchvision", "0.23.0+rocm6.4", ["numpy", "torch==2.8.0", "pillow!=8.3.*,>=5.3.0"], "torchvision"),
            ("torchaudio", "2.8.0+rocm6.4", ["torch==2.8.0"], "torchaudio"),
            ("pytorch-triton-rocm", "3.4.0", ["filelock"], "triton"),
        ],
    },
}


def build_venv(path, layout, wheeldir=None, from_files=False):
    """A real venv (with pip) holding the fake ROCm stack of LAYOUTS[layout] plus the
    plain dependencies the images carry, installed by its own pip from local wheels.
    from_files: the stack installed as the images install it, each from its file's URL
    with a #sha256= fragment, so its direct_url.json records the file and its hash."""
    spec = LAYOUTS[layout]
    own_tmp = wheeldir is None
    wheeldir = wheeldir or tempfile.mkdtemp(prefix="rr-e2e-wheels-")
    wanted = []
    for name, ver, reqs in BASE_DEPS:
        make_wheel(wheeldir, name, ver, reqs)
        wanted.append(f"{name}=={ver}")
    for name, ver, reqs, module in spec["stack"]:
        if module == "torch":
            files = torch_files(ver, spec["hip"])
        else:
            files = {f"{module}/__init__.py": f'__version__ = "{ver}"\n'}
            if module == "triton":
                files["triton/backends/amd/driver.py"] = "# ROCm backend\n"
        make_wheel(wheeldir, name, ver, reqs, files=files,
                   extras=[m.group(1) for r in reqs for m in [re.search(r'extra == "([^"]+)"', r)] if m])
        wanted.append(f"{name}=={ver}")
    subprocess.run([PY, "-m", "venv", path], check=True, env=clean_env())
    if from_files:
        stack = {norm(name) for name, _, _, _ in spec["stack"]}
        files = [os.path.join(wheeldir, f) for f in os.listdir(wheeldir) if f.endswith(".whl")]
        wanted = [w for w in wanted if norm(w.split("==")[0]) not in stack] + [
            "file://%s#sha256=%s" % (f, hashlib.sha256(open(f, "rb").read()).hexdigest())
            for f in files if norm(os.path.basename(f).split("-")[0]) in stack]
    r = subprocess.run([os.path.join(path, "bin", "python"), "-m", "pip", "install", "-q", "--no-index",
                        "--find-links", wheeldir] + wanted, capture_output=True, text=True, env=clean_env())
    if own_tmp:
        shutil.rmtree(wheeldir, ignore_errors=True)
    if r.returncode != 0:
        raise RuntimeError(f"pip could not build the {layout} venv:\n{r.stdout}{r.stderr}")
    return path


def installed(venv):
    """{normalized name: version} of a venv, read from its dist-info directories."""
    out = {}
    for sp in _site_packages(venv):
        for d in os.listdir(sp):
            if d.endswith(".dist-info"):
                meta = open(os.path.join(sp, d, "METADATA"), encoding="utf-8").read()
                n = re.search(r"^Name: (.+)$", meta, re.M).group(1).strip()
                v = re.search(r"^Version: (.+)$", meta, re.M).group(1).strip()
                out[norm(n)] = v
    return out


def _site_packages(venv):
    lib = os.path.join(venv, "lib")
    return [os.path.join(lib, d, "site-packages") for d in os.listdir(lib) if d.startswith("python")]


# ---------------------------------------------------------------- running things

def rr(args, stdin=None, env=None, timeout=120, cwd=None):
    """Run rocm-resolve; returns CompletedProcess (text)."""
    return subprocess.run([EXE] + list(args), input=stdin, capture_output=True, text=True,
                          env=env or clean_env(), timeout=timeout, cwd=cwd)


class Verdict:
    """What an installer says it would do: install {name: version}, uninstall {name: version}."""

    def __init__(self, tool, rc, install, uninstall, log):
        self.tool, self.rc, self.install, self.uninstall, self.log = tool, rc, install, uninstall, log

    def __repr__(self):
        return f"<{self.tool} rc={self.rc} +{self.install} -{self.uninstall}>"


UV_LINE = re.compile(r"^ ([+-]) ([A-Za-z0-9._-]+)==(\S+)")


def uv_dry_run(uv, venv, index_url, plan_text, cache, extra=(), req_path=None):
    """plan_text on stdin, or the file req_path (its -r/-c relative to itself)"""
    env = clean_env(UV_CACHE_DIR=cache)
    r = subprocess.run([uv, "pip", "install", "--dry-run", "--python", os.path.join(venv, "bin", "python"),
                        "--index-url", index_url, "--cache-dir", cache] + list(extra) + ["-r", req_path or "-"],
                       input=plan_text, capture_output=True, text=True, env=env, timeout=180)
    inst, uninst = {}, {}
    for line in (r.stdout + r.stderr).splitlines():
        m = UV_LINE.match(line)
        if m:
            (inst if m.group(1) == "+" else uninst)[norm(m.group(2))] = m.group(3)
    return Verdict("uv", r.returncode, inst, uninst, r.stdout + r.stderr)


def uv_install_plan(uv, venv, plan_text, work):
    """real uv installs plan_text (written to work/plan.txt) into venv: its result"""
    plan = os.path.join(work, "plan.txt")
    with open(plan, "w") as fh:
        fh.write(plan_text)
    return subprocess.run([uv, "pip", "install", "--python", os.path.join(venv, "bin", "python"), "-r", plan],
                          capture_output=True, text=True, env=uv_env(work))


def pip_dry_run(venv, index_url, plan_text, workdir, extra=()):
    report = os.path.join(workdir, "pip-report.json")
    if os.path.exists(report):
        os.unlink(report)
    reqfile = os.path.join(workdir, "pip-input.txt")
    with open(reqfile, "w") as fh:
        fh.write(plan_text)
    env = clean_env(PIP_CACHE_DIR=os.path.join(workdir, "pip-cache"))
    r = subprocess.run([os.path.join(venv, "bin", "python"), "-m", "pip", "install", "--dry-run",
                        "--report", report, "--index-url", index_url] + list(extra) + ["-r", reqfile], capture_output=True, text=True, env=env, timeout=180)
    inst = {}
    if r.returncode == 0 and os.path.exists(report):
        for item in json.load(open(report))["install"]:
            inst[norm(item["metadata"]["name"])] = item["metadata"]["version"]
    have = installed(venv)
    # pip replaces an installed distribution when it installs another version of it
    uninst = {n: have[n] for n in inst if n in have and have[n] != inst[n]}
    return Verdict("pip", r.returncode, inst, uninst, r.stdout + r.stderr)


def cuda_only_patterns():
    pol = json.load(open(os.path.join(SRC, "data", "policy.json")))
    return [re.compile(rule["pattern"]) for rule in pol["cuda_only"]]


def plan_names(plan_text):
    """Normalized names of the requirement lines of a plan (comments skipped)."""
    out = []
    for line in plan_text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        m = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)", line)
        if m:
            out.append(norm(m.group(1)))
    return out


class Tap:
    """numbered 'ok N - name' / 'not ok N - name' lines (the detail indented under a
    failure) and the closing 'N passed, M failed' line; .status() is the exit code"""

    def __init__(self):
        self.n, self.fails = 0, []

    def check(self, name, ok, detail=""):
        self.n += 1
        print(f"{'ok' if ok else 'not ok'} {self.n} - {name}")
        if not ok:
            self.fails.append(name)
            print("    " + str(detail).replace("\n", "\n    "))

    def status(self):
        print(f"{self.n - len(self.fails)} passed, {len(self.fails)} failed")
        return 1 if self.fails else 0


def now():
    return time.perf_counter()


# ---------------------------------------------------------------- uv projects

PROTECTED = ("torch", "torchvision", "torchaudio", "triton")
# what a user runs to see that the ROCm torch imports (prints its version and hip)
TORCH_IMPORT = 'import torch, torch.version as v; print(torch.__version__, "hip", v.hip)'


def write(path, text):
    """text into path, its directories made"""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)


# a proxy that answers nothing: uv and pip reach no index but the fixture one on
# 127.0.0.1 (clean_env puts it in NO_PROXY), so PyPI is unreachable, as the tests assume
NO_OUTSIDE = {"https_proxy": "http://127.0.0.1:9", "http_proxy": "http://127.0.0.1:9"}


def uv_env(work, **extra):
    """clean_env for real uv: its cache, HOME and config under work, no Python downloads"""
    return clean_env(UV_CACHE_DIR=os.path.join(work, "uvcache"), UV_PYTHON_DOWNLOADS="never",
                     HOME=work, XDG_CONFIG_HOME=os.path.join(work, "config"), **extra)


def lock_packages(path):
    """{normalized name: version} of a uv.lock"""
    import tomllib
    with open(path, "rb") as fh:
        return {norm(p["name"]): p.get("version") for p in tomllib.load(fh).get("package", [])}


def stack_files(venv, modules=("torch", "torchvision", "torchaudio", "triton")):
    """{path: bytes} of every file of the protected modules and their dist-info"""
    out = {}
    for sp in _site_packages(venv):
        for d, _, fs in os.walk(sp):
            rel = os.path.relpath(d, sp).split(os.sep)[0]
            if rel in modules or any(rel.startswith(m + "-") and rel.endswith(".dist-info") for m in modules):
                for f in fs:
                    with open(os.path.join(d, f), "rb") as fh:
                        out[os.path.relpath(os.path.join(d, f), venv)] = fh.read()
    return out


def tree_digest(venv, names=PROTECTED):
    """{path: sha256} of every file the RECORD of a protected distribution lists"""
    out = {}
    for sp in _site_packages(venv):
        for rec in glob.glob(os.path.join(sp, "*.dist-info", "RECORD")):
            if norm(os.path.basename(os.path.dirname(rec)).split("-")[0]) not in names:
                continue
            for line in open(rec):
                full = os.path.normpath(os.path.join(sp, line.split(",")[0]))
                if os.path.isfile(full):
                    with open(full, "rb") as fh:
                        out[full] = hashlib.sha256(fh.read()).hexdigest()
    return out


class Shell:
    """Commands run and recorded: .transcript is what a user would see (the commands as
    typed, their output, the exit status), written to $RR_TRANSCRIPT by .save()"""

    def __init__(self, work, uv, env):
        self.work, self.uv, self.env, self.transcript = work, uv, env, []

    def sh(self, args, cwd, env=None, show=None, timeout=300):
        r = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=env or self.env,
                           timeout=timeout)
        shown = show or " ".join(os.path.basename(a) if a in (self.uv, EXE) else a for a in args)
        self.transcript.append(f"$ {shown}\n{r.stdout}{r.stderr}[exit {r.returncode}]\n")
        return r

    def note(self, text):
        self.transcript.append(text)

    def save(self):
        out = os.environ.get("RR_TRANSCRIPT")
        if out:
            with open(out, "w") as fh:
                fh.write("\n".join(self.transcript).replace(self.work, "$WORK"))
