#!/usr/bin/env python3
"""What the plan promises under stress (issue 10, items 9 and 10):
  - SIGTERM while a plan over 64 KiB is being written into a full pipe: the reader
    still gets the whole plan (termination waits for the last byte), never a plan
    cut mid-line without its protected pins;
  - `check --format json > /dev/full` and `plan > /dev/full` exit 3, not 0;
  - a relative XDG_CACHE_HOME / XDG_DATA_HOME is ignored (the XDG rule): no plan
    files appear inside the project directory;
  - a saved plan keeps working after the cache is cleaned: the filtered constraints
    it names live in the data directory, not the cache."""
import array
import fcntl
import os
import signal
import termios
import subprocess
import sys
import tempfile
import time

src = os.environ["RR_SRCDIR"]
exe = os.path.join(os.environ["RR_BUILDDIR"], "src", "cli", "rocm-resolve")
venv = os.path.join(src, "fixtures", "venvs", "rocm72")
fails = []
n = 0


def check(name, ok, detail=""):
    global n
    n += 1
    print(f"{'ok' if ok else 'not ok'} {n} - {name}")
    if not ok:
        fails.append(name)
        print("    " + str(detail)[:2000].replace("\n", "\n    "))


work = tempfile.mkdtemp(prefix="rr-robust-")
env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cache"))
env.pop("VIRTUAL_ENV", None)
big = os.path.join(work, "big.txt")
with open(big, "w") as f:
    for i in range(4000):
        f.write(f"package-number-{i:05d}>=1.0 ; python_version >= '3.8'\n")
    f.write("last-line-of-the-input==1.0\n")

# the whole plan, for comparison
whole = subprocess.run([exe, "--no-index", "--venv", venv, big], capture_output=True, env=env).stdout
check("the plan is over 64 KiB", len(whole) > 65536, len(whole))
for sig in (signal.SIGTERM, signal.SIGINT):
    p = subprocess.Popen([exe, "--no-index", "--venv", venv, big], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=env)
    # wait until the pipe is full (the writer is then blocked in write), however slow
    # the machine: a fixed sleep sent the signal before the plan was built under load
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and p.poll() is None:
        queued = array.array("i", [0])
        fcntl.ioctl(p.stdout.fileno(), termios.FIONREAD, queued)
        if queued[0] >= 65536:
            break
        time.sleep(0.05)
    time.sleep(0.2)
    p.send_signal(sig)
    time.sleep(0.3)
    out = p.stdout.read()
    p.wait(timeout=30)
    check(f"{sig.name} during a blocked write: the reader gets the whole plan",
          out == whole and out.endswith(b"last-line-of-the-input==1.0\n") and b"torch==2.9.1+rocm" in out,
          f"got {len(out)} of {len(whole)} bytes, exit {p.returncode}")
    check(f"... and the signal still ends the run ({sig.name})", p.returncode == -sig,
          p.returncode)

demo = os.path.join(src, "demo", "requirements.txt")
with open("/dev/full", "w") as full:
    r = subprocess.run([exe, "check", "--no-index", "--format", "json", "--venv", venv, demo],
                       stdout=full, stderr=subprocess.PIPE, env=env, cwd=src)
check("check --format json > /dev/full: exit 3 with a message", r.returncode == 3 and b"stdout" in r.stderr,
      r)
with open("/dev/full", "w") as full:
    r = subprocess.run([exe, "--no-index", "--venv", venv, demo], stdout=full, stderr=subprocess.PIPE,
                       env=env, cwd=src)
check("plan > /dev/full: exit 3", r.returncode == 3, r)

proj = os.path.join(work, "project")
os.makedirs(proj)
with open(os.path.join(proj, "requirements.txt"), "w") as f:
    f.write("-c constraints.txt\nrequests\n")
with open(os.path.join(proj, "constraints.txt"), "w") as f:
    f.write("torch==2.4.0\nurllib3<3\n")
renv = dict(env, XDG_CACHE_HOME="relative-cache", XDG_DATA_HOME="relative-data",
            HOME=os.path.join(work, "home"))
r = subprocess.run([exe, "--no-index", "--venv", venv, "requirements.txt"], capture_output=True, env=renv,
                   cwd=proj)
check("a relative XDG_CACHE_HOME puts nothing into the project directory",
      r.returncode == 0 and sorted(os.listdir(proj)) == ["constraints.txt", "requirements.txt"] and
      os.path.join(work, "home", ".local", "share", "rocm-resolve", "constraints").encode() in r.stdout,
      f"{os.listdir(proj)}\n{r.stdout.decode()}{r.stderr.decode()}")
# the cache cleaned, the saved plan still names a file that exists
import re  # noqa: E402
import shutil  # noqa: E402
shutil.rmtree(os.path.join(work, "home", ".cache"), ignore_errors=True)
m = re.search(rb"^-c (\S+)$", r.stdout, re.M)
check("a saved plan's constraints file survives a cache clean",
      m is not None and os.path.isfile(m.group(1)), r.stdout.decode())
print(f"{n - len(fails)} passed, {len(fails)} failed")
sys.exit(1 if fails else 0)
