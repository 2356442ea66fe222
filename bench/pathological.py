#!/usr/bin/env python3
"""Pathological inputs from issue 10 (not a timed test): wall time and peak RSS of
`rocm-resolve plan --no-index` on generated inputs.

  bench/pathological.py [--build build] [--exe path] [case ...]

extras-100k     one requirement with 100,000 distinct extras
pyproject-200k  a pyproject.toml with 200,000 dependencies
lines-100k      a 100,000-line requirements file (distinct names, two specifiers, a marker)
pins-100k       a 100,000-line requirements file of plain name==version pins"""
import argparse
import os
import subprocess
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
src = os.path.dirname(here)


def gen(case, d):
    if case == "extras-100k":
        p = os.path.join(d, "extras.txt")
        with open(p, "w") as f:
            f.write("requests[" + ",".join(f"e{i}" for i in range(100000)) + "]\n")
    elif case == "pyproject-200k":
        p = os.path.join(d, "pyproject.toml")
        with open(p, "w") as f:
            f.write('[project]\nname = "big"\nversion = "1"\ndependencies = [\n')
            for i in range(200000):
                f.write(f'  "pkg{i}>=1.{i % 10}",\n')
            f.write("]\n")
    elif case == "lines-100k":
        p = os.path.join(d, "lines.txt")
        with open(p, "w") as f:
            for i in range(100000):
                f.write(f'package-number-{i}>=1.{i % 7},<3 ; python_version >= "3.8"\n')
    elif case == "pins-100k":
        p = os.path.join(d, "pins.txt")
        with open(p, "w") as f:
            for i in range(100000):
                f.write(f"pkg{i}==1.0.{i}\n")
    else:
        raise SystemExit(f"unknown case {case}")
    return p


def measure(exe, path):
    venv = os.path.join(src, "fixtures", "venvs", "rocm72")
    argv = [exe, "plan", "-q", "--no-index", "--no-cache", "--venv", venv, path]
    with tempfile.NamedTemporaryFile("r") as t:
        start = time.monotonic()
        r = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", t.name] + argv,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wall = time.monotonic() - start
        rss = int(t.read().strip().splitlines()[-1])
    return r.returncode, wall, rss, r.stderr.decode(errors="replace")[-200:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(src, "build"))
    ap.add_argument("--exe")
    ap.add_argument("cases", nargs="*", default=["extras-100k", "pyproject-200k", "lines-100k", "pins-100k"])
    a = ap.parse_args()
    exe = a.exe or os.path.join(a.build, "src", "cli", "rocm-resolve")
    with tempfile.TemporaryDirectory() as d:
        print(f"{'case':16} {'exit':>4} {'wall s':>8} {'peak RSS MB':>12}")
        for c in a.cases:
            rc, wall, rss, err = measure(exe, gen(c, d))
            print(f"{c:16} {rc:>4} {wall:>8.2f} {rss / 1024:>12.1f}")
            if rc not in (0, 1):
                print("   " + err.replace("\n", "\n   "))


if __name__ == "__main__":
    main()
