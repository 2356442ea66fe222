#!/usr/bin/env python3
"""The devcontainer Feature (examples/devcontainer/rocm-resolve) as the devcontainer CLI
runs it, end to end, in a chroot: no Docker, real overlayfs layers.

The image: a Debian 12 root (tools/devcontainer-root.sh, read-only, the lowest layer)
plus a layer holding a root-owned /opt/venv with the ROCm 7.2 image's stack (tiny but
real wheels, installed by that venv's pip) and uv at /opt/uv. Then, as the CLI builds
a devcontainer, one layer per Feature, in the order their installsAfter gives (our
Feature is listed first; a stand-in for common-utils creates the remote user 'vscode'
1000:1000, as the ROCm templates have it), each run as root from its folder with the
CLI's environment (the options upper-cased, _REMOTE_USER and friends) and no network;
then the CLI's updateRemoteUserUID layer renumbering vscode's group to a host GID of
1001; then the container's own layer, where postCreateCommand runs `rocm-resolve
install requirements.txt` as vscode against the fixture index, with pip and with uv.

Checked: the Feature layer gives /opt/venv's directories, and no file, to the group
rocm-venv (the layer holds no copy of the venv's files; its size is measured), vscode
is in that group after the renumbering, install works as vscode and leaves every image
file of the stack byte for byte as it was, `import torch` is the ROCm build; after a
`pip install torch` over it, install exits 3 saying to run restore, restore (as vscode)
puts it back listing each file once, and install works again. venv=/usr is refused
with nothing changed: the Feature's layer stays empty and every setuid program keeps
its mode. The Feature with the old installsAfter (only the python Feature) would run
before the user exists: that order is computed too and shown to fail.

Needs root, overlayfs, unshare and the root made by tools/devcontainer-root.sh
(./bootstrap test makes it; RR_DEVC_ROOT names another); skips (77) without them.
Usage: devcontainer-test.py WORKDIR
"""
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
import e2elib as E  # noqa: E402

SRC = E.SRC
BASE = os.environ.get("RR_DEVC_ROOT", "/var/cache/rocm-resolve/bookworm-devcontainer")
FEATURE = os.path.join(SRC, "examples", "devcontainer", "rocm-resolve")
HOST_UID, HOST_GID = 1000, 1001
checks = {"passed": 0, "failed": 0}


def check(cond, what, detail=""):
    checks["passed" if cond else "failed"] += 1
    print(("ok   " if cond else "FAIL ") + what)
    if not cond and detail:
        print("     " + str(detail).replace("\n", "\n     "))


def du(path):
    """bytes a layer's directory holds (blocks, as the disk pays them)"""
    out = subprocess.run(["du", "-s", "-B1", path], capture_output=True, text=True).stdout
    return int(out.split()[0]) if out else 0


class Image:
    """overlayfs layers, lowest first; run() mounts them with a new top layer"""

    def __init__(self, work, layers):
        self.work = work
        self.layers = list(layers)

    def run(self, upper, script, user=None, env=None, net=False, binds=(), timeout=600):
        """run sh -c SCRIPT in the layers plus upper (made if missing), as root or user
        (setpriv with the groups /etc/group gives, as docker exec does)"""
        os.makedirs(upper, exist_ok=True)
        wd = upper + ".work"
        mnt = upper + ".mnt"
        os.makedirs(wd, exist_ok=True)
        os.makedirs(mnt, exist_ok=True)
        lower = ":".join(reversed(self.layers))
        envs = " ".join(shlex.quote(f"{k}={v}") for k, v in (env or {}).items())
        inner = script
        if user:
            inner = (f"exec setpriv --reuid={shlex.quote(user)} --regid=$(id -g {shlex.quote(user)}) "
                     f"--init-groups env -i {envs} sh -c {shlex.quote(script)}")
        else:
            inner = f"exec env -i {envs} sh -c {shlex.quote(script)}"
        mounts = [f"mount -t overlay overlay -o lowerdir={lower},upperdir={upper},workdir={wd} {mnt}",
                  f"mount --rbind /dev {mnt}/dev", f"mount -t proc proc {mnt}/proc"]
        if binds:
            # what the CLI bind-mounts (a Feature's folder) lies under a tmpfs /tmp: its
            # mount points are no part of the layer
            mounts.append(f"mount -t tmpfs tmpfs {mnt}/tmp")
        for host, inside in binds:
            assert inside.startswith("/tmp/"), inside
            mounts.append(f"mkdir -p {mnt}{inside}")
            mounts.append(f"mount --bind {shlex.quote(host)} {mnt}{inside}")
        outer = " && ".join(mounts) + f" && exec chroot {mnt} sh -c {shlex.quote(inner)}"
        cmd = ["unshare", "--mount", "--propagation", "private", "--pid", "--fork"]
        if not net:
            cmd.append("--net")
        return subprocess.run(cmd + ["sh", "-c", outer], capture_output=True, text=True,
                              timeout=timeout)

    def plus(self, upper):
        return Image(self.work, self.layers + [upper])


