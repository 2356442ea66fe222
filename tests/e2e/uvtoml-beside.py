#!/usr/bin/python3
"""A uv.toml beside the project's pyproject.toml (issue 28 item 6), with real uv on the
fixture index: where `project --write` puts exclude-dependencies and
constraint-dependencies, and what uv does with them.

uv reads uv.toml first and warns that the [tool.uv] keys "will be ignored in favor of
the uv.toml file". Measured here: `uv lock` still applies both keys from pyproject.toml,
and ignores them in a uv.toml. So rocm-resolve writes them into pyproject.toml, says
why, and `uv lock` then locks neither torch nor an nvidia-* package; the same keys moved
into uv.toml would let uv lock CUDA torch. Fails on caf3dbd only on the note (it put
the keys in the same place without a word)."""
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2elib as E  # noqa: E402


def main():
    uv = E.require_uv()
    work = tempfile.mkdtemp(prefix="rr-uvtoml-")
    t = E.Tap()
    check = t.check
    try:
        v72 = E.build_venv(os.path.join(work, "v72"), "rocm72")
        env = E.uv_env(work)
        with E.Index() as idx:
            proj = os.path.join(work, "app")
            os.makedirs(proj)
            pyproject = os.path.join(proj, "pyproject.toml")
            with open(pyproject, "w") as fh:
                fh.write('[project]\nname = "app"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n'
                         'dependencies = ["torch>=2.3", "einops"]\n')
            uv_toml = f'index-url = "{idx.simple()}"\n'
            with open(os.path.join(proj, "uv.toml"), "w") as fh:
                fh.write(uv_toml)

            def lock(d):
                if os.path.exists(os.path.join(d, "uv.lock")):
                    os.unlink(os.path.join(d, "uv.lock"))
                r = subprocess.run([uv, "lock", "--python", f"{v72}/bin/python"], cwd=d,
                                   capture_output=True, text=True, env=env, timeout=300)
                pk = set()
                if r.returncode == 0:
                    with open(os.path.join(d, "uv.lock"), "rb") as fh:
                        pk = {E.norm(p["name"]) for p in tomllib.load(fh).get("package", [])}
                return r, pk

            w = subprocess.run([E.EXE, "project", "--write", "--venv", v72, "--cache-dir",
                                os.path.join(work, "rrcache"), "."], cwd=proj,
                               capture_output=True, text=True, env=env, timeout=300)
            with open(pyproject, "rb") as fh:
                doc = tomllib.load(fh)
            uvs = doc.get("tool", {}).get("uv", {})
            check("project --write puts the keys into pyproject.toml, uv.toml untouched",
                  w.returncode == 0 and "torch" in uvs.get("exclude-dependencies", [])
                  and open(os.path.join(proj, "uv.toml")).read() == uv_toml, w.stderr)
            check("and says uv warns about them yet applies them from pyproject.toml only",
                  "uv.toml sits beside" in w.stderr and "will be ignored in favor of the uv.toml"
                  in w.stderr and "apply these two keys from pyproject.toml only" in w.stderr,
                  w.stderr)
            r, pk = lock(proj)
            check("real uv warns that the [tool.uv] keys will be ignored",
                  "will be ignored in favor of the `uv.toml` file" in r.stderr, r.stderr)
            check("real uv lock applies them all the same: no torch, no nvidia-*",
                  r.returncode == 0 and "einops" in pk and "torch" not in pk
                  and not any(p.startswith("nvidia-") for p in pk), r.stderr + str(sorted(pk)))
            # the other place: the same keys in uv.toml only
            other = os.path.join(work, "other")
            os.makedirs(other)
            with open(os.path.join(other, "pyproject.toml"), "w") as fh:
                fh.write('[project]\nname = "app"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n'
                         'dependencies = ["torch>=2.3", "einops"]\n')
            with open(os.path.join(other, "uv.toml"), "w") as fh:
                fh.write(uv_toml + "exclude-dependencies = " +
                         repr(uvs["exclude-dependencies"]).replace("'", '"') + "\n")
            r, pk = lock(other)
            check("in uv.toml the same keys have no effect: uv locks torch",
                  r.returncode == 0 and "torch" in pk, r.stderr + str(sorted(pk)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return t.status()


if __name__ == "__main__":
    sys.exit(main())
