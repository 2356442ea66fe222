#!/usr/bin/python3
"""One verdict per tree from both pre-commit hooks (issue 28, item 3), run by the real
pre-commit on a set of trees, with real uv making the locks.

The hooks are the repository's .pre-commit-hooks.yaml entries (their `files` patterns
read from it), run as `repo: local` hooks on the built binary (`language: system`:
tests/package/hook-test.sh covers the packaged hook itself), with --venv naming the
fake ROCm 7.2 venv. Each tree is a git repository and `pre-commit run --all-files`
runs each hook; where both hooks have files, their verdicts must agree, and each
verdict must be the one the tree calls for:
  - the README's uv project before `project --write`: both fail (rr-speech and
    rr-fastkern reach the stack); after `project --write` and `uv lock`: both pass
    (check applies the project's own [tool.uv] settings, as uv does), also when a
    commit touches pyproject.toml alone;
  - a uv workspace (a member's breaker, a member nobody depends on) before and after;
  - a tool-configuration-only pyproject.toml: both pass;
  - a pyproject.toml depending on einops alone, with and without [tool.uv]: both pass
    (the project hook demands no settings where uv never reaches the stack);
  - a requirements-only repository: check alone runs (torch==2.4.0 fails it).
Skips (77) without pre-commit (./bootstrap's .venv-package has it)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2elib as E  # noqa: E402


def find_pre_commit():
    cand = os.path.join(E.SRC, ".venv-package", "bin", "pre-commit")
    return cand if os.access(cand, os.X_OK) else shutil.which("pre-commit")


def hook_files():
    """{hook id: its `files` pattern} from .pre-commit-hooks.yaml"""
    out, cur = {}, None
    for line in open(os.path.join(E.SRC, ".pre-commit-hooks.yaml")):
        m = re.match(r"- id: (\S+)", line)
        if m:
            cur = m.group(1)
        m = re.match(r"\s+files: (.+)$", line)
        if m and cur:
            out[cur] = m.group(1).strip()
    return out


def main():
    if not os.access(E.EXE, os.X_OK):
        E.skip(f"{E.EXE} not built")
    uv = E.find_uv()
    pc = find_pre_commit()
    if not uv or not pc:
        E.skip("uv or pre-commit not found")
    files = hook_files()
    if set(files) != {"rocm-resolve-check", "rocm-resolve-project"}:
        print(f"not ok 1 - .pre-commit-hooks.yaml: {files}")
        sys.exit(1)
    work = tempfile.mkdtemp(prefix="rr-hooks-")
    t = E.Tap()
    env = E.uv_env(work, PRE_COMMIT_HOME=os.path.join(work, "pre-commit-home"),
                   GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
                   GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid", **E.NO_OUTSIDE)
    try:
        v72 = E.build_venv(os.path.join(work, "v72"), "rocm72")
        cache = os.path.join(work, "rrcache")
        with E.Index() as idx:
            simple = idx.simple()

            def repo(name, tree, extra_args=()):
                """a git repository holding tree {path: text}, with both hooks configured"""
                d = os.path.join(work, name)
                for rel, text in tree.items():
                    E.write(os.path.join(d, rel), text)
                args = ["--venv", v72, "--cache-dir", cache, "--timeout", "30"] + list(extra_args)
                cfg = "repos:\n  - repo: local\n    hooks:\n"
                for hid, entry in (("rocm-resolve-check", "check"),
                                   ("rocm-resolve-project", "project --check")):
                    cfg += (f"      - id: {hid}\n        name: {hid}\n"
                            f"        entry: {E.EXE} {entry}\n        language: system\n"
                            f"        files: '{files[hid]}'\n        pass_filenames: true\n"
                            f"        require_serial: true\n        args: {json.dumps(args)}\n")
                E.write(os.path.join(d, ".pre-commit-config.yaml"), cfg)
                subprocess.run(["git", "init", "-q", "-b", "main", d], env=env, check=True)
                return d

            def run(d, hook, only=None):
                subprocess.run(["git", "add", "-A"], cwd=d, env=env, check=True)
                which = ["--files"] + only if only else ["--all-files"]
                r = subprocess.run([pc, "run", hook] + which, cwd=d, env=env, capture_output=True,
                                   text=True, timeout=300)
                out = r.stdout + r.stderr
                if "(no files to check)Skipped" in out:
                    return "skipped", out
                return ("pass" if r.returncode == 0 else "fail"), out

            def verdicts(name, d, want_check, want_project, only=None):
                c, co = run(d, "rocm-resolve-check", only)
                p, po = run(d, "rocm-resolve-project", only)
                agree = p == "skipped" or c == p
                t.check(f"{name}: check {want_check}, project {want_project}, and they agree",
                        agree and c == want_check and p == want_project, co + po)

            index = f"[[tool.uv.index]]\nurl = \"{simple}\"\ndefault = true\n"
            speech = ("[project]\nname = \"speech-app\"\nversion = \"0.1.0\"\nrequires-python = \">=3.11\"\n"
                      "dependencies = [\"torch>=2.3\", \"einops\", \"rr-speech\", \"rr-fastkern\"]\n\n" + index)

            # ---- the README's uv project, before and after project --write / uv lock
            d = repo("readme", {"pyproject.toml": speech})
            verdicts("README project before --write", d, "fail", "fail")
            w = E.rr(["--venv", v72, "--cache-dir", cache, "project", "--write", "."], env=env, cwd=d)
            lk = subprocess.run([uv, "lock", "--python", f"{v72}/bin/python"], cwd=d, env=env,
                                capture_output=True, text=True, timeout=300)
            t.check("project --write and uv lock", w.returncode == 0 and lk.returncode == 0, w.stderr + lk.stderr)
            verdicts("README project after --write and uv lock", d, "pass", "pass")
            # a commit that touches pyproject.toml alone: check reads it without the lock
            verdicts("README project after --write, pyproject.toml alone", d, "pass", "pass",
                     ["pyproject.toml"])

            # ---- a workspace: the breaker in a member, a member nobody depends on
            ws_tree = {
                "pyproject.toml": ("[project]\nname = \"app\"\nversion = \"0.1.0\"\nrequires-python = \">=3.11\"\n"
                                   "dependencies = [\"kern\"]\n\n[tool.uv.sources]\nkern = { workspace = true }\n\n"
                                   "[tool.uv.workspace]\nmembers = [\"packages/*\"]\n\n" + index),
                "packages/kern/pyproject.toml": ("[project]\nname = \"kern\"\nversion = \"0.1.0\"\n"
                                                 "dependencies = [\"rr-fastkern\", \"torch>=2.3\"]\n"),
                "packages/audio/pyproject.toml": ("[project]\nname = \"audio\"\nversion = \"0.1.0\"\n"
                                                  "dependencies = [\"rr-speech\"]\n"),
            }
            d = repo("workspace", ws_tree)
            verdicts("workspace before --write", d, "fail", "fail")
            w = E.rr(["--venv", v72, "--cache-dir", cache, "project", "--write", "packages/audio"], env=env, cwd=d)
            t.check("project --write in a member", w.returncode == 0, w.stderr)
            verdicts("workspace after --write", d, "pass", "pass")

            # ---- files with nothing for the project hook to demand
            d = repo("config-only", {"pyproject.toml": "[build-system]\nrequires = [\"setuptools\"]\n"
                                                       "build-backend = \"setuptools.build_meta\"\n\n"
                                                       "[tool.black]\nline-length = 100\n"})
            verdicts("tool configuration only", d, "pass", "pass")
            einops = "[project]\nname = \"small\"\nversion = \"0\"\ndependencies = [\"einops\"]\n"
            d = repo("einops", {"pyproject.toml": einops})
            verdicts("einops alone, not a uv project", d, "pass", "pass")
            d = repo("einops-uv", {"pyproject.toml": einops + "\n" + index})
            verdicts("einops alone, a uv project: no settings needed", d, "pass", "pass")

            # ---- requirements files only: the check hook alone
            d = repo("reqs", {"requirements.txt": "einops\n"}, ["--index-url", simple])
            verdicts("requirements only, safe", d, "pass", "skipped")
            d = repo("reqs-bad", {"requirements.txt": "einops\ntorch==2.4.0\n"}, ["--index-url", simple])
            verdicts("requirements only, torch==2.4.0", d, "fail", "skipped")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(t.status())


if __name__ == "__main__":
    main()
