#!/usr/bin/env python3
"""Run `rocm-resolve --no-index --venv fixtures/venvs/rocm72` on every file of the
shared corpus (requirements, freeze listings, pyproject.toml). Each must exit 0
with a plan on stdout that pip's own parser and uv accept (anything they reject in
the plan they must reject in the input too: a local path missing here), or exit 2
with a 'file:line:col: message' on stderr and only the fail-closed line on stdout.
Under ASan/UBSan any sanitizer report fails the run."""
import os
FAIL_CLOSED = b"rocm-resolve failed, no plan: see its error above\n"
import re
import shutil
import subprocess
import sys
import tempfile

src = os.environ["RR_SRCDIR"]
exe = os.path.join(os.environ["RR_BUILDDIR"], "src", "cli", "rocm-resolve")
corpus = os.environ.get("RR_SHARED", os.path.join(src, "..", "shared"))
corpus = os.path.join(corpus, "corpus")
if not os.path.isdir(corpus):
    print(f"SKIP: corpus not found at {corpus}")
    sys.exit(77)

venv = os.path.join(src, "fixtures", "venvs", "rocm72")
# the corpus flattens owner/repo/path into owner__repo__path; lay it out again
# (as symlinks) so that -r/-c includes between files of one repository resolve
tree = tempfile.mkdtemp(prefix="rr-corpus-")
files = []
for sub in ("requirements", "freeze", "pyproject"):
    d = os.path.join(corpus, sub)
    for f in sorted(os.listdir(d)):
        parts = f.split("__")
        rel = os.path.join(sub, *parts) if len(parts) >= 3 else os.path.join(sub, f)
        dst = os.path.join(tree, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        os.symlink(os.path.join(d, f), dst)
        files.append(dst)

def uv():
    for c in (os.path.join(src, ".venv-tools", "bin", "uv"), shutil.which("uv")):
        if c and os.access(c, os.X_OK):
            return c
    return None


UV = uv()
UV_PARSE_ERROR = re.compile(r"Couldn't parse|Unexpected '|error: .*:\d+:\d+")


def pip_parse(path):
    """pip's own requirements-file parser and requirement constructor; an error string or None"""
    code = ("import sys; sys.path.insert(0, '/usr/lib/python3/dist-packages')\n"
            "from pip._internal.req.req_file import parse_requirements\n"
            "from pip._internal.network.session import PipSession\n"
            "from pip._internal.req.constructors import install_req_from_parsed_requirement\n"
            "for pr in parse_requirements(sys.argv[1], session=PipSession()):\n"
            "    install_req_from_parsed_requirement(pr)\n")
    r = subprocess.run(["/usr/bin/python3", "-c", code, path], capture_output=True, text=True, timeout=60)
    return None if r.returncode == 0 else (r.stderr.strip().splitlines() or ["?"])[-1]


def uv_parse(path):
    """uv reads the whole file before it resolves: offline and with no index, anything but
    a parse error is fine here"""
    if not UV:
        return None
    r = subprocess.run([UV, "pip", "compile", "--offline", "--no-index", "-q", "--no-cache", path],
                       capture_output=True, text=True, timeout=60)
    m = UV_PARSE_ERROR.search(r.stderr)
    return m and r.stderr.strip()[:300]


located = re.compile(r"^rocm-resolve: error: [^\n]+:\d+:\d+: ", re.M)
passed = failed = 0
counts = {0: 0, 2: 0}
for f in files:
    args = [exe, "--no-index", "--venv", venv, f]
    r = subprocess.run(args, capture_output=True, cwd=src, timeout=60)
    err = r.stderr.decode(errors="replace")
    problems = []
    if "Sanitizer" in err or "runtime error:" in err:
        problems.append("sanitizer report")
    if r.returncode == 0:
        if not r.stdout.startswith(b"# rocm-resolve"):
            problems.append("exit 0 without a plan on stdout")
        # every plan is a requirements file both installers accept (issue 8)
        plan = os.path.join(tree, "plan.txt")
        with open(plan, "wb") as fh:
            fh.write(r.stdout)
        for who, fn in (("pip", pip_parse), ("uv", uv_parse)):
            bad = fn(plan)
            # a local path that is not there (an editable ./sd-scripts of the original
            # repository) is rejected in the input as well: not the plan's doing
            if bad and fn(f) != bad:
                problems.append(f"{who} rejects the plan: {bad}")
    elif r.returncode == 2:
        if r.stdout != FAIL_CLOSED:
            problems.append("exit 2 without exactly the fail-closed line on stdout")
        if not located.search(err) and "dynamic" not in err:
            problems.append("exit 2 without a file:line:col message")
    else:
        problems.append(f"exit {r.returncode}")
    if problems:
        failed += 1
        print(f"FAIL {os.path.basename(f)}: {'; '.join(problems)}\n{err[:2000]}")
    else:
        passed += 1
        counts[r.returncode] += 1
        first = err.splitlines()[0] if r.returncode and err else ""
        print(f"PASS {os.path.relpath(f, tree)} (exit {r.returncode}) {first}")
shutil.rmtree(tree, ignore_errors=True)
print(f"{len(files)} corpus files: {counts[0]} planned, {counts[2]} rejected with a located error")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
