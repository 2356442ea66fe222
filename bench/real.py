#!/usr/bin/env python3
"""Real-index benchmark (issue 7): rocm-resolve, `uv pip compile` and pip side by side,
cold and warm, on five real projects' files from ../shared/corpus, against the index this
machine reaches (https://pypi.org/simple, whatever it resolves to). Uses the network: a
handful of projects' files, a few runs, every run bounded by a time limit and a byte cap.
Not a test; not part of `bench/bench.py all`.

  bench/real.py [--build build] [--runs 3] [--timeout 300] [--byte-cap 6G]
                [--tools rr,uv,pip] [--only SUBSTRING] [--corpus DIR]
  bench/bench.py --build build real        (same, with the defaults)

What is timed, per input and tool (wall clock of the tool's own process, run under GNU
time for its peak RSS; stdout to a file, stderr to a file):
  rr   rocm-resolve plan -v --venv fixtures/venvs/rocm72 --cache-dir C INPUT
       with RR_SYSROOT=a copy of fixtures/venvs/sysroot-rocm72 (the ROCm 7.2 image,
       Python 3.12) holding this machine's /etc/ssl/certs, as the image holds its own.
  uv   uv pip compile --no-config --no-sources --no-python-downloads --python PY312
       --python-version 3.12 --python-platform x86_64-manylinux_2_28 --cache-dir C INPUT
       with RUST_LOG=uv_client=trace (to count its requests).
  pip  PY312-venv/bin/python -m pip install --dry-run --ignore-installed -v --log L
       --report R --cache-dir C -r REQS   in a fresh, empty venv of PY312 (its bundled pip).
Cold: C a new, empty directory each run; the old ones are removed only when the bench
ends. (On a journal-less ext4, as on these machines, a file created within 30 s of a mass
deletion makes the kernel check every recently deleted inode of its group: emptying C
right before a cold run cost both tools up to a third of their CPU, and rocm-resolve ~10 %
of its wall time, in creating cache files.) Warm: the C the last cold run filled.
A pyproject.toml input is copied to DIR/pyproject.toml (uv and rocm-resolve read it
as such); pip gets its [project].dependencies as a requirements file (what the other two
resolve: base dependencies, no extras, no build of the project itself). uv gets
--no-sources: the whisperX file points torch at download.pytorch.org, which this machine
cannot reach, and rocm-resolve and pip only see the default index.

Bytes: every tool runs with https_proxy pointing at a counting CONNECT proxy
(bench/countproxy.py) and the bytes the server sent through it are reported: the same
measure for all three (TLS wire bytes, so a few per cent above payload). The proxy also
caps a run: past --byte-cap the run is killed and reported as "cap".
Requests: rocm-resolve's own count from -v ("... with K HTTP requests"); pip's urllib3
request lines (-v sends them to the --log file; cache hits make no request); uv's logged GET/HEAD sends plus one
per range-request metadata read, a lower bound (the range reader's own requests are not
all logged), printed with ">=".

A (tool, input) whose cold run times out or hits the cap is not run again (cold or warm);
one whose first cold run takes over --long seconds (60) gets that one cold and one warm run.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from countproxy import CountingProxy  # noqa: E402
from timeline import causal_floor, is_page_url, parse  # noqa: E402

FILES = [
    "requirements/comfyanonymous__ComfyUI__requirements.txt",
    "requirements/coqui-ai__TTS__requirements.txt",
    "pyproject/m-bain__whisperX__pyproject.toml",
    "requirements/huggingface__diffusers__examples__server-async__requirements.txt",
    "pyproject/hiyouga__LLaMA-Factory__pyproject.toml",
]
# issue 17: six more corpus files that both tools resolve here (--more adds them); not
# audiocraft (uv cannot build PyAV here), text-generation-webui or generative-models
# (uv stops at a GitHub URL this machine cannot reach)
MORE = [
    "requirements/huggingface__diffusers__examples__server__requirements.txt",
    "requirements/microsoft__DeepSpeed__requirements__requirements-dev.txt",
    "pyproject/lm-sys__FastChat__pyproject.toml",
    "pyproject/Zyphra__Zonos__pyproject.toml",
    "requirements/lllyasviel__stable-diffusion-webui-forge__requirements_versions.txt",
    "pyproject/karpathy__nanochat__pyproject.toml",
]
# issue 32: real small and fully pinned files (--small); both tools resolve each here
SMALL = [
    "freeze/thesteve0__agent-learning__rocm-provided.txt",
    "requirements/pypi__warehouse__requirements__deploy.txt",
    "requirements/ROCm__TheRock__requirements-test.txt",
    "requirements/unslothai__unsloth__studio__backend__requirements__extras-no-deps.txt",
    "requirements/facebookresearch__xformers__requirements.txt",
    "requirements/jax-ml__jax__build__requirements.in",
]
SHORT = {
    "comfyanonymous__ComfyUI__requirements.txt": "ComfyUI requirements.txt",
    "coqui-ai__TTS__requirements.txt": "coqui TTS requirements.txt",
    "m-bain__whisperX__pyproject.toml": "whisperX pyproject.toml",
    "huggingface__diffusers__examples__server-async__requirements.txt": "diffusers examples/server-async",
    "hiyouga__LLaMA-Factory__pyproject.toml": "LLaMA-Factory pyproject.toml",
    "huggingface__diffusers__examples__server__requirements.txt": "diffusers examples/server",
    "microsoft__DeepSpeed__requirements__requirements-dev.txt": "DeepSpeed requirements-dev.txt",
    "lm-sys__FastChat__pyproject.toml": "FastChat pyproject.toml",
    "Zyphra__Zonos__pyproject.toml": "Zonos pyproject.toml",
    "lllyasviel__stable-diffusion-webui-forge__requirements_versions.txt":
        "webui-forge requirements_versions.txt",
    "karpathy__nanochat__pyproject.toml": "nanochat pyproject.toml",
    "Stability-AI__generative-models__requirements__pt2.txt": "generative-models requirements/pt2.txt",
    "thesteve0__agent-learning__rocm-provided.txt": "agent-learning freeze (pinned)",
    "pypi__warehouse__requirements__deploy.txt": "warehouse deploy.txt (pinned)",
    "ROCm__TheRock__requirements-test.txt": "TheRock requirements-test (pinned)",
    "unslothai__unsloth__studio__backend__requirements__extras-no-deps.txt":
        "unsloth extras-no-deps (pinned)",
    "facebookresearch__xformers__requirements.txt": "xformers requirements.txt (small)",
    "jax-ml__jax__build__requirements.in": "jax requirements.in (small)",
}
TOOLS = ("rr", "uv", "pip")
TOOL_NAME = {"rr": "rocm-resolve plan", "uv": "uv pip compile", "pip": "pip install --dry-run",
             "base": "rocm-resolve plan (--base build)"}


def parse_size(s):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([KMG]?)B?", s.strip().upper())
    if not m:
        raise argparse.ArgumentTypeError("size like 500M or 6G")
    return int(float(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2)])


def human(n):
    if n is None:
        return "n/a"
    for unit, div in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= div:
            return f"{n / div:.1f} {unit}" if n < 100 * div else f"{n / div:.0f} {unit}"
    return f"{n} B"


def find_python312():
    """a working CPython 3.12 (the fixture venv is 3.12); None if there is none"""
    cands = ["/usr/bin/python3.12", "/usr/local/bin/python3.12"]
    pyenv = os.path.expanduser("~/.pyenv/versions")
    if os.path.isdir(pyenv):
        cands += [os.path.join(pyenv, v, "bin", "python3.12") for v in sorted(os.listdir(pyenv), reverse=True)
                  if v.startswith("3.12")]
    w = shutil.which("python3.12")
    if w:
        cands.append(w)
    for c in cands:
        if os.access(c, os.X_OK):
            r = subprocess.run([c, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
                               capture_output=True, text=True)
            if r.returncode == 0 and r.stdout.startswith("3.12"):
                return c, r.stdout.strip()
    return None, None


def find_uv(src):
    for c in (os.environ.get("RR_BENCH_UV"), os.path.join(src, ".venv-tools", "bin", "uv"),
              "/work/main/.venv-tools/bin/uv", shutil.which("uv")):
        if c and os.access(c, os.X_OK):
            return c
    return None


def base_env(work):
    """the caller's environment without anything that steers an installer or a venv"""
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith(("UV_", "RR_", "CONDA")) or k in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")
                   or (k.startswith("PIP_") and k not in ("PIP_CERT", "PIP_DEFAULT_TIMEOUT"))
                   or k.lower() in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"))}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INPUT"] = "1"
    env["XDG_CACHE_HOME"] = os.path.join(work, "xdg-cache")  # no tool falls back on a shared cache
    env["XDG_CONFIG_HOME"] = os.path.join(work, "xdg-config")
    return env


