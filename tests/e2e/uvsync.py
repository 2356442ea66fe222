#!/usr/bin/python3
"""The image's venv as the uv project environment (issue 28, item 1), with real uv on
the fixture index.

A uv project whose [tool.uv] settings `project --write` made (the stack excluded, the
held chains constrained), locked by real `uv lock`. Then a copy of the protected ROCm
7.2 venv is the project environment, three ways:
  - UV_PROJECT_ENVIRONMENT names it: `project --check` exits 1 naming
    `uv sync --inexact`; plain `uv sync` (exact) uninstalls the stack, and so does
    `uv remove`: that is why; `uv sync --inexact` keeps every protected file byte for
    byte and `import torch` works there;
  - $VIRTUAL_ENV names it and there is no .venv (`uv sync --active`): exit 1 naming
    `uv sync --active --inexact`, which keeps the stack;
  - .venv is a symlink to it: exit 1, and `project --bridge` refuses (exit 2) and
    writes no .pth;
  - the README's set-up with $VIRTUAL_ENV naming the image's venv (as the images
    set it) and a bridged .venv: `project --check` passes, with a warning about
    `uv sync --active`.
With RR_TRANSCRIPT=FILE the commands and their output are written there."""
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2elib as E  # noqa: E402

PROTECTED = E.PROTECTED
IMPORT = E.TORCH_IMPORT


