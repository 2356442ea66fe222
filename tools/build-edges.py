#!/usr/bin/env python3
"""Build data/edges.txt, the dependency edges rocm-resolve ships for PyPI (issue 32).

    tools/build-edges.py CACHE_DIR... > data/edges.txt
    tools/build-edges.py --resolve FILES_LIST --cache DIR [--build build]   (first)

rocm-resolve keeps, in its cache, the edges each run learned (src/index/predict.c: for
each project whose likely release the crawl followed, the names that release requires on
the run's venv - Linux x86_64 CPython 3.12 for the ROCm images - no extra asked, and the
size of the project's page and where its wheels keep METADATA). This tool merges those
notes from one or more cache directories into the shipped file: one line per project,
"name kib [@need,cd,head] dep dep ..." (src/index/ranges.c: rr_index_tail_hint), sorted
by name (rocm-resolve looks a name up by binary search; nothing is parsed at start).

Refreshed at release: resolve a set of real projects' files against PyPI with one cache
directory (--resolve runs `rocm-resolve plan` on each file of FILES_LIST, one after the
other, in the ROCm 7.2 fixture venv), then build from that cache. Every edge is index
metadata a run read; nothing is guessed here. A name a wrong edge adds costs a run its
page's bytes, never a different answer.
"""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

NOTE_KLASS = "note"
NOTE_KEY = "rocm-resolve:learned-edges-v1"


def note_path(cache):
    h = hashlib.sha256((NOTE_KLASS + "\n" + NOTE_KEY).encode()).hexdigest()
    return os.path.join(cache, "http-v2", h[:1], h)


def read_note(cache):
    """{name: (kib, [deps])} from a cache directory's note; {} when it has none"""
    try:
        with open(note_path(cache), "rb") as f:
            data = f.read()
    except OSError:
        return {}
    body = data.split(b"\n\n", 1)[-1].decode("utf-8", "replace")
    out = {}
    for line in body.splitlines():
        if not line or line.startswith("#"):
            continue
        words = line.split()
        if len(words) < 2 or not words[1].isdigit():
            continue
        out[words[0]] = (int(words[1]), words[2:])
    return out


def resolve_all(listfile, cache, build):
    src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    exe = os.path.join(src, build, "src", "cli", "rocm-resolve")
    venv = os.path.join(src, "fixtures", "venvs", "rocm72")
    with open(listfile) as f:
        files = [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]
    for path in files:
        if path.endswith(".toml"):
            # read as a project's pyproject.toml, as the benchmark does
            d = tempfile.mkdtemp(prefix="build-edges-")
            shutil.copyfile(path, os.path.join(d, "pyproject.toml"))
            path = os.path.join(d, "pyproject.toml")
        r = subprocess.run([exe, "plan", "--venv", venv, "--cache-dir", cache, path],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        print(f"{path}: exit {r.returncode}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("caches", nargs="*", help="rocm-resolve cache directories")
    ap.add_argument("--resolve", metavar="FILES_LIST",
                    help="first run rocm-resolve plan on each file listed (one path a line)")
    ap.add_argument("--cache", help="the cache directory --resolve fills")
    ap.add_argument("--build", default="build")
    a = ap.parse_args()
    if a.resolve:
        if not a.cache:
            sys.exit("build-edges: --resolve needs --cache")
        os.makedirs(a.cache, exist_ok=True)
        resolve_all(a.resolve, a.cache, a.build)
        a.caches.append(a.cache)
    edges = {}
    for cache in a.caches:
        for name, (kib, deps) in read_note(cache).items():
            old = edges.get(name)
            # the larger page size seen; the edges of the first cache that has them
            edges[name] = (max(kib, old[0]) if old else kib, old[1] if old else deps)
    out = sys.stdout
    out.write("# rocm-resolve: dependency edges of widely used projects on PyPI, as their newest\n"
              "# releases had them for Linux x86_64 CPython 3.12 (tools/build-edges.py; name,\n"
              "# page KiB, @where a wheel keeps METADATA, dependencies; sorted by name)\n")
    for name in sorted(edges):
        kib, deps = edges[name]
        out.write(" ".join([name, str(kib)] + deps) + "\n")
    print(f"build-edges: {len(edges)} projects, "
          f"{sum(len([x for x in d if not x.startswith('@')]) for _, d in edges.values())} edges, "
          f"{sum(any(x.startswith('@') for x in d) for _, d in edges.values())} wheel layouts",
          file=sys.stderr)


if __name__ == "__main__":
    main()