def bench_sysroot(work):
    """the fixture sysroot (the ROCm 7.2 image) with this machine's trust store in it.
    rocm-resolve looks for the system's CA store under RR_SYSROOT, as it would find the
    image's own /etc/ssl/certs; without it there, a PIP_CERT or SSL_CERT_FILE naming
    the host's bundle is read as a foreign bundle file (60-100 ms of CPU at the first
    connection that no user in the image pays)"""
    root = os.path.join(work, "sysroot")
    if not os.path.isdir(root):
        shutil.copytree(os.path.join(os.path.dirname(here), "fixtures", "venvs", "sysroot-rocm72"), root,
                        symlinks=True)
        if os.path.isdir("/etc/ssl/certs"):
            os.makedirs(os.path.join(root, "etc", "ssl"), exist_ok=True)
            os.symlink("/etc/ssl/certs", os.path.join(root, "etc", "ssl", "certs"))
    return root


def prepare_inputs(corpus, work, files):
    out = []
    for rel in files:
        path = os.path.join(corpus, rel)
        base = os.path.basename(rel)
        d = os.path.join(work, "inputs", base.replace(".", "_"))
        os.makedirs(d)
        inp = {"label": SHORT.get(base, base), "rel": rel}
        if rel.endswith(".toml"):
            import tomllib
            pp = os.path.join(d, "pyproject.toml")
            shutil.copyfile(path, pp)
            with open(path, "rb") as f:
                deps = tomllib.load(f).get("project", {}).get("dependencies", [])
            reqs = os.path.join(d, "requirements-from-pyproject.txt")
            with open(reqs, "w") as f:
                f.write("".join(x + "\n" for x in deps))
            inp.update(direct=pp, pip=reqs)
        else:
            inp.update(direct=path, pip=path)
        out.append(inp)
    return out


