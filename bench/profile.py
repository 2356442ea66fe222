#!/usr/bin/env python3
"""Where a cold run's wall time goes (issue 17): one rocm-resolve plan against the real
index, cold, through the counting proxy of bench/real.py, read back from its -vv log
(every transfer with its range, start and end, and the set-up time of each new
connection) and its rusage. Uses the network: one run (and one floor burst) per call.

  bench/profile.py [--build build] [--corpus DIR] [--runs 1] [--log FILE] INPUT

INPUT: a corpus path (requirements/x.txt, pyproject/y.toml) or a substring of one of
bench/real.py's files. --log reads a saved -vv log instead of running (no rusage then).

What it prints:
  setup       process start to the first request (inputs, venv, policy, libcurl)
  connections each new connection (TCP + TLS) and when it was opened
  network     the span from the first request to the last answer: time with at least
              one transfer in flight, and the gaps with none (the main thread busy:
              parsing, the resolver, or a barrier in the crawl)
  batches     transfers that started together (within 5 ms): kind, count, bytes, how long
              the batch took and how long it waited for its slowest transfer after the
              median one had ended (the cost of a barrier)
  metadata    requests per wheel / sdist (1: the first range held METADATA)
  bytes       total, as pages and as ranges, and the time they take at the floor's rate
  causal      the causal floor: the run's requests, each started the moment what made it
              needed had arrived (a page: the first METADATA naming its project; a
              file's range: its page, or its range before), at this run's durations;
              and the chain of pages and files that sets it
  cpu         user + system time of the process (workers included)
  after       the last answer to the process' exit (the resolver, the plan)
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import real  # noqa: E402
from timeline import causal_floor, parse  # noqa: E402,F401
from countproxy import CountingProxy  # noqa: E402

def union(intervals):
    tot, cur_a, cur_b, gaps = 0.0, None, None, []
    for a, b in sorted(intervals):
        if cur_b is None or a > cur_b:
            if cur_b is not None:
                tot += cur_b - cur_a
                gaps.append((cur_b, a))
            cur_a, cur_b = a, b
        else:
            cur_b = max(cur_b, b)
    if cur_b is not None:
        tot += cur_b - cur_a
    return tot, gaps


def batches(ts, window=0.005):
    out = []
    for t in sorted(ts, key=lambda t: t["start"]):
        if out and t["start"] - out[-1][0]["start"] <= window:
            out[-1].append(t)
        else:
            out.append([t])
    return out


def report(ts, wall=None, cpu=None, rss_kb=None, floor=None, out=sys.stdout, cache_dir=None):
    p = lambda *a: print(*a, file=out)
    if not ts:
        p("no transfers in the log (not -vv, or an older build without times)")
        return
    first = min(t["start"] for t in ts)
    last = max(t["end"] for t in ts)
    p(f"transfers: {len(ts)}; first started at {first:.3f} s, last ended at {last:.3f} s"
      + (f"; wall {wall:.3f} s" if wall else ""))
    conns = [t for t in ts if t["conn"] > 0]
    host = lambda u: u.split("/")[2] if u.count("/") >= 2 else u
    p(f"connections: {len(conns)} new, set-up " + ", ".join(
        f"{t['conn']:.3f} s (from {t['start']:.3f} s, {host(t['url'])})" for t in conns))
    busy, gaps = union([(t["start"], t["end"]) for t in ts])
    idle = sum(b - a for a, b in gaps)
    p(f"network span {last - first:.3f} s: {busy:.3f} s with a transfer in flight, {idle:.3f} s with none"
      f" ({len(gaps)} gaps, longest {max([b - a for a, b in gaps], default=0):.3f} s)")
    bs = batches(ts)
    p(f"batches (started within 5 ms): {len(bs)}")
    p("  start    end      kind                 n  bytes      took    waited for the slowest")
    tot_wait = 0.0
    for b in bs:
        kinds = {}
        for t in b:
            kinds[t["kind"]] = kinds.get(t["kind"], 0) + 1
        ends = sorted(t["end"] for t in b)
        med = statistics.median(ends)
        wait = ends[-1] - med
        tot_wait += wait if len(b) > 1 else 0.0
        slow = max(b, key=lambda t: t["end"])
        k = ",".join(f"{k}{'x' + str(v) if v > 1 else ''}" for k, v in sorted(kinds.items()))
        p(f"  {b[0]['start']:7.3f}  {ends[-1]:7.3f}  {k:<18} {len(b):3d}  {real.human(sum(t['bytes'] for t in b)):>9}"
          f"  {ends[-1] - b[0]['start']:6.3f}  {wait:6.3f}  ({slow['kind']} {real.human(slow['bytes'])})")
    p(f"  waiting for stragglers (slowest end - median end, batches of 2+): {tot_wait:.3f} s")
    per = {}
    for t in ts:
        if t["kind"] in ("tail", "head", "range", "whole", "pep658"):
            per.setdefault(t["url"].removesuffix(".metadata"), []).append(t)
    hist = {}
    for v in per.values():
        hist[len(v)] = hist.get(len(v), 0) + 1
    p("metadata: " + ", ".join(f"{n} file(s) in {k} request(s)" for k, n in sorted(hist.items()))
      + f" ({sum(len(v) for v in per.values())} requests for {len(per)} files)")
    by = {}
    for t in ts:
        by.setdefault(t["kind"], [0, 0])
        by[t["kind"]][0] += 1
        by[t["kind"]][1] += t["bytes"]
    tot = sum(v[1] for v in by.values())
    p(f"bytes: {real.human(tot)}: " + ", ".join(f"{k} {v[0]} / {real.human(v[1])}" for k, v in sorted(by.items())))
    if floor:
        rate = floor["down"] / floor["time"] if floor["time"] else None
        p(f"floor: {floor['time']:.3f} s for {floor['requests']} requests, {real.human(floor['down'])}"
          + (f" ({rate / 1e6:.0f} MB/s: this run's bytes alone take {tot / rate:.3f} s)" if rate else ""))
    if cache_dir:
        cf, chain = causal_floor(ts, cache_dir)
        p(f"causal floor: {cf:.3f} s (each request started as soon as what it waits for was in, at"
          f" this run's durations){f'; wall / causal floor {wall / cf:.2f}x' if wall and cf else ''}")
        p("  its chain: " + " -> ".join(chain))
        if any(t["guess"] for t in ts):
            pf, pchain = causal_floor(ts, cache_dir, predicted=True)
            p(f"predicted floor: {pf:.3f} s (the same, the pages this run predicted asked at once;"
              f" {sum(t['guess'] for t in ts)} predicted)"
              f"{f'; wall / predicted floor {wall / pf:.2f}x' if wall and pf else ''}")
            p("  its chain: " + " -> ".join(pchain))
    if cpu is not None:
        p(f"cpu: {cpu[0]:.3f} s user + {cpu[1]:.3f} s system"
          + (f", peak RSS {rss_kb / 1024:.1f} MB" if rss_kb else ""))
    if wall:
        p(f"setup before the first request: {first:.3f} s (client clock; the process started a little earlier)")
        p(f"after the last answer: {wall - last:.3f} s (resolver, plan; process start to client creation"
          " included)")


# CPU by part (--perf): each sample of `perf record -e cpu-clock` by its thread (the
# client's thread runs the transfers, the crawl and the resolver; rr-worker threads parse
# pages; rr-writer writes the cache), library and symbol
PARTS = (
    ("startup (dynamic linking)", lambda th, dso, sym: "ld-linux" in dso),
    ("TLS", lambda th, dso, sym: "libcrypto" in dso or "libssl" in dso),
    ("transfers (libcurl, HTTP/2)", lambda th, dso, sym: "libcurl" in dso or "nghttp2" in dso),
    ("kernel: network", lambda th, dso, sym: "kernel" in dso and re.search(
        r"tcp|ip_|sock|skb|net|virtqueue|vp_|iowrite|xmit|napi|softirq|epoll|poll|inet", sym)),
    ("kernel: files (cache, venv)", lambda th, dso, sym: "kernel" in dso and re.search(
        r"ext4|filemap|vfs|dentry|d_lookup|inode|path|folio|find_get_block|recently_deleted|jbd2"
        r"|block|page_cache|open|link_path|getname|copy_to_iter|copy_from_iter", sym)),
    ("kernel: memory", lambda th, dso, sym: "kernel" in dso and re.search(
        r"fault|page|mm|vma|mmap|munmap|clear_|memcg|anon|folio|lru|alloc|tlb", sym)),
    ("kernel: other", lambda th, dso, sym: "kernel" in dso),
    ("cache writes (writer thread)", lambda th, dso, sym: th == "rr-writer"),
    ("page parsing (workers)", lambda th, dso, sym: th == "rr-worker"),
    ("page parsing (client thread)", lambda th, dso, sym: re.search(
        r"parse_attrs|html|json|keep_skips|wheel_shaped|foreign_name|installable|rr_url_segment"
        r"|plain_absolute|find_attr|tag_is|rr_index_parse|project_add_file|digest|rr_index_project",
        sym)),
    ("METADATA (zip, inflate, parse)", lambda th, dso, sym: "libz" in dso or "libarchive" in dso or re.search(
        r"zip|inflate|rr_dist|rr_metadata|member|tail_|dist_job", sym)),
    ("resolver, crawl", lambda th, dso, sym: "rocm-resolve" in dso and re.search(
        r"pubgrub|pg_|rr_version|rr_spec|rr_marker|rr_requirement|p_candidates|file_score|tag_score"
        r"|crawl|walk|likely|newest|want|rr_resolve|rr_ip_|cand|predict|rr_qsort|cmp_", sym)),
    ("client thread: allocation, copies (libc)", lambda th, dso, sym: "libc" in dso),
    ("client thread: rest (rocm-resolve)", lambda th, dso, sym: True),
)


def perf_parts(data, hz):
    """{part: seconds} from a perf.data file recorded at hz samples a second"""
    out = subprocess.run(["perf", "script", "-i", data, "-F", "comm,tid,ip,sym,dso", "-G"],
                         capture_output=True, text=True).stdout
    parts = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\S+)\s+(\d+)\s+[0-9a-f]+\s+(.*?)\s*\(([^)]*)\)\s*$", line)
        if not m:
            continue
        th, _, sym, dso = m.groups()
        for name, test in PARTS:
            if test(th, dso, sym):
                parts[name] = parts.get(name, 0) + 1.0 / hz
                break
    return parts


def perf_report(parts, curl_parts=None, out=sys.stdout):
    total = sum(parts.values())
    print(f"cpu by part (perf, cpu-clock samples): {total:.3f} s"
          + (f"; curl's burst of the same requests: {sum(curl_parts.values()):.3f} s" if curl_parts else ""),
          file=out)
    for name, _ in PARTS:
        if parts.get(name) or (curl_parts and curl_parts.get(name)):
            c = f"   curl {curl_parts.get(name, 0):.3f} s" if curl_parts else ""
            print(f"  {name:<44} {parts.get(name, 0):.3f} s{c}", file=out)


def run_one(exe, inp, work, proxy, timeout, perf_hz=0):
    # a new directory, the old one left in place: creating files right after a mass
    # deletion costs ext4 here (bench/real.py's docstring)
    cache = os.path.join(work, "cache-perf" if perf_hz else "cache")
    os.makedirs(cache)
    env = real.base_env(work)
    env["https_proxy"] = env["HTTPS_PROXY"] = proxy.url
    env["RR_SYSROOT"] = real.bench_sysroot(work)
    venv = os.path.join(os.path.dirname(here), "fixtures", "venvs", "rocm72")
    tf = os.path.join(work, "time.txt")
    argv = ["/usr/bin/time", "-f", "%U %S %M", "-o", tf, exe, "plan", "-vv", "--venv", venv,
            "--cache-dir", cache, inp["direct"]]
    if perf_hz:
        argv = argv[:5] + ["perf", "record", "-q", "-e", "cpu-clock", "-F", str(perf_hz), "-o",
                           os.path.join(work, "perf.data")] + argv[5:]
    proxy.counters.reset()
    t0 = time.perf_counter()
    p = subprocess.run(argv, env=env, cwd=work, capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - t0
    u, s, m = open(tf).read().split()[-3:]
    return p.stderr, wall, (float(u), float(s)), int(m), p.returncode, proxy.counters.snapshot()["down"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--corpus", default=os.path.join(os.path.dirname(here), "..", "shared", "corpus"))
    ap.add_argument("--log", help="a saved -vv log to read instead of running")
    ap.add_argument("--save", help="write the run's -vv log here")
    ap.add_argument("--no-floor", action="store_true")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--perf", action="store_true",
                    help="CPU by part: the run (and the floor's curl) under perf record -e cpu-clock")
    ap.add_argument("input", nargs="?")
    a = ap.parse_args()
    if a.log:
        report(parse(open(a.log, errors="replace").read()))
        return
    rel = a.input
    if not os.path.exists(os.path.join(a.corpus, rel)):
        hits = [f for f in real.FILES + real.MORE + real.SMALL if rel.lower() in f.lower()]
        if len(hits) != 1:
            sys.exit(f"profile: '{rel}' names {len(hits)} of the benchmark's files")
        rel = hits[0]
    exe = a.build if os.path.basename(a.build) == "rocm-resolve" else os.path.join(
        os.path.dirname(here), a.build, "src", "cli", "rocm-resolve")
    work = tempfile.mkdtemp(prefix="rr-profile-")
    try:
        inp = real.prepare_inputs(a.corpus, work, [rel])[0]
        with CountingProxy() as proxy:
            load = os.getloadavg()
            err, wall, cpu, rss, rc, down = run_one(os.path.abspath(exe), inp, work, proxy, a.timeout)
            if a.save:
                with open(a.save, "w") as f:
                    f.write(err)
            print(f"{inp['label']}: exit {rc}, {wall:.3f} s, {real.human(down)} through the proxy;"
                  f" load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
            floor = None
            if not a.no_floor:
                ctx = {"env": real.base_env(work), "proxy": proxy.url, "proxy_obj": proxy, "work": work,
                       "curl": shutil.which("curl")}
                floor = real.run_floor(real.floor_requests(err), ctx, os.path.join(work, "floor"), a.timeout)
            report(parse(err), wall, cpu, rss, floor, cache_dir=os.path.join(work, "cache"))
            if a.perf:
                # again, cold, under perf (its own run: perf's writing slows the one it watches),
                # and the floor's burst too
                hz = 4000
                run_one(os.path.abspath(exe), inp, work, proxy, a.timeout, hz)
                parts = perf_parts(os.path.join(work, "perf.data"), hz)
                cparts = None
                if floor:
                    ctx["curl_wrap"] = ["perf", "record", "-q", "-e", "cpu-clock", "-F", str(hz), "-o",
                                        os.path.join(work, "perf-curl.data")]
                    real.run_floor(real.floor_requests(err), ctx, os.path.join(work, "floor-perf"), a.timeout)
                    cparts = perf_parts(os.path.join(work, "perf-curl.data"), hz)
                perf_report(parts, cparts)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
