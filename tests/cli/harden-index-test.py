#!/usr/bin/env python3
"""Hardening, round two (issue 19), seen from the command line, for what the index and
the files named on it say: a remote page's links are data, never local paths (item 3);
a page's files of another project are not the project's (item 4); a FIFO named by
--policy or --stack is refused at once (item 6; --cert and $SSL_CERT_FILE: tests/e2e/
tls.py); an archive that cannot be read is named by its URL (item 9). The fixture index
(tests/index/serve.py) plays the hostile index. Each case fails on the code before the fix
(see the comment on each)."""
import os
import shutil
import subprocess
import sys
import tempfile

from clitest import check, exe, fixture_index, rocm72 as venv, sanitizer_check, summary, write

FAIL_CLOSED = "rocm-resolve failed, no plan: see its error above\n"


def run(args, timeout=60):
    """rocm-resolve with a clean environment; a hang is a failure (None), not a stuck suite"""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SSL_", "REQUESTS_", "PIP_", "UV_", "VIRTUAL_ENV"))}
    try:
        p = subprocess.run([exe] + args, capture_output=True, text=True, timeout=timeout,
                           stdin=subprocess.DEVNULL, env=env)
    except subprocess.TimeoutExpired:
        return None
    sanitizer_check(args, p.stderr)
    return p


def test_remote_file_links(url, tmp):
    """item 3: the page links each file (and its .metadata) as file:// URLs of copies on
    this machine; before, the run opened them there (its error named the local file)"""
    req = os.path.join(tmp, "idna.txt")
    write(req, "idna\n")
    p = run(["plan", "--no-cache", "--lock", "--venv", venv, "-i",
             url + "/_fault/filelinks/simple/", req])
    err = p.stderr if p else "(timed out)"
    check(p is not None and p.returncode == 3 and p.stdout in ("", FAIL_CLOSED),
          "a page of file:// links: exit 3, no plan", (p.stdout if p else "") + err)
    check("lists no files of it (1 ignored" in err and "file://" not in err,
          "the error says the page's file was ignored, and names no local file", err)


def test_other_project_files(url, tmp):
    """item 4: the page of 'idna' lists only numpy's files; before, exit 0 and --lock pinned
    idna to numpy's version and hash"""
    req = os.path.join(tmp, "idna.txt")
    write(req, "idna\n")
    p = run(["plan", "--no-cache", "--lock", "--venv", venv, "-i",
             url + "/_fault/imposter/numpy/simple/", req])
    err = p.stderr if p else "(timed out)"
    check(p is not None and p.returncode == 3 and p.stdout in ("", FAIL_CLOSED),
          "another project's files: exit 3, nothing pinned", (p.stdout if p else "") + err)
    check("the index page of 'idna' lists no files of it" in err and "named for another project" in err,
          "the error says why", err)
    # the same index, an honest page: numpy's own page still resolves
    write(req, "numpy\n")
    p = run(["plan", "--no-cache", "--venv", venv, "-i", url + "/_fault/imposter/numpy/simple/", req])
    check(p is not None and p.returncode == 0 and "\nnumpy\n" in p.stdout and "1 kept" in p.stdout,
          "the project's own page still resolves", (p.stdout + p.stderr) if p else "(timed out)")


def test_fifos(tmp):
    """item 6: --policy and --stack naming a FIFO with no writer; before, --stack waited for
    a writer for ever and --policy read the FIFO as an empty file ("'[' or '{' expected")"""
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    req = os.path.join(tmp, "safe.txt")
    write(req, "idna\n")
    for what, args in (("--policy", ["--venv", venv, "--policy", fifo]), ("--stack", ["--stack", fifo])):
        p = run(["plan", "--no-index", "--timeout", "5", *args, req], timeout=30)
        err = p.stderr if p else "(still running 30 s later, --timeout 5)"
        check(p is not None and p.returncode == 2 and "it is a FIFO, not a regular file" in err,
              f"a FIFO as {what}: exit 2 at once, naming it", err)


def test_archive_error_url(url, tmp):
    """item 9: the index serves text where the wheel should be (no hash on the page to
    catch it first); before, the error named only the filename, not where it came from"""
    req = os.path.join(tmp, "idna.txt")
    write(req, "idna\n")
    bad = url + "/_fault/garbage/_fault/nohash/_fault/nometa/simple/"
    p = run(["plan", "--no-cache", "--venv", venv, "-i", bad, req])
    err = p.stderr if p else "(timed out)"
    want = url + "/_fault/garbage/_fault/nohash/_fault/nometa/files/idna-3.10-py3-none-any.whl: not a zip file"
    check(p is not None and p.returncode == 3 and want in err, "a damaged wheel is named by its URL", err)


def main():
    tmp = tempfile.mkdtemp(prefix="rr-harden-index-")
    try:
        with fixture_index() as url:
            check(url.startswith("http://127.0.0.1:"), "the fixture index runs", url)
            test_remote_file_links(url, tmp)
            test_other_project_files(url, tmp)
            test_fifos(tmp)
            test_archive_error_url(url, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
