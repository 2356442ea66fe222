#!/usr/bin/python3
"""uv projects and lock files (issue 15), with real uv on the fixture index.

In a real venv holding the fake ROCm 7.2 stack (torchaudio 2.9.0+rocm, triton
3.5.1+rocm), a project that asks for torch>=2.3, einops and two packages whose
newest releases need another stack: rr-speech (two levels down, rr-audio-backend
2.0 needs torchaudio>=2.9.1) and rr-fastkern (2.0 needs triton>=3.6).
  - raw `uv lock` locks PyPI torch, triton and nvidia-*: `check uv.lock` fails
    naming each lock entry (file:line);
  - the hand-made recipe (exclude-dependencies of the four names) keeps them out but
    locks the newest rr-speech and rr-fastkern: `check uv.lock` fails on those;
  - `project --check` fails, `project --write` adds [tool.uv] and leaves every
    other byte of pyproject.toml as it was (checked with tomllib too); `project
    --check` passes; real `uv lock` then locks no protected name, no nvidia-*,
    and the held chains where the resolution held them; `uv sync --dry-run` in a
    project venv bridged by `project --bridge` installs only those; `check
    uv.lock` passes; the hand-made recipe's list is replaced in place;
  - `--lock --format pylock` is installed by real `uv pip install -r pylock.toml`
    into a copy of the stack venv (its stack installed from files whose hashes
    direct_url.json records, as the images have them): the stack is byte for byte
    what it was;
  - a project no release can satisfy next to the stack is an error naming it.
With RR_TRANSCRIPT=FILE the commands and their output are written there."""
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2elib as E  # noqa: E402

PROTECTED = ("torch", "torchvision", "torchaudio", "triton")


lock_packages = E.lock_packages