def count_requests(tool, err):
    """(count or None, is_lower_bound), from the tool's stderr"""
    if tool in ("rr", "base"):
        m = re.findall(r"with (\d+) HTTP requests", err)
        return (int(m[-1]), False) if m else (None, False)
    if tool == "pip":
        return len(re.findall(r'"(?:GET|HEAD|POST) \S+ HTTP/[\d.]+" \d{3}', err)), False
    if tool == "uv":
        sends = len(re.findall(r"Sending (?:fresh (?:GET|HEAD) |revalidation )request", err))
        ranges = len(re.findall(r"by range request", err))
        return sends + ranges, True
    return None, False


PREDICTED = re.compile(r"predicted (\d+) pages from dependency edges: (\d+) needed, (\d+) bytes on the others")


def predictions(err):
    """(pages predicted, of those needed, bytes of the others) from rocm-resolve's -v line,
    (0, 0, 0) when it predicted nothing"""
    m = PREDICTED.findall(err)
    return tuple(int(x) for x in m[-1]) if m else (0, 0, 0)


def self_reported_bytes(err):
    """rocm-resolve may print the bytes it downloaded with -v: take a number before 'bytes',
    from its 'resolved ... HTTP requests (N bytes; ...)' line if there is one"""
    lines = err.splitlines()
    for line in [x for x in lines if "HTTP requests" in x] + lines:
        if "bytes" in line:
            m = re.search(r"(\d[\d,]*)\s*bytes", line)
            if m:
                return int(m.group(1).replace(",", ""))
    return None


def run_once(argv, env, cwd, proxy, timeout, cap, out_path, err_path):
    rss_file = tempfile.NamedTemporaryFile("r")
    full = ["/usr/bin/time", "-f", "%M %U %S", "-o", rss_file.name] + argv if os.path.exists("/usr/bin/time") else argv
    proxy.counters.reset()
    status = "ok"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(full, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env, cwd=cwd,
                             start_new_session=True)
        while True:
            try:
                p.wait(timeout=0.05)
                break
            except subprocess.TimeoutExpired:
                pass
            el = time.perf_counter() - t0
            if el > timeout:
                status = "timeout"
            elif cap and proxy.counters.snapshot()["down"] > cap:
                status = "cap"
            if status != "ok":
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
                break
        dt = time.perf_counter() - t0
    snap = proxy.counters.snapshot()
    # peak RSS, and the CPU time of the process and its threads (user + system)
    try:
        fields = rss_file.read().strip().splitlines()[-1].split()
        rss, cpu = int(fields[0]), float(fields[1]) + float(fields[2])
    except (ValueError, IndexError):
        rss, cpu = None, None
    rss_file.close()
    with open(err_path, "r", errors="replace") as f:
        errtext = f.read()
    return {"time": dt, "rss_kb": rss, "cpu": cpu, "rc": p.returncode, "status": status, "down": snap["down"],
            "tunnels": snap["tunnels"], "err": errtext}


