#!/usr/bin/python3
"""uv workspaces as `uv lock` sees them (issue 28, item 2), with real uv on the fixture
index and the fake ROCm 7.2 stack.

A workspace: the root `app` depends on the member `kern` ({ workspace = true }) and on
`helper`, a path source outside the workspace; `kern` asks for rr-fastkern (2.0 needs
triton>=3.6), the member `audio`, which no one depends on, for rr-speech (2.0 needs,
two levels down, a newer torchaudio); `packages/skip` is excluded and pins
torch==2.4.0; `packages/empty` is empty (uv skips it), `packages/notes`, when
it holds a file but no pyproject.toml, makes uv and rocm-resolve refuse the workspace. The index is configured in
the root alone.
  - `project --check` in the root exits 1 (settings missing), not 3 ("no index has
    kern"); `project --write` run in a member writes the root (the member's file is
    untouched): rr-fastkern and rr-speech held, nothing from `skip`;
  - `project --check` passes in the root and in each member; real `uv lock` locks
    no protected name, no nvidia-*, both chains held; `uv sync --all-packages` into a
    bridged .venv installs them (the local projects themselves are not built: the
    fixture index has no build backend) and `import torch` there gives the image's build;
  - `check packages/audio/pyproject.toml` from outside the tree uses the root's
    index and the root's settings (PyPI is unreachable), and passes; before
    --write it fails on rr-speech;
  - a virtual root (no [project]): `project --write` writes it (exit 0, was 2),
    `uv lock` and `uv sync --all-packages` keep the stack.
With RR_TRANSCRIPT=FILE the commands and their output are written there."""
import os
import re
import shutil
import sys
import tempfile
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2elib as E  # noqa: E402

PROTECTED = E.PROTECTED
IMPORT = E.TORCH_IMPORT


