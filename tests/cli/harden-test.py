#!/usr/bin/env python3
"""Hardening (issue 10), seen from the command line: no planted symlink gets a
file clobbered, no FIFO or device in a venv makes a command wait, no secret from
a ${VAR} reaches the plan, JSON stays valid UTF-8, escape sequences from input
files are not echoed raw, bad inputs exit 2. Each case fails on the code before
the fix (see the comment on each)."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

from clitest import check, exe, rocm72 as venv, sanitizer_check, src, summary, write


def run(args, cwd=None, env=None, shell_prefix=None, timeout=20, stdin=None):
    """run rocm-resolve; shell_prefix runs first in a sh that then execs rocm-resolve, so
    $$ in it is the pid rocm-resolve will have. A hang is a failure, not a stuck suite."""
    if shell_prefix is not None:
        argv = ["sh", "-c", shell_prefix + '; exec "$0" "$@"', exe] + args
    else:
        argv = [exe] + args
    try:
        p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, timeout=timeout,
                           stdin=stdin if stdin is not None else subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None
    sanitizer_check(args, p.stderr)
    return p


def read(path):
    with open(path) as f:
        return f.read()


def test_symlinks(tmp):
    """item 1: the old writers opened '<FILE>.tmp.<pid>' (excludes, fopen "w") and
    '<cache>/plans/.<name>.<pid>.tmp' (O_CREAT|O_TRUNC, no O_EXCL|O_NOFOLLOW), following a
    symlink planted there and overwriting its target"""
    d = os.path.join(tmp, "sym")
    os.makedirs(d)
    victim = os.path.join(d, "precious")
    write(victim, "do not touch\n")
    write(os.path.join(d, "req.txt"), "requests\n-c cons.txt\n")
    write(os.path.join(d, "cons.txt"), "torch==2.0.0\nrequests<3\n")
    ex = os.path.join(d, "excludes.txt")
    cache = os.path.join(d, "cache")
    # the filtered constraints live in the data directory (they outlive the cache)
    plans = os.path.join(d, "data", "rocm-resolve", "constraints")
    os.makedirs(plans)
    name = "constraints-%s.txt" % hashlib.sha256(b"requests<3\n").hexdigest()[:16]
    plant = (f'ln -s {victim} "{ex}.tmp.$$" && '
             f'ln -s {victim} "{plans}/.{name}.$$.tmp"')
    env = dict(os.environ, XDG_DATA_HOME=os.path.join(d, "data"))
    p = run(["plan", "--no-index", "-q", "--venv", venv, "--cache-dir", cache,
             "--uv-excludes", ex, "req.txt"], cwd=d, shell_prefix=plant, env=env)
    check(p is not None and p.returncode == 0, "plan with planted temp symlinks exits 0",
          p and p.stderr.decode())
    check(read(victim) == "do not touch\n", "a symlink at the old temp names clobbers nothing",
          read(victim))
    check(os.path.isfile(ex) and not os.path.islink(ex) and "rocm-resolve" in read(ex),
          "the excludes file is a regular file with the list")
    plan = os.path.join(plans, name)
    check(os.path.isfile(plan) and not os.path.islink(plan) and read(plan) == "requests<3\n",
          "the filtered constraints file is written as a regular file")
    left = [f for f in os.listdir(plans) if f.endswith(".tmp")]
    check(all(os.path.islink(os.path.join(plans, f)) for f in left),
          "no temporary file of ours is left behind", left)


def test_env_secrets(tmp):
    """item 2: ${VAR} in a requirements file is expanded to reach the index, but the plan
    (text and JSON) keeps it as written; before, the secret was printed"""
    d = os.path.join(tmp, "env")
    write(os.path.join(d, "req.txt"),
          "-i https://${RR_H_USER}:${RR_H_TOKEN}@host.invalid/simple\n"
          "--extra-index-url https://x.invalid/${RR_H_TOKEN}/simple\n"
          "requests\n"
          "foo @ https://files.invalid/${RR_H_TOKEN}/foo-1.0-py3-none-any.whl\n")
    env = dict(os.environ, RR_H_USER="alice", RR_H_TOKEN="s3cr3t-t0ken")
    for fmt in ("text", "json"):
        p = run(["plan", "--no-index", "--format", fmt, "--venv", venv, "req.txt"], cwd=d,
                env=env)
        out = p.stdout.decode() + p.stderr.decode() if p else ""
        check(p is not None and p.returncode == 0, f"{fmt}: plan exits 0", out)
        check("s3cr3t" not in out and "alice" not in out, f"{fmt}: no secret from ${{VAR}} printed",
              out)
        check("${RR_H_USER}:${RR_H_TOKEN}@host.invalid" in out and
              "files.invalid/${RR_H_TOKEN}/foo" in out, f"{fmt}: ${{VAR}} kept as written", out)
        if fmt == "json":
            check(p is not None and isinstance(json.loads(p.stdout), dict), "json: parses")
    # policy decisions see the expanded value: a CUDA index behind ${VAR} is still stripped
    write(os.path.join(d, "cuda.txt"),
          "--extra-index-url https://download.pytorch.org/whl/${RR_H_CU}\nrequests\n")
    p = run(["plan", "--no-index", "--venv", venv, "cuda.txt"], cwd=d,
            env=dict(env, RR_H_CU="cu121"))
    out = p.stdout.decode() if p else ""
    check(p is not None and "#   cuda.txt:1: --extra-index-url https://download.pytorch.org/whl/${RR_H_CU}:"
          in out and "\n--extra-index-url" not in out,
          "a CUDA index given through ${VAR} is matched expanded, shown as written", out)


def test_usage_exits(tmp):
    """item 10: an undefined include-group, --group without [dependency-groups] and a
    directory holding neither input are usage errors (exit 2) naming the input; before: 3"""
    d = os.path.join(tmp, "usage")
    write(os.path.join(d, "g", "pyproject.toml"),
          '[project]\nname = "p"\nversion = "1"\n'
          '[dependency-groups]\ndev = [{include-group = "nope"}]\n')
    write(os.path.join(d, "n", "pyproject.toml"),
          '[project]\nname = "p"\nversion = "1"\ndependencies = []\n')
    os.makedirs(os.path.join(d, "empty"))
    for sub, extra, what in (("g", ["--group", "dev"], "undefined include-group"),
                             ("n", ["--group", "dev"], "--group without [dependency-groups]"),
                             ("empty", [], "a directory with neither input")):
        p = run(["plan", "--no-index", "--venv", venv] + extra + [os.path.join(d, sub)])
        err = p.stderr.decode() if p else ""
        check(p is not None and p.returncode == 2 and os.path.join(d, sub) in err,
              f"{what}: exit 2 naming the input", f"{p and p.returncode}: {err}")


def bad_venv(tmp):
    """rocm72 plus a dist-info whose name holds a raw 0xff and an escape sequence"""
    v = os.path.join(tmp, "badname-venv")
    if not os.path.isdir(v):
        shutil.copytree(venv, v, symlinks=True)
        d = os.path.join(v, "lib", "python3.12", "site-packages").encode() + \
            b"/bad\xffname-1.0.dist-info"
        os.makedirs(d)
        with open(d + b"/METADATA", "wb") as f:
            f.write(b"Metadata-Version: 2.1\nName: bad\xffname\x1b[2J\nVersion: 1.0\n")
    return v


def test_json_utf8(tmp):
    """item 10: JSON carrying a raw 0xff from a dist-info name is still UTF-8 JSON (before,
    inspect --format json wrote the byte raw and json.loads failed)"""
    v = bad_venv(tmp)
    for cmd in (["inspect"],
                ["check", "--no-index", os.path.join(src, "tests", "cli", "inputs", "safe.txt")]):
        p = run(cmd + ["--format", "json", "--venv", v])
        ok = False
        try:
            json.loads(p.stdout.decode("utf-8"))
            ok = True
        except (ValueError, AttributeError) as e:
            detail = str(e)
        check(ok, f"{cmd[0]} --format json with a 0xff dist-info name is valid UTF-8 JSON",
              "" if ok else detail)


def test_no_raw_escapes(tmp):
    """item 10: escape sequences and control bytes from input files reach stderr escaped
    (before, an error or warning echoed ESC ] ... BEL raw to the terminal)"""
    d = os.path.join(tmp, "esc")
    write(os.path.join(d, "bad.txt"), "requests\nfoo\x1b]0;pwned\x07==1\n")
    p = run(["plan", "--no-index", "--venv", venv, os.path.join(d, "bad.txt")])
    err = p.stderr if p else b""
    check(p is not None and p.returncode == 2, "a bad line with ESC exits 2", err)
    check(b"\x1b" not in err and b"\x07" not in err and b"\\x1b]0;pwned\\x07" in err,
          "the error shows the escape sequence escaped, not raw", err)
    p = run(["check", "--no-index", "--venv", bad_venv(tmp),
             os.path.join(src, "tests", "cli", "inputs", "safe.txt")])
    err = p.stderr if p else b""
    check(b"\x1b" not in err and b"\xff" not in err and b"bad\\xffname\\x1b[2J" in err,
          "a warning about a dist-info name shows its bytes escaped", err)


def test_fifos(tmp):
    """item 6: FIFOs at pyvenv.cfg, a METADATA and torch/version.py, and a FIFO named by
    an include in a requirements file, none with a writer: the command returns promptly (the
    run() timeout makes a hang a failure) and names what it refused; before, the blocking
    open() waited for a writer forever"""
    v = os.path.join(tmp, "fifo-venv")
    shutil.copytree(venv, v, symlinks=True)
    site = os.path.join(v, "lib", "python3.12", "site-packages")
    for rel in ("../../../pyvenv.cfg", "numpy-2.4.1.dist-info/METADATA", "torch/version.py"):
        f = os.path.normpath(os.path.join(site, rel))
        os.unlink(f)
        os.mkfifo(f)
    p = run(["check", "--no-index", "--venv", v,
             os.path.join(src, "tests", "cli", "inputs", "safe.txt")], timeout=30)
    err = p.stderr.decode() if p else "(timed out)"
    check(p is not None, "check on a venv with FIFOs returns", err)
    check("pyvenv.cfg: it is a FIFO" in err and "torch/version.py: it is a FIFO" in err,
          "the FIFOs are named on stderr", err)
    d = os.path.join(tmp, "fifo-inc")
    os.makedirs(d)
    write(os.path.join(d, "req.txt"), "requests\n-r inc.txt\n")
    os.mkfifo(os.path.join(d, "inc.txt"))
    p = run(["plan", "--no-index", "--venv", venv, os.path.join(d, "req.txt")], timeout=30)
    err = p.stderr.decode() if p else "(timed out)"
    check(p is not None and p.returncode == 2 and "inc.txt': it is a FIFO" in err,
          "an include that is a FIFO exits 2 naming it", err)


def main():
    tmp = tempfile.mkdtemp(prefix="rr-harden-")
    try:
        for t in [test_symlinks, test_env_secrets, test_usage_exits, test_json_utf8,
                  test_no_raw_escapes, test_fifos]:
            t(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
