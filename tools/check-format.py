#!/usr/bin/env python3
"""check-format.py - the whitespace .editorconfig names, and .clang-format on new lines.

Usage: tools/check-format.py [SRCROOT]

1. Every tracked source file (C, C++, Python, shell, Meson) is UTF-8 with LF line ends,
   ends with a newline and has no trailing whitespace; C and C++ indent with tabs (a line
   that starts with a space is a comment's continuation, ' *').
2. The lines changed since .clang-format was committed (and any uncommitted change) are
   formatted as it says: `git clang-format --diff` over them. Older lines are left as they
   are; each change formats what it touches. Skipped, with a line saying so, outside a git
   checkout or without git-clang-format.
Exit 0 when clean, 1 with the offending file:line and the diff.
"""
import os
import shutil
import subprocess
import sys

CODE = (".c", ".h", ".cc", ".hh")
TEXT = CODE + (".py", ".sh")
NAMES = ("meson.build", "meson_options.txt", "bootstrap")
SKIP = ("tests/fuzz/corpus/", "fixtures/")


def git(root, *args):
    return subprocess.run(["git", "-C", root] + list(args), capture_output=True, text=True)


def whitespace(root, files):
    bad = []
    for rel in files:
        if rel.startswith(SKIP) or not (rel.endswith(TEXT) or os.path.basename(rel) in NAMES):
            continue
        path = os.path.join(root, rel)
        if os.path.islink(path) or not os.path.isfile(path):
            continue
        data = open(path, "rb").read()
        if not data:
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            bad.append("%s: not UTF-8 (byte %d)" % (rel, e.start))
            continue
        if "\r" in text:
            bad.append("%s:%d: a CR line end" % (rel, text[:text.index("\r")].count("\n") + 1))
        if not text.endswith("\n"):
            bad.append("%s: no newline at the end" % rel)
        for n, line in enumerate(text.split("\n"), 1):
            if line != line.rstrip(" \t"):
                bad.append("%s:%d: trailing whitespace" % (rel, n))
            if rel.endswith(CODE) and line.startswith(" ") and not line.lstrip(" ").startswith("*"):
                bad.append("%s:%d: indented with spaces (tabs, as .editorconfig says)" % (rel, n))
    return bad


def clang_format(root):
    if not shutil.which("git-clang-format") or not shutil.which("clang-format"):
        print("git-clang-format not found: the .clang-format part is skipped")
        return True
    r = git(root, "log", "--diff-filter=A", "--format=%H", "--", ".clang-format")
    base = r.stdout.split()[-1] if r.returncode == 0 and r.stdout.split() else "HEAD"
    r = subprocess.run(["git", "clang-format", "--binary", shutil.which("clang-format"), "--diff",
                        "--extensions", "c,h,cc,hh", base, "--", "src", "include", "tests",
                        "bench", "kernels"], cwd=root, capture_output=True, text=True)
    if "diff --git" in r.stdout or r.returncode not in (0, 1):
        print("lines changed since %s are not formatted as .clang-format says "
              "(run `git clang-format %s`):" % (base[:12], base[:12]))
        print(r.stdout + r.stderr)
        return False
    print("clang-format: lines changed since %s ok" % base[:12])
    return True


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    r = git(root, "ls-files")
    if r.returncode != 0:
        print("not a git checkout: skipped")
        return 77
    bad = whitespace(root, r.stdout.split("\n"))
    for b in bad[:50]:
        print(b)
    if len(bad) > 50:
        print("... and %d more" % (len(bad) - 50))
    ok = clang_format(root)
    if not bad:
        print("whitespace ok")
    return 0 if ok and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
