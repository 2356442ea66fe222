"""What the CLI test scripts share: where the source and the build are, the check
counter with its "ok   " / "FAIL " lines, the fixture index (tests/index/serve.py) for
the length of a `with`, and the final "N passed, N failed" line that CI counts."""
import contextlib
import os
import signal
import subprocess
import sys

src = os.environ["RR_SRCDIR"]
build = os.environ["RR_BUILDDIR"]
exe = os.path.join(build, "src", "cli", "rocm-resolve")
rocm72 = os.path.join(src, "fixtures", "venvs", "rocm72")
checks = {"passed": 0, "failed": 0}


def check(cond, what, detail=""):
    checks["passed" if cond else "failed"] += 1
    print(("ok   " if cond else "FAIL ") + what)
    if not cond and detail:
        print("     " + str(detail).replace("\n", "\n     "))


def sanitizer_check(args, stderr):
    """under ASan/UBSan a report fails the run whatever the case checks"""
    if isinstance(stderr, bytes):
        stderr = stderr.decode(errors="replace")
    if "runtime error:" in stderr or "Sanitizer" in stderr:
        check(False, "no sanitizer report: " + " ".join(args), stderr)


def clean_env(also=()):
    """os.environ without what would point rocm-resolve or the installers elsewhere:
    UV_*, PIP_*, VIRTUAL_ENV, CONDA_PREFIX, and the prefixes in also"""
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("UV_", "PIP_") + tuple(also))
            and k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}


def write(path, text):
    """text as UTF-8, as written (no newline translation), making its directory"""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


@contextlib.contextmanager
def fixture_index():
    """the fixture index on 127.0.0.1 for the length of the `with`: its URL (as the
    server prints it), the server stopped with SIGTERM (it removes its scratch
    directory) however the block ends"""
    server = subprocess.Popen([sys.executable, os.path.join(src, "tests", "index", "serve.py"),
                               "--world", os.path.join(src, "fixtures", "index", "world.txt")],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        yield server.stdout.readline().strip()
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


def summary():
    """the final count (CI reads this line) and the exit status"""
    print(f"{checks['passed']} passed, {checks['failed']} failed")
    return 1 if checks["failed"] else 0
