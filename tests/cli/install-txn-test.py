#!/usr/bin/env python3
"""`rocm-resolve install` as a transaction, against fake installers (issue 9 item 4, issue 10
items 3 and 5).

Each case copies fixtures/venvs/rocm72 into a temp dir (the committed fixture is never
touched) and puts a fake `uv` first on PATH (or a fake `python` in the venv for pip). The fake
does to triton what a CUDA triton from PyPI does: rewrites its files, removes some, or replaces
the whole distribution with its own dist-info; one exits 2 after the damage, one rewrites a
file in place through the inode (which also changes the snapshot's hard link: install must
say it could not restore it, never claim success). Afterwards every RECORD hash of every
protected distribution must match again, the intruder must be gone, and what the installer
added besides (an unrelated package) must stay. Also: the installer's argv reaches stderr
redacted; SIGTERM/SIGINT to rocm-resolve are forwarded to the installer, which is reaped,
and the plan file is removed; no GPU is a warning (exit 0) unless --require-gpu; `restore`
repairs later from the last snapshot."""
import base64
import csv
import glob
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

src = os.environ["RR_SRCDIR"]
build = os.environ["RR_BUILDDIR"]
exe = os.path.join(build, "src", "cli", "rocm-resolve")
FIXTURE = os.path.join(src, "fixtures", "venvs", "rocm72")
SITE_REL = os.path.join("lib", "python3.12", "site-packages")
PROTECTED = ["apex", "torch", "torchaudio", "torchvision", "triton"]
checks = {"passed": 0, "failed": 0}

FAKE = r'''#!/usr/bin/python3
# a fake installer; what it does is chosen by $FAKE_MODE
import json, os, sys, time
if os.path.basename(sys.argv[0]) == "python" and sys.argv[1:3] != ["-m", "pip"]:
    # the venv's python, asked for something else (verify's torch probe): a torch without GPU
    os.environ.update(PYTHONDONTWRITEBYTECODE="1", RR_FAKE_TORCH="nogpu",
                      PYTHONPATH=os.path.join(os.environ["RR_SRCDIR"], "fixtures/gpu/venvs/_lib"))
    os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv[1:])
site = os.environ["FAKE_SITE"]
mode = os.environ.get("FAKE_MODE", "clobber")
argv = sys.argv[1:]
with open(os.environ["FAKE_LOG"], "w") as f:
    json.dump({"argv": argv, "pid": os.getpid(),
               "plan": argv[argv.index("-r") + 1] if "-r" in argv else None}, f)

def write(rel, data):
    p = os.path.join(site, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    if os.path.exists(p):
        os.unlink(p)          # as pip and uv do: a new file, never the old inode
    with open(p, "wb") as f:
        f.write(data)

def add_dist(name, version, files):
    di = f"{name}-{version}.dist-info"
    files = dict(files)
    files[f"{di}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode()
    files[f"{di}/INSTALLER"] = b"uv\n"
    for rel, data in files.items():
        write(rel, data)
    rec = "".join(f"{rel},,\n" for rel in files) + f"{di}/RECORD,,\n"
    write(f"{di}/RECORD", rec.encode())

# something the user asked for: it must stay
add_dist("requests", "2.32.0", {"requests/__init__.py": b"# requests\n"})
if mode in ("clobber", "clobber-fail"):
    write("triton/__init__.py", b"# CUDA triton from PyPI\n")
    os.unlink(os.path.join(site, "triton/_C/libtriton.so"))
elif mode in ("replace", "torch"):
    # PyPI's build replacing the ROCm one (triton 3.5.1; torch 2.10.0, as a plain
    # `pip install torch` outside rocm-resolve does): the old dist-info and its files go first
    import glob, shutil
    name = "triton-3.5.1" if mode == "replace" else "torch-2.9.1"
    old = glob.glob(os.path.join(site, name + "+rocm*.dist-info"))[0]
    for line in open(os.path.join(old, "RECORD")):
        p = os.path.join(site, line.split(",")[0])
        if os.path.isfile(p):
            os.unlink(p)
    shutil.rmtree(old)
    if mode == "replace":
        add_dist("triton", "3.5.1", {"triton/__init__.py": b"# CUDA triton\n",
                                     "triton/_C/libtriton.so": b"\x7fELF CUDA\n",
                                     "triton/backends/nvidia/driver.py": b"# nvidia\n"})
    else:
        add_dist("torch", "2.10.0", {"torch/__init__.py": b"# CUDA torch\n",
                                     "torch/version.py": b"__version__ = '2.10.0'\ncuda = '12.8'\nhip = None\n"})
elif mode == "intruder":
    # another distribution shipping the protected triton/ module, next to the ROCm one
    add_dist("pytorch-triton", "3.5.0", {"triton/__init__.py": b"# pytorch-triton\n",
                                         "triton/extra/cuda.py": b"# cuda\n"})
elif mode == "inplace":
    # through the existing inode: a small file (kept as a copy) and a big one (a hard link)
    for rel in ("triton/__init__.py", "triton/_C/libtriton.so"):
        with open(os.path.join(site, rel), "r+b") as f:
            f.truncate(0)
            f.write(b"# rewritten in place\n")
elif mode == "slow":
    time.sleep(120)
sys.exit(int(os.environ.get("FAKE_RC", "2" if mode == "clobber-fail" else "0")))
'''


