#!/usr/bin/env python3
"""Issue 18 item 1: the installer's own index configuration, with real pip and real uv.

A company mirror set in pip.conf or uv.toml (here: the fixture index on
127.0.0.1, under /private/simple for the project only the mirror has) is what
rocm-resolve resolves against, the plan does not override it with a default
nobody chose, and the real installer given the plan and the same configuration
installs from the mirror. Every case runs in its own HOME, sysroot (/etc) and
project directory: the machine's own configuration is never read. https_proxy
points at a closed port, so a run that tried PyPI fails instead of reaching it.

Checked against the previous binary: it wrote --index-url https://pypi.org/simple
into every plan and did not read pip.conf or uv.toml (the mirror-only project was
"no index has the project", the rest went to PyPI)."""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2elib as E  # noqa: E402

failures = []


def check(ok, what, detail=""):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)
        if detail:
            print("     " + str(detail).strip().replace("\n", "\n     ")[:3000])


def main():
    uv = E.find_uv()
    if not uv:
        E.skip("no uv")
    work = tempfile.mkdtemp(prefix="rr-e2e-config-")
    try:
        v72 = E.build_venv(os.path.join(work, "v72"), "rocm72")
        with E.Index() as idx:
            run_cases(work, v72, uv, idx.url)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{len(failures)} failed")
    return 1 if failures else 0