def tool_cmd(tool, inp, cache, work, ctx, pip_log=None):
    env = dict(ctx["env"])
    if ctx["proxy"]:
        env["https_proxy"] = env["HTTPS_PROXY"] = ctx["proxy"]
    if tool in ("rr", "base"):
        env["RR_SYSROOT"] = ctx["sysroot"]
        return [ctx["exe" if tool == "rr" else "base_exe"], "plan", "-vv", "--venv", ctx["venv"], "--cache-dir", cache, inp["direct"]], env
    if tool == "uv":
        env["RUST_LOG"] = "uv_client=trace"
        return [ctx["uv"], "pip", "compile", "--no-config", "--no-sources", "--no-python-downloads",
                "--python", ctx["py312"], "--python-version", "3.12",
                "--python-platform", "x86_64-manylinux_2_28", "--cache-dir", cache, inp["direct"]], env
    if tool == "pip":
        # -v lets urllib3's request lines through to the --log file (the console stays at -v)
        return [ctx["pip_py"], "-m", "pip", "install", "--dry-run", "--ignore-installed", "-v",
                "--log", pip_log, "--report", os.path.join(work, "pip-report.json"), "--cache-dir", cache,
                "-r", inp["pip"]], env
    raise ValueError(tool)


# the Accept header rocm-resolve sends for a project page (RR_INDEX_ACCEPT)
PAGE_ACCEPT = ("application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, "
               "text/html;q=0.01")
# a -vv transfer line: "rocm-resolve: GET|HEAD URL -> STATUS (N bytes)[, range R of T]
# [, accept "A"], ..."
GET_LINE = re.compile(r"^rocm-resolve: (GET|HEAD) (\S+) -> (\d+) \((\d+) bytes\)"
                      r"(?:, range ([^\s,]+)(?: of -?\d+)?)?(?:, accept \"([^\"]*)\")?(?:,.*)?$", re.M)


def floor_requests(err):
    """the requests a rocm-resolve -vv run made, each (url, range) once, in the order they
    finished: [(url, range or None, accept or None, head)]. A line without its range (an
    older build's log) names a 206 by its size: the file's last N bytes, as many as came."""
    seen, out = set(), []
    for m in GET_LINE.finditer(err):
        head = m.group(1) == "HEAD"
        url, status, nbytes, rng, accept = m.group(2), int(m.group(3)), int(m.group(4)), m.group(5), m.group(6)
        if rng is None and status == 206:
            rng = f"-{nbytes}"
        if accept is None and is_page_url(url) and not head:
            accept = PAGE_ACCEPT
        key = (url, rng, accept, head)
        if key in seen:
            continue
        seen.add(key)
        out.append((url, rng, accept, head))
    return out


def run_floor(reqs, ctx, stem, timeout):
    """the network's floor for a run: every request it made, started together as one
    parallel burst (curl --parallel: one HTTP/2 connection per host, streams multiplexed),
    through the same counting proxy. Wall clock of the curl process."""
    cfg = stem + ".curl"
    with open(cfg, "w") as f:
        for i, (url, rng, accept, head) in enumerate(reqs):
            if i:
                f.write("next\n")
            f.write(f'url = "{url}"\noutput = "/dev/null"\nsilent\nshow-error\n')
            if head:
                f.write("head\n")
            f.write('write-out = "%{http_code} %{size_download}\\n"\n')
            if rng:
                f.write(f'range = "{rng}"\n')
            if accept:
                f.write(f'header = "Accept: {accept}"\n')
    env = dict(ctx["env"])
    if ctx["proxy"]:
        env["https_proxy"] = env["HTTPS_PROXY"] = ctx["proxy"]
    argv = ctx.get("curl_wrap", []) + [ctx["curl"], "--parallel", "--parallel-max", "100", "-K", cfg]
    r = run_once(argv, env, ctx["work"], ctx["proxy_obj"], timeout, 0, stem + ".out", stem + ".err")
    with open(stem + ".out", errors="replace") as f:
        codes = [ln.split() for ln in f if ln.strip()]
    r["requests"] = len(codes)
    r["bad"] = sum(1 for c in codes if not c or c[0] not in ("200", "206", "404", "416"))
    if r["bad"] or r["rc"] != 0:
        r["status"] = "failed"
    del r["err"]
    return r