def main():
    uv = E.require_uv()
    work = tempfile.mkdtemp(prefix="rr-uvsync-")
    t = E.Tap()
    uvenv = E.uv_env(work)
    S = E.Shell(work, uv, uvenv)
    try:
        v72 = E.build_venv(os.path.join(work, "v72"), "rocm72")
        cache = os.path.join(work, "rrcache")
        base_files = E.stack_files(v72)
        base = E.installed(v72)
        with E.Index() as idx:
            simple = idx.simple()
            proj = os.path.join(work, "speech-app")
            os.makedirs(proj)
            with open(os.path.join(proj, "pyproject.toml"), "w") as fh:
                fh.write("[project]\nname = \"speech-app\"\nversion = \"0.1.0\"\n"
                         "requires-python = \">=3.11\"\n"
                         "dependencies = [\"torch>=2.3\", \"einops\", \"rr-speech\", \"rr-fastkern\"]\n\n"
                         f"[[tool.uv.index]]\nurl = \"{simple}\"\ndefault = true\n")

            def image(name):
                """a fresh copy of the image's venv"""
                path = os.path.join(work, name)
                shutil.rmtree(path, ignore_errors=True)
                shutil.copytree(v72, path, symlinks=True)
                return path

            def env(**kw):
                return dict(uvenv, **kw)

            def rr(args, venv, e=None, show_env=""):
                a = [E.EXE] + (["--venv", venv] if venv else []) + ["--cache-dir", cache] + args
                return S.sh(a, proj, env=e, show=(show_env + "rocm-resolve " + " ".join(
                    (["--venv", venv] if venv else []) + args)).replace(work, "$WORK"))

            def stack_kept(venv):
                have = E.installed(venv)
                return all(have.get(p) == base[p] for p in PROTECTED) and E.stack_files(venv) == base_files

            def imports_torch(venv, show_env=""):
                r = S.sh([os.path.join(venv, "bin", "python"), "-c", IMPORT], proj,
                         show=f"{show_env}python -c '{IMPORT}'".replace(work, "$WORK"))
                return r.returncode == 0 and "hip 7.2" in r.stdout, r

            w = rr(["project", "--write", "."], v72)
            lk = S.sh([uv, "lock", "--python", f"{v72}/bin/python"], proj)
            pk = E.lock_packages(os.path.join(proj, "uv.lock")) if lk.returncode == 0 else {}
            t.check("project --write, uv lock: the stack is not in the lock, the chains are held",
                    w.returncode == 0 and lk.returncode == 0 and not any(p in pk for p in PROTECTED)
                    and pk.get("rr-speech") == "1.0", w.stderr + lk.stderr + str(pk))

            # ---- UV_PROJECT_ENVIRONMENT names the image's venv
            img = image("image-venv")
            upe = env(UV_PROJECT_ENVIRONMENT=img)
            shown = "UV_PROJECT_ENVIRONMENT=$WORK/image-venv "
            c = rr(["project", "--check", "."], img, e=upe, show_env=shown)
            t.check("UV_PROJECT_ENVIRONMENT is the protected venv: project --check exits 1 and "
                    "names `uv sync --inexact`",
                    c.returncode == 1 and "is the protected environment" in c.stderr
                    and "The one safe command there: uv sync --inexact" in c.stderr
                    and "ok:" not in c.stderr, c.stderr)
            s = S.sh([uv, "sync"], proj, env=upe, show=shown + "uv sync")
            have = E.installed(img)
            t.check("the reason: plain uv sync there uninstalls torch and the rest of the stack",
                    s.returncode == 0 and not any(p in have for p in PROTECTED)
                    and re.search(r"^ - torch==2\.9\.1\+rocm", s.stderr, re.M), s.stderr)
            ok, r = imports_torch(img, shown)
            t.check("after it, import torch fails", not ok and "No module named 'torch'" in r.stderr,
                    r.stdout + r.stderr)
            img = image("image-venv")
            s = S.sh([uv, "sync", "--inexact"], proj, env=upe, show=shown + "uv sync --inexact")
            have = E.installed(img)
            t.check("uv sync --inexact installs the project's packages and keeps every protected "
                    "file byte for byte",
                    s.returncode == 0 and have.get("rr-speech") == "1.0" and have.get("rr-fastkern") == "1.0"
                    and "einops" in have and stack_kept(img) and " - " not in s.stderr, s.stderr)
            ok, r = imports_torch(img, shown)
            t.check("import torch works in the synced environment", ok, r.stdout + r.stderr)
            # `uv remove` is exact too (the message says so)
            rm_proj = os.path.join(work, "rm-app")
            shutil.copytree(proj, rm_proj)
            img = image("image-venv")
            S.sh([uv, "sync", "--inexact"], rm_proj, env=upe)
            r = S.sh([uv, "remove", "einops"], rm_proj, env=upe, show=shown + "uv remove einops")
            t.check("uv remove there uninstalls the stack too", r.returncode == 0
                    and "torch" not in E.installed(img), r.stderr)

            # ---- $VIRTUAL_ENV names it, no project venv: `uv sync --active`
            img = image("active-venv")
            act = env(VIRTUAL_ENV=img)
            shown = "VIRTUAL_ENV=$WORK/active-venv "
            c = rr(["project", "--check", "."], None, e=act, show_env=shown)
            t.check("VIRTUAL_ENV is the protected venv and there is no .venv: exit 1 naming "
                    "`uv sync --active --inexact`",
                    c.returncode == 1 and "The one safe command there: uv sync --active --inexact" in c.stderr,
                    c.stderr)
            d = S.sh([uv, "sync", "--active", "--dry-run"], proj, env=act, show=shown + "uv sync --active --dry-run")
            t.check("the reason: uv sync --active would uninstall the stack",
                    re.search(r"^ - torch==2\.9\.1\+rocm", d.stdout + d.stderr, re.M) is not None,
                    d.stdout + d.stderr)
            s = S.sh([uv, "sync", "--active", "--inexact"], proj, env=act, show=shown + "uv sync --active --inexact")
            have = E.installed(img)
            t.check("uv sync --active --inexact keeps every protected file",
                    s.returncode == 0 and have.get("rr-speech") == "1.0" and stack_kept(img)
                    and not os.path.exists(os.path.join(proj, ".venv")), s.stderr)
            ok, r = imports_torch(img, shown)
            t.check("import torch works there", ok, r.stdout + r.stderr)

            # ---- .venv is a symlink to it
            img = image("linked-venv")
            os.symlink(img, os.path.join(proj, ".venv"))
            c = rr(["project", "--check", "."], img)
            b = rr(["project", "--bridge", "."], img)
            pths = [f for sp in E._site_packages(img) for f in os.listdir(sp) if f.startswith("rocm-resolve")]
            t.check(".venv links to the protected venv: --check exits 1; --bridge refuses, exit 2, "
                    "no .pth written",
                    c.returncode == 1 and "(.venv) is the protected environment" in c.stderr
                    and b.returncode == 2 and "nothing to bridge" in b.stderr and not pths,
                    c.stderr + b.stderr + str(pths))
            os.unlink(os.path.join(proj, ".venv"))

            # ---- the README's set-up, in an image that sets VIRTUAL_ENV to its venv
            S.sh([uv, "venv", "--python", f"{v72}/bin/python", ".venv"], proj)
            act = env(VIRTUAL_ENV=v72)
            b = rr(["project", "--bridge", "--check", "."], None, e=act,
                   show_env="VIRTUAL_ENV=$WORK/v72 ")
            t.check("a bridged .venv with VIRTUAL_ENV naming the image's venv: passes, with a "
                    "warning about `uv sync --active`",
                    b.returncode == 0 and "`uv sync --active` would sync into it" in b.stderr
                    and "bridged" in b.stderr, b.stderr)
            s = S.sh([uv, "sync"], proj, env=act, show="VIRTUAL_ENV=$WORK/v72 uv sync")
            ok, r = imports_torch(os.path.join(proj, ".venv"))
            t.check("uv sync into the bridged .venv: the image's venv untouched, torch imports",
                    s.returncode == 0 and ok and E.stack_files(v72) == base_files,
                    s.stderr + r.stdout + r.stderr)
    finally:
        S.save()
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(t.status())


if __name__ == "__main__":
    main()