def tree(work, name, files):
    """a fresh HOME/sysroot/project tree; files: {relative path: text}"""
    root = os.path.join(work, name)
    for d in ("home", "sys/etc", "proj"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    for rel, text in files.items():
        p = os.path.join(root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as fh:
            fh.write(text)
    return root


def env_for(root, **extra):
    return E.clean_env(HOME=os.path.join(root, "home"), XDG_CONFIG_HOME=os.path.join(root, "home/.config"),
                       XDG_CONFIG_DIRS=os.path.join(root, "sys/etc/xdg"),
                       RR_SYSROOT=os.path.join(root, "sys"), XDG_CACHE_HOME=os.path.join(root, "cache"),
                       XDG_DATA_HOME=os.path.join(root, "data"), https_proxy="http://127.0.0.1:9",
                       UV_CACHE_DIR=os.path.join(root, "uv-cache"),
                       PIP_CACHE_DIR=os.path.join(root, "pip-cache"), **extra)


def rr(root, args, env=None):
    return E.subprocess.run([E.EXE] + args, capture_output=True, text=True, cwd=os.path.join(root, "proj"),
                            env=env or env_for(root), timeout=120)


def pip_install(root, venv, planf, env=None):
    """real pip, given only the plan, with the same configuration: {name: (version, url)}"""
    report = os.path.join(root, "report.json")
    r = E.subprocess.run([os.path.join(venv, "bin", "python"), "-m", "pip", "install", "--dry-run",
                          "--report", report, "-r", planf], capture_output=True, text=True,
                         cwd=os.path.join(root, "proj"), env=env or env_for(root), timeout=180)
    got = {}
    if r.returncode == 0:
        for item in json.load(open(report))["install"]:
            got[E.norm(item["metadata"]["name"])] = (item["metadata"]["version"],
                                                     item["download_info"]["url"])
    return r, got


def uv_install(root, venv, uv, planf, env=None):
    r = E.subprocess.run([uv, "pip", "install", "--dry-run", "-v", "--python", os.path.join(venv, "bin", "python"),
                          "-r", planf], capture_output=True, text=True, cwd=os.path.join(root, "proj"),
                         env=env or env_for(root), timeout=180)
    return r


def write_plan(root, text):
    p = os.path.join(root, "plan.txt")
    with open(p, "w") as fh:
        fh.write(text)
    return p


def run_cases(work, v72, uv, url):
    simple, private = f"{url}/simple", f"{url}/private/simple"
    req = "rr-private-only\n"
    venv = ["--venv", v72]

    # ---- pip.conf (user): the mirror is resolved against, not overridden
    root = tree(work, "pip-user", {
        "home/.config/pip/pip.conf": f"[global]\nindex-url = {private}\nextra-index-url = {simple}\n",
        "proj/requirements.txt": req})
    r = rr(root, ["--installer", "pip"] + venv + ["requirements.txt"])
    conf = os.path.join(root, "home/.config/pip/pip.conf")
    check(r.returncode == 0 and "rr-private-only" in r.stdout, "pip.conf: a project only the mirror has "
          "resolves", r.stdout + r.stderr)
    check("index-url" not in "\n".join(l for l in r.stdout.splitlines() if not l.startswith("#")),
          "pip.conf: the plan names no index option (pip reads its configuration itself)", r.stdout)
    check(f"# resolved for pip against: {simple} ({conf}:3), {private} (default, {conf}:2)" in r.stdout,
          "pip.conf: the header names both indexes and the file:line they come from", r.stdout)
    planf = write_plan(root, r.stdout)
    p, got = pip_install(root, v72, planf)
    check(p.returncode == 0 and got.get("rr-private-only", ("", ""))[1].startswith(f"{url}/private/"),
          "real pip, given the plan and the same pip.conf, installs from the mirror", p.stdout + p.stderr)

    # ---- /etc/pip.conf under the sysroot, PIP_CONFIG_FILE beating it, [install] over [global]
    root = tree(work, "pip-etc", {
        "sys/etc/pip.conf": f"[global]\nindex-url = http://127.0.0.1:9/nothing\n[install]\nindex-url = {simple}\n",
        "proj/requirements.txt": "requests\n"})
    r = rr(root, ["--installer", "pip"] + venv + ["requirements.txt"])
    check(r.returncode == 0 and f"{simple} (default, {os.path.join(root, 'sys/etc/pip.conf')}:4)" in r.stdout,
          "/etc/pip.conf: [install] beats [global]", r.stdout + r.stderr)
    envf = os.path.join(root, "env.conf")
    with open(envf, "w") as fh:
        fh.write(f"[global]\nindex-url = {private}\nextra-index-url = {private}\n")
    r = rr(root, ["--installer", "pip"] + venv + ["requirements.txt"], env_for(root, PIP_CONFIG_FILE=envf))
    check(r.returncode == 0 and f"{simple} (default, {os.path.join(root, 'sys/etc/pip.conf')}:4)" in r.stdout,
          "a file's [install] beats PIP_CONFIG_FILE's [global], as pip ranks sections above files",
          r.stdout + r.stderr)

    # ---- a plan that names a default replaces pip's configured indexes, as pip does
    root = tree(work, "pip-replace", {
        "home/.config/pip/pip.conf": f"[global]\nextra-index-url = {private}\n",
        "proj/requirements.txt": req})
    r = rr(root, ["--installer", "pip", "-i", simple] + venv + ["requirements.txt"])
    check(r.returncode == 3 and "no index has the project" in r.stderr,
          "pip: --index-url drops the configured extra index, so the mirror-only project is not found",
          r.stdout + r.stderr)
    planf = write_plan(root, f"--index-url {simple}\n{req}")
    p, got = pip_install(root, v72, planf)
    check(p.returncode != 0 and "rr-private-only" in p.stderr,
          "real pip agrees: a requirements file's --index-url drops pip.conf's extra index", p.stdout + p.stderr)
    # and the plan writes --index-url before any --extra-index-url (pip drops the lines before it)
    r = rr(root, ["--installer", "pip", "-i", simple, "--index", private] + venv + ["requirements.txt"])
    lines = [l for l in r.stdout.splitlines() if "index-url" in l and not l.startswith("#")]
    check(r.returncode == 0 and lines == [f"--index-url {simple}", f"--extra-index-url {private}"],
          "the plan's --index-url comes first", r.stdout + r.stderr)
    p, got = pip_install(root, v72, write_plan(root, r.stdout))
    check(p.returncode == 0 and "rr-private-only" in got, "real pip finds the extra index of that plan",
          p.stdout + p.stderr)

    # ---- uv.toml in the project: the index uv asks first, uv given the plan agrees
    root = tree(work, "uv-project", {
        "proj/uv.toml": f'[[index]]\nurl = "{private}"\n[[index]]\nurl = "{simple}"\ndefault = true\n',
        "home/.config/uv/uv.toml": 'index-url = "http://127.0.0.1:9/user-index"\n',
        "proj/requirements.txt": req + "requests\n"})
    r = rr(root, ["--installer", "uv"] + venv + ["requirements.txt"])
    uvtoml = os.path.join(root, "proj/uv.toml")
    check(r.returncode == 0 and f"# resolved for uv against: {private} ({uvtoml}:2), {simple} (default, "
          f"{uvtoml}:4)" in r.stdout, "uv.toml: the project's [[index]] entries, the default one last; "
          "the user's index-url loses to them", r.stdout + r.stderr)
    check("index-url" not in "\n".join(l for l in r.stdout.splitlines() if not l.startswith("#")),
          "uv.toml: the plan names no index option", r.stdout)
    u = uv_install(root, v72, uv, write_plan(root, r.stdout))
    check(u.returncode == 0 and "rr-private-only==1.0.0" in u.stdout + u.stderr and "Would install" in u.stdout + u.stderr,
          "real uv, given the plan in the same project, installs the mirror's project", u.stdout[-2000:] + u.stderr[-2000:])

    # ---- pyproject [tool.uv] and UV_INDEX: uv's order, env first
    root = tree(work, "uv-env", {
        "proj/pyproject.toml": f'[project]\nname = "p"\nversion = "1"\n[tool.uv]\nindex-url = "{simple}"\n',
        "proj/requirements.txt": req})
    r = rr(root, ["--installer", "uv"] + venv + ["requirements.txt"], env_for(root, UV_INDEX=f"mirror={private}"))
    check(r.returncode == 0 and f"{private} (UV_INDEX), {simple} (default, {os.path.join(root, 'proj/pyproject.toml')}:5)"
          in r.stdout, "UV_INDEX first, [tool.uv] index-url the default", r.stdout + r.stderr)
    r = rr(root, ["--installer", "uv"] + venv + ["requirements.txt"],
           env_for(root, UV_INDEX=f"mirror={private}", UV_NO_CONFIG="1", UV_DEFAULT_INDEX=simple))
    check(r.returncode == 0 and f"{simple} (default, UV_DEFAULT_INDEX)" in r.stdout and "pyproject" not in r.stdout,
          "UV_NO_CONFIG: no file read", r.stdout + r.stderr)

    # ---- uv ranks its configuration above the plan's --index-url, and says so
    root = tree(work, "uv-over-plan", {
        "proj/uv.toml": f'index-url = "{simple}"\n',
        "proj/requirements.txt": "requests\n"})
    r = rr(root, ["--installer", "uv", "-i", "http://127.0.0.1:9/never"] + venv + ["requirements.txt"])
    check(r.returncode == 0 and "which uv prefers to the plan's --index-url" in r.stderr and
          f"{simple} (default" in r.stdout, "uv: a configured default beats the plan's --index-url, with a "
          "warning", r.stdout + r.stderr)

    # ---- the other installer's configuration: a warning when the installer was guessed
    root = tree(work, "cross", {"home/.config/pip/pip.conf": f"[global]\nindex-url = {private}\n",
                                "proj/requirements.txt": "requests\n"})
    path = os.path.dirname(uv) + ":" + os.environ.get("PATH", "/usr/bin:/bin")
    r = rr(root, venv + ["--index-url", simple, "requirements.txt"], env_for(root, PATH=path))
    check(r.returncode == 0 and "sets pip's default index to" in r.stderr and "--installer pip" in r.stderr,
          "uv on PATH, a pip.conf mirror: the plan says it is for uv and how to plan for pip",
          r.stdout + r.stderr)

    # ---- --no-index: no index option at all, none invented
    r = rr(root, ["--no-index"] + venv + ["requirements.txt"])
    check(r.returncode == 0 and "--index-url" not in r.stdout and "pypi.org" not in r.stdout,
          "--no-index: the plan names no index", r.stdout)

    # ---- offline and find-links from the configuration
    root = tree(work, "uv-offline", {"proj/uv.toml": f'offline = true\nindex-url = "{simple}"\n',
                                     "proj/requirements.txt": "requests\n"})
    r = rr(root, ["--installer", "uv"] + venv + ["requirements.txt"])
    check(r.returncode == 3 and "offline and not cached" in r.stderr,
          "uv.toml offline = true: the cache only", r.stdout + r.stderr)
    wheels = os.path.join(work, "wheels")
    os.makedirs(wheels, exist_ok=True)
    E.make_wheel(wheels, "rr-local-only", "0.3")
    root = tree(work, "pip-find-links", {"home/.config/pip/pip.conf": f"[global]\nindex-url = {simple}\nfind-links = {wheels}\n",
                                         "proj/requirements.txt": "rr-local-only\n"})
    r = rr(root, ["--installer", "pip"] + venv + ["requirements.txt"])
    check(r.returncode == 0 and "rr-local-only" in r.stdout, "pip.conf find-links is searched",
          r.stdout + r.stderr)


if __name__ == "__main__":
    sys.exit(main())