def check(cond, what, detail=""):
    checks["passed" if cond else "failed"] += 1
    print(("ok   " if cond else "FAIL ") + what)
    if not cond and detail:
        print("     " + str(detail).replace("\n", "\n     "))


def b64(data):
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def record_problems(venv):
    """every RECORD entry with a sha256 of every protected dist must match the file"""
    site = os.path.join(venv, SITE_REL)
    probs = []
    for name in PROTECTED:
        dis = [d for d in os.listdir(site) if d.startswith(name + "-") and d.endswith(".dist-info")
               and "+rocm" in d]
        if len(dis) != 1:
            probs.append(f"{name}: dist-info {dis}")
            continue
        for row in csv.reader(open(os.path.join(site, dis[0], "RECORD"))):
            if len(row) < 2 or not row[1].startswith("sha256="):
                continue
            p = os.path.join(site, row[0])
            try:
                got = b64(open(p, "rb").read())
            except OSError as e:
                probs.append(f"{row[0]}: {e}")
                continue
            if got != row[1][7:]:
                probs.append(f"{row[0]}: hash differs")
    return probs


def tree(venv):
    site = os.path.join(venv, SITE_REL)
    out = {}
    for d, dirs, files in os.walk(site):
        dirs[:] = [x for x in dirs if x != "__pycache__"]
        for f in files:
            p = os.path.join(d, f)
            out[os.path.relpath(p, site)] = open(p, "rb").read()
    return out


