#!/usr/bin/python3
"""Locks that keep the stack when synced (issue 28 item 5), with real uv and pip.

`uv pip sync` and pip-sync uninstall everything a lock does not list. A lock that
named the protected stack only in comments had uv remove torch, torchaudio,
torchvision, triton and what they need. Here, in a real venv holding the fake ROCm
7.2 stack, for an input with a line the plan strips and one it holds back:
  - `--lock` lists the stack and what it needs as installed lines, the stripped line
    and the held ones as comments with their cause, and says on stderr how many input
    lines it left out;
  - real `uv pip sync --dry-run` of it uninstalls nothing protected nor anything the
    stack needs, and a real `uv pip sync` leaves every protected file byte for byte;
    real pip (`pip install --dry-run --no-deps -r`, hash checking on) takes it;
  - `--lock --format pylock` names every kept distribution by the file it was
    installed from (direct_url.json) or the index's file of that version, and records
    the strips and holds in [tool.rocm-resolve]; real `uv pip sync` of it keeps every
    protected file too;
  - where a kept distribution's file is unknown, no pylock.toml is written (exit 3,
    stdout holds no lock), naming it.
Each of these fails on the code before issue 28 item 5."""
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2elib as E  # noqa: E402

PROTECTED = E.PROTECTED
STACK_NEEDS = ("numpy", "pillow")  # torchvision's own requirements, installed


