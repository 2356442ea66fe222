#!/usr/bin/python3
"""One network rule (issue 28, item 7): an index that cannot be reached and one that
answers HTTP 500 are the same to both hooks (`check`, `project --check`) and to the
CLI, against tests/index/serve.py (its /_fault/always500/ prefix) and a closed port,
each run with a cold cache.

  - check of a requirements file and of a uv project's pyproject.toml, and project
    --check of that project (its settings written while the index worked): exit 0
    with a warning that the dependencies were NOT checked, for both faults;
  - what the lines alone show still fails: torch==2.4.0 (check), a project asking
    for torch with no settings (project --check);
  - ROCM_RESOLVE_REQUIRE_INDEX=1 (CI) turns "not checked" into exit 3, both hooks;
  - plan and project --write exit 3 for both faults (a plan is never made without
    the index)."""
import os
import shutil
import socket
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2elib as E  # noqa: E402


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    if not os.access(E.EXE, os.X_OK):
        E.skip(f"{E.EXE} not built")
    work = tempfile.mkdtemp(prefix="rr-network-")
    t = E.Tap()
    env = E.clean_env(HOME=work, XDG_CONFIG_HOME=os.path.join(work, "config"), **E.NO_OUTSIDE)
    try:
        v72 = E.build_venv(os.path.join(work, "v72"), "rocm72")
        with E.Index() as idx:
            good = idx.simple()
            faults = {"down": f"http://127.0.0.1:{closed_port()}/simple/",
                      "500": f"{idx.url}/_fault/always500/simple/"}
            proj = os.path.join(work, "app")
            os.makedirs(proj)
            pyproject = os.path.join(proj, "pyproject.toml")
            body = ("[project]\nname = \"app\"\nversion = \"0.1.0\"\nrequires-python = \">=3.11\"\n"
                    "dependencies = [\"torch>=2.3\", \"einops\", \"rr-fastkern\"]\n\n"
                    "[[tool.uv.index]]\nurl = \"{url}\"\ndefault = true\n")
            with open(pyproject, "w") as fh:
                fh.write(body.format(url=good))
            n = [0]

            def rr(args, extra_env=None):
                n[0] += 1
                cache = os.path.join(work, f"cache{n[0]}")  # cold each time
                return E.rr(["--venv", v72, "--cache-dir", cache, "--timeout", "20"] + args,
                            env=dict(env, **(extra_env or {})), cwd=proj, timeout=180)

            w = rr(["project", "--write", "."])
            t.check("project --write while the index works", w.returncode == 0, w.stderr)
            written = open(pyproject).read()
            with open(os.path.join(proj, "requirements.txt"), "w") as fh:
                fh.write("einops\nrr-fastkern\n")
            with open(os.path.join(proj, "bad.txt"), "w") as fh:
                fh.write("einops\ntorch==2.4.0\n")
            for name, url in faults.items():
                with open(pyproject, "w") as fh:
                    fh.write(written.replace(good, url))
                req = rr(["check", "-i", url, "requirements.txt"])
                pp = rr(["check", "pyproject.toml"])
                pc = rr(["project", "--check", "."])
                t.check(f"index {name}: check requirements.txt, check pyproject.toml and project "
                        "--check exit 0, saying the dependencies were NOT checked",
                        all(r.returncode == 0 and "NOT checked" in r.stderr for r in (req, pp, pc)),
                        req.stderr + pp.stderr + pc.stderr)
                bad = rr(["check", "-i", url, "bad.txt"])
                t.check(f"index {name}: what the lines alone show still fails check (torch==2.4.0)",
                        bad.returncode == 1 and "torch==2.4.0" in bad.stderr, bad.stderr)
                ci = {"ROCM_RESOLVE_REQUIRE_INDEX": "1"}
                req = rr(["check", "-i", url, "requirements.txt"], ci)
                pc = rr(["project", "--check", "."], ci)
                t.check(f"index {name}: ROCM_RESOLVE_REQUIRE_INDEX=1 makes both hooks exit 3",
                        req.returncode == 3 and pc.returncode == 3
                        and "ROCM_RESOLVE_REQUIRE_INDEX" in req.stderr + pc.stderr,
                        req.stderr + pc.stderr)
                pl = rr(["-i", url, "requirements.txt"])
                pw = rr(["project", "--write", "."])
                t.check(f"index {name}: plan and project --write exit 3",
                        pl.returncode == 3 and pw.returncode == 3 and open(pyproject).read() ==
                        written.replace(good, url), pl.stderr + pw.stderr)
                # a project asking for torch with no settings: the lines alone say so
                with open(pyproject, "w") as fh:
                    fh.write(body.format(url=url))
                pc = rr(["project", "--check", "."])
                t.check(f"index {name}: project --check of a project asking for torch without "
                        "settings still exits 1", pc.returncode == 1 and "lacks \"torch\"" in pc.stderr,
                        pc.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(t.status())


if __name__ == "__main__":
    main()