class Case:
    def __init__(self, tmp, name, big=False):
        self.dir = os.path.join(tmp, name)
        os.makedirs(self.dir)
        self.venv = os.path.join(self.dir, "venv")
        shutil.copytree(FIXTURE, self.venv, symlinks=True)
        self.bin = os.path.join(self.dir, "bin")
        os.makedirs(self.bin)
        for target in (os.path.join(self.bin, "uv"), os.path.join(self.venv, "bin", "python")):
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w") as f:
                f.write(FAKE)
            os.chmod(target, 0o755)
        self.req = os.path.join(self.dir, "requirements.txt")
        with open(self.req, "w") as f:
            f.write("requests\nnvidia-cublas-cu12\n")
        if big:
            # a protected library over the copy threshold (1 MiB): kept as a hard link
            site = os.path.join(self.venv, SITE_REL)
            data = b"\x7fELF ROCm triton\n" * 131072
            with open(os.path.join(site, "triton/_C/libtriton.so"), "wb") as f:
                f.write(data)
            rec = [d for d in os.listdir(site) if d.startswith("triton-")][0] + "/RECORD"
            lines = open(os.path.join(site, rec)).read().splitlines()
            lines = [f"triton/_C/libtriton.so,sha256={b64(data)},{len(data)}"
                     if l.startswith("triton/_C/libtriton.so,") else l for l in lines]
            with open(os.path.join(site, rec), "w") as f:
                f.write("\n".join(lines) + "\n")
        self.log = os.path.join(self.dir, "fake.json")
        self.cache = os.path.join(self.dir, "cache")
        self.state = os.path.join(self.dir, "state")
        self.before = tree(self.venv)

    def env(self, mode, **extra):
        os.environ.setdefault("RR_SRCDIR", src)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("UV_", "PIP_", "VIRTUAL_ENV"))}
        env.update({"PATH": self.bin + ":" + env.get("PATH", "/usr/bin:/bin"),
                    "FAKE_MODE": mode, "FAKE_SITE": os.path.join(self.venv, SITE_REL),
                    "FAKE_LOG": self.log, "XDG_CACHE_HOME": self.cache,
                    "XDG_STATE_HOME": self.state,
                    "RR_SYSROOT": os.path.join(self.dir, "no-gpu"), "NO_COLOR": "1"})
        env.update(extra)
        return env

    def install(self, mode, args=(), passthrough=(), **extra):
        cmd = [exe, "install", "--no-index", "--venv", self.venv] + list(args) + [self.req]
        if passthrough:
            cmd += ["--"] + list(passthrough)
        return subprocess.run(cmd, capture_output=True, text=True, env=self.env(mode, **extra),
                              timeout=120)

    def fake(self):
        return json.load(open(self.log))

    def start_slow(self, errname):
        """install with the slow fake installer in the background, once that has started;
        output to a file, not a pipe: an orphaned installer would hold a pipe open"""
        with open(os.path.join(self.dir, errname), "w") as ef:
            p = subprocess.Popen([exe, "install", "--no-index", "--venv", self.venv, self.req],
                                 stdout=subprocess.DEVNULL, stderr=ef, env=self.env("slow"))
        deadline = time.monotonic() + 60
        while not os.path.exists(self.log) and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.05)
        time.sleep(0.3)  # let the fake write its log completely
        return p


def show(r):
    return f"exit {r.returncode}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}"