def bench_input(inp, tools, ctx, runs, timeout, cap, long, log, warm=True, floor=True):
    """cold runs interleaved tool by tool (rr, uv, pip, rr, uv, ...: a change in the
    machine's load falls on all of them), each rr cold run followed by its floor; then
    the warm runs the same way"""
    work = ctx["work"]
    res = {t: {"cold": [], "warm": [], "floor": []} for t in tools}
    stopped = {t: None for t in tools}
    nruns = {t: runs for t in tools}
    caches = {}
    for mode in ("cold", "warm") if warm else ("cold",):
        for i in range(runs):
            for tool in tools:
                if stopped[tool] or i >= nruns[tool]:
                    continue
                if mode == "cold":
                    # new each time, removed with work at the end (see the docstring)
                    caches[tool] = tempfile.mkdtemp(prefix=f"cache-{tool}-", dir=work)
                cache = caches[tool]
                stem = os.path.join(ctx["logs"], f"{tool}-{re.sub(r'[^A-Za-z0-9]+', '_', inp['label'])}-{mode}{i}")
                argv, env = tool_cmd(tool, inp, cache, work, ctx, stem + ".log")
                load = os.getloadavg()[0]
                r = run_once(argv, env, work, ctx["proxy_obj"], timeout, cap, stem + ".out", stem + ".err")
                r["load"] = load
                if tool == "pip" and os.path.exists(stem + ".log"):
                    with open(stem + ".log", errors="replace") as f:
                        r["err"] = f.read()
                r["requests"], r["lower_bound"] = count_requests(tool, r["err"])
                rr_like = tool in ("rr", "base")
                r["self_bytes"] = self_reported_bytes(r["err"]) if rr_like else None
                reqs = floor_requests(r["err"]) if tool == "rr" and mode == "cold" else []
                if rr_like and mode == "cold" and r["status"] == "ok":
                    ts = parse(r["err"])
                    r["causal"] = causal_floor(ts, cache)[0] or None
                    r["predicted"] = causal_floor(ts, cache, predicted=True)[0] or None
                if rr_like:
                    r["guesses"], r["guesses_used"], r["guess_waste"] = predictions(r["err"])
                del r["err"]
                res[tool][mode].append(r)
                cpu = f"cpu={r['cpu']:.2f} s " if r.get("cpu") is not None else ""
                log(f"  {tool:<3} {mode} {i + 1}/{runs}: {r['status']} rc={r['rc']} {r['time']:.2f} s "
                    f"{cpu}rss={human((r['rss_kb'] or 0) * 1024)} down={human(r['down'])} "
                    f"tunnels={r['tunnels']} requests={r['requests']} load={load:.1f}")
                if r["status"] != "ok":
                    stopped[tool] = r["status"]
                    continue
                if floor and reqs and ctx.get("curl"):
                    fl = run_floor(reqs, ctx, stem + "-floor", timeout)
                    fl["load"] = load
                    res[tool]["floor"].append(fl)
                    fcpu = f"cpu={fl['cpu']:.2f} s " if fl.get("cpu") is not None else ""
                    log(f"  floor of that run: {fl['status']} {fl['time']:.2f} s {fcpu}"
                        f"down={human(fl['down'])} tunnels={fl['tunnels']} requests={fl['requests']}")
                if mode == "cold" and i == 0 and r["time"] > long:
                    nruns[tool] = 1  # a slow (tool, input) is measured once cold and once warm
    return res, stopped