# ---------------------------------------------------------------- the devcontainer CLI's part

def feature_env(folder, options, remote_user):
    """the environment the CLI gives a Feature's install.sh: every option (its default
    when not set) upper-cased, non-alphanumerics as _, plus the user variables"""
    meta = json.load(open(os.path.join(folder, "devcontainer-feature.json")))
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root"}
    for name, spec in meta.get("options", {}).items():
        value = options.get(name, spec.get("default", ""))
        if isinstance(value, bool):
            value = "true" if value else "false"
        env[re.sub(r"[^A-Za-z0-9]", "_", name).upper()] = str(value)
    home = f"/home/{remote_user}" if remote_user != "root" else "/root"
    env.update({"_REMOTE_USER": remote_user, "_REMOTE_USER_HOME": home,
                "_CONTAINER_USER": "root", "_CONTAINER_USER_HOME": "/root"})
    return env


def feature_order(features):
    """features: [(reference, folder, options)] in devcontainer.json's order; the CLI runs
    a Feature after those its installsAfter names that are present (soft dependencies)"""
    ids = {ref.split(":")[0]: ref for ref, _, _ in features}
    after = {}
    for ref, folder, _ in features:
        meta = json.load(open(os.path.join(folder, "devcontainer-feature.json")))
        after[ref] = [ids[a.split(":")[0]] for a in meta.get("installsAfter", []) if a.split(":")[0] in ids]
    done, order = set(), []
    while len(order) < len(features):
        for ref, folder, opts in features:
            if ref not in done and all(a in done for a in after[ref]):
                order.append((ref, folder, opts))
                done.add(ref)
                break
        else:
            raise RuntimeError(f"installsAfter cycle: {after}")
    return order


# the CLI's updateRemoteUserUID step: the remote user's UID and GID become the host's,
# the user's group renumbered in /etc/group (files keep their numbers), the home chowned
UPDATE_UID = r'''
set -e
line=$(grep "^$USER_NAME:" /etc/passwd)
old_uid=$(echo "$line" | cut -d: -f3); old_gid=$(echo "$line" | cut -d: -f4)
home=$(echo "$line" | cut -d: -f6)
if [ "$old_gid" != "$NEW_GID" ] && ! getent group "$NEW_GID" >/dev/null; then
	sed -i "s/^\([^:]*:[^:]*:\)$old_gid:/\1$NEW_GID:/" /etc/group
else
	NEW_GID=$old_gid
fi
sed -i "s/^\($USER_NAME:[^:]*:\)[^:]*:[^:]*:/\1$NEW_UID:$NEW_GID:/" /etc/passwd
chown -R "$NEW_UID:$NEW_GID" "$home"
echo "updated $USER_NAME from $old_uid:$old_gid to $NEW_UID:$NEW_GID"
'''

# common-utils' part that matters here: the user, made with UID and GID 1000
COMMON_UTILS_JSON = {"id": "common-utils", "version": "2.0.0", "name": "common-utils stand-in",
                     "options": {"username": {"type": "string", "default": "automatic"},
                                 "userUid": {"type": "string", "default": "1000"},
                                 "userGid": {"type": "string", "default": "1000"}}}
COMMON_UTILS_SH = '''#!/bin/sh
set -e
groupadd --gid "$USERGID" "$USERNAME"
useradd -s /bin/sh --uid "$USERUID" --gid "$USERNAME" -m "$USERNAME"
echo "common-utils: made $USERNAME"
'''


