#!/usr/bin/python3
"""The environments and inputs users really have (issue 14 items 2-5, 7), judged by the
real uv and pip on the fixture index (tests/index/serve.py on 127.0.0.1):

  syssite     a venv made with --system-site-packages over a Python whose own
              site-packages hold the ROCm stack (the HPC recipe): the plan protects the
              inherited stack and the --uv-excludes file keeps uv (which does not see
              inherited packages) off it; unfiltered, uv installs CUDA torch there.
  ngc         an NGC-style system prefix (pip's installs in local/lib/pythonX.Y/
              dist-packages, no venv) with an unlabelled triton and the stack pinned in
              /etc/pip/constraint.txt: triton is protected.
  local       -e PATH / PATH / a wheel file whose static metadata pins another torch:
              stripped with the file and line of the pin, check fails; a static project
              is resolved like a requirement (its dependency held back); a dynamic one
              said as unknown.
  find-links  a locally built ROCm wheel in a --find-links directory, the index having
              a newer sdist that builds for CUDA: the plan pins the local file exactly.
  credentials a private index behind basic auth, written with ${VAR}: the plan keeps the
              reference as given (uv and pip find the private package with it); a
              literal secret is written nowhere: plan, stderr, JSON, cache, testcase.

Each case prints what rocm-resolve said and what uv and pip did with the plan; with
RR_E2E_TRANSCRIPT=FILE the same goes to FILE (the notes' before/after). Point
RR_BUILDDIR at an older build to see the old behaviour fail these checks."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2elib as E  # noqa: E402

XY = f"{sys.version_info[0]}.{sys.version_info[1]}"
SECRET = "s3cretT0ken"
transcript = []


def log(text=""):
    print(text)
    transcript.append(text)


def section(name):
    log("")
    log("=" * 78)
    log(f"== {name}")


def show(label, text, limit=60):
    lines = (text or "").rstrip("\n").splitlines()
    log(f"-- {label}")
    for line in lines[:limit]:
        log("   " + line)
    if len(lines) > limit:
        log(f"   ... ({len(lines) - limit} more lines)")


def verdict_line(v):
    inst = ", ".join(f"{k}=={x}" for k, x in sorted(v.install.items())) or "nothing"
    gone = ", ".join(f"{k}=={x}" for k, x in sorted(v.uninstall.items()))
    return f"{v.tool}: exit {v.rc}; installs {inst}" + (f"; removes {gone}" if gone else "")


def last_error(v):
    lines = [l for l in v.log.splitlines() if l.strip()]
    errs = [l for l in lines if re.search(r"error|Because|×|╰|not|fail", l, re.I)]
    return " | ".join((errs or lines)[-4:])[:600]


def prefix_python(root, copy):
    """a Python whose prefix is root: the standard library linked in, the interpreter
    copied (its prefix is then root, with Debian's site directories under it) or
    linked (a venv's home)"""
    os.makedirs(os.path.join(root, "bin"))
    lib = os.path.join(root, "lib", f"python{XY}")
    os.makedirs(lib)
    for name in os.listdir(f"/usr/lib/python{XY}"):
        if name in ("site-packages", "dist-packages", "EXTERNALLY-MANAGED"):
            continue
        os.symlink(os.path.join(f"/usr/lib/python{XY}", name), os.path.join(lib, name))
    exe = os.path.join(root, "bin", f"python{XY}")
    if copy:
        shutil.copy2(os.path.realpath(sys.executable), exe)
    else:
        os.symlink(os.path.realpath(sys.executable), exe)
    os.symlink(f"python{XY}", os.path.join(root, "bin", "python3"))
    return os.path.join(root, "bin", "python3")


def pip_dry(pip_python, target, index, plan_text, work, env_extra=None):
    """pip install --dry-run --report on target's interpreter, with plan_text as -r"""
    report = os.path.join(work, "pip-report.json")
    reqf = os.path.join(work, "pip-input.txt")
    with open(reqf, "w") as fh:
        fh.write(plan_text)
    if os.path.exists(report):
        os.unlink(report)
    env = E.clean_env(PIP_CACHE_DIR=os.path.join(work, "pip-cache"), **(env_extra or {}))
    args = [pip_python, "-m", "pip"] + (["--python", target] if target else []) + \
        ["install", "--dry-run", "--report", report] + \
        (["--index-url", index] if index else []) + ["-r", reqf]
    r = subprocess.run(args, capture_output=True, text=True, env=env, timeout=300)
    inst = {}
    if r.returncode == 0 and os.path.exists(report):
        for item in json.load(open(report))["install"]:
            inst[E.norm(item["metadata"]["name"])] = item["metadata"]["version"]
    return E.Verdict("pip", r.returncode, inst, {}, r.stdout + r.stderr)


def uv_dry(uv, python, index, plan_text, work, extra=(), env_extra=None, system=False):
    env = E.clean_env(UV_CACHE_DIR=os.path.join(work, "uv-cache"), **(env_extra or {}))
    args = [uv, "pip", "install", "--dry-run", "--python", python] + \
        (["--system", "--break-system-packages"] if system else []) + \
        (["--index-url", index] if index else []) + list(extra) + ["-r", "-"]
    r = subprocess.run(args, input=plan_text, capture_output=True, text=True, env=env,
                       timeout=300)
    inst, uninst = {}, {}
    for line in (r.stdout + r.stderr).splitlines():
        # " + name==1.0", or " + name @ file:///..." for a local project
        m = E.UV_LINE.match(line) or re.match(r"^ ([+-]) ([A-Za-z0-9._-]+) (@ \S+)", line)
        if m:
            (inst if m.group(1) == "+" else uninst)[E.norm(m.group(2))] = m.group(3)
    return E.Verdict("uv", r.returncode, inst, uninst, r.stdout + r.stderr)


def main():
    uv = E.find_uv()
    if not uv:
        E.skip("uv not found in $RR_SRCDIR/.venv-tools/bin or on PATH (./bootstrap test installs it)")
    if not os.access(E.EXE, os.X_OK):
        E.skip(f"{E.EXE} not built")
    work = tempfile.mkdtemp(prefix="rr-envs-")
    fails = []
    n = 0

    def check(name, ok, detail=""):
        nonlocal n
        n += 1
        log(f"{'ok' if ok else 'not ok'} {n} - {name}")
        if not ok:
            fails.append(name)
            log("    " + str(detail)[:3000].replace("\n", "\n    "))

    def write(rel, text):
        p = os.path.join(work, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as fh:
            fh.write(text)
        return p

    cuda_only = E.cuda_only_patterns()

    def cuda(names):
        return sorted(x for x in names if any(p.search(x) for p in cuda_only))

    try:
        wheels = os.path.join(work, "stack-wheels")
        os.makedirs(wheels)
        v72 = E.build_venv(os.path.join(work, "v72"), "rocm72", wheels)
        v72_site = E._site_packages(v72)[0]
        protected72 = {E.norm(x[0]) for x in E.LAYOUTS["rocm72"]["stack"]}
        with E.Index(extra_args=["--auth", f"__token__:{SECRET}@/private/"]) as idx:
            simple = idx.simple()
            cache = os.path.join(work, "rr-cache")

            def rr(args, **kw):
                return E.rr(["--cache-dir", cache] + args, **kw)

            # ---------------------------------------------------------------- syssite
            section("item 2: a venv made with --system-site-packages over the image's Python")
            base = os.path.join(work, "base")
            base_py = prefix_python(base, copy=False)
            shutil.copytree(v72_site, os.path.join(base, "lib", f"python{XY}", "site-packages"))
            child = os.path.join(work, "child")
            subprocess.run([base_py, "-m", "venv", "--system-site-packages", "--without-pip", child],
                           check=True, env=E.clean_env())
            r0 = subprocess.run([os.path.join(child, "bin", "python"), "-c",
                                 "import torch, sys; print(torch.__file__)"],
                                capture_output=True, text=True, env=E.clean_env())
            check("the child venv imports torch from the base (the setup is real)",
                  r0.returncode == 0 and r0.stdout.startswith(base), r0.stdout + r0.stderr)
            req = write("syssite/requirements.txt", "accelerate\n")
            excl = os.path.join(work, "syssite", "excludes.txt")
            r = rr(["--venv", child, "-i", simple, "--uv-excludes", excl, req])
            show(f"rocm-resolve --venv child -i INDEX --uv-excludes excludes.txt requirements.txt "
                 f"(exit {r.returncode})", r.stdout + r.stderr)
            check("plan: exit 0, the inherited stack pinned and named",
                  r.returncode == 0 and "torch==2.9.1+rocm7.2.0.lw.git7e1940d4" in r.stdout and
                  "# inherited: " in r.stdout, r.stdout + r.stderr)
            ex = open(excl).read() if os.path.exists(excl) else ""
            show("excludes.txt", ex)
            check("the --uv-excludes file keeps uv off the inherited stack",
                  all(x in ex.split() for x in ("torch", "torchvision", "torchaudio", "triton")), ex)
            rc = rr(["check", "--venv", child, "-i", simple, req])
            show(f"rocm-resolve check (exit {rc.returncode})", rc.stdout + rc.stderr)
            check("check: exit 0 on a safe input (it was exit 3, nothing to protect)",
                  rc.returncode == 0, rc.stderr)
            if r.returncode == 0:
                child_py = os.path.join(child, "bin", "python")
                vu = uv_dry(uv, child_py, simple, r.stdout, work, ["--excludes", excl])
                vp = pip_dry(os.path.join(v72, "bin", "python"), child_py, simple, r.stdout, work)
                log(verdict_line(vu))
                log(verdict_line(vp))
                for v in (vu, vp):
                    check(f"{v.tool} with the plan: accelerate, nothing protected, nothing CUDA",
                          v.rc == 0 and "accelerate" in v.install and
                          not (set(v.install) & protected72) and not cuda(v.install),
                          verdict_line(v) + "\n" + v.log[-1500:])
            raw = uv_dry(uv, os.path.join(child, "bin", "python"), simple, "accelerate\n", work)
            log("unfiltered " + verdict_line(raw))
            check("unfiltered, uv installs another torch into the child (the damage prevented)",
                  "torch" in raw.install, verdict_line(raw))

            # ---------------------------------------------------------------- ngc
            section("item 7: an NGC-style system prefix, an unlabelled triton, /etc/pip/constraint.txt")
            ngc = os.path.join(work, "ngc", "usr")
            ngc_py = prefix_python(ngc, copy=True)
            site = os.path.join(ngc, "local", "lib", f"python{XY}", "dist-packages")
            nw = os.path.join(work, "ngc-wheels")
            os.makedirs(nw)
            tv = "2.8.0a0+5228986c39.nv25.5"
            E.make_wheel(nw, "torch", tv, E.TORCH_BASE_REQS, files={
                "torch/__init__.py": "from .version import __version__\n",
                "torch/version.py": f"__version__ = '{tv}'\ncuda = '12.9'\nhip = None\n"})
            E.make_wheel(nw, "torchvision", "0.22.0a0+95f10a4e", ["numpy", "torch"])
            E.make_wheel(nw, "triton", "3.3.0", ["filelock"],
                         files={"triton/__init__.py": "__version__ = '3.3.0'\n",
                                "triton/backends/nvidia/driver.py": "# nvidia\n"})
            names = ["torch==" + tv, "torchvision==0.22.0a0+95f10a4e", "triton==3.3.0"] + \
                [f"{x}=={y}" for x, y, _ in E.BASE_DEPS]
            pr = subprocess.run([os.path.join(v72, "bin", "python"), "-m", "pip", "install", "-q",
                                 "--no-index", "--find-links", nw, "--find-links", wheels,
                                 "--target", site] + names,
                                capture_output=True, text=True, env=E.clean_env())
            check("the NGC prefix is built", pr.returncode == 0, pr.stdout + pr.stderr)
            sysroot = os.path.join(work, "ngc")
            constraint = write("ngc/etc/pip/constraint.txt",
                               "torch==" + tv + "\ntorchvision==0.22.0a0+95f10a4e\ntriton==3.3.0\n")
            req = write("ngc/requirements.txt", "triton>=3.4\naccelerate\n")
            renv = E.clean_env(RR_SYSROOT=sysroot)
            r = rr(["--venv", ngc, "-i", simple, req], env=renv)
            show(f"rocm-resolve --venv <prefix> -i INDEX requirements.txt (exit {r.returncode})",
                 r.stdout + r.stderr)
            check("plan: triton pinned to the image's 3.3.0, torch to its build",
                  r.returncode == 0 and re.search(r"^triton==3\.3\.0\b", r.stdout, re.M) and
                  f"torch=={tv}" in r.stdout, r.stdout + r.stderr)
            rc = rr(["check", "--venv", ngc, "-i", simple, req], env=renv)
            show(f"rocm-resolve check (exit {rc.returncode})", rc.stdout + rc.stderr)
            check("check: exit 1, triton>=3.4 would replace the image's triton",
                  rc.returncode == 1 and "triton" in rc.stderr, rc.stderr)
            if r.returncode == 0:
                vu = uv_dry(uv, ngc_py, simple, r.stdout, work, system=True)
                vp = pip_dry(os.path.join(v72, "bin", "python"), ngc_py, simple, r.stdout, work,
                             {"PIP_CONSTRAINT": constraint})
                log(verdict_line(vu))
                log(verdict_line(vp))
                for v in (vu, vp):
                    check(f"{v.tool} with the plan keeps torch, torchvision and triton",
                          v.rc == 0 and not ({"torch", "torchvision", "triton"} & set(v.install)),
                          verdict_line(v) + "\n" + v.log[-1500:])
            raw = uv_dry(uv, ngc_py, simple, open(req).read(), work, system=True)
            log("unfiltered " + verdict_line(raw))
            check("unfiltered, uv replaces the image's triton", "triton" in raw.install,
                  verdict_line(raw))

            # ---------------------------------------------------------------- local
            section("item 3: -e PATH, PATH and wheel files with static metadata")
            backend = '''import os, zipfile
NAME, VERSION, REQS = {name!r}, {version!r}, {reqs!r}
DN = NAME.replace("-", "_")
INFO = DN + "-" + VERSION + ".dist-info"
META = "Metadata-Version: 2.1\\nName: %s\\nVersion: %s\\n" % (NAME, VERSION) + \\
    "".join("Requires-Dist: %s\\n" % r for r in REQS)
def _meta(d):
    os.makedirs(os.path.join(d, INFO), exist_ok=True)
    open(os.path.join(d, INFO, "METADATA"), "w").write(META)
    return INFO
prepare_metadata_for_build_wheel = prepare_metadata_for_build_editable = \\
    lambda d, config_settings=None: _meta(d)
get_requires_for_build_wheel = get_requires_for_build_editable = lambda config_settings=None: []
def _wheel(d, tag):
    name = "%s-%s-py3-none-any.whl" % (DN, VERSION)
    with zipfile.ZipFile(os.path.join(d, name), "w") as z:
        z.writestr(INFO + "/METADATA", META)
        z.writestr(INFO + "/WHEEL", "Wheel-Version: 1.0\\nGenerator: e2e\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
        z.writestr(INFO + "/RECORD", "")
    return name
build_wheel = lambda d, config_settings=None, metadata_directory=None: _wheel(d, "w")
build_editable = lambda d, config_settings=None, metadata_directory=None: _wheel(d, "e")
'''

            def project(rel, name, version, reqs, dynamic=False):
                deps = "".join(f'    "{x}",\n' for x in reqs)
                dyn = 'dynamic = ["dependencies"]\n' if dynamic else f"dependencies = [\n{deps}]\n"
                write(f"{rel}/pyproject.toml",
                      '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n\n'
                      f'[project]\nname = "{name}"\nversion = "{version}"\n{dyn}')
                write(f"{rel}/backend.py", backend.format(name=name, version=version, reqs=reqs))

            project("local/proj-bad", "proj-bad", "0.1.0",
                    ["torch==2.6.0", "torchaudio==2.6.0", "requests"])
            project("local/proj-good", "proj-good", "0.2.0", ["requests", "rr-held"])
            project("local/proj-dyn", "proj-dyn", "0.3.0", [], dynamic=True)
            os.makedirs(os.path.join(work, "local", "dist"))
            E.make_wheel(os.path.join(work, "local", "dist"), "local-kit", "1.0", ["torch==2.6.0"])
            # an sdist as meson-python writes one: PKG-INFO 2.1 (not to be trusted, PEP 643),
            # last; its pyproject.toml's [project] says the dependencies statically (PEP 621)
            import io, tarfile  # noqa: E401
            raw = io.BytesIO()
            with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as tf:
                for member, data in (("local_sdist-1.0/pyproject.toml",
                                 b'[build-system]\nrequires = ["meson-python"]\n'
                                 b'build-backend = "mesonpy"\n\n[project]\nname = "local-sdist"\n'
                                 b'version = "1.0"\ndependencies = ["torch==2.6.0", "requests"]\n'),
                                ("local_sdist-1.0/PKG-INFO",
                                 b"Metadata-Version: 2.1\nName: local-sdist\nVersion: 1.0\n\n")):
                    ti = tarfile.TarInfo(member)
                    ti.size, ti.mtime, ti.mode = len(data), 1704067200, 0o644
                    tf.addfile(ti, io.BytesIO(data))
            import gzip
            with open(os.path.join(work, "local", "dist", "local_sdist-1.0.tar.gz"), "wb") as f:
                f.write(gzip.compress(raw.getvalue(), mtime=0))
            ldir = os.path.join(work, "local")
            cases = [("-e ./proj-bad\n", "bad", "strip"),
                     ("-e ./proj-good\n", "good", "keep"),
                     ("./proj-dyn\n", "dyn", "keep"),
                     ("./dist/local_kit-1.0-py3-none-any.whl\n", "wheel", "strip"),
                     ("./dist/local_sdist-1.0.tar.gz\n", "sdist", "strip")]
            for text, tag, want in cases:
                reqf = write(f"local/req-{tag}.txt", text)
                # from the project's directory, where its paths are (pip's rule, and the
                # plan's: both installers take a piped plan's paths from there)
                r = E.rr(["--cache-dir", cache, "--venv", v72, "-i", simple, "--format", "json",
                          reqf], cwd=ldir)
                t = E.rr(["--cache-dir", cache, "--venv", v72, "-i", simple, reqf], cwd=ldir)
                rc = E.rr(["check", "--cache-dir", cache, "--venv", v72, "-i", simple, reqf],
                          cwd=ldir)
                log("")
                show(f"[{tag}] {text.strip()}: rocm-resolve (exit {t.returncode})", t.stdout + t.stderr)
                show(f"[{tag}] check (exit {rc.returncode})", rc.stdout + rc.stderr, 12)
                try:
                    d = json.loads(r.stdout)["decisions"][0]
                except (ValueError, KeyError, IndexError):
                    d = {}
                if tag in ("bad", "wheel", "sdist"):
                    check(f"[{tag}] stripped, naming the file and line of the pin; check exit 1",
                          d.get("action") == "strip" and rc.returncode == 1 and
                          re.search(r"(pyproject\.toml:\d+|\.(whl|tar\.gz) \(Requires-Dist\)): "
                                    r"'torch==2\.6\.0' asks for another torch", d.get("why", "")),
                          json.dumps(d) + "\n" + rc.stderr)
                elif tag == "good":
                    check("[good] kept and resolved: its dependency rr-held held back at 1.0",
                          d.get("action") == "keep" and "rr-held==1.0" in t.stdout and
                          rc.returncode == 1 and "rr-held" in rc.stderr,
                          json.dumps(d) + "\n" + t.stdout + rc.stderr)
                else:
                    check("[dyn] kept, its dependencies said to be unknown (dynamic)",
                          d.get("action") == "keep" and d.get("reason") == "deps-unknown" and
                          "dynamic" in d.get("why", ""), json.dumps(d))
                    # check passes it, and does not claim the dependencies were checked
                    check("[dyn] check: exit 0, 'as far as the dependencies are known', 1 unknown",
                          rc.returncode == 0 and "dependencies checked)" not in rc.stderr and
                          "stays intact as far as the dependencies are known" in rc.stderr and
                          "those of 1 package are only known after a build" in rc.stderr,
                          rc.stderr)
                if t.returncode != 0:
                    continue
                # the plan read from the project's directory, as both installers take -e .
                cwd = os.getcwd()
                os.chdir(ldir)
                try:
                    vu = uv_dry(uv, os.path.join(v72, "bin", "python"), simple, t.stdout, work)
                    vp = pip_dry(os.path.join(v72, "bin", "python"), None, simple, t.stdout, work)
                finally:
                    os.chdir(cwd)
                log(verdict_line(vu) + ("" if vu.rc == 0 else "  [" + last_error(vu) + "]"))
                log(verdict_line(vp) + ("" if vp.rc == 0 else "  [" + last_error(vp) + "]"))
                for v in (vu, vp):
                    check(f"[{tag}] {v.tool} takes the plan without touching the stack",
                          v.rc == 0 and not (set(v.install) & protected72) and not cuda(v.install),
                          verdict_line(v) + "\n" + v.log[-1500:])

            # ---------------------------------------------------------------- find-links
            section("item 4: a locally built ROCm wheel in a --find-links directory")
            fl = os.path.join(work, "fl", "wheels")
            os.makedirs(fl)
            E.make_wheel(fl, "rr-kern", "1.0.0+rocm7.2", ["packaging"])
            for text, tag in (("--find-links ./wheels\nrr-kern\n", "top"),
                              ("--find-links ./wheels\nrr-kern-app\n", "dep")):
                reqf = write(f"fl/req-{tag}.txt", text)
                r = rr(["--venv", v72, "-i", simple, reqf])
                rc = rr(["check", "--venv", v72, "-i", simple, reqf])
                log("")
                show(f"[{tag}] rocm-resolve (exit {r.returncode})", r.stdout + r.stderr)
                show(f"[{tag}] check (exit {rc.returncode})", rc.stdout + rc.stderr, 8)
                check(f"[{tag}] the plan pins rr-kern==1.0.0+rocm7.2, the --find-links file",
                      r.returncode == 0 and re.search(r"^rr-kern==1\.0\.0\+rocm7\.2\b", r.stdout, re.M),
                      r.stdout + r.stderr)
                if r.returncode != 0:
                    continue
                vu = uv_dry(uv, os.path.join(v72, "bin", "python"), simple, r.stdout, work)
                vp = pip_dry(os.path.join(v72, "bin", "python"), None, simple, r.stdout, work)
                log(verdict_line(vu))
                log(verdict_line(vp))
                for v in (vu, vp):
                    check(f"[{tag}] {v.tool} takes the local 1.0.0+rocm7.2, builds nothing newer",
                          v.rc == 0 and v.install.get("rr-kern") == "1.0.0+rocm7.2" and
                          not cuda(v.install), verdict_line(v) + "\n" + v.log[-1500:])
            cwd = os.getcwd()
            os.chdir(os.path.join(work, "fl"))
            try:
                raw = uv_dry(uv, os.path.join(v72, "bin", "python"), simple,
                             open(os.path.join(work, "fl", "req-top.txt")).read(), work)
            finally:
                os.chdir(cwd)
            log("unfiltered " + verdict_line(raw))
            check("unfiltered, uv builds rr-kern 1.1.0 from the index sdist (and its CUDA dependency)",
                  raw.install.get("rr-kern") == "1.1.0" and cuda(raw.install), verdict_line(raw))

            # ---------------------------------------------------------------- credentials
            section("item 5: ${VAR} credentials of a private index; literal ones written nowhere")
            host = idx.url[len("http://"):]
            priv = f"http://__token__:${{RR_E2E_TOKEN}}@{host}/private/simple/"
            reqf = write("cred/requirements.txt", f"--extra-index-url {priv}\nrr-private-only\n")
            tenv = E.clean_env(RR_E2E_TOKEN=SECRET)
            for label, args in (("in the requirements file", [reqf]),
                                ("as an option", ["--extra-index-url", priv,
                                                  write("cred/plain.txt", "rr-private-only\n")])):
                r = rr(["--venv", v72, "-i", simple] + args, env=tenv)
                show(f"{label}: rocm-resolve (exit {r.returncode})", r.stdout + r.stderr, 14)
                check(f"{label}: the plan writes the index with ${{RR_E2E_TOKEN}} as given",
                      r.returncode == 0 and f"--extra-index-url {priv}\n" in r.stdout and
                      SECRET not in r.stdout + r.stderr, r.stdout + r.stderr)
                if r.returncode != 0:
                    continue
                vu = uv_dry(uv, os.path.join(v72, "bin", "python"), None, r.stdout, work,
                            env_extra={"RR_E2E_TOKEN": SECRET})
                vp = pip_dry(os.path.join(v72, "bin", "python"), None, None, r.stdout, work,
                             {"RR_E2E_TOKEN": SECRET})
                log(verdict_line(vu) + ("" if vu.rc == 0 else "  [" + last_error(vu) + "]"))
                log(verdict_line(vp) + ("" if vp.rc == 0 else "  [" + last_error(vp) + "]"))
                for v in (vu, vp):
                    check(f"{label}: {v.tool} given only the plan finds the private package",
                          v.rc == 0 and "rr-private-only" in v.install, verdict_line(v) + "\n" + v.log[-1500:])
            # a literal secret: nowhere
            lit = f"http://__token__:{SECRET}@{host}/private/simple/"
            lreq = write("cred/literal.txt", f"--extra-index-url {lit}\nrr-private-only\n")
            lcache = os.path.join(work, "cred-cache")
            tc = os.path.join(work, "cred", "report")
            outs = []
            for args in (["--format", "json", lreq], ["check", "--format", "json", lreq],
                         ["-v", "--write-testcase", tc, lreq],
                         ["--extra-index-url", lit, "-v", write("cred/plain2.txt", "rr-private-only\n")]):
                x = E.rr(["--cache-dir", lcache, "--venv", v72, "-i", simple] + args,
                         env=E.clean_env(UV_INDEX=lit))
                outs.append(x)
            leaked = [i for i, x in enumerate(outs) if SECRET in x.stdout + x.stderr]
            check("a literal secret reaches no plan, JSON or stderr (4 runs)",
                  not leaked and all(x.returncode in (0, 1) for x in outs),
                  [(x.returncode, x.stderr[-500:]) for x in outs])
            files = [p for p in glob.glob(os.path.join(lcache, "**"), recursive=True) +
                     glob.glob(os.path.join(tc, "**"), recursive=True) +
                     glob.glob(os.path.join(tc, ".*")) if os.path.isfile(p)]
            hits = [p for p in files if SECRET.encode() in open(p, "rb").read()]
            check(f"... nor the cache nor the --write-testcase report ({len(files)} files)",
                  files and not hits, hits)
    finally:
        out = os.environ.get("RR_E2E_TRANSCRIPT")
        if out:
            with open(out, "w") as fh:
                fh.write("\n".join(transcript) + "\n")
        shutil.rmtree(work, ignore_errors=True)
    print(f"{n - len(fails)} passed, {len(fails)} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