def main():
    tmp = tempfile.mkdtemp(prefix="rr-install-txn-")
    try:
        # 1. uv overwrites triton's files (and removes one), exits 0
        c = Case(tmp, "clobber")
        r = c.install("clobber")
        check(r.returncode == 0, "clobber: install exits 0 after putting triton back (no GPU: a warning)", show(r))
        check(not record_problems(c.venv), "clobber: every RECORD hash of the protected dists matches",
              record_problems(c.venv))
        after = tree(c.venv)
        check(all(after.get(k) == v for k, v in c.before.items()),
              "clobber: every file of the venv is byte for byte what it was")
        check("requests/__init__.py" in after, "clobber: what the installer added besides stays")
        check("restored from the snapshot:" in r.stderr and "triton/_C/libtriton.so" in r.stderr
              and "triton/__init__.py" in r.stderr and "matches the snapshot again" in r.stderr,
              "clobber: install names what it restored", r.stderr)
        check("artifactory" not in r.stderr + r.stdout and "--force-reinstall" not in r.stderr,
              "no reinstall commands for wheels that cannot be downloaded again", r.stderr)
        check("warning: verify could not check kernel, torch (no usable GPU" in r.stderr,
              "no GPU: a warning naming what verify could not check", r.stderr)
        check("\\x0a" not in r.stderr and r.stdout.count("kernel:") == 1 and "kernel:" not in r.stderr,
              "no GPU: the report once, on stdout; no escaped newline on stderr", show(r))
        check("integrity: PASS" in r.stdout, "verify after the repair: integrity passes", r.stdout)

        # 2. the same damage, and the installer fails (exit 2): still checked and repaired
        c = Case(tmp, "clobber-fail")
        r = c.install("clobber-fail")
        check(r.returncode == 3 and "the installer failed (status 2)" in r.stderr,
              "failing installer: install exits 3 and says so", show(r))
        check(not record_problems(c.venv) and "restored from the snapshot:" in r.stderr,
              "failing installer: the damage it left is repaired all the same", show(r))
        kept = c.fake()["plan"]
        check(os.path.exists(kept) and kept in r.stderr, "failing installer: the plan it was given is kept", kept)
        if kept and os.path.exists(kept):
            os.unlink(kept)

        # 3. PyPI triton replaces the ROCm build (dist-info and files)
        c = Case(tmp, "replace")
        r = c.install("replace")
        site = os.path.join(c.venv, SITE_REL)
        check(r.returncode == 0, "replace: install exits 0", show(r))
        check(not record_problems(c.venv), "replace: every RECORD hash matches", record_problems(c.venv))
        check(not os.path.exists(os.path.join(site, "triton-3.5.1.dist-info"))
              and not os.path.exists(os.path.join(site, "triton", "backends", "nvidia")),
              "replace: the PyPI triton's dist-info and its own files are removed", sorted(os.listdir(site)))
        check("removed:" in r.stderr and "triton 3.5.1: triton-3.5.1.dist-info and 1 other file\n" in r.stderr,
              "replace: install reports what it removed", r.stderr)
        check(tree(c.venv).keys() - {"requests/__init__.py"} - {k for k in tree(c.venv) if k.startswith("requests-")}
              == c.before.keys(), "replace: no file is left over or missing")

        # 4. a distribution that ships the protected triton/ module arrives next to it
        c = Case(tmp, "intruder")
        r = c.install("intruder")
        site = os.path.join(c.venv, SITE_REL)
        check(r.returncode == 0 and not record_problems(c.venv), "intruder: repaired, exit 0", show(r))
        check(not any(d.startswith("pytorch_triton") or d.startswith("pytorch-triton") for d in os.listdir(site))
              and not os.path.exists(os.path.join(site, "triton", "extra")),
              "intruder: pytorch-triton and its files are removed", sorted(os.listdir(site)))
        check("ships module 'triton' of protected triton" in r.stderr, "intruder: named with the module", r.stderr)

        # 5. rewritten in place: a small file comes back from its copy; the big one's hard
        #    link changed with it, so install must say so and never claim success
        c = Case(tmp, "inplace", big=True)
        r = c.install("inplace")
        lost = r.stderr[r.stderr.find("could not restore:"):]
        check(r.returncode == 1 and "could not restore:" in r.stderr and "triton/_C/libtriton.so" in lost
              and "still differs" in r.stderr, "in place: install exits 1 and names the big file it could not restore",
              show(r))
        site = os.path.join(c.venv, SITE_REL)
        check(open(os.path.join(site, "triton/__init__.py"), "rb").read() == c.before["triton/__init__.py"],
              "in place: the small file is put back from its copy", show(r))

        # 5b. damage older than the install (a file edited in place by hand): the quick check
        #     sees an untouched inode, verify's integrity fails, the full pass repairs it
        c = Case(tmp, "older-damage")
        r = c.install("none")
        check(r.returncode == 0, "older damage: a first install exits 0", show(r))
        site = os.path.join(c.venv, SITE_REL)
        with open(os.path.join(site, "triton", "runtime", "jit.py"), "w") as f:
            f.write("# edited in place\n")
        r = c.install("none")
        check(r.returncode == 0 and not record_problems(c.venv) and "before this install" in r.stderr
              and "triton/runtime/jit.py" in r.stderr,
              "older damage: install repairs a file edited in place before it ran", show(r))

        # 5c. the store on another filesystem (/dev/shm): link() fails with EXDEV, so the big
        #     library is copied into the store, and put back from that copy
        shm = "/dev/shm"
        if os.path.isdir(shm) and os.access(shm, os.W_OK) and os.stat(shm).st_dev != os.stat(tmp).st_dev:
            c = Case(tmp, "cross-fs", big=True)
            c.state = tempfile.mkdtemp(prefix="rr-install-txn-state-", dir=shm)
            try:
                r = c.install("clobber", ["-v"])
                check(r.returncode == 0 and not record_problems(c.venv) and " 0 linked" in r.stderr,
                      "cross-fs: everything copied (EXDEV), the big library put back from its copy", show(r))
            finally:
                shutil.rmtree(c.state, ignore_errors=True)
        else:
            print("# /dev/shm is not another filesystem here: the cross-filesystem case is skipped")

        # 6. --require-gpu makes "no GPU" fatal
        c = Case(tmp, "require-gpu")
        r = c.install("none", ["--require-gpu"])
        check(r.returncode == 3 and "--require-gpu" in r.stderr, "--require-gpu: no GPU exits 3", show(r))

        # 7. the installer's argv is shown redacted, and passed on intact
        c = Case(tmp, "redact")
        url = "https://alice:secret@host.example/simple"
        r = c.install("none", passthrough=["--extra-index-url", url])
        check(r.returncode == 0 and "secret" not in r.stderr and "alice" not in r.stderr
              and "running" in r.stderr, "redaction: no credentials on stderr", show(r))
        check(url in c.fake()["argv"], "redaction: the installer gets the URL as given", c.fake())
        plan = c.fake()["plan"]
        check(plan and not os.path.exists(plan), "the plan file is removed after the installer", plan)

        # 8. pip: no --excludes, so say so before running, then repair after
        c = Case(tmp, "pip")
        r = c.install("clobber", ["--installer", "pip"])
        warn = r.stderr.find("pip has no --excludes")
        run = r.stderr.find("rocm-resolve: running")
        check(0 <= warn < run and "nvidia-cublas-cu12" in r.stderr[warn:run],
              "pip: warned before running about the exclusions it cannot honour", r.stderr)
        check(r.returncode == 0 and not record_problems(c.venv), "pip: the damage is repaired", show(r))

        # 9. restore: damage after install, repaired later from the last snapshot
        c = Case(tmp, "restore")
        r = c.install("none")
        site = os.path.join(c.venv, SITE_REL)
        os.unlink(os.path.join(site, "torch", "__init__.py"))
        with open(os.path.join(site, "triton", "runtime", "jit.py"), "w") as f:
            f.write("# edited\n")
        env = c.env("none")
        r = subprocess.run([exe, "restore", "--venv", c.venv], capture_output=True, text=True, env=env, timeout=60)
        check(r.returncode == 0 and "torch/__init__.py" in r.stdout and "triton/runtime/jit.py" in r.stdout,
              "restore: exits 0 and names the files it put back", show(r))
        check(not record_problems(c.venv), "restore: every RECORD hash matches", record_problems(c.venv))
        r = subprocess.run([exe, "restore", "--venv", c.venv], capture_output=True, text=True, env=env, timeout=60)
        check(r.returncode == 0 and "matches the snapshot" in r.stdout, "restore: nothing to do is exit 0", show(r))
        r = subprocess.run([exe, "restore", "--venv", c.venv], capture_output=True, text=True,
                           env=dict(env, XDG_STATE_HOME=os.path.join(c.dir, "empty")), timeout=60)
        check(r.returncode == 3 and "no snapshot" in r.stderr, "restore: no snapshot is exit 3 with a hint", show(r))

        # 11. a tampered store (issue 19 item 2): two added manifest lines, one writing a file
        #     outside the venv, one putting a "file" where a directory tree stands outside it;
        #     restore refuses with exit 3 naming the entry, and changes nothing
        c = Case(tmp, "tampered")
        r = c.install("none")
        check(r.returncode == 0, "tampered: a first install exits 0", show(r))
        manifests = [os.path.join(d, f) for d, _, fs in os.walk(c.state) for f in fs if f == "manifest"]
        outside = os.path.join(c.dir, "outside")
        os.makedirs(os.path.join(outside, "tree"))
        with open(os.path.join(outside, "tree", "keep"), "w") as f:
            f.write("must stay\n")
        text = open(manifests[0]).read() if manifests else ""
        h = text.split("\nfile\t", 1)[1].split("\t", 1)[0] if "\nfile\t" in text else "x" * 43
        with open(manifests[0], "a") as f:
            f.write(f"file\t{h}\t10\t644\t1\t2\t3\t4\t{outside}/written\n")
            f.write(f"file\t{h}\t10\t644\t1\t2\t3\t4\t{outside}/tree\n")
        site = os.path.join(c.venv, SITE_REL)
        os.unlink(os.path.join(site, "torch", "__init__.py"))
        r = subprocess.run([exe, "restore", "--venv", c.venv], capture_output=True, text=True,
                           env=c.env("none"), timeout=60)
        check(r.returncode == 3 and "not to be trusted" in r.stderr and f"{outside}/" in r.stderr
              and "manifest:" in r.stderr, "tampered: restore exits 3 naming the bad manifest entry", show(r))
        check(not os.path.exists(os.path.join(outside, "written"))
              and open(os.path.join(outside, "tree", "keep")).read() == "must stay\n",
              "tampered: nothing written or removed outside the venv", sorted(os.listdir(outside)))
        check(not os.path.exists(os.path.join(site, "torch", "__init__.py")),
              "tampered: nothing changed inside the venv either (no half repair)")

        # 12. one install at a time per venv (issue 19 item 1): a second one while the first
        #     runs its installer is refused at once, exit 3, and the first one's store is intact
        c = Case(tmp, "overlap")
        p = c.start_slow("stderr-first")
        r = c.install("clobber")
        check(r.returncode == 3 and "another `rocm-resolve install` or `restore` is working" in r.stderr
              and "running" not in r.stderr, "overlap: the second install is refused with exit 3", show(r))
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=30)
        check(not record_problems(c.venv), "overlap: the second install changed nothing", record_problems(c.venv))

        # 13. the store is state, not cache (issue 18 item 5): `rm -rf ~/.cache` loses nothing,
        #     and a store an earlier version left in the cache is moved out and used
        c = Case(tmp, "state")
        r = c.install("none")
        check(r.returncode == 0 and glob.glob(os.path.join(c.state, "rocm-resolve", "snapshots", "*", "manifest"))
              and not glob.glob(os.path.join(c.cache, "rocm-resolve", "snapshots", "*")),
              "state: the store is under XDG_STATE_HOME, nothing of it in the cache", show(r))
        shutil.rmtree(c.cache, ignore_errors=True)
        site = os.path.join(c.venv, SITE_REL)
        os.unlink(os.path.join(site, "torch", "__init__.py"))
        env = c.env("none")
        r = subprocess.run([exe, "restore", "--venv", c.venv], capture_output=True, text=True, env=env, timeout=60)
        check(r.returncode == 0 and "torch/__init__.py" in r.stdout and not record_problems(c.venv),
              "state: restore works after the cache is removed", show(r))
        old = os.path.join(c.cache, "rocm-resolve", "snapshots")
        os.makedirs(old)
        for d in glob.glob(os.path.join(c.state, "rocm-resolve", "snapshots", "*")):
            shutil.move(d, old)
        os.unlink(os.path.join(site, "torch", "__init__.py"))
        r = subprocess.run([exe, "restore", "--venv", c.venv], capture_output=True, text=True, env=env, timeout=60)
        check(r.returncode == 0 and "moved out of the cache" in r.stderr and not record_problems(c.venv)
              and glob.glob(os.path.join(c.state, "rocm-resolve", "snapshots", "*", "manifest")),
              "state: a store left in the cache is moved to the state directory and restores", show(r))

        # 14. `install -- --dry-run` is a dry run: no snapshot, no check, no verify
        c = Case(tmp, "dry-run")
        r = c.install("none", passthrough=["--dry-run"])
        check(r.returncode == 0 and "--dry-run" in c.fake()["argv"] and "dry run" in r.stderr
              and not os.path.exists(c.state) and "integrity:" not in r.stdout
              and "matches the snapshot" not in r.stderr,
              "dry run: the installer ran with --dry-run; nothing snapshotted or verified", show(r))

        # 15. neither uv nor pip: a hint, exit 3, nothing done
        c = Case(tmp, "no-installer")
        os.unlink(os.path.join(c.bin, "uv"))
        site = os.path.join(c.venv, SITE_REL)
        shutil.rmtree(os.path.join(site, "pip"))
        for d in glob.glob(os.path.join(site, "pip-*.dist-info")):
            shutil.rmtree(d)
        no_uv = ":".join(d for d in os.environ.get("PATH", "/usr/bin:/bin").split(":")
                         if d and not os.access(os.path.join(d, "uv"), os.X_OK))
        r = c.install("none", PATH=no_uv)
        check(r.returncode == 3 and "nothing to install with" in r.stderr and "ensurepip" in r.stderr
              and "docs.astral.sh/uv" in r.stderr and not os.path.exists(c.state),
              "no installer: exit 3 with a hint, nothing snapshotted", show(r))

        # 16. -q quiets rocm-resolve and the installer (it gets -q); a failure still shows
        c = Case(tmp, "quiet")
        r = c.install("none", ["-q"])
        check(r.returncode == 0 and r.stdout == "" and r.stderr == "" and "-q" in c.fake()["argv"],
              "-q: nothing printed on success, the installer gets -q", show(r))
        c = Case(tmp, "quiet-fail", big=True)
        r = c.install("inplace", ["-q"])
        check(r.returncode == 1 and "could not restore" in r.stderr, "-q: a failure is still reported", show(r))

        # 17. a user who cannot write the venv (a devcontainer's remoteUser over a root-owned
        #     /opt/venv): install says so before anything, exit 3, and what to do
        if os.geteuid() == 0:
            c = Case(tmp, "non-root")
            for d in (tmp, c.dir):
                os.chmod(d, 0o755)
            os.makedirs(c.state, mode=0o777)
            os.chmod(c.state, 0o777)
            for d, dirs, files in os.walk(c.dir):
                for x in dirs + files:
                    p = os.path.join(d, x)
                    if not os.path.islink(p):
                        os.chmod(p, os.stat(p).st_mode | 0o444 | (0o111 if os.path.isdir(p) else 0))
            r = subprocess.run(["/usr/bin/env"] + [exe, "install", "--no-index", "--venv", c.venv, c.req],
                               capture_output=True, text=True, env=dict(c.env("clobber"), HOME=c.dir),
                               timeout=120, preexec_fn=lambda: (os.setgid(65534), os.setuid(65534)))
            check(r.returncode == 3 and "cannot write" in r.stderr and "venvGroupWrite" in r.stderr
                  and "'nobody' (uid 65534)" in r.stderr and "sudo" not in r.stderr
                  and "running" not in r.stderr and not os.listdir(c.state) and not os.path.exists(c.log),
                  "non-root: install as uid 65534 is refused before anything, with what to do", show(r))
            # the venv's directories given to a group the user is not in (as after the
            # devcontainer CLI renumbered the user's own group): said, with the group's name
            for d, dirs, _ in os.walk(c.venv):
                for x in [d] + [os.path.join(d, y) for y in dirs]:
                    if not os.path.islink(x):
                        os.chown(x, 0, 100)
                        os.chmod(x, os.stat(x).st_mode | 0o070)
            grp_name = __import__("grp").getgrgid(100).gr_name
            r = subprocess.run([exe, "install", "--no-index", "--venv", c.venv, c.req],
                               capture_output=True, text=True, env=dict(c.env("clobber"), HOME=c.dir),
                               timeout=120,
                               preexec_fn=lambda: (os.setgroups([]), os.setgid(65534), os.setuid(65534)))
            check(r.returncode == 3 and f"group '{grp_name}' (gid 100)" in r.stderr
                  and f"Group '{grp_name}' (gid 100) may write the venv, but 'nobody' (uid 65534) is not in it"
                  in r.stderr and f"usermod -aG {grp_name} USER" in r.stderr
                  and "venvGroupWrite" in r.stderr and not os.path.exists(c.log),
                  "non-root: a group that may write the venv but the user is not in is named", show(r))
        else:
            print("# not root: the other-user case (install as uid 65534) is skipped")

        # 18. the ROCm triton replaced outside rocm-resolve between two installs (a plain
        #     `pip install`): the store holds its only copy, so the next install refuses to
        #     take a snapshot over it (exit 3, nothing run); restore brings it back
        c = Case(tmp, "replaced-outside", big=True)
        r = c.install("none")
        check(r.returncode == 0, "replaced outside: a first install exits 0", show(r))
        env = c.env("replace")
        subprocess.run([os.path.join(c.bin, "uv")], env=env, check=True)
        os.unlink(c.log)
        manifest = glob.glob(os.path.join(c.state, "rocm-resolve", "snapshots", "*", "manifest"))[0]
        before = open(manifest, "rb").read()
        r = c.install("clobber")
        check(r.returncode == 3 and "changed since the last snapshot" in r.stderr
              and "triton 3.5.1+rocm" in r.stderr and "rocm-resolve restore" in r.stderr
              and not os.path.exists(c.log) and open(manifest, "rb").read() == before,
              "replaced outside: install refuses to snapshot over the only copy, runs nothing", show(r))
        r = subprocess.run([exe, "restore", "--venv", c.venv], capture_output=True, text=True, env=env, timeout=60)
        check(r.returncode == 0 and not record_problems(c.venv),
              "replaced outside: restore brings the ROCm build back, big library included", show(r))
        r = c.install("none")
        check(r.returncode == 0, "replaced outside: then install works again", show(r))

        # 18b. `pip install torch` outside rocm-resolve after an install: the next install
        #      does not plan against the CUDA torch (which made an input's torch==2.4.0 the
        #      culprit, exit 2); it exits 3 before planning, naming what changed and
        #      restore; restore then lists every file it put back once, not twice
        c = Case(tmp, "torch-clobbered")
        r = c.install("none")
        check(r.returncode == 0, "torch clobbered: a first install exits 0", show(r))
        env = c.env("torch")
        subprocess.run([os.path.join(c.bin, "uv")], env=env, check=True)
        os.unlink(c.log)
        with open(c.req, "w") as f:
            f.write("torch==2.4.0\nrequests\n")
        r = c.install("none")
        err = r.stderr.split("error:", 1)[-1]
        check(r.returncode == 3 and "changed since the last snapshot" in err
              and "torch 2.10.0 (torch-2.10.0.dist-info) replaces protected torch 2.9.1+rocm" in err
              and "`rocm-resolve restore` first" in err and "torch==2.4.0" not in r.stderr
              and not os.path.exists(c.log),
              "torch clobbered: install exits 3 before planning, naming the CUDA torch and "
              "restore; runs nothing", show(r))
        r = subprocess.run([exe, "restore", "--venv", c.venv], capture_output=True, text=True, env=env, timeout=60)
        listed = [l.strip().split(" (of ")[0] for l in r.stdout.splitlines() if l.startswith("    ")
                  or (l.startswith("  ") and "/" in l and " " not in l.strip())]
        check(r.returncode == 0 and not record_problems(c.venv) and "torch/version.py" in listed
              and len(listed) == len(set(listed))
              and "restored from the snapshot: the" in r.stdout,
              "torch clobbered: restore puts torch back and lists each file once", show(r))

        # 19. a store that cannot be written (the state directory is a file here; a full disk,
        #     a read-only home): the environment's problem, exit 3, the installer never runs
        c = Case(tmp, "store-unwritable")
        open(c.state, "w").close()
        r = c.install("clobber")
        check(r.returncode == 3 and "without a snapshot" in r.stderr and "installer was not run" in r.stderr
              and not os.path.exists(c.log) and tree(c.venv) == c.before,
              "unwritable store: exit 3, the installer not run, the venv unchanged", show(r))

        # 10. signals: SIGTERM and SIGINT are forwarded; the child is reaped, the plan removed
        for sig in (signal.SIGTERM, signal.SIGINT):
            c = Case(tmp, f"signal-{sig.name}")
            errpath = os.path.join(c.dir, "stderr")
            p = c.start_slow("stderr")
            try:
                info = c.fake()
            except (OSError, ValueError) as e:
                check(False, f"{sig.name}: the slow installer started", e)
                p.kill()
                p.wait()
                continue
            p.send_signal(sig)
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            err = open(errpath).read()
            alive = True
            try:
                os.kill(info["pid"], 0)
                state = open(f"/proc/{info['pid']}/stat").read().split(")")[-1].split()[0]
                alive = state != "Z"
            except (ProcessLookupError, FileNotFoundError):
                alive = False
            if alive:
                os.kill(info["pid"], signal.SIGKILL)
            check(p.returncode == -sig, f"{sig.name}: rocm-resolve dies of the same signal",
                  f"returncode {p.returncode}\n{err}")
            check(not alive, f"{sig.name}: the installer child is gone", info)
            check(not os.path.exists(info["plan"]), f"{sig.name}: the plan temp file is removed", info["plan"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{checks['passed']} passed, {checks['failed']} failed")
    return 1 if checks["failed"] else 0


sys.exit(main())