def main():
    uv = E.require_uv()
    t = E.Tap()
    work = tempfile.mkdtemp(prefix="rr-locksync-")
    try:
        wheels = os.path.join(work, "wheels")
        os.makedirs(wheels)
        # as the image installs them: each protected wheel from a file whose hash pip
        # records in direct_url.json
        venv = E.build_venv(os.path.join(work, "v"), "rocm72", wheels, from_files=True)
        before = E.tree_digest(venv)
        req = os.path.join(work, "req.txt")
        with open(req, "w") as fh:
            fh.write("einops\nnvidia-cudnn-cu12\nrr-speech\n")
        with E.Index() as idx:
            simple = idx.simple()
            cache = os.path.join(work, "cache")
            base = ["--venv", venv, "--cache-dir", cache, "-i", simple]
            lk = E.rr(base + ["--lock", req])
            text = lk.stdout
            names = E.plan_names(text)
            t.check("--lock exits 0", lk.returncode == 0, lk.stderr)
            t.check("the lock lists the protected stack and what it needs as installed lines",
                    all(p in names for p in PROTECTED + STACK_NEEDS)
                    and "torch==2.9.1+rocm7.2.0.lw.git7e1940d4" in text, text)
            t.check("the stripped line and the held ones are comments with their cause",
                    "#   " in text and "nvidia-cudnn-cu12: CUDA-only" in text
                    and "rr-speech==1.0: rr-speech 2.0 ->" in text, text)
            t.check("stderr says how many input lines the lock leaves out",
                    "the lock leaves out 1 input line" in lk.stderr, lk.stderr)
            lockfile = os.path.join(work, "lock.txt")
            with open(lockfile, "w") as fh:
                fh.write(text)
            env = E.clean_env(UV_CACHE_DIR=os.path.join(work, "uvcache"))
            py = os.path.join(venv, "bin", "python")
            d = subprocess.run([uv, "pip", "sync", "--dry-run", "--python", py, "--index-url", simple,
                                lockfile], capture_output=True, text=True, env=env)
            gone = [line for line in (d.stdout + d.stderr).splitlines() if line.startswith(" - ")]
            t.check("uv pip sync --dry-run of the lock removes nothing protected or needed by it",
                    d.returncode == 0 and not [g for g in gone
                                               if E.norm(g[3:].split("==")[0]) in PROTECTED + STACK_NEEDS],
                    d.stdout + d.stderr)
            p = subprocess.run([py, "-m", "pip", "install", "--dry-run", "--no-deps", "--index-url", simple,
                                "-r", lockfile], capture_output=True, text=True, env=E.clean_env())
            t.check("pip takes the lock (hash checking on, installed lines kept)",
                    p.returncode == 0 and "Would install" in p.stdout, p.stdout + p.stderr)
            s = subprocess.run([uv, "pip", "sync", "--python", py, "--index-url", simple, lockfile],
                               capture_output=True, text=True, env=env)
            have = E.installed(venv)
            t.check("after a real uv pip sync the stack is there, byte for byte",
                    s.returncode == 0 and all(n in have for n in PROTECTED + STACK_NEEDS)
                    and E.tree_digest(venv) == before and have.get("rr-speech") == "1.0",
                    s.stdout + s.stderr)

            # pylock.toml: every kept one named by a file, so a sync keeps it too
            pl = E.rr(base + ["--lock", "--format", "pylock", req])
            t.check("--lock --format pylock exits 0", pl.returncode == 0, pl.stderr)
            doc = tomllib.loads(pl.stdout) if pl.returncode == 0 else {}
            pk = {E.norm(x["name"]): x for x in doc.get("packages", [])}
            t.check("each kept distribution is an entry named by a file with its hash",
                    all(n in pk and (pk[n].get("wheels") or pk[n].get("archive"))
                        for n in PROTECTED + STACK_NEEDS)
                    and pk.get("torch", {}).get("wheels", [{}])[0].get("url", "").startswith("file://"),
                    pl.stdout)
            tool = doc.get("tool", {}).get("rocm-resolve", {})
            t.check("[tool.rocm-resolve] records the strip and the holds with their cause",
                    any("nvidia-cudnn-cu12" in x.get("requirement", "") and "CUDA-only" in x.get("why", "")
                        for x in tool.get("stripped", []))
                    and any(x.get("name") == "rr-speech" and "torchaudio" in x.get("why", "")
                            for x in tool.get("held", [])), tool)
            pdir = os.path.join(work, "pl")
            os.makedirs(pdir)
            with open(os.path.join(pdir, "pylock.toml"), "w") as fh:
                fh.write(pl.stdout)
            d = subprocess.run([uv, "pip", "sync", "--dry-run", "--preview-features", "pylock", "--python", py,
                                os.path.join(pdir, "pylock.toml")], capture_output=True, text=True, env=env)
            gone = [line for line in (d.stdout + d.stderr).splitlines() if line.startswith(" - ")]
            t.check("uv pip sync --dry-run of the pylock.toml removes nothing protected or needed by it",
                    d.returncode == 0 and not [g for g in gone
                                               if E.norm(g[3:].split("==")[0]) in PROTECTED + STACK_NEEDS],
                    d.stdout + d.stderr)
            s = subprocess.run([uv, "pip", "sync", "--preview-features", "pylock", "--python", py,
                                os.path.join(pdir, "pylock.toml")], capture_output=True, text=True, env=env)
            have = E.installed(venv)
            t.check("after a real uv pip sync of it the stack is there, byte for byte",
                    s.returncode == 0 and all(n in have for n in PROTECTED + STACK_NEEDS)
                    and E.tree_digest(venv) == before, s.stdout + s.stderr)
            c = E.rr(["check", "--venv", venv, "--cache-dir", cache, "-i", simple,
                      os.path.join(pdir, "pylock.toml")])
            t.check("check reads the pylock.toml it wrote", c.returncode == 0, c.stderr)

            # a kept distribution no file names: no pylock.toml at all
            for dist in glob.glob(os.path.join(E._site_packages(venv)[0], "torchaudio-*.dist-info")):
                os.unlink(os.path.join(dist, "direct_url.json"))
            pl = E.rr(base + ["--lock", "--format", "pylock", req])
            t.check("a kept distribution whose file is unknown: exit 3, no lock on stdout, named",
                    pl.returncode == 3 and "[[packages]]" not in pl.stdout
                    and "torchaudio 2.9.0+rocm7.2.0.gite3c6ee2b" in pl.stderr, pl.stdout + pl.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return t.status()


if __name__ == "__main__":
    sys.exit(main())
