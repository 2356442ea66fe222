"""timeline.py - a rocm-resolve -vv run read back (bench/profile.py, bench/real.py): its
transfers, and the causal floor of the requests it made (see causal_floor)."""
import hashlib
import heapq
import os
import re


def is_page_url(url):
    path = url.split("?", 1)[0]
    return path.endswith("/") or re.search(r"/pypi/[^/]+/json$", path) is not None


LINE = re.compile(r"^rocm-resolve: (GET|HEAD) (\S+) -> (\d+) \((\d+) bytes\)(?:, range ([^\s,]+)(?: of -?\d+)?)?"
                  r"(?:, accept \"[^\"]*\")?, ([\d.]+)-([\d.]+) s(?:, new connection ([\d.]+) s)?(, predicted)?"
                  r"(?:, sent .*)?$", re.M)


def kind_of(url, rng, status):
    if is_page_url(url):
        return "page"
    if url.endswith(".metadata"):
        return "pep658"
    if not rng:
        return "whole"
    if rng.startswith("-"):
        return "tail"
    if rng.startswith("0-") or re.match(r"\d+-\d+$", rng) and url.endswith(".tar.gz"):
        return "sdist-head"
    return "range"


def parse(err):
    out = []
    for m in LINE.finditer(err):
        method, url, status, nbytes, rng, a, b, conn, guess = m.groups()
        out.append({"url": url, "status": int(status), "bytes": int(nbytes), "range": rng,
                    "start": float(a), "end": float(b), "conn": float(conn) if conn else 0.0,
                    "guess": bool(guess),
                    "kind": "head" if method == "HEAD" else kind_of(url, rng, int(status))})
    return out


def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def requires(cache_dir, url):
    """the project names a file's METADATA (or PKG-INFO) requires, read back from the run's
    cache (src/index/cache.c: <dir>/http-v2/<k0>/<sha256 of klass NL url>), or None"""
    for klass in ("wheel-metadata", "sdist-metadata"):
        h = hashlib.sha256((klass + "\n" + url).encode()).hexdigest()
        path = os.path.join(cache_dir, "http-v2", h[:1], h)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            continue
        body = data.split(b"\n\n", 1)[-1].decode("utf-8", "replace")
        head = body.split("\n\n", 1)[0]  # the headers, not the description
        return {norm(m.group(1)) for m in re.finditer(r"^Requires-Dist:\s*([A-Za-z0-9][A-Za-z0-9._-]*)",
                                                       head, re.M)}
    return None


def causal_floor(ts, cache_dir, predicted=False):
    """the run's own requests, each started the moment what made it needed had arrived,
    at the durations this run saw: a page when the first METADATA naming its project was
    whole (at once when the run asked for it before any such was and not as a prediction:
    an input line, the stack), a file's first range when its project's page was in, each
    further range of a file when the one before was. A lower bound for a resolver that
    fetches what this one did with no time of its own between answers and requests; a page
    asked as a prediction that nothing named is left out. predicted: the predicted floor,
    the same with every page the run predicted ("predicted" in the -vv line) asked at once.
    (seconds, the chain that sets it)"""
    page_of, files = {}, {}
    for t in ts:
        if t["kind"] == "head":
            continue
        if t["kind"] == "page":
            path = t["url"].split("?", 1)[0].rstrip("/")
            key = norm(path.rsplit("/", 2)[-2] if path.endswith("/json") else path.rsplit("/", 1)[-1])
            page_of.setdefault(key, t)
        else:
            files.setdefault(t["url"].removesuffix(".metadata"), []).append(t)
    names = {}  # project -> the files whose METADATA names it
    deps = {}
    for url, rs in files.items():
        rs.sort(key=lambda t: t["start"])
        req = requires(cache_dir, url)
        deps[url] = req or set()
        for q in deps[url]:
            names.setdefault(q, []).append(url)
    fname = lambda u: u.rsplit("/", 1)[-1]
    proj_of = {url: norm(re.split(r"-\d", fname(url), 1)[0]) for url in files}
    by_proj = {}
    for url in files:
        by_proj.setdefault(proj_of[url], []).append(url)
    # a file's requests, one after the other
    busy = {url: sum(t["end"] - t["start"] for t in rs) for url, rs in files.items()}
    # Dijkstra over "known at": a page is in at ES + its duration; a file's METADATA is
    # whole when its page is in and its ranges have run one after the other
    page_in, why = {}, {}
    heap = []
    whole = {url: rs[-1]["end"] for url, rs in files.items()}
    for key, t in page_of.items():
        # asked for before any METADATA naming it was in: an input line, the stack (and
        # for the predicted floor, a prediction)
        if (predicted and t["guess"]) or (not t["guess"] and t["start"] < min(
                (whole[u] for u in names.get(key, ())), default=float("inf"))):
            heapq.heappush(heap, (t["end"] - t["start"], key, None))
    while heap:
        at, key, cause = heapq.heappop(heap)
        if key in page_in:
            continue
        page_in[key], why[key] = at, cause
        for url in by_proj.get(key, ()):
            known = at + busy[url]
            for q in deps[url]:
                if q in page_of and q not in page_in:
                    heapq.heappush(heap, (known + page_of[q]["end"] - page_of[q]["start"], q, url))
    # pages no METADATA of this run names reachably (hints): at once; a prediction
    # nothing named was not needed
    for key, t in page_of.items():
        if key not in page_in and not t["guess"]:
            page_in[key], why[key] = t["end"] - t["start"], None
    best, chain = 0.0, []
    for url in files:
        at = page_in.get(proj_of[url], 0.0) + busy[url]
        if at > best:
            best, last = at, url
    for key, at in page_in.items():
        if at > best:
            best, last = at, None
    if best:
        url = last
        key = proj_of[url] if url else max(page_in, key=page_in.get)
        if url:
            chain.append(fname(url))
        while key is not None:
            chain.append(key + "/")
            url = why.get(key)
            if url is None:
                break
            chain.append(fname(url))
            key = proj_of[url]
    return best, list(reversed(chain))
