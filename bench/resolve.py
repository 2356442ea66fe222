"""Resolve benchmark (imported by bench/bench.py: `resolve.run(src, build, runs)`).

bench/requirements-ml.txt (43 lines, ~145 distributions in the closure) in a real
venv holding the fake ROCm 7.2 stack (tests/e2e/e2elib.py), against the fixture
index with 20 ms injected latency per request (/_fault/latency/20/):
rocm-resolve (plan), `uv pip install --dry-run` and `pip install --dry-run --report`,
each with its own cache, cold (emptied before every run) then warm.
Returns rows (name, median_seconds, peak_rss_kb, exit_codes_set) and prints a
side-by-side table with ratios.

The index is tests/index/serve.py (it sets TCP_NODELAY) so that
the 20 ms is the only latency a request pays; see that file."""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

LATENCY = "/_fault/latency/20"



def _once(argv, env, stdin_path=None):
    """one timed run; peak RSS of the program itself through GNU time (os.wait4 after
    a fork from Python would report the interpreter's peak); its ~0.5 ms is noise here"""
    rss_file = tempfile.NamedTemporaryFile("r")
    if os.path.exists("/usr/bin/time"):
        argv = ["/usr/bin/time", "-f", "%M", "-o", rss_file.name] + list(argv)
    t0 = time.perf_counter()
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    p = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    if stdin_path:
        stdin.close()
    dt = time.perf_counter() - t0
    try:
        rss = int(rss_file.read().strip().splitlines()[-1])
    except (ValueError, IndexError):
        rss = ru.ru_maxrss
    rss_file.close()
    return dt, rss, os.waitstatus_to_exitcode(status)


def _measure(argv, env, runs, cache, cold, stdin_path=None):
    times, rss, codes = [], [], set()
    if not cold:  # fill the cache once
        shutil.rmtree(cache, ignore_errors=True)
        _once(argv, env, stdin_path)
    for _ in range(runs):
        if cold:
            shutil.rmtree(cache, ignore_errors=True)
        dt, r, c = _once(argv, env, stdin_path)
        times.append(dt)
        rss.append(r)
        codes.add(c)
    return statistics.median(times), max(rss), codes


def run(src, build, runs):
    sys.path.insert(0, os.path.join(src, "tests", "e2e"))
    import e2elib as E

    exe = os.path.join(src, build, "src", "cli", "rocm-resolve")
    reqs = os.path.join(src, "bench", "requirements-ml.txt")
    uv = E.find_uv()
    work = tempfile.mkdtemp(prefix="rr-bench-")
    rows = []
    try:
        venv = E.build_venv(os.path.join(work, "venv"), "rocm72")
        py = os.path.join(venv, "bin", "python")
        env = E.clean_env()

        with E.Index() as idx:
            url = idx.simple(LATENCY)
            rc = os.path.join(work, "rr-cache")
            tools = [("rocm-resolve plan", [exe, "--index-url", url, "--venv", venv, "--cache-dir", rc, reqs], rc)]
            if uv:
                uc = os.path.join(work, "uv-cache")
                tools.append(("uv pip install --dry-run",
                              [uv, "pip", "install", "--dry-run", "--python", py, "--index-url", url,
                               "--cache-dir", uc, "-r", reqs], uc))
            pc = os.path.join(work, "pip-cache")
            tools.append(("pip install --dry-run --report",
                          [py, "-m", "pip", "install", "--dry-run", "--report", os.path.join(work, "report.json"),
                           "--index-url", url, "--cache-dir", pc, "-r", reqs], pc))
            res = {}
            for name, argv, cache in tools:
                for mode in ("cold", "warm"):
                    r = _measure(argv, env, runs, cache, mode == "cold")
                    res[(name, mode)] = r
                    rows.append((f"{name}, {mode} cache", *r))
        base = {m: res[("rocm-resolve plan", m)][0] for m in ("cold", "warm")}
        print(f"resolve: {os.path.basename(reqs)}, fixture index +20 ms/request, medians of {runs} runs")
        print(f"| {'tool':<32} | {'cold':>9} | {'warm':>9} | {'cold vs rr':>10} | {'warm vs rr':>10} | {'peak RSS':>9} | exit |")
        print(f"|{'-' * 34}|{'-' * 11}|{'-' * 11}|{'-' * 12}|{'-' * 12}|{'-' * 11}|------|")
        for name, _, _ in tools:
            c, w = res[(name, "cold")], res[(name, "warm")]
            print(f"| {name:<32} | {c[0]:>7.3f} s | {w[0]:>7.3f} s | {c[0] / base['cold']:>9.2f}x | "
                  f"{w[0] / base['warm']:>9.2f}x | {max(c[1], w[1]) / 1024:>6.1f} MB | "
                  f"{','.join(map(str, sorted(c[2] | w[2])))} |")
        print()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return rows


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for row in run(os.path.dirname(here), sys.argv[1] if len(sys.argv) > 1 else "build",
                   int(sys.argv[2]) if len(sys.argv) > 2 else 3):
        print(row)
