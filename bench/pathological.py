#!/usr/bin/env python3
"""Pathological inputs from issue 10 (not a timed test): wall time and peak RSS of
`rocm-resolve plan --no-index` on generated inputs.

  bench/pathological.py [--build build] [--exe path] [case ...]

extras-100k     one requirement with 100,000 distinct extras
pyproject-200k  a pyproject.toml with 200,000 dependencies
lines-100k      a 100,000-line requirements file (distinct names, two specifiers, a marker)
pins-100k       a 100,000-line requirements file of plain name==version pins
uvlock-100k     a uv.lock whose project depends on 100,000 registry packages
uvlock-chain-100k  a uv.lock of 100,000 registry packages, each depending on the next
pylock-100k     the same 100,000 packages as a pylock.toml"""
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
    elif case in ("uvlock-100k", "uvlock-chain-100k"):
        chain = case == "uvlock-chain-100k"
        p = os.path.join(d, case, "uv.lock")
        os.makedirs(os.path.dirname(p))
        with open(p, "w") as f:
            f.write('version = 1\nrevision = 3\nrequires-python = ">=3.10"\n\n'
                    '[[package]]\nname = "big"\nversion = "1.0"\nsource = { virtual = "." }\n')
            f.write('dependencies = [{ name = "pkg0" }]\n' if chain else "dependencies = [\n" +
                    "".join(f'    {{ name = "pkg{i}" }},\n' for i in range(100000)) + "]\n")
            for i in range(100000):
                f.write(f'\n[[package]]\nname = "pkg{i}"\nversion = "1.0.{i}"\n'
                        'source = { registry = "https://pypi.org/simple" }\n')
                if chain and i + 1 < 100000:
                    f.write(f'dependencies = [{{ name = "pkg{i + 1}" }}]\n')
    elif case == "pylock-100k":
        p = os.path.join(d, "pylock.toml")
        with open(p, "w") as f:
            f.write('lock-version = "1.0"\ncreated-by = "bench"\n')
            for i in range(100000):
                f.write(f'\n[[packages]]\nname = "pkg{i}"\nversion = "1.0.{i}"\n'
                        'index = "https://pypi.org/simple"\n'
                        f'wheels = [{{ url = "https://f.example/pkg{i}.whl", hashes = {{}} }}]\n')
    else:
        raise SystemExit(f"unknown case {case}")
    return p


def measure(exe, path):
    venv = os.path.join(src, "fixtures", "venvs", "rocm72")
    argv = [exe, "plan", "-q", "--no-index", "--no-cache", "--venv", venv, path]
    with tempfile.NamedTemporaryFile("r") as t:
        start = time.monotonic()
        r = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", "-o", t.name] + argv,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wall = time.monotonic() - start
        rss, user, sys_ = t.read().strip().splitlines()[-1].split()
    return (r.returncode, wall, float(user) + float(sys_), int(rss),
            r.stderr.decode(errors="replace")[-200:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(src, "build"))
    ap.add_argument("--exe")
    ap.add_argument("cases", nargs="*", default=["extras-100k", "pyproject-200k", "lines-100k", "pins-100k"])
    a = ap.parse_args()
    exe = a.exe or os.path.join(a.build, "src", "cli", "rocm-resolve")
    with tempfile.TemporaryDirectory() as d:
        print(f"{'case':18} {'exit':>4} {'wall s':>8} {'CPU s':>8} {'peak RSS MB':>12}")
        for c in a.cases:
            rc, wall, cpu, rss, err = measure(exe, gen(c, d))
            print(f"{c:18} {rc:>4} {wall:>8.2f} {cpu:>8.2f} {rss / 1024:>12.1f}")
            if rc not in (0, 1):
                print("   " + err.replace("\n", "\n   "))


if __name__ == "__main__":
    main()