def summarize(res, stopped):
    def med(xs):
        xs = [x for x in xs if x is not None]
        return statistics.median(xs) if xs else None
    s = {"stopped": stopped}
    for mode in ("cold", "warm", "floor"):
        rs = res[mode]
        ok = [r for r in rs if r["status"] == "ok"]
        s[mode] = {
            "time": med([r["time"] for r in ok]),
            "rss_kb": max([r["rss_kb"] or 0 for r in rs], default=None) if rs else None,
            "down": med([r["down"] for r in ok]) if ok else (rs[-1]["down"] if rs else None),
            "requests": med([r["requests"] for r in ok]),
            "lower_bound": any(r.get("lower_bound") for r in rs),
            "self_bytes": med([r.get("self_bytes") for r in ok]),
            "causal": med([r.get("causal") for r in ok]),
            "predicted": med([r.get("predicted") for r in ok]),
            "guesses": med([r.get("guesses") for r in ok]),
            "guesses_used": med([r.get("guesses_used") for r in ok]),
            "guess_waste": med([r.get("guess_waste") for r in ok]),
            "cpu": med([r.get("cpu") for r in ok]),
            "load": med([r.get("load") for r in rs]),
            "rcs": sorted({r["rc"] for r in rs}),
            "n": len(ok),
            "last": rs[-1] if rs else None,
        }
    return s


def fmt_time(m, runs):
    if m["time"] is None:
        if m["last"] is not None and m["last"]["status"] != "ok":
            return f"{m['last']['status']} at {m['last']['time']:.0f} s"
        return "-"
    return f"{m['time']:.2f} s" + (f" (n={m['n']})" if m["n"] != runs else "")


def fmt_req(m):
    if m["requests"] is None:
        return "n/a"
    return (">=" if m["lower_bound"] else "") + f"{m['requests']:.0f}"


def print_table(results, runs, meta):
    print(f"\nreal index: {meta['index']} ({meta['index_note']}); medians of {runs} cold and {runs} warm runs")
    hdr = ("input", "tool", "cold", "warm", "peak RSS c/w", "requests c/w", "bytes c/w", "exit")
    print("| " + " | ".join(hdr) + " |")
    print("|" + "|".join("---" for _ in hdr) + "|")
    for label, tool, s in results:
        c, w = s["cold"], s["warm"]
        rss = " / ".join(human(x["rss_kb"] * 1024) if x["rss_kb"] else "-" for x in (c, w))
        req = " / ".join(fmt_req(x) if x["last"] else "-" for x in (c, w))
        byt = " / ".join(human(x["down"]) if x["last"] and meta["proxy"] else "n/a" if x["last"] else "-"
                         for x in (c, w))
        if tool in ("rr", "base") and c["self_bytes"] is not None:
            byt += f" (self: {human(c['self_bytes'])} / {human(w['self_bytes'])})"
        rcs = ",".join(str(x) for x in sorted(set(c["rcs"]) | set(w["rcs"])))
        print(f"| {label} | {TOOL_NAME[tool]} | {fmt_time(c, runs)} | {fmt_time(w, runs)} | "
              f"{rss} | {req} | {byt} | {rcs} |")
    print()
    print_floor_table(results)
    for line in meta["footer"]:
        print(line)


def ratio(a, b):
    return f"{a / b:.2f}x" if a is not None and b else "-"


def print_floor_table(results):
    """issue 17's view: cold medians of rocm-resolve, uv and the floor side by side"""
    by = {}
    for label, tool, s in results:
        by.setdefault(label, {})[tool] = s
    if not any("rr" in v and v["rr"]["floor"]["last"] for v in by.values()):
        return
    hdr = ("input", "rocm-resolve cold", "uv cold", "floor", "causal floor", "predicted floor", "rr / uv",
           "rr / floor", "rr / causal", "rr / predicted", "CPU rr / floor", "peak RSS rr / uv",
           "bytes rr / uv / floor", "requests rr / floor", "guesses needed / made, bytes unneeded", "load")
    print("cold, medians (floor: the rr run's own requests as one parallel burst, curl --parallel;"
          " causal floor: the same requests, each started the moment what made it needed was in,"
          " at the rr run's own durations: bench/timeline.py; predicted floor: the same with the"
          " pages the run predicted asked at once; CPU: user + system seconds of the"
          " process, all its threads, and of curl for the floor; guesses: pages predicted from"
          " dependency edges, those the run needed after all, the bytes of the others)")
    has_base = any("base" in v for v in by.values())
    if has_base:
        hdr += ("base cold", "rr / base")
    print("| " + " | ".join(hdr) + " |")
    print("|" + "|".join("---" for _ in hdr) + "|")
    for label, v in by.items():
        rr, uv, b = v.get("rr"), v.get("uv"), v.get("base")
        if not rr:
            continue
        c, f = rr["cold"], rr["floor"]
        u = uv["cold"] if uv else None
        t = lambda m: f"{m['time']:.2f} s" if m and m["time"] is not None else "-"
        rss = " / ".join(human(m["rss_kb"] * 1024) if m and m["rss_kb"] else "-" for m in (c, u))
        byt = " / ".join(human(m["down"]) if m and m["down"] is not None else "-" for m in (c, u, f))
        req = " / ".join(fmt_req(m) if m and m["last"] else "-" for m in (c, f))
        load = f"{c['load']:.1f}" if c["load"] is not None else "-"
        cf = f"{c['causal']:.2f} s" if c["causal"] else "-"
        pf = f"{c['predicted']:.2f} s" if c["predicted"] else "-"
        gs = (f"{c['guesses_used']:.0f} / {c['guesses']:.0f}, {human(c['guess_waste'])}"
              if c["guesses"] else "-")
        cpu = " / ".join(f"{m['cpu']:.2f} s" if m and m["cpu"] is not None else "-" for m in (c, f))
        print(f"| {label} | {t(c)} | {t(u)} | {t(f)} | {cf} | {pf} | {ratio(c['time'], u and u['time'])} | "
              f"{ratio(c['time'], f['time'])} | {ratio(c['time'], c['causal'])} | "
              f"{ratio(c['time'], c['predicted'])} | {cpu} | {rss} | {byt} | {req} | {gs} | {load} |"
              + (f" {t(b and b['cold'])} | {ratio(c['time'], b and b['cold']['time'])} |" if has_base else ""))
    print()


