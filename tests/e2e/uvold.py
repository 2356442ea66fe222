#!/usr/bin/python3
"""An older uv on PATH (issue 28, item 4): uv 0.9.0 from the registry, installed by
./bootstrap's install_tools into .venv-tools/uv-0.9.0 (the test never reaches the
network; it skips, 77, when that uv is missing), and the current uv.

With the settings `project --write` made:
  - what uv 0.9.0 does with them: it warns that it does not know
    exclude-dependencies and locks torch and nvidia-* from the index (given on its
    command line, since the [tool.uv] table it drops holds the project's own index);
    the current uv, the same command, locks none of them;
  - a `required-version` beside the key does not make uv 0.9.0 refuse (dropped with
    the table): why project does not write one;
  - `project --check` and `project --write` with uv 0.9.0 first on PATH exit 1 naming
    0.9.8; with the current uv they pass, and -v says its version honours the key."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2elib as E  # noqa: E402

PROTECTED = E.PROTECTED


def main():
    if not os.access(E.EXE, os.X_OK):
        E.skip(f"{E.EXE} not built")
    uv = E.find_uv()
    old = os.path.join(E.SRC, ".venv-tools", "uv-0.9.0", "bin", "uv")
    if not uv or not os.access(old, os.X_OK):
        E.skip(f"uv, or uv 0.9.0 at {old} (./bootstrap's install_tools), not found")
    work = tempfile.mkdtemp(prefix="rr-uvold-")
    t = E.Tap()
    base = E.uv_env(work, **E.NO_OUTSIDE)

    def with_uv(which):
        return dict(base, PATH=os.path.dirname(which) + os.pathsep + base.get("PATH", "/usr/bin:/bin"))

    try:
        v72 = E.build_venv(os.path.join(work, "v72"), "rocm72")
        cache = os.path.join(work, "rrcache")
        with E.Index() as idx:
            simple = idx.simple()
            proj = os.path.join(work, "app")
            os.makedirs(proj)
            pyproject = os.path.join(proj, "pyproject.toml")
            with open(pyproject, "w") as fh:
                fh.write("[project]\nname = \"app\"\nversion = \"0.1.0\"\nrequires-python = \">=3.11\"\n"
                         "dependencies = [\"torch>=2.3\", \"rr-fastkern\"]\n\n"
                         f"[[tool.uv.index]]\nurl = \"{simple}\"\ndefault = true\n")

            def rr(args, which, extra=()):
                return E.rr(["--venv", v72, "--cache-dir", cache] + list(extra) + args, env=with_uv(which),
                            cwd=proj)

            def lock(which):
                lk = os.path.join(proj, "uv.lock")
                if os.path.exists(lk):
                    os.unlink(lk)
                r = subprocess.run([which, "lock", "--python", f"{v72}/bin/python", "--default-index", simple],
                                   cwd=proj, env=base, capture_output=True, text=True, timeout=300)
                return r, (E.lock_packages(lk) if r.returncode == 0 else {})

            w = rr(["project", "--write", "."], uv)
            t.check("project --write with the current uv on PATH", w.returncode == 0, w.stderr)
            r, pk = lock(old)
            t.check("uv 0.9.0 warns that it does not know exclude-dependencies and locks torch and "
                    "nvidia-* again",
                    r.returncode == 0 and "unknown field `exclude-dependencies`" in r.stderr
                    and "torch" in pk and any(k.startswith("nvidia-") for k in pk), r.stderr + str(pk))
            r, pk = lock(uv)
            t.check("the current uv, the same command: nothing protected, rr-fastkern held",
                    r.returncode == 0 and not any(p in pk for p in PROTECTED) and pk.get("rr-fastkern") == "1.0",
                    r.stderr + str(pk))
            text = open(pyproject).read()
            with open(pyproject, "w") as fh:
                fh.write(text.replace("[tool.uv]\n", "[tool.uv]\nrequired-version = \">=0.9.8\"\n", 1))
            r, pk = lock(old)
            t.check("a required-version beside it is dropped with the table: uv 0.9.0 still locks torch",
                    r.returncode == 0 and "torch" in pk, r.stderr + str(pk))
            with open(pyproject, "w") as fh:
                fh.write(text)

            c = rr(["project", "--check", "."], old)
            t.check("uv 0.9.0 first on PATH: project --check exits 1 naming 0.9.8",
                    c.returncode == 1 and re.search(r"is uv 0\.9\.0; \[tool\.uv\] exclude-dependencies needs "
                                                    r"uv 0\.9\.8 or newer", c.stderr) is not None
                    and "ok:" not in c.stderr, c.stderr)
            w = rr(["project", "--write", "."], old)
            t.check("... and project --write too (the settings written, exit 1)",
                    w.returncode == 1 and "needs uv 0.9.8" in w.stderr and open(pyproject).read() == text,
                    w.stderr)
            c = rr(["project", "--check", "."], uv, ["-v"])
            t.check("the current uv: project --check passes and says its version honours the key",
                    c.returncode == 0 and re.search(r"is uv [0-9.]+: it honours exclude-dependencies", c.stderr)
                    is not None, c.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(t.status())


if __name__ == "__main__":
    main()
