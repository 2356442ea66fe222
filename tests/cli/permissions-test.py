#!/usr/bin/env python3
"""Permissions as users meet them (issue 31 item 3): rocm-resolve run by a user whom the
files deny. As root (CI) the commands run as nobody over root-owned files, as a
`docker run --user` or a devcontainer's remoteUser meets them; as any other user over
the user's own files with the permission bits taken away. Skipped (77) where neither
denies anything (a user with CAP_DAC_OVERRIDE, or nobody cannot run the build).
Each check fails on the code before the fix (main 418589c):
  - HOME=/ and a constraints file that needs filtering: the data directory is named
    without a doubled slash, with what to set (XDG_DATA_HOME), exit 3; with
    XDG_DATA_HOME set the plan is written;
  - `project --write` in a directory the user may not write: exit 3 (environment), not 2;
  - `restore` on a venv the user may not write says nothing was restored and why, not
    "nothing was installed";
  - a site-packages the user may not read (mode 700, another owner) is an error naming
    it (exit 3), not an environment with nothing to protect."""
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile

from clitest import check, clean_env, exe, rocm72, src, summary, write

SITE_REL = os.path.join("lib", "python3.12", "site-packages")


def other_user():
    """subprocess arguments that run a command as a user the test's files deny, or None"""
    if os.geteuid() != 0:
        return {}
    try:
        pw = pwd.getpwnam("nobody")
        ids = {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}
    except KeyError:
        ids = {"user": 65534, "group": 65534, "extra_groups": []}
    r = subprocess.run([exe, "--version"], capture_output=True, **ids)
    return ids if r.returncode == 0 else None


def deny(path, mode, as_root):
    """path as mode shows it to others: root-owned with that mode when the test is root
    (the other user is nobody), else the owner's own bits made the same as others'"""
    other = mode & 0o7
    os.chmod(path, mode if as_root else other << 6 | other << 3 | other)


def main():
    ids = other_user()
    if ids is None:
        print("SKIP: running as root, but nobody cannot run the build")
        return 77
    as_root = os.geteuid() == 0
    tmp = tempfile.mkdtemp(prefix="rr-permissions-")
    os.chmod(tmp, 0o755)
    probe = os.path.join(tmp, "probe")
    os.mkdir(probe, 0o700)
    deny(probe, 0o700, as_root)
    denied = subprocess.run(["ls", probe], capture_output=True, **ids).returncode != 0
    os.chmod(probe, 0o700)
    if not denied:
        shutil.rmtree(tmp, ignore_errors=True)
        print("SKIP: the permission bits deny this user nothing (CAP_DAC_OVERRIDE?)")
        return 77
    writable = os.path.join(tmp, "writable")
    os.mkdir(writable)
    os.chmod(writable, 0o777)
    env = clean_env(also=("XDG_",))
    env.update(HOME=writable, XDG_CACHE_HOME=os.path.join(writable, "cache"))
    venvs = []

    def run(args, extra=None, cwd=None):
        e = dict(env, **(extra or {}))
        return subprocess.run([exe] + args, capture_output=True, text=True, env=e, cwd=cwd or tmp,
                              stdin=subprocess.DEVNULL, timeout=120, **ids)

    def venv_copy(name):
        v = os.path.join(tmp, name)
        shutil.copytree(rocm72, v, symlinks=True)
        venvs.append(v)
        return v

    try:
        # HOME=/ (docker run --user): a constraints file that needs filtering
        req = os.path.join(tmp, "req.txt")
        cons = os.path.join(tmp, "cons.txt")
        write(req, "numpy\n")
        write(cons, "numpy<3\ntorch==2.4.0\n")
        args = ["--no-index", "--venv", rocm72, "-c", cons, req]
        r = run(args, {"HOME": "/"})
        check(r.returncode == 3, "HOME=/: exit 3", f"exit {r.returncode}\n{r.stderr}")
        check("cannot create '/.local/share/rocm-resolve/constraints'" in r.stderr
              and "//" not in r.stderr, "HOME=/: the data directory named without '//'", r.stderr)
        check("set XDG_DATA_HOME to a directory you may write" in r.stderr,
              "HOME=/: the error says what to set", r.stderr)
        r = run(args, {"HOME": "/", "XDG_DATA_HOME": os.path.join(writable, "data")})
        check(r.returncode == 0 and f"-c {writable}/data/rocm-resolve/constraints/" in r.stdout,
              "HOME=/ with XDG_DATA_HOME: the plan names the filtered copy there",
              f"exit {r.returncode}\n{r.stdout}{r.stderr}")

        # project --write in a directory the user may not write
        proj = os.path.join(tmp, "proj")
        os.mkdir(proj)
        shutil.copy(os.path.join(src, "fixtures", "project-layouts", "absent.toml"),
                    os.path.join(proj, "pyproject.toml"))
        os.chmod(os.path.join(proj, "pyproject.toml"), 0o644)
        deny(proj, 0o555, as_root)
        before = open(os.path.join(proj, "pyproject.toml")).read()
        r = run(["project", "--write", "--no-index", "--venv", rocm72], cwd=proj)
        check(r.returncode == 3 and "Permission denied" in r.stderr,
              "project --write in a read-only directory: exit 3 (environment)",
              f"exit {r.returncode}\n{r.stderr}")
        check(open(os.path.join(proj, "pyproject.toml")).read() == before,
              "project --write in a read-only directory: the file unchanged")
        os.chmod(proj, 0o755)

        # restore on a venv the user may not write
        v = venv_copy("ro-venv")
        deny(os.path.join(v, SITE_REL), 0o755, as_root)
        r = run(["restore", "--venv", v], {"XDG_STATE_HOME": os.path.join(writable, "state")})
        check(r.returncode == 3 and "nothing was restored" in r.stderr
              and "Run restore as a user who can write the venv" in r.stderr
              and "nothing was installed" not in r.stderr and os.path.join(v, SITE_REL) in r.stderr,
              "restore on a venv the user may not write: exit 3, naming it, nothing restored",
              f"exit {r.returncode}\n{r.stderr}")

        # a site-packages the user may not read
        v = venv_copy("unreadable-venv")
        site = os.path.join(v, SITE_REL)
        deny(site, 0o700, as_root)
        for cmd in (["inspect"], ["check", "--no-index", req], ["plan", "--no-index", req]):
            r = run(cmd + ["--venv", v])
            check(r.returncode == 3 and f"cannot read the site directory '{site}'" in r.stderr
                  and "nothing to protect" not in r.stderr and "protected:" not in r.stdout,
                  f"{cmd[0]} with an unreadable site-packages: exit 3 naming it",
                  f"exit {r.returncode}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}")
    finally:
        for v in venvs:
            for root, dirs, _ in os.walk(v):
                for d in dirs:
                    p = os.path.join(root, d)
                    if not os.path.islink(p):
                        os.chmod(p, os.stat(p).st_mode | stat.S_IRWXU)
            os.chmod(os.path.join(v, SITE_REL), 0o755)
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