def main():
    uv = E.require_uv()
    work = tempfile.mkdtemp(prefix="rr-uvworkspace-")
    t = E.Tap()
    # PyPI unreachable: every index answer comes from the fixture index the root names
    uvenv = E.uv_env(work, **E.NO_OUTSIDE)
    S = E.Shell(work, uv, uvenv)
    try:
        v72 = E.build_venv(os.path.join(work, "v72"), "rocm72")
        base_files = E.stack_files(v72)
        cache = os.path.join(work, "rrcache")
        with E.Index() as idx:
            simple = idx.simple()
            ws = os.path.join(work, "ws")
            root_text = ("[project]\nname = \"app\"\nversion = \"0.1.0\"\nrequires-python = \">=3.11\"\n"
                         "dependencies = [\"kern\", \"helper\", \"einops\"]\n\n"
                         "[tool.uv.sources]\nkern = { workspace = true }\nhelper = { path = \"../helper\" }\n\n"
                         "[tool.uv.workspace]\nmembers = [\"packages/*\"]\nexclude = [\"packages/skip\"]\n\n"
                         f"[[tool.uv.index]]\nurl = \"{simple}\"\ndefault = true\n")
            E.write(os.path.join(ws, "pyproject.toml"), root_text)
            kern_text = "[project]\nname = \"kern\"\nversion = \"0.1.0\"\ndependencies = [\"rr-fastkern\", \"torch>=2.3\"]\n"
            E.write(os.path.join(ws, "packages", "kern", "pyproject.toml"), kern_text)
            audio = os.path.join(ws, "packages", "audio", "pyproject.toml")
            E.write(audio, "[project]\nname = \"audio\"\nversion = \"0.1.0\"\ndependencies = [\"rr-speech\"]\n")
            E.write(os.path.join(ws, "packages", "skip", "pyproject.toml"),
                  "[project]\nname = \"skip\"\nversion = \"0.1.0\"\ndependencies = [\"torch==2.4.0\"]\n")
            os.makedirs(os.path.join(ws, "packages", "empty"))  # uv skips an empty directory
            E.write(os.path.join(work, "helper", "pyproject.toml"),
                  "[project]\nname = \"helper\"\nversion = \"0.1.0\"\ndependencies = [\"einops\"]\n")

            def rr(args, cwd=ws, **kw):
                return S.sh([E.EXE, "--venv", v72, "--cache-dir", cache, "--timeout", "30"] + args, cwd,
                            show="rocm-resolve " + " ".join(args), **kw)

            def settings(path):
                doc = tomllib.loads(open(path).read())
                u = doc.get("tool", {}).get("uv", {})
                return u.get("exclude-dependencies", []), u.get("constraint-dependencies", [])

            # ---- a matched directory with files but no project: uv refuses, so do we
            E.write(os.path.join(ws, "packages", "notes", "README"), "no project here\n")
            lk = S.sh([uv, "lock", "--python", f"{v72}/bin/python"], ws)
            c = rr(["project", "--check", "."])
            t.check("a member glob matching a directory without pyproject.toml: uv lock refuses, "
                    "project exits 2 naming it",
                    lk.returncode != 0 and "packages/notes" in lk.stderr and c.returncode == 2
                    and "packages/notes has no pyproject.toml" in c.stderr, lk.stderr + c.stderr)
            shutil.rmtree(os.path.join(ws, "packages", "notes"))

            # ---- before the settings
            c = rr(["project", "--check", "."])
            t.check("project --check in the root: exit 1, settings missing (no 'no index has kern')",
                    c.returncode == 1 and "missing or stale" in c.stderr and "no index has" not in c.stderr,
                    c.stderr)
            c = rr(["check", os.path.join("ws", "packages", "audio", "pyproject.toml")], cwd=work)
            t.check("check of the member audio, from outside the tree: the root's index, exit 1 on "
                    "rr-speech", c.returncode == 1 and "rr-audio-backend 2.0 requires torchaudio>=2.9.1" in c.stderr,
                    c.stderr)

            # ---- project --write from a member: the root is written
            member_dir = os.path.join(ws, "packages", "kern")
            w = rr(["project", "--write"], cwd=member_dir)
            ex, co = settings(os.path.join(ws, "pyproject.toml"))
            t.check("project --write in the member kern writes the root's [tool.uv], the member's "
                    "file as it was",
                    w.returncode == 0 and "the workspace root of" in w.stderr
                    and open(os.path.join(member_dir, "pyproject.toml")).read() == kern_text
                    and all(p in ex for p in PROTECTED), w.stderr + str(ex))
            t.check("the union is held: rr-fastkern (kern) and rr-speech (audio, which the root does "
                    "not depend on); nothing of the excluded member",
                    "rr-fastkern==1.0" in co and "rr-speech==1.0" in co and "rr-speech-io==1.0" in co
                    and not any("2.4.0" in x for x in co), co)
            for d in (".", "packages/kern", "packages/audio"):
                c = rr(["project", "--check", d])
                t.check(f"project --check {d}: passes", c.returncode == 0 and "ok:" in c.stderr, c.stderr)
            c = rr(["-v", "check", os.path.join("ws", "packages", "audio", "pyproject.toml")], cwd=work)
            t.check("check of the member audio now passes, the root's settings applied, and says so",
                    c.returncode == 0 and "as uv applies its [tool.uv] settings" in c.stderr, c.stderr)

            # ---- real uv
            lk = S.sh([uv, "lock", "--python", f"{v72}/bin/python"], ws)
            pk = E.lock_packages(os.path.join(ws, "uv.lock")) if lk.returncode == 0 else {}
            t.check("uv lock: no protected name, no nvidia-*, rr-fastkern and rr-speech at 1.0, "
                    "the members and helper in",
                    lk.returncode == 0 and not any(p in pk for p in PROTECTED)
                    and not any(k.startswith("nvidia-") for k in pk) and pk.get("rr-fastkern") == "1.0"
                    and pk.get("rr-speech") == "1.0" and {"kern", "audio", "helper"} <= set(pk)
                    and "skip" not in pk, lk.stderr + str(pk))
            S.note("(locked: " + ", ".join(f"{k} {v}" for k, v in sorted(pk.items())) + ")\n")
            S.sh([uv, "venv", "--python", f"{v72}/bin/python", ".venv"], ws)
            b = rr(["project", "--bridge", "."])
            # the fixture index has no real build backend: the local projects themselves are
            # not built, everything they need is installed
            s = S.sh([uv, "sync", "--all-packages", "--no-install-workspace", "--no-install-local"], ws)
            have = E.installed(os.path.join(ws, ".venv"))
            t.check("uv sync --all-packages into the bridged .venv: the held releases, nothing "
                    "protected", b.returncode == 0 and s.returncode == 0 and have.get("rr-speech") == "1.0"
                    and have.get("rr-fastkern") == "1.0" and not any(p in have for p in PROTECTED),
                    b.stderr + s.stderr + str(have))
            r = S.sh([os.path.join(ws, ".venv", "bin", "python"), "-c", IMPORT], ws,
                     show=f"python -c '{IMPORT}'")
            t.check("import torch in the synced .venv: the image's ROCm build; the image untouched",
                    r.returncode == 0 and "hip 7.2" in r.stdout and E.stack_files(v72) == base_files,
                    r.stdout + r.stderr)

            # ---- a virtual root
            vr = os.path.join(work, "vroot")
            E.write(os.path.join(vr, "pyproject.toml"),
                  "[tool.uv.workspace]\nmembers = [\"libs/*\"]\n\n"
                  f"[[tool.uv.index]]\nurl = \"{simple}\"\ndefault = true\n")
            E.write(os.path.join(vr, "libs", "speech", "pyproject.toml"),
                  "[project]\nname = \"speech\"\nversion = \"0.1.0\"\nrequires-python = \">=3.11\"\n"
                  "dependencies = [\"rr-speech\", \"torch\"]\n")
            E.write(os.path.join(vr, "libs", "util", "pyproject.toml"),
                  "[project]\nname = \"util\"\nversion = \"0.1.0\"\nrequires-python = \">=3.11\"\n"
                  "dependencies = [\"einops\"]\n")
            w = rr(["project", "--write", "."], cwd=vr)
            ex, co = settings(os.path.join(vr, "pyproject.toml"))
            t.check("a virtual root: project --write writes it (exit 0), rr-speech held",
                    w.returncode == 0 and "rr-speech==1.0" in co and "torch" in ex, w.stderr + str(co))
            lk = S.sh([uv, "lock", "--python", f"{v72}/bin/python"], vr)
            pk = E.lock_packages(os.path.join(vr, "uv.lock")) if lk.returncode == 0 else {}
            S.sh([uv, "venv", "--python", f"{v72}/bin/python", ".venv"], vr)
            rr(["project", "--bridge", "."], cwd=vr)
            s = S.sh([uv, "sync", "--all-packages"], vr)
            r = S.sh([os.path.join(vr, ".venv", "bin", "python"), "-c", IMPORT], vr,
                     show=f"python -c '{IMPORT}'")
            t.check("virtual root: uv lock holds rr-speech 1.0 and nothing protected; uv sync "
                    "--all-packages; import torch works",
                    lk.returncode == 0 and pk.get("rr-speech") == "1.0" and not any(p in pk for p in PROTECTED)
                    and s.returncode == 0 and r.returncode == 0 and "hip 7.2" in r.stdout,
                    lk.stderr + s.stderr + r.stdout + r.stderr + str(pk))
            c = rr(["project", "--check", "libs/speech"], cwd=vr)
            t.check("project --check in a member of the virtual root passes", c.returncode == 0, c.stderr)
    finally:
        S.save()
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(t.status())


if __name__ == "__main__":
    main()
