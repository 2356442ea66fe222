#!/usr/bin/python3
"""An sdist's pyproject.toml read as core metadata (rr_pyproject_core_metadata, for
sdists whose PKG-INFO cannot be trusted) judged by setuptools, which builds the same
[project] table into METADATA, and by packaging, which reads both.

    coremeta_diff.py RR_COREMETA

For each document: setuptools' prepare_metadata_for_build_wheel writes METADATA; the
driver writes its text. Both must name the same project and Requires-Python, the same
extras (PEP 685 names), and the same Requires-Dist: the same requirements (name,
extras, specifiers, URL), each under a marker that holds in exactly the same
environments, for no extra and for each extra. Documents whose dependencies are
dynamic, or that are not PEP 621, must be refused (exit 3)."""
import email.parser
import os
import subprocess
import sys
import tempfile

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

HEAD = '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n'
TAIL = '\n[tool.setuptools]\npy-modules = []\n'

CASES = {
    "plain": '[project]\nname = "Demo.Pkg"\nversion = "1.0"\ndependencies = ["numpy>=1.21.1", "scipy >= 1.8, <2", "packaging"]\n',
    "python": '[project]\nname = "demo"\nversion = "1.0"\nrequires-python = ">=3.8,<4"\ndependencies = []\n',
    "markers": '[project]\nname = "demo"\nversion = "2.0.post1"\ndependencies = [\n  \'tomli>=1; python_version < "3.11"\',\n  \'pywin32; sys_platform == "win32" or platform_system == "Windows"\',\n]\n',
    "extras": '[project]\nname = "demo"\nversion = "1.0"\ndependencies = ["idna"]\n[project.optional-dependencies]\nSocks = [\'PySocks>=1.5,!=1.5.7 ; python_version >= "3"\']\ntest = ["pytest>=7", \'pytest-xdist ; sys_platform != "win32" or python_version > "3.9"\']\nall_things = ["demo[socks,test]"]\n',
    "extras-of-deps": '[project]\nname = "demo"\nversion = "1.0"\ndependencies = ["requests[socks,security]>=2.31", "uvicorn[standard]"]\n',
    "url": '[project]\nname = "demo"\nversion = "1.0"\ndependencies = ["pip @ https://example.com/pip-23.0-py3-none-any.whl"]\n',
    "no-deps": '[project]\nname = "demo"\nversion = "1.0"\n',
}
REFUSED = {
    "dynamic-deps": '[project]\nname = "demo"\nversion = "1.0"\ndynamic = ["dependencies"]\n',
    "dynamic-extras": '[project]\nname = "demo"\nversion = "1.0"\ndependencies = []\ndynamic = ["optional-dependencies"]\n',
    "no-project": '[tool.poetry]\nname = "demo"\n',
    "not-pep508": '[project]\nname = "demo"\nversion = "1.0"\ndependencies = ["numpy >>= 1"]\n',
    "newline-in-marker": '[project]\nname = "demo"\nversion = "1.0"\ndependencies = [\'a; python_version == "3\\nRequires-Dist: evil"\']\n',
    "bad-name": '[project]\nname = "demo pkg"\nversion = "1.0"\n',
    "blank-version": '[project]\nname = "demo"\nversion = " "\n',
    "bad-version": '[project]\nname = "demo"\nversion = "one point oh"\n',
}
ENVS = [
    {"python_version": "3.8", "python_full_version": "3.8.10", "sys_platform": "linux",
     "platform_system": "Linux"},
    {"python_version": "3.12", "python_full_version": "3.12.3", "sys_platform": "linux",
     "platform_system": "Linux"},
    {"python_version": "3.9", "python_full_version": "3.9.1", "sys_platform": "win32",
     "platform_system": "Windows"},
]


def read(text):
    msg = email.parser.Parser().parsestr(text)
    extras = sorted(canonicalize_name(e) for e in msg.get_all("Provides-Extra") or [])
    reqs = [Requirement(r) for r in msg.get_all("Requires-Dist") or []]
    return msg, extras, reqs


def key(r):
    return (canonicalize_name(r.name), tuple(sorted(r.extras)), str(SpecifierSet(str(r.specifier))), r.url)


def holds(r, env, extra):
    if r.marker is None:
        return True
    return Marker(str(r.marker)).evaluate(dict(env, extra=extra or ""))


def judge(name, doc, rr, fails):
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "pyproject.toml"), "w") as f:
            f.write(HEAD + doc + TAIL)
        out = os.path.join(d, "out")
        os.mkdir(out)
        ref = subprocess.run([sys.executable, "-c",
                              "import sys; from setuptools import build_meta as b; "
                              "print(b.prepare_metadata_for_build_wheel(sys.argv[1]))", out],
                             cwd=d, capture_output=True, text=True)
        if ref.returncode:
            fails.append(f"{name}: setuptools failed: {ref.stderr[-400:]}")
            return
        with open(os.path.join(out, ref.stdout.strip().splitlines()[-1], "METADATA")) as f:
            want = f.read()
        got = subprocess.run([rr, os.path.join(d, "pyproject.toml"), "1.0"], capture_output=True,
                             text=True)
    if got.returncode:
        fails.append(f"{name}: refused ({got.returncode}): {got.stderr.strip()}")
        return
    wm, wx, wr = read(want)
    gm, gx, gr = read(got.stdout)
    if canonicalize_name(wm["Name"]) != canonicalize_name(gm["Name"]):
        fails.append(f"{name}: Name {gm['Name']!r}, setuptools {wm['Name']!r}")
    if SpecifierSet(wm.get("Requires-Python") or "") != SpecifierSet(gm.get("Requires-Python") or ""):
        fails.append(f"{name}: Requires-Python {gm.get('Requires-Python')!r}, setuptools {wm.get('Requires-Python')!r}")
    if wx != gx:
        fails.append(f"{name}: extras {gx}, setuptools {wx}")
    for extra in [None] + wx:
        for env in ENVS:
            w = sorted(key(r) for r in wr if holds(r, env, extra))
            g = sorted(key(r) for r in gr if holds(r, env, extra))
            if w != g:
                fails.append(f"{name}: extra {extra} in {env['python_version']}/{env['sys_platform']}: "
                             f"{g}, setuptools {w}")


def main():
    rr = sys.argv[1]
    fails = []
    for name, doc in CASES.items():
        judge(name, doc, rr, fails)
    for name, doc in REFUSED.items():
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "pyproject.toml")
            with open(p, "w") as f:
                f.write(doc)
            got = subprocess.run([rr, p, "1.0"], capture_output=True, text=True)
        if got.returncode != 3:
            fails.append(f"{name}: exit {got.returncode}, want 3 (only a build knows): {got.stdout!r}")
    for f in fails:
        print("FAIL", f)
    n = len(CASES) + len(REFUSED)
    print(f"{n} documents, {len(fails)} failures")
    sys.exit(1 if fails else 0)


main()
