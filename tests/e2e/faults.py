#!/usr/bin/python3
"""Reliability at the CLI level (issue #3 item 7), against tests/index/serve.py.

For every fault the fixture server injects, rocm-resolve (cold cache each time)
either succeeds, after retries, with the very plan a clean run prints, or exits 3
with a message naming the URL (credentials redacted) and NOTHING on stdout.
Also: 8 concurrent cold runs sharing one --cache-dir all succeed and leave a cache
that a later --offline run answers from; --offline with an empty cache exits 3
naming what is missing; --strict with an impossible requirement exits 1 with
empty stdout."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2elib as E  # noqa: E402

FAIL_CLOSED = "rocm-resolve failed, no plan: see its error above\n"

VENV = os.path.join(E.SRC, "fixtures", "venvs", "rocm72")
REQS = "transformers[torch]\naccelerate\nxformers\nrr-static-sdist\n"
IMPOSSIBLE = "vllm==0.10.1\n"

# (name, URL path prefix before /simple/, expected: "ok" | "fail" | "either")
FAULTS = [
    ("latency 30 ms", "/_fault/latency/30", "ok"),
    ("503 once, then OK", "/_fault/5xx/1", "ok"),
    ("503 twice, then OK", "/_fault/5xx/2", "ok"),
    ("always 503", "/_fault/always5xx", "fail"),
    ("dropped connection once", "/_fault/drop/1", "ok"),
    ("dropped connection always", "/_fault/drop/1000", "fail"),
    ("truncated body once", "/_fault/trunc/1", "ok"),
    ("truncated body always", "/_fault/trunc/1000", "fail"),
    ("malformed JSON", "/_fault/badjson", "either"),
    ("wrong Content-Type", "/_fault/ctype", "either"),
    ("missing .metadata", "/_fault/nometa", "ok"),
    ("corrupt files and .metadata", "/_fault/corrupt", "fail"),
    ("no-cache pages", "/_fault/nocache", "ok"),
    ("401 without credentials", "/_auth/alice/s3cret", "fail"),
]


def plan_body(text):
    """the plan minus lines that may differ by index URL"""
    text = re.sub(r"^# credentials in index URLs are never written.*\n", "", text, flags=re.M)
    return re.sub(r"https?://\S+", "URL", text)


def main():
    if not os.access(E.EXE, os.X_OK):
        E.skip(f"{E.EXE} not built")
    work = tempfile.mkdtemp(prefix="rr-faults-")
    req = os.path.join(work, "requirements.txt")
    with open(req, "w") as fh:
        fh.write(REQS)
    fails = []
    n = 0

    def check(name, ok, detail=""):
        nonlocal n
        n += 1
        print(f"{'ok' if ok else 'not ok'} {n} - {name}")
        if not ok:
            fails.append(name)
            print("    " + detail.replace("\n", "\n    "))

    def run(index_url, cache, *more, reqfile=req):
        return E.rr(["--index-url", index_url, "--venv", VENV, "--cache-dir", cache, "--timeout", "10"]
                    + list(more) + [reqfile], timeout=180)

    def failed_properly(r, url_shown, secret=None):
        probs = []
        if r.returncode != 3:
            probs.append(f"exit {r.returncode}, want 3")
        if r.stdout != FAIL_CLOSED:
            probs.append(f"stdout is not just the fail-closed line ({len(r.stdout)} bytes): a partial plan?")
        if url_shown not in r.stderr:
            probs.append(f"stderr does not name {url_shown}")
        if secret and secret in r.stderr:
            probs.append(f"stderr shows the password {secret!r}")
        return probs

    try:
        with E.Index() as idx:
            base = run(idx.simple(), os.path.join(work, "c-base"))
            check("clean run succeeds", base.returncode == 0 and base.stdout, base.stderr)
            want = plan_body(base.stdout)
            for i, (name, prefix, expect) in enumerate(FAULTS):
                url = idx.simple(prefix)
                r = run(url, os.path.join(work, f"c{i}"))
                if r.returncode == 0:
                    good = plan_body(r.stdout) == want
                    detail = "" if good else f"plan differs from the clean run:\n{r.stdout}\n--- clean:\n{base.stdout}"
                    if expect == "fail":
                        good, detail = False, f"succeeded, but every answer is bad:\n{r.stdout}"
                    check(f"{name}: complete plan", good, detail)
                else:
                    probs = failed_properly(r, idx.url)
                    if expect == "ok":
                        probs.append("expected success after retries")
                    check(f"{name}: exit {r.returncode}", not probs, "\n".join(probs) + "\nstderr:\n" + r.stderr)

            # credentials: right ones work; wrong ones fail without showing the password
            hostport = idx.url[len("http://"):]
            r = run(f"http://alice:s3cret@{hostport}/_auth/alice/s3cret/simple/", os.path.join(work, "c-auth"))
            check("basic auth in the URL: complete plan", r.returncode == 0 and plan_body(r.stdout) == want,
                  r.stderr)
            # (the fixture's path holds the password too: look for the userinfo form)
            check("basic auth: password never printed",
                  "alice:s3cret" not in r.stderr and "alice:s3cret" not in r.stdout and
                  "http://127.0.0.1" in r.stdout,
                  r.stderr)
            r = run(f"http://alice:wr0ng@{hostport}/_auth/alice/s3cret/simple/", os.path.join(work, "c-auth2"))
            check("401 with wrong credentials: exit 3, redacted",
                  not failed_properly(r, hostport, secret="wr0ng"),
                  "\n".join(failed_properly(r, hostport, secret="wr0ng")) + "\nstderr:\n" + r.stderr)

            # 8 concurrent cold runs on one cache, then --offline from it
            shared = os.path.join(work, "c-shared")
            lat = idx.simple("/_fault/latency/5")
            with ThreadPoolExecutor(8) as ex:
                rs = list(ex.map(lambda _: run(lat, shared), range(8)))
            bad = [r for r in rs if r.returncode != 0 or plan_body(r.stdout) != want]
            check("8 concurrent cold runs sharing one cache all succeed with the same plan", not bad,
                  "\n".join(f"exit {r.returncode}: {r.stderr}" for r in bad))
            tmp_left = [f for dp, _, fs in os.walk(shared) for f in fs if ".tmp" in f]
            check("no temporary files left in the shared cache", not tmp_left, str(tmp_left[:5]))
            r = run(lat, shared, "--offline")
            check("--offline from the shared cache: complete plan", r.returncode == 0 and plan_body(r.stdout) == want,
                  r.stderr)

            # --offline on an empty cache: exit 3, names what is missing
            r = run(idx.simple(), os.path.join(work, "c-empty"), "--offline")
            probs = []
            if r.returncode != 3:
                probs.append(f"exit {r.returncode}, want 3")
            if r.stdout != FAIL_CLOSED:
                probs.append("stdout is not just the fail-closed line")
            if not re.search(r"transformers|accelerate|xformers|rr-static-sdist", r.stderr):
                probs.append("stderr does not name a missing project")
            check("--offline with an empty cache: exit 3 naming what is missing", not probs,
                  "\n".join(probs) + "\nstderr:\n" + r.stderr)

            # --strict with a requirement that has no safe version
            imp = os.path.join(work, "impossible.txt")
            with open(imp, "w") as fh:
                fh.write(IMPOSSIBLE)
            r = run(idx.simple(), os.path.join(work, "c-base"), "--strict", reqfile=imp)
            check("--strict, impossible requirement: exit 1, only the fail-closed line on stdout",
                  r.returncode == 1 and r.stdout == FAIL_CLOSED and "vllm" in r.stderr,
                  f"exit {r.returncode}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}")
            r = run(idx.simple(), os.path.join(work, "c-base"), reqfile=imp)
            check("without --strict the impossible requirement is stripped (exit 0)",
                  r.returncode == 0 and "vllm" in r.stdout and not re.search(r"^vllm", r.stdout, re.M),
                  f"exit {r.returncode}\n{r.stdout}{r.stderr}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{n - len(fails)}/{n} checks passed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