def main():
    uv = E.require_uv()
    work = tempfile.mkdtemp(prefix="rr-uvproject-")
    transcript = []
    fails = []
    n = 0

    def check(name, ok, detail=""):
        nonlocal n
        n += 1
        print(f"{'ok' if ok else 'not ok'} {n} - {name}")
        if not ok:
            fails.append(name)
            print("    " + str(detail).replace("\n", "\n    "))

    try:
        v72 = E.build_venv(os.path.join(work, "v72"), "rocm72", from_files=True)
        cache = os.path.join(work, "rrcache")
        uvenv = E.clean_env(UV_CACHE_DIR=os.path.join(work, "uvcache"), UV_PYTHON_DOWNLOADS="never",
                            HOME=work, XDG_CONFIG_HOME=os.path.join(work, "config"))
        with E.Index() as idx:
            simple = idx.simple()
            proj = os.path.join(work, "speech-app")
            os.makedirs(proj)
            pyproject = os.path.join(proj, "pyproject.toml")
            original = (
                "[project]\n"
                "name = \"speech-app\"\n"
                "version = \"0.1.0\"\n"
                "requires-python = \">=3.11\"\n"
                "# torch from the image, einops, and two libraries\n"
                "dependencies = [\"torch>=2.3\", \"einops\", \"rr-speech\", \"rr-fastkern\"]\n"
                "\n"
                "[[tool.uv.index]]\n"
                f"url = \"{simple}\"\n"
                "default = true\n")
            with open(pyproject, "w") as fh:
                fh.write(original)

            def sh(args, cwd=proj, env=None, show=None):
                """run and record; show: the command as the transcript says it"""
                r = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=env or uvenv,
                                   timeout=300)
                shown = show or " ".join(os.path.basename(a) if a in (uv, E.EXE) else a for a in args)
                transcript.append(f"$ {shown}\n{r.stdout}{r.stderr}[exit {r.returncode}]\n")
                return r

            def rr(args, **kw):
                return sh([E.EXE, "--venv", v72, "--cache-dir", cache] + args, **kw)

            def uv_lock():
                lock = os.path.join(proj, "uv.lock")
                if os.path.exists(lock):
                    os.unlink(lock)
                r = sh([uv, "lock", "--python", f"{v72}/bin/python"])
                return r, (lock_packages(lock) if r.returncode == 0 else {})

            # ---- the raw lock: CUDA torch and friends
            r, pk = uv_lock()
            nv = [k for k in pk if k.startswith("nvidia-")]
            check("raw uv lock locks PyPI torch, triton and nvidia-* packages",
                  r.returncode == 0 and "torch" in pk and "triton" in pk and len(nv) >= 10, r.stderr + str(pk))
            transcript.append("(locked: " + ", ".join(f"{k} {v}" for k, v in sorted(pk.items())) + ")\n")
            c = rr(["check", "uv.lock"])
            check("check uv.lock: exit 1, torch and an nvidia-* package named by their lock entries",
                  c.returncode == 1 and re.search(r"uv\.lock:\d+: torch==[0-9.]+: the version asked for would replace", c.stderr)
                  and re.search(r"uv\.lock:\d+: nvidia-cublas-cu12==[0-9.]+: CUDA-only", c.stderr), c.stderr)

            # ---- the hand-made recipe: the stack out, nothing bounding the rest
            with open(pyproject, "a") as fh:
                fh.write("\n[tool.uv]\nexclude-dependencies = [\"torch\", \"torchvision\", \"torchaudio\", \"triton\"]\n")
            r, pk = uv_lock()
            check("with the recipe's exclusions uv locks the newest rr-speech and rr-fastkern",
                  r.returncode == 0 and pk.get("rr-speech") == "2.0" and pk.get("rr-fastkern") == "2.0"
                  and not any(p in pk for p in PROTECTED), str(pk))
            c = rr(["check", "uv.lock"])
            check("check uv.lock fails on them, naming the chain down to torchaudio and triton",
                  c.returncode == 1 and "rr-fastkern 2.0 requires triton>=3.6" in c.stderr
                  and "rr-audio-backend 2.0 requires torchaudio>=2.9.1" in c.stderr
                  and re.search(r"uv\.lock:\d+: rr-speech==2\.0: rr-speech 2\.0 ", c.stderr), c.stderr)
            before = open(pyproject).read()
            w = rr(["project", "--write", "."])
            after = open(pyproject).read()
            start = before.index("exclude-dependencies = ") + len("exclude-dependencies = ")
            end = before.index("]", start) + 1
            check("project --write replaces the recipe's list in place, every other byte kept",
                  w.returncode == 0 and after.startswith(before[:start]) and
                  "constraint-dependencies" in after and after.endswith("\n") and
                  before[end:] in after, w.stderr + after)

            # ---- from the raw project: project --write, then uv lock / sync
            with open(pyproject, "w") as fh:
                fh.write(original)
            c = rr(["project", "--check", "."])
            check("project --check: exit 1 while the settings are missing",
                  c.returncode == 1 and "missing or stale" in c.stderr, c.stderr)
            p = rr(["project", "."])
            check("project prints the settings (and writes nothing)",
                  p.returncode == 0 and p.stdout.count("[tool.uv]") == 2 and open(pyproject).read() == original,
                  p.stdout + p.stderr)
            w = rr(["project", "--write", "."])
            after = open(pyproject).read()
            transcript.append("$ diff -u pyproject.toml.orig pyproject.toml\n" + "".join(
                difflib.unified_diff(original.splitlines(True), after.splitlines(True),
                                                   "pyproject.toml.orig", "pyproject.toml")))
            doc = tomllib.loads(after)
            uvs = doc.get("tool", {}).get("uv", {})
            ex, co = uvs.get("exclude-dependencies", []), uvs.get("constraint-dependencies", [])
            # one contiguous block added, the original around it byte for byte
            k = next((i for i, (a, b) in enumerate(zip(original, after)) if a != b), len(original))
            grown = len(after) - len(original)
            check("project --write: the original bytes untouched, one [tool.uv] block inserted",
                  w.returncode == 0 and grown > 0 and after[:k] + after[k + grown:] == original
                  and "\n[tool.uv]\nexclude-dependencies = [\n" in after, w.stderr + after)
            check("exclude-dependencies: the protected names and the triton clash group",
                  all(p in ex for p in PROTECTED) and "pytorch-triton-rocm" in ex, ex)
            check("constraint-dependencies: the held chain where the resolution put it",
                  all(x in co for x in ("rr-speech==1.0", "rr-speech-io==1.0", "rr-audio-backend==1.0",
                                        "rr-fastkern==1.0")), co)
            check("each entry carries its cause as a comment",
                  re.search(r'"rr-fastkern==1\.0",  # rocm-resolve: rr-fastkern 2\.0 requires triton>=3\.6; '
                            r"the protected triton is 3\.5\.1\+rocm", after) is not None, after)
            del uvs["exclude-dependencies"], uvs["constraint-dependencies"]
            check("tomllib: the rest of the document is what it was",
                  doc == {**tomllib.loads(original), "tool": {"uv": {"index": tomllib.loads(original)["tool"]["uv"]["index"]}}},
                  doc)
            c = rr(["project", "--check", "."])
            check("project --check passes once written", c.returncode == 0, c.stderr)
            w2 = rr(["project", "--write", "."])
            check("project --write again changes nothing", w2.returncode == 0 and open(pyproject).read() == after,
                  w2.stderr)
            r, pk = uv_lock()
            check("uv lock now: no protected name, no nvidia-*, the chains held",
                  r.returncode == 0 and not any(p in pk for p in PROTECTED) and not any(k.startswith("nvidia-") for k in pk)
                  and pk.get("rr-speech") == "1.0" and pk.get("rr-speech-io") == "1.0"
                  and pk.get("rr-audio-backend") == "1.0" and pk.get("rr-fastkern") == "1.0", r.stderr + str(pk))
            transcript.append("(locked: " + ", ".join(f"{k} {v}" for k, v in sorted(pk.items())) + ")\n")

            # the project venv, made with the protected interpreter and bridged to it
            r = sh([uv, "venv", "--python", f"{v72}/bin/python", ".venv"])
            b = rr(["project", "--bridge", "--check", "."])
            pths = [f for sp in E._site_packages(os.path.join(proj, ".venv")) for f in os.listdir(sp) if f.endswith(".pth")]
            check("project --bridge writes the .pth bridge to the protected site-packages",
                  b.returncode == 0 and "rocm-resolve-bridge.pth" in pths, b.stderr + str(pths))
            probe = subprocess.run([os.path.join(proj, ".venv", "bin", "python"), "-c",
                                    "import torch.version as v; print(v.hip)"], capture_output=True, text=True,
                                   env=E.clean_env())
            check("the project venv imports the protected torch through the bridge",
                  probe.returncode == 0 and probe.stdout.strip().startswith("7.2"), probe.stdout + probe.stderr)
            s = sh([uv, "sync", "--dry-run"])
            would = re.findall(r"^ \+ ([A-Za-z0-9._-]+)==(\S+)", s.stdout + s.stderr, re.M)
            names = {E.norm(a) for a, _ in would}
            check("uv sync --dry-run installs the project's packages, nothing protected, no nvidia-*",
                  s.returncode == 0 and {"einops", "rr-speech", "rr-fastkern"} <= names
                  and not any(p in names for p in PROTECTED) and not any(x.startswith("nvidia-") for x in names),
                  s.stdout + s.stderr)
            c = rr(["check", "uv.lock"])
            check("check uv.lock passes, no word of the lock's index being the project's own",
                  c.returncode == 0 and "stays intact" in c.stderr and "prefers" not in c.stderr, c.stderr)

            # ---- a pylock.toml installed by real uv, the stack untouched
            r = rr(["--lock", "--format", "pylock", "-i", simple, "pyproject.toml"])
            lock = os.path.join(proj, "pylock.toml")
            with open(lock, "w") as fh:
                fh.write(r.stdout)
            pl = tomllib.loads(r.stdout) if r.returncode == 0 else {}
            names = {E.norm(p["name"]) for p in pl.get("packages", [])}
            check("--lock --format pylock: a PEP 751 file with hashes and the index; the protected "
                  "ones named by the file each was installed from",
                  r.returncode == 0 and pl.get("lock-version") == "1.0" and "rr-speech" in names
                  and all(p in names for p in PROTECTED)
                  and all(w["hashes"]["sha256"] and (p.get("index") in (simple, simple.rstrip("/"))
                                                     or w["url"].startswith("file://"))
                          for p in pl.get("packages", []) for w in p.get("wheels", []))
                  and {x["name"] for x in pl["tool"]["rocm-resolve"]["protected"]} >= set(PROTECTED),
                  r.stdout + r.stderr)
            target = os.path.join(work, "target")
            shutil.copytree(v72, target, symlinks=True)
            # the copy's scripts and pyvenv.cfg keep pointing at the system python: fine for uv
            stack = {k: v for k, v in E.installed(target).items() if k in PROTECTED}
            files_before = {os.path.join(d, f): open(os.path.join(d, f), "rb").read()
                            for sp in E._site_packages(target) for d, _, fs in os.walk(sp)
                            for f in fs if any(d.startswith(os.path.join(sp, m)) for m in PROTECTED)}
            u = sh([uv, "pip", "install", "--python", f"{target}/bin/python", "-r", "pylock.toml"])
            have = E.installed(target)
            files_after = {os.path.join(d, f): open(os.path.join(d, f), "rb").read()
                           for sp in E._site_packages(target) for d, _, fs in os.walk(sp)
                           for f in fs if any(d.startswith(os.path.join(sp, m)) for m in PROTECTED)}
            check("uv pip install -r pylock.toml installs it", u.returncode == 0 and have.get("rr-speech") == "1.0"
                  and have.get("rr-fastkern") == "1.0", u.stdout + u.stderr)
            check("the stack is untouched: same versions, same files byte for byte",
                  {k: v for k, v in have.items() if k in PROTECTED} == stack and files_before == files_after
                  and len(files_before) > 4, str(stack))
            c = rr(["check", "pylock.toml"])
            check("check pylock.toml passes", c.returncode == 0, c.stderr)

            # ---- a project no release can satisfy next to the stack
            bad = os.path.join(work, "bad")
            os.makedirs(bad)
            with open(os.path.join(bad, "pyproject.toml"), "w") as fh:
                fh.write(f"[project]\nname = \"bad\"\nversion = \"0\"\ndependencies = [\"vllm\"]\n\n"
                         f"[[tool.uv.index]]\nurl = \"{simple}\"\ndefault = true\n")
            e = rr(["project", "--write", bad])
            check("a requirement no release can meet with the stack: exit 1, the chain named, nothing written",
                  e.returncode == 1 and "pyproject.toml:4: 'vllm'" in e.stderr and "torch" in e.stderr
                  and "[tool.uv]" not in open(os.path.join(bad, "pyproject.toml")).read(), e.stderr)

            # ---- the indexes from uv's configuration in the project's directory (uv.toml),
            # run from elsewhere: as `uv lock` there reads them; PyPI is unreachable
            cfg = os.path.join(work, "cfg-app")
            os.makedirs(cfg)
            with open(os.path.join(cfg, "pyproject.toml"), "w") as fh:
                fh.write("[project]\nname = \"cfg-app\"\nversion = \"0\"\nrequires-python = \">=3.11\"\n"
                         "dependencies = [\"torch\", \"rr-fastkern\"]\n")
            with open(os.path.join(cfg, "uv.toml"), "w") as fh:
                fh.write(f"[[index]]\nurl = \"{simple}\"\ndefault = true\n")
            dead = dict(uvenv, https_proxy="http://127.0.0.1:9", http_proxy="http://127.0.0.1:9")
            w = rr(["project", "--write", "--timeout", "20", "cfg-app"], cwd=work, env=dead)
            cfgdoc = tomllib.loads(open(os.path.join(cfg, "pyproject.toml")).read())
            check("project DIR reads uv.toml of DIR for its indexes, as uv lock there does",
                  w.returncode == 0 and "rr-fastkern==1.0" in cfgdoc.get("tool", {}).get("uv", {})
                  .get("constraint-dependencies", []) and "uv.toml" in w.stderr, w.stdout + w.stderr)
            r = sh([uv, "lock", "--python", f"{v72}/bin/python"], cwd=cfg)
            pk = lock_packages(os.path.join(cfg, "uv.lock")) if r.returncode == 0 else {}
            check("uv lock there keeps rr-fastkern at 1.0 and locks nothing protected",
                  pk.get("rr-fastkern") == "1.0" and not any(p in pk for p in PROTECTED), r.stderr + str(pk))
            # ---- `uv add`: uv cannot see the stack (it is excluded) and writes the newest
            # release as a lower bound; project --check names the chain. `uv add --raw
            # --frozen`, project --write, uv lock: held (the README's workflow)
            a = sh([uv, "add", "--python", f"{v72}/bin/python", "rr-speech"], cwd=cfg)
            pk = lock_packages(os.path.join(cfg, "uv.lock")) if a.returncode == 0 else {}
            check("uv add rr-speech locks rr-speech 2.0 and writes rr-speech>=2.0",
                  pk.get("rr-speech") == "2.0" and "rr-speech>=2.0" in open(os.path.join(cfg, "pyproject.toml")).read(),
                  a.stderr + str(pk))
            c = rr(["project", "--check", "--timeout", "20", "cfg-app"], cwd=work, env=dead)
            check("project --check then: exit 1, 'rr-speech>=2.0' with the chain down to torchaudio",
                  c.returncode == 1 and "'rr-speech>=2.0'" in c.stderr
                  and "rr-audio-backend 2.0 requires torchaudio>=2.9.1" in c.stderr, c.stderr)
            check("... and names uv add's lower bound as the cause, the release that fits and the edit",
                  "only its own bound is in the way: rr-speech 1.0 fits the stack" in c.stderr
                  and "write 'rr-speech>=1.0'" in c.stderr and "uv add --raw --frozen rr-speech" in c.stderr
                  and "no release can give" not in c.stderr, c.stderr)
            sh([uv, "remove", "--frozen", "rr-speech"], cwd=cfg)
            a = sh([uv, "add", "--raw", "--frozen", "rr-speech"], cwd=cfg)
            c = rr(["project", "--check", "--timeout", "20", "cfg-app"], cwd=work, env=dead)
            w = rr(["project", "--write", "--timeout", "20", "cfg-app"], cwd=work, env=dead)
            r = sh([uv, "lock", "--python", f"{v72}/bin/python"], cwd=cfg)
            pk = lock_packages(os.path.join(cfg, "uv.lock")) if r.returncode == 0 else {}
            check("uv add --raw --frozen, project --write, uv lock: rr-speech and rr-fastkern held at 1.0",
                  a.returncode == 0 and c.returncode == 1 and "rr-speech==1.0" in c.stderr and w.returncode == 0
                  and pk.get("rr-speech") == "1.0" and pk.get("rr-fastkern") == "1.0"
                  and not any(p in pk for p in PROTECTED), a.stderr + c.stderr + w.stderr + r.stderr + str(pk))

            # ---- a lock line whose locked version breaks the stack while the newest release
            # fits (xformers 0.0.29.post3 pins torch==2.6.0; 0.0.31 asks torch>=2.7): its
            # decision says what the locked version does, not "no conflict" alone
            xf = os.path.join(work, "xf-app")
            os.makedirs(xf)
            with open(os.path.join(xf, "pyproject.toml"), "w") as fh:
                fh.write("[project]\nname = \"xf-app\"\nversion = \"0\"\nrequires-python = \">=3.11\"\n"
                         "dependencies = [\"xformers==0.0.29.post3\"]\n\n[tool.uv]\n"
                         "exclude-dependencies = [\"torch\"]\n\n"
                         f"[[tool.uv.index]]\nurl = \"{simple}\"\ndefault = true\n")
            r = sh([uv, "lock", "--python", f"{v72}/bin/python"], cwd=xf)
            j = rr(["check", "--format", "json", "uv.lock"], cwd=xf)
            doc = json.loads(j.stdout) if j.stdout.strip().startswith("{") else {}
            ds = [d for d in doc.get("decisions", []) if d.get("requirement", "").startswith("xformers")]
            check("a locked xformers==0.0.29.post3: its decision says the locked version breaks the "
                  "stack, and it is marked so",
                  r.returncode == 0 and j.returncode == 1 and len(ds) == 1 and ds[0].get("breaks_stack")
                  and ds[0]["why"].startswith("the locked 'xformers==0.0.29.post3' breaks the ROCm stack"),
                  r.stderr + j.stderr + str(ds))
    finally:
        out = os.environ.get("RR_TRANSCRIPT")
        if out:
            with open(out, "w") as fh:
                fh.write("\n".join(transcript).replace(work, "$WORK"))
        shutil.rmtree(work, ignore_errors=True)
    print(f"{n - len(fails)} passed, {len(fails)} failed")
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