def run(src, build, runs=3, timeout=300.0, cap=6 << 30, tools=TOOLS, only=None, corpus=None, keep=False,
        verbose=True, long=60.0, no_proxy=False, more=False, warm=True, floor=True, extra_files=(),
        small=False, base=None):
    exe = build if os.path.basename(build) == "rocm-resolve" else os.path.join(src, build, "src", "cli", "rocm-resolve")
    exe = os.path.abspath(exe)
    corpus = corpus or os.path.join(src, "..", "shared", "corpus")
    files = [f for f in FILES + (MORE if more else []) + (SMALL if small else [])
             if not only or only.lower() in f.lower()]
    files += [f for f in extra_files if f not in files]
    py312, v312 = find_python312()
    uv = find_uv(src)
    if "uv" in tools and not uv:
        print("real: no uv found (RR_BENCH_UV, .venv-tools/bin/uv or PATH); skipping uv", file=sys.stderr)
        tools = [t for t in tools if t != "uv"]
    if not py312:
        print("real: no Python 3.12 found; pip runs on this Python and uv builds with it", file=sys.stderr)
        py312, v312 = sys.executable, "%d.%d.%d" % sys.version_info[:3]
    work = tempfile.mkdtemp(prefix="rr-bench-real-")
    # run a copy: a rebuild of the build dir during the benchmark must not mix two versions
    snap = os.path.join(work, "rocm-resolve")
    shutil.copy2(exe, snap)
    with open(snap, "rb") as f:
        exe_sha = hashlib.sha256(f.read()).hexdigest()[:12]
    exe_src, exe = exe, snap
    base_exe = None
    if base:
        base_exe = os.path.join(work, "rocm-resolve-base")
        shutil.copy2(os.path.abspath(base), base_exe)
        tools = list(tools) + ["base"]
    log = (lambda s: print(s, file=sys.stderr, flush=True)) if verbose else (lambda s: None)
    results, rows = [], []
    try:
        inputs = prepare_inputs(corpus, work, files)
        ctx = {"work": work, "exe": exe, "uv": uv, "py312": py312, "env": base_env(work),
               "venv": os.path.join(src, "fixtures", "venvs", "rocm72"),
               "sysroot": bench_sysroot(work),
               "logs": os.path.join(work, "logs"), "curl": shutil.which("curl"), "base_exe": base_exe}
        if floor and not ctx["curl"]:
            print("real: no curl on PATH; no floor", file=sys.stderr)
        os.makedirs(ctx["logs"])
        versions = {}
        if "pip" in tools:
            pv = os.path.join(work, "pip-venv")
            subprocess.run([py312, "-m", "venv", pv], check=True, env=ctx["env"])
            ctx["pip_py"] = os.path.join(pv, "bin", "python")
            versions["pip"] = subprocess.run([ctx["pip_py"], "-m", "pip", "--version"], capture_output=True,
                                             text=True, env=ctx["env"]).stdout.split(" from ")[0]
        if uv:
            versions["uv"] = subprocess.run([uv, "--version"], capture_output=True, text=True).stdout.strip()
        versions["rocm-resolve"] = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.strip()
        with CountingProxy() as proxy:
            ctx["proxy"], ctx["proxy_obj"] = (None if no_proxy else proxy.url), proxy
            if no_proxy:
                cap = 0  # nothing to count with: only the time limit holds
            for inp in inputs:
                log(f"{inp['label']}: {', '.join(TOOL_NAME[t] for t in tools)}")
                res, stopped = bench_input(inp, tools, ctx, runs, timeout, cap, long, log, warm, floor)
                for tool in tools:
                    s = summarize(res[tool], stopped[tool])
                    results.append((inp["label"], tool, s))
                    for mode in ("cold", "warm"):
                        if s[mode]["time"] is not None:
                            rows.append((f"real {inp['label'][:24]}, {tool}, {mode}", s[mode]["time"],
                                         s[mode]["rss_kb"] or 0, set(s[mode]["rcs"])))
        meta = {
            "proxy": not no_proxy,
            "index": "https://pypi.org/simple (default of every tool)",
            "index_note": "this machine's mirror: no PEP 658 attributes, no cache headers, ranges served",
            "footer": [
                f"tools: {versions.get('rocm-resolve', '?')} ({exe_src}, sha256 {exe_sha}...); "
                f"{versions.get('uv', 'no uv')}; "
                f"{versions['pip'] + ' on CPython ' + v312 + ' in a fresh venv' if 'pip' in versions else 'no pip'};"
                " target Python 3.12.",
                ("bytes: server-to-client bytes through a counting CONNECT proxy (TLS wire bytes), median;"
                 if not no_proxy else "bytes: n/a (--no-proxy: tools talk to the index directly, no byte cap);")
                +
                " requests: rocm-resolve's -v count, pip's urllib3 request lines, uv's logged sends"
                " + range reads (>= lower bound).",
                f"limits: {timeout:.0f} s and {human(cap)} per run; a cold run past either is not repeated"
                f" and its warm runs are skipped; a first cold run over {long:.0f} s is measured once cold"
                " and once warm (n=1). peak RSS: GNU time %M, max over runs.",
                "pyproject inputs: rr and uv read pyproject.toml (base dependencies); pip gets"
                " [project].dependencies as a requirements file; uv runs with --no-sources.",
            ],
        }
        print_table(results, runs, meta)
        if keep:
            with open(os.path.join(work, "results.json"), "w") as f:
                json.dump([(a, b, c) for a, b, c in results], f, default=str, indent=1)
            print(f"logs kept in {work}", file=sys.stderr)
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build", help="meson build dir (or the rocm-resolve binary)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per run")
    ap.add_argument("--byte-cap", type=parse_size, default=parse_size("6G"), help="bytes downloaded per run")
    ap.add_argument("--long", type=float, default=60.0,
                    help="a first cold run longer than this (s) is not repeated; one warm run follows")
    ap.add_argument("--tools", default=",".join(TOOLS))
    ap.add_argument("--only", help="only those of the benchmark's files whose path contains this (not --file's)")
    ap.add_argument("--corpus", help="corpus directory (default ../shared/corpus)")
    ap.add_argument("--keep", action="store_true", help="keep the work dir (logs, plans, results.json)")
    ap.add_argument("--more", action="store_true",
                    help="six more corpus files (issue 17's benchmark: eleven in all)")
    ap.add_argument("--base", help="another rocm-resolve binary, run interleaved beside (before/after)")
    ap.add_argument("--small", action="store_true",
                    help="six real small and fully pinned corpus files (issue 32)")
    ap.add_argument("--file", action="append", default=[],
                    help="a further corpus file (path under the corpus, repeatable)")
    ap.add_argument("--cold-only", action="store_true", help="no warm runs")
    ap.add_argument("--no-floor", action="store_true",
                    help="no floor (the rr run's requests again as one parallel burst with curl)")
    ap.add_argument("--no-proxy", action="store_true",
                    help="no counting proxy (timings without its hop; bytes n/a, no byte cap)")
    a = ap.parse_args()
    src = os.path.dirname(here)
    run(src, a.build, a.runs, a.timeout, a.byte_cap, [t for t in a.tools.split(",") if t], a.only, a.corpus, a.keep, long=a.long, no_proxy=a.no_proxy,
        more=a.more, warm=not a.cold_only, floor=not a.no_floor, extra_files=a.file, small=a.small, base=a.base)


if __name__ == "__main__":
    main()
