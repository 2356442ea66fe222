#!/usr/bin/env python3
"""Benchmarks for rocm-resolve (not a timed test). Prints a table of medians and peak RSS.

  bench/bench.py [--build build] [--runs 30] [offline|resolve|all|real]

offline: `check --no-index` on a 100-line requirements file, on every corpus file,
         and `inspect` on the ROCm 7.2 fixture venv.
resolve: a ~150-distribution ML requirements set resolved against the fixture index
         with 20 ms injected latency, cold and warm cache, next to uv and pip
         (bench/resolve.py).
real:    five real projects' files from ../shared/corpus against the index this machine
         reaches (network!), rocm-resolve next to `uv pip compile` and pip, cold and warm,
         with peak RSS, requests and bytes (bench/real.py; its own options there).
         Not part of `all`. --runs is used as is (default 3 here, not 30)."""
import argparse
import os
import statistics
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
src = os.path.dirname(here)



def gnu_time_rss(argv, cwd=None, env=None):
    """peak RSS in KB of argv itself, via GNU time: os.wait4 after a fork from
    Python reports the forked interpreter's peak, not the program's"""
    import tempfile as _t
    if not os.path.exists("/usr/bin/time"):
        return 0
    with _t.NamedTemporaryFile("r") as f:
        subprocess.run(["/usr/bin/time", "-f", "%M", "-o", f.name] + list(argv), cwd=cwd, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            return int(f.read().strip().splitlines()[-1])
        except (ValueError, IndexError):
            return 0

def run_once(argv, cwd, env=None):
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    return dt, gnu_time_rss(argv, cwd, env), os.waitstatus_to_exitcode(status)


def measure(argv, runs, cwd=src, env=None):
    times, rss, codes = [], [], set()
    for _ in range(runs):
        dt, r, c = run_once(argv, cwd, env)
        times.append(dt)
        rss.append(r)
        codes.add(c)
    return statistics.median(times), max(rss), codes


def offline(build, runs):
    exe = os.path.join(src, build, "src", "cli", "rocm-resolve")
    venv = os.path.join(src, "fixtures", "venvs", "rocm72")
    rows = []
    req100 = os.path.join(here, "requirements-100.txt")
    rows.append(("check --no-index, 100-line file", *measure([exe, "check", "--no-index", "--venv", venv, req100], runs)))
    corpus = os.path.join(src, "..", "shared", "corpus")
    files = []
    for sub in ("requirements", "freeze", "pyproject"):
        d = os.path.join(corpus, sub)
        if os.path.isdir(d):
            files += [os.path.join(d, f) for f in sorted(os.listdir(d))]
    if files:
        per = []
        peak = 0
        for _ in range(max(3, runs // 5)):
            total = 0.0
            for f in files:
                dt, r, _ = run_once([exe, "check", "--no-index", "--venv", venv, f], src)
                total += dt
                peak = max(peak, r)
            per.append(total)
        rows.append((f"check --no-index, whole corpus ({len(files)} files, sum)", statistics.median(per), peak, {0}))
    rows.append(("inspect, ROCm 7.2 fixture venv", *measure([exe, "inspect", "--venv", venv], runs)))
    return rows


def table(rows):
    print(f"| {'benchmark':<58} | {'median':>10} | {'peak RSS':>9} |")
    print(f"|{'-' * 60}|{'-' * 12}|{'-' * 11}|")
    for name, med, rss, _codes in rows:
        print(f"| {name:<58} | {med * 1000:>7.2f} ms | {rss / 1024:>6.1f} MB |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int)
    ap.add_argument("what", nargs="?", default="offline")
    a = ap.parse_args()
    if a.what == "real":
        sys.path.insert(0, here)
        import real  # noqa: E402
        real.run(src, a.build, a.runs or 3)
        return
    a.runs = a.runs or 30
    rows = []
    if a.what in ("offline", "all"):
        rows += offline(a.build, a.runs)
    if a.what in ("resolve", "all"):
        sys.path.insert(0, here)
        import resolve  # noqa: E402
        rows += resolve.run(src, a.build, max(3, a.runs // 10))
    table(rows)


main()
