#!/usr/bin/env python3
"""Rough edges a new user met (issue 31 item 3), against the fixture index and real pip.
Each check fails on the code before the fix (main 418589c):
  - `--format pylock` alone is a lock (it implies --lock); a lock of one package says
    "1 package", not "1 packages" (fixed on main meanwhile, kept here);
  - `project --write` that changes nothing says the settings are up to date;
    `project --bridge` bridges and prints no settings block on stdout;
  - `install` says what the plan stripped and held back (the user sees no plan), and
    its two file counts (the snapshot's, verify's integrity) say why they differ.
The permission cases (another user, read-only files) are in permissions-test.py."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from clitest import build, check, clean_env, exe, fixture_index, rocm72, src, summary, write
from fakewheel import fake_rocm_venv


def run(args, env, cwd=None, timeout=300):
    return subprocess.run([exe] + args, capture_output=True, text=True, env=env, cwd=cwd,
                          stdin=subprocess.DEVNULL, timeout=timeout)


def test_pylock(tmp, env, url):
    req = os.path.join(tmp, "one.txt")
    write(req, "tqdm\n")
    base = ["--venv", rocm72, "--default-index", url + "/simple/"]
    # what --lock --format pylock does (a pylock.toml, or exit 3 where a kept distribution
    # names no file, as in this fixture), --format pylock alone does, never a usage error
    r = run(["--format", "pylock"] + base + [req], env)
    both = run(["--lock", "--format", "pylock"] + base + [req], env)
    check(r.returncode != 2 and (r.returncode, r.stdout, r.stderr)
          == (both.returncode, both.stdout, both.stderr),
          "--format pylock alone is --lock --format pylock", f"exit {r.returncode}\n{r.stderr}")
    r = run(["--lock"] + base + [req], env)
    check(r.returncode == 0 and re.search(r": 1 package to install[,;\n]", r.stdout),
          "the --lock header says '1 package'", r.stdout[:400] + r.stderr)
    r = run(["--format", "pylock", "--no-index", "--venv", rocm72, req], env)
    check(r.returncode == 2 and not r.stdout and "--no-index" in r.stderr,
          "--format pylock --no-index: exit 2, nothing on stdout", r.stderr)


def test_project(tmp, env, protected):
    proj = os.path.join(tmp, "proj")
    os.makedirs(proj)
    shutil.copy(os.path.join(src, "fixtures", "project-layouts", "absent.toml"),
                os.path.join(proj, "pyproject.toml"))
    args = ["project", "--no-index", "--venv", rocm72]
    r = run(args + ["--write"], env, cwd=proj)
    check(r.returncode == 0 and "wrote [tool.uv]" in r.stderr, "project --write writes",
          f"exit {r.returncode}\n{r.stderr}")
    before = open(os.path.join(proj, "pyproject.toml")).read()
    r = run(args + ["--write"], env, cwd=proj)
    check(r.returncode == 0 and "[tool.uv] settings of ./pyproject.toml are up to date" in r.stderr
          and open(os.path.join(proj, "pyproject.toml")).read() == before,
          "project --write again: 'up to date', the file unchanged", f"exit {r.returncode}\n{r.stderr}")
    r = run(args + ["--write", "-q"], env, cwd=proj)
    check(r.returncode == 0 and "up to date" not in r.stderr, "-q keeps 'up to date' quiet", r.stderr)

    if not protected:
        return
    r = subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", os.path.join(proj, ".venv")],
                       capture_output=True, text=True)
    check(r.returncode == 0, "a project venv made with the same Python", r.stderr)
    # the protected environment runs the Python the project venv was made with
    r = run(["project", "--no-index", "--venv", protected, "--bridge"], env, cwd=proj)
    check(r.returncode == 0 and re.search(r"rocm-resolve: bridged \S*\.venv to ", r.stderr),
          "project --bridge bridges the project venv", f"exit {r.returncode}\n{r.stderr}")
    check(r.stdout == "", "project --bridge prints no settings block on stdout", r.stdout[:600])


def test_install(tmp, env, url, venv):
    req = os.path.join(tmp, "install.txt")
    write(req, f"--index-url {url}/simple/\ntqdm\ntorch==2.4.0\nnvidia-nccl-cu12\ntorchaudio\n")
    e = dict(env, RR_SYSROOT=os.path.join(src, "fixtures", "gpu", "sysfs", "mi300"),
             LD_LIBRARY_PATH=os.path.join(build, "tests", "gpu", "hip6"),
             RR_FAKE_HIP_MODE="ok", RR_FAKE_TORCH="ok", XDG_STATE_HOME=os.path.join(tmp, "state"),
             PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_CACHE_DIR="1")
    # a dry run: the plan's changes said before the installer runs, nothing installed
    r = run(["install", "--installer", "pip", "--venv", venv, req, "--", "--dry-run"], e)
    err = r.stderr
    check(r.returncode == 0, "install -- --dry-run exits 0", f"exit {r.returncode}\n{err}")
    check("install.txt:4: stripped 'nvidia-nccl-cu12': CUDA-only" in err,
          "install says what the plan strips (without -v)", err)
    check("install.txt:5: 'torchaudio' held back (torchaudio==2.9.1): torchaudio 2.10.0 requires "
          "torch==2.10.0" in err, "install says what the plan holds back (without -v)", err)
    r = run(["install", "-q", "--installer", "pip", "--venv", venv, req, "--", "--dry-run"], e)
    check("stripped" not in r.stderr and "held back" not in r.stderr, "-q keeps them quiet",
          r.stderr)

    # the two counts of one stack: the snapshot keeps every file RECORD lists, integrity
    # checks the hashed ones and says how many more there are
    write(req, f"--index-url {url}/simple/\ntqdm\n")
    r = run(["install", "--installer", "pip", "--venv", venv, req], e)
    snap = re.search(r"matches the snapshot \((\d+) files of (\d+) distributions: what their "
                     r"RECORD lists but compiled \.pyc, hashed or not\)", r.stderr)
    integ = re.search(r"integrity: PASS (\d+) files of (\d+) protected distributions match their "
                      r"RECORD; no module clashes; not checked: (\d+) more files? listed without a "
                      r"hash \((\d+) of them compiled \.pyc", r.stdout)
    check(r.returncode == 0 and snap and integ, "install names both counts and what each counts",
          f"exit {r.returncode}\n{r.stdout}{r.stderr}")
    if snap and integ:
        check(int(snap.group(1)) == int(integ.group(1)) + int(integ.group(3)) - int(integ.group(4))
              and snap.group(2) == integ.group(2),
              "the snapshot's count is integrity's checked files plus those without a hash "
              "but .pyc",
              f"{snap.group(0)}\n{integ.group(0)}")


def main():
    tmp = tempfile.mkdtemp(prefix="rr-rough-edges-")
    env = clean_env()
    env.update(XDG_CACHE_HOME=os.path.join(tmp, "cache"), XDG_DATA_HOME=os.path.join(tmp, "data"),
               HOME=os.path.join(tmp, "home"))
    try:
        with fixture_index() as url:
            test_pylock(tmp, env, url)
            made = fake_rocm_venv(tmp, src)
            if isinstance(made, str):
                print("skip project --bridge and install: " + made)
                made = None
            else:
                check(not made[2], "fake ROCm torch and triton installed into a real venv", made[2])
            test_project(tmp, env, made[0] if made else None)
            if made:
                test_install(tmp, env, url, made[0])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