def tree_hashes(root, rel):
    out = {}
    base = os.path.join(root, rel)
    for d, dirs, files in os.walk(base):
        dirs[:] = [x for x in dirs if x != "__pycache__"]
        for f in files:
            p = os.path.join(d, f)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            out[os.path.relpath(p, base)] = hashlib.sha256(open(p, "rb").read()).hexdigest()
    return out


def setuid_modes(root):
    out = {}
    for top in ("usr", "bin", "sbin"):
        if os.path.islink(os.path.join(root, top)):
            continue  # merged /usr: /bin is /usr/bin
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                p = os.path.join(d, f)
                st = os.lstat(p)
                if st.st_mode & 0o6000 and not os.path.islink(p):
                    out[os.path.relpath(p, root)] = st.st_mode
    return out


def build_wheel(work):
    whl = os.environ.get("RR_FEATURE_WHEEL")
    if whl:
        return whl
    # ./bootstrap's .venv-package first on PATH (a pyenv shim running this script puts
    # its own bin there)
    path = os.path.join(SRC, ".venv-package", "bin") + ":" + os.environ.get("PATH", "")
    if not shutil.which("auditwheel", path=path):
        E.skip("auditwheel not on PATH: ./bootstrap test sets up .venv-package")
    dist = os.path.join(work, "dist")
    r = subprocess.run([os.path.join(SRC, "tools", "build-wheel.sh"), dist,
                        os.environ.get("RR_WHEEL_BUILD", os.path.join(work, "wheel-build"))],
                       capture_output=True, text=True, env=dict(os.environ, PATH=path))
    if r.returncode:
        print(r.stdout + r.stderr)
        raise SystemExit("the wheel did not build")
    return [os.path.join(dist, f) for f in os.listdir(dist) if f.endswith(".whl")][0]


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: devcontainer-test.py WORKDIR")
    if os.geteuid() != 0:
        E.skip("needs root (chroot, mounts, users in the image)")
    if "overlay" not in open("/proc/filesystems").read() or not shutil.which("unshare"):
        E.skip("needs overlayfs and unshare")
    if not os.path.exists(os.path.join(BASE, ".rocm-resolve-root")):
        E.skip(f"no Debian 12 root at {BASE}: tools/devcontainer-root.sh makes it (./bootstrap test runs it)")
    uv = E.find_uv()
    if not uv:
        E.skip("uv not found")
    work = os.path.abspath(sys.argv[1])
    if os.path.exists(work):
        subprocess.run(["rm", "-rf", "--one-file-system", work], check=True)
    os.makedirs(work)
    t0 = time.time()
    whl = build_wheel(work)
    print(f"# wheel {os.path.basename(whl)} ({time.time() - t0:.0f} s)")

    # ---- the image: the base root + /opt/venv (the ROCm 7.2 stack, root-owned) + uv
    wheels = os.path.join(work, "wheels")
    os.makedirs(wheels)
    wanted = []
    for name, ver, reqs in E.BASE_DEPS:
        E.make_wheel(wheels, name, ver, reqs)
        wanted.append(f"{name}=={ver}")
    spec = E.LAYOUTS["rocm72"]
    for name, ver, reqs, module in spec["stack"]:
        files = (E.torch_files(ver, spec["hip"]) if module == "torch"
                 else {f"{module}/__init__.py": f'__version__ = "{ver}"\n'})
        if module == "torch":
            # torch.cuda as a ROCm torch has it in a container without a GPU
            files["torch/__init__.py"] = "from . import cuda, version\nfrom .version import __version__\n"
            files["torch/cuda.py"] = "def is_available():\n    return False\n\n\ndef device_count():\n    return 0\n"
        E.make_wheel(wheels, name, ver, reqs, files=files,
                     extras=[m.group(1) for r in reqs for m in [re.search(r'extra == "([^"]+)"', r)] if m])
        wanted.append(f"{name}=={ver}")
    shutil.copy(uv, os.path.join(wheels, "uv"))
    base = Image(work, [BASE])
    img = os.path.join(work, "l1-image")
    r = base.run(img, "python3 -m venv /opt/venv && /opt/venv/bin/pip install -q --no-index "
                 "--disable-pip-version-check --find-links /tmp/wheels " + " ".join(wanted) +
                 " && install -D -m 755 /tmp/wheels/uv /opt/uv/uv",
                 env={"PATH": "/usr/bin:/bin", "HOME": "/root"}, binds=[(wheels, "/tmp/wheels")])
    check(r.returncode == 0, "the image: /opt/venv holds the ROCm 7.2 stack (root-owned)", r.stdout + r.stderr)
    if r.returncode:
        return
    image = base.plus(img)
    site_rel = os.path.relpath(E._site_packages(os.path.join(img, "opt", "venv"))[0], img)  # opt/venv/lib/...
    venv_files = {p: h for p, h in tree_hashes(img, site_rel).items()}
    venv_size = du(os.path.join(img, "opt", "venv"))

    # ---- the Features, as the CLI orders and runs them
    feat = os.path.join(work, "features")
    ours = os.path.join(feat, "rocm-resolve")
    shutil.copytree(FEATURE, ours)
    shutil.copy(whl, ours)
    cu = os.path.join(feat, "common-utils")
    os.makedirs(cu)
    with open(os.path.join(cu, "devcontainer-feature.json"), "w") as f:
        json.dump(COMMON_UTILS_JSON, f)
    with open(os.path.join(cu, "install.sh"), "w") as f:
        f.write(COMMON_UTILS_SH)
    os.chmod(os.path.join(cu, "install.sh"), 0o755)
    config = [("./rocm-resolve", ours, {"venvGroupWrite": True}),
              ("ghcr.io/devcontainers/features/common-utils:2", cu,
               {"username": "vscode", "userUid": "1000", "userGid": "1000"})]
    order = feature_order(config)
    check([ref for ref, _, _ in order] == ["ghcr.io/devcontainers/features/common-utils:2", "./rocm-resolve"],
          "installsAfter: common-utils (which makes the remote user) runs before rocm-resolve",
          [ref for ref, _, _ in order])
    # with the installsAfter before this change (only the python Feature), ours ran first
    old = json.load(open(os.path.join(ours, "devcontainer-feature.json")))
    old_dir = os.path.join(feat, "rocm-resolve-old-order")
    shutil.copytree(ours, old_dir)
    with open(os.path.join(old_dir, "devcontainer-feature.json"), "w") as f:
        json.dump(dict(old, installsAfter=["ghcr.io/devcontainers/features/python"]), f)
    first = feature_order([("./rocm-resolve", old_dir, {"venvGroupWrite": True}), config[1]])[0]
    r = image.run(os.path.join(work, "old-order"), "cd /tmp/f && ./install.sh",
                  env=feature_env(old_dir, {"venvGroupWrite": True}, "vscode"),
                  binds=[(old_dir, "/tmp/f")])
    check(first[0] == "./rocm-resolve" and r.returncode != 0
          and "remoteUser 'vscode' does not exist" in r.stderr and "Nothing was changed" in r.stderr,
          "with only the python Feature in installsAfter, ours runs first and stops: no vscode yet",
          r.stdout + r.stderr)

    layer_sizes = {}
    for n, (ref, folder, opts) in enumerate(order):
        upper = os.path.join(work, f"l2-feature-{n}")
        env = feature_env(folder, opts, "vscode")
        with open(os.path.join(work, f"feature-{n}.env"), "w") as f:
            f.write("".join(f"{k}={shlex.quote(v)}\n" for k, v in env.items()))
        t = time.time()
        r = image.run(upper, "cd /tmp/dev-container-features/f && chmod +x install.sh 2>/dev/null; "
                      "./install.sh", env=env, binds=[(folder, "/tmp/dev-container-features/f")])
        check(r.returncode == 0, f"Feature {ref} builds its layer ({time.time() - t:.1f} s)",
              r.stdout + r.stderr)
        if r.returncode:
            return
        layer_sizes[ref] = du(upper)
        image = image.plus(upper)
        if ref == "./rocm-resolve":
            feature_log = r.stdout + r.stderr
            copied = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(upper, "opt", "venv")) for f in fs]
            venv_layer = du(os.path.join(upper, "opt", "venv"))
            print(f"# /opt/venv in the image: {venv_size} bytes; the Feature's layer: "
                  f"{layer_sizes[ref]} bytes, of which /opt/venv {venv_layer} bytes")
            check(not copied, "the Feature's layer holds no copy of /opt/venv's files (directories only)",
                  copied[:5])
            check("rocm-venv" in feature_log and "vscode" in feature_log,
                  "the Feature says which group may now write the venv", feature_log)
            feature_upper = upper

    # the group, the modes, the owners (read in the merged view by the next step)
    r = image.run(os.path.join(work, "probe"), "stat -c '%G %A' /opt/venv /opt/venv/bin "
                  f"/{site_rel}/torch; stat -c '%U %G %a' /{site_rel}/torch/version.py; "
                  "getent group rocm-venv; ls -l /usr/local/bin/rocm-resolve")
    lines = r.stdout.splitlines()
    check(r.returncode == 0 and all(l.startswith("rocm-venv drwxrwsr-x") for l in lines[:3])
          and lines[3] == "root root 644" and lines[4].startswith("rocm-venv:x:")
          and lines[4].endswith(":vscode"),
          "directories: group rocm-venv, rwxrwsr-x; files keep root:root 644; vscode in rocm-venv",
          r.stdout + r.stderr)
    shutil.rmtree(os.path.join(work, "probe"))

    # ---- updateRemoteUserUID: the host's UID 1000, GID 1001
    upper = os.path.join(work, "l3-uid")
    r = image.run(upper, UPDATE_UID, env={"USER_NAME": "vscode", "NEW_UID": str(HOST_UID),
                                           "NEW_GID": str(HOST_GID), "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"})
    check(r.returncode == 0 and "to 1000:1001" in r.stdout, "updateRemoteUserUID: vscode's group becomes GID 1001",
          r.stdout + r.stderr)
    image = image.plus(upper)

    # ---- the containers: postCreateCommand as vscode, with pip and with uv
    with E.Index() as idx:
        for tool in ("pip", "uv"):
            ctr = os.path.join(work, f"container-{tool}")
            path = ("/opt/uv:" if tool == "uv" else "") + "/usr/local/bin:/usr/bin:/bin"
            env = {"HOME": "/home/vscode", "PATH": path, "VIRTUAL_ENV": "/opt/venv", "LANG": "C.UTF-8",
                   "PIP_INDEX_URL": idx.simple(), "UV_DEFAULT_INDEX": idx.simple(), "NO_PROXY": "127.0.0.1",
                   "PIP_DISABLE_PIP_VERSION_CHECK": "1", "UV_NO_PROGRESS": "1", "NO_COLOR": "1"}

            def as_vscode(script, ctr=ctr, env=env):
                return image.run(ctr, f"cd /home/vscode/project && {script}", user="vscode", env=env, net=True)

            r = image.run(ctr, "mkdir -p /home/vscode/project && printf 'tqdm\\neinops\\n' "
                          ">/home/vscode/project/requirements.txt && chown -R vscode /home/vscode/project")
            r = as_vscode("id -Gn; rocm-resolve install requirements.txt")
            check(r.returncode == 0 and "rocm-venv" in (r.stdout.splitlines() or [""])[0].split(),
                  f"{tool}: postCreateCommand `rocm-resolve install requirements.txt` as vscode "
                  f"(GID 1001, in rocm-venv) exits 0", r.stdout + r.stderr)
            r = as_vscode("/opt/venv/bin/python -c 'import tqdm, einops, torch; "
                          "print(torch.__version__, torch.version.hip)'")
            check(r.returncode == 0 and r.stdout.strip() == f"{spec['torch']} {spec['hip']}",
                  f"{tool}: the project's packages import, and torch is the ROCm build", r.stdout + r.stderr)
            r = image.run(ctr, f"cd /{site_rel} && find . -path '*/__pycache__' -prune -o -type f "
                          "-print0 | xargs -0 sha256sum")
            now = {line[66:].removeprefix("./"): line[:64] for line in r.stdout.splitlines()}
            changed = [p for p, h in venv_files.items() if now.get(p) != h]
            check(r.returncode == 0 and not changed, f"{tool}: every file of the image's /opt/venv is byte "
                  "for byte as it was", changed[:5])
            print(f"# {tool}: the container's layer after install: {du(ctr)} bytes")
            # `pip install torch` over the stack, then the next install
            r = as_vscode("/opt/venv/bin/pip install -q torch==2.10.0")
            r = as_vscode("rocm-resolve install requirements.txt")
            check(r.returncode == 3 and "rocm-resolve restore` first" in r.stderr and "torch 2.10.0" in r.stderr,
                  f"{tool}: after `pip install torch`, install exits 3 saying to run restore first",
                  r.stdout + r.stderr)
            r = as_vscode("rocm-resolve restore")
            listed = [l.strip().split(" (of ")[0] for l in r.stdout.splitlines() if l.startswith("    ")]
            check(r.returncode == 0 and "torch/version.py" in listed and len(listed) == len(set(listed))
                  and "matches the snapshot again" in r.stdout,
                  f"{tool}: restore as vscode puts the ROCm torch back, each file listed once",
                  r.stdout + r.stderr)
            r = as_vscode("rocm-resolve install requirements.txt && /opt/venv/bin/python -c "
                          "'import torch; print(torch.version.hip)'")
            check(r.returncode == 0 and r.stdout.strip().endswith(spec["hip"]),
                  f"{tool}: then install works again, torch still the ROCm build", r.stdout + r.stderr)
            print(f"# {tool}: the container's layer at the end: {du(ctr)} bytes")

    # ---- venv=/usr: refused, nothing changed, every setuid program as it was
    below = Image(work, image.layers[:-2])  # image + /opt/venv + common-utils, before ours
    before = setuid_modes(BASE)
    upper = os.path.join(work, "usr-feature")
    env = feature_env(ours, {"venvGroupWrite": True, "venv": "/usr"}, "vscode")
    r = below.run(upper, "cd /tmp/dev-container-features/f && ./install.sh", env=env,
                  binds=[(ours, "/tmp/dev-container-features/f")])
    left = [os.path.relpath(os.path.join(d, x), upper) for d, ds, fs in os.walk(upper) for x in ds + fs]
    check(r.returncode != 0 and "venv '/usr' is a system prefix" in r.stderr and "Nothing was changed" in r.stderr,
          "venv=/usr: the Feature refuses it", r.stdout + r.stderr)
    check(not left, "venv=/usr: the Feature's layer is empty (nothing changed)", left[:10])
    r = below.plus(upper).run(os.path.join(work, "usr-probe"),
                              "find /usr /bin /sbin -xdev -type f -perm /6000 -exec stat -c '%n %a' {} +; "
                              "stat -c '%G %A' /usr/bin")
    after = {l.split()[0].lstrip("/"): int(l.split()[1], 8) for l in r.stdout.splitlines()[:-1]}
    check(len(before) >= 5 and after == {p: m & 0o7777 for p, m in before.items()}
          and r.stdout.splitlines()[-1] == "root drwxr-xr-x",
          f"venv=/usr: all {len(before)} setuid/setgid programs keep their modes; /usr/bin is not group-writable",
          r.stdout)
    # a venv the image does not have: the tool is installed, and the Feature says so
    upper = os.path.join(work, "novenv-feature")
    env = feature_env(ours, {"venvGroupWrite": True, "venv": "/opt/nothere"}, "vscode")
    r = below.run(upper, "cd /tmp/dev-container-features/f && ./install.sh", env=env,
                  binds=[(ours, "/tmp/dev-container-features/f")])
    check(r.returncode == 0 and "venv '/opt/nothere' does not exist in the image" in r.stderr
          and "rocm-resolve 0" in r.stdout, "a missing venv is said, and the tool still installed",
          r.stdout + r.stderr)
    print(f"# layer sizes: {layer_sizes}; the Feature's layer: {du(feature_upper)} bytes")


if __name__ == "__main__":
    try:
        main()
    except subprocess.TimeoutExpired as e:
        check(False, "a step finished in time", e)
    print(f"{checks['passed']} passed, {checks['failed']} failed")
    sys.exit(1 if checks["failed"] else 0)
