#!/usr/bin/env python3
"""check-packaging-docs.py - what the documentation says about the wheel and the
pre-commit rev is what the build and the repository give.

The wheel's platform tag is set in one place, `plat=` in tools/wheel-chroot.sh (passed
to auditwheel as --plat with --only-plat, so the release build makes exactly that tag
or fails); the version is meson.build's. Every wheel file name written out in the
documentation, examples and scripts must be rocm_resolve-VERSION-py3-none-PLAT.whl (or
a glob), every `py3-none-manylinux...` tag PLAT, every manylinux_2_N the release
scripts name PLAT's, and the README's glibc floor PLAT's glibc. Every pre-commit
`rev:` shown to users must be a full commit hash or a tag this repository has: no
rev that does not exist.

Usage: tools/check-packaging-docs.py [SRCROOT]   (exit 1 and one line per problem)
"""
import os
import re
import subprocess
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
problems = []


def read(rel):
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        return f.read()


def lines(rel):
    for n, line in enumerate(read(rel).splitlines(), 1):
        yield n, line


m = re.search(r"^plat=(manylinux_(\d+)_(\d+)_x86_64)\b", read("tools/wheel-chroot.sh"), re.M)
if not m:
    print("tools/wheel-chroot.sh: no plat=manylinux_X_Y_x86_64 line (the release wheel's tag)")
    sys.exit(1)
plat, glibc = m.group(1), f"{m.group(2)}.{m.group(3)}"
m = re.search(r"^project\([^)]*?version:\s*'([^']+)'", read("meson.build"), re.M | re.S)
version = m.group(1)
expected = f"rocm_resolve-{version}-py3-none-{plat}.whl"

docs = ["README.md", "HACKING.md", "bootstrap", "pyproject.toml"]
for d in ("man", "examples", "packaging", "tools", "data"):
    for dirpath, _, files in os.walk(os.path.join(root, d)):
        for f in sorted(files):
            docs.append(os.path.relpath(os.path.join(dirpath, f), root))
docs = [d for d in docs if not d.endswith(".pyc") and d != "tools/check-packaging-docs.py"]
# the scripts that build the release wheel: every manylinux_2_N they name is its tag
release = {"bootstrap", "tools/wheel-chroot.sh", "tools/build-wheel.sh"}

for rel in docs:
    try:
        text = list(lines(rel))
    except UnicodeDecodeError:
        continue
    for n, line in text:
        for w in re.findall(r"rocm_resolve-[A-Za-z0-9_.*+-]*\.whl", line):
            if "*" not in w and "..." not in w and w != expected:
                problems.append(f"{rel}:{n}: wheel '{w}', the build makes '{expected}'")
        for t in re.findall(r"py3-none-(manylinux[A-Za-z0-9_.]*?)(?:\.whl|`|\b)", line):
            if t != plat:
                problems.append(f"{rel}:{n}: tag 'py3-none-{t}', the build makes 'py3-none-{plat}'")
        if rel in release:
            for t in re.findall(r"manylinux_\d+_\d+", line):
                if t != plat[: -len("_x86_64")]:
                    problems.append(f"{rel}:{n}: '{t}', the release wheel is '{plat}'")
        if rel == "README.md":
            for g in re.findall(r"any glibc (\d+\.\d+) or newer", line):
                if g != glibc:
                    problems.append(f"{rel}:{n}: glibc floor {g}, '{plat}' means {glibc}")

# pre-commit revs shown to users: a full commit hash or an existing tag
try:
    tags = set(subprocess.run(["git", "-C", root, "tag", "-l"], capture_output=True, text=True,
                              check=True).stdout.split())
except (OSError, subprocess.CalledProcessError):
    tags = set()
for rel in docs:
    if not (rel.endswith(".md") or rel.startswith("man/") or rel.endswith(".yaml")):
        continue
    for n, line in lines(rel):
        m = re.match(r"\s*rev:\s*(\S+)", line)
        if m and not re.fullmatch(r"[0-9a-f]{40}", m.group(1)) and m.group(1) not in tags:
            problems.append(f"{rel}:{n}: pre-commit rev '{m.group(1)}' is no tag of this "
                            "repository: show a full commit hash (pre-commit autoupdate --freeze)")

for p in problems:
    print(p)
print(f"# release wheel: {expected}; {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
