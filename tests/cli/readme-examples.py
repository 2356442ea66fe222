#!/usr/bin/env python3
"""docs-readme: every usage example in README.md runs, as written, and does what the
README shows.

The README's fenced blocks are read in order:
  - ```sh and ```console blocks are run, each in a fresh bash in the same work
    directory (files persist from block to block, `cd` lasts to the block's end);
    a block whose info string says `skip-test` is set-up or installation and is not
    run (./bootstrap, pip install of the wheel, MANPATH);
  - in a ```sh block every line is a command (a `\\` continues it); in a ```console
    block a line `$ COMMAND` is one, and the lines under it are output it must print
    (stdout and stderr together; each shown line equals a line printed, `...` within
    a line stands for any text, a line `...` alone for lines not shown);
  - every command must exit 0, except one followed by `echo $?`: it must exit with
    the status that `echo $?` is shown printing;
  - a block whose info string names a path (```text requirements.txt, ```toml
    myproject/pyproject.toml) is a file the examples use: it is written there.

The set-up is what the README says the examples assume: a rocm/pytorch container,
its venv on PATH and named by $VIRTUAL_ENV. The venv is a real one holding the ROCm
7.2 image's stack (tests/e2e/e2elib.py), `/opt/venv` in a command means it (and it is
written back as `/opt/venv` in the output compared), torch in it sees no GPU as in a
container started without the GPU devices, and the package index is the fixture
index on 127.0.0.1 (tests/index/serve.py), named by UV_DEFAULT_INDEX and
PIP_INDEX_URL as a container's configuration would name a mirror. uv is real."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
import e2elib as E  # noqa: E402

README = os.path.join(E.SRC, "README.md")
RUNNABLE = {"sh", "console", "bash", "shell"}


def blocks(text):
    """[(line number, language, attrs, body lines)] of the fenced blocks"""
    out, cur = [], None
    for n, line in enumerate(text.splitlines(), 1):
        m = re.match(r"^(\s*)```(.*)$", line)
        if cur is None and m:
            words = m.group(2).split()
            cur = (n, words[0] if words else "", words[1:], len(m.group(1)), [])
        elif cur is not None and m and not m.group(2).strip():
            out.append((cur[0], cur[1], cur[2], cur[4]))
            cur = None
        elif cur is not None:
            cur[4].append(line[cur[3]:] if line[:cur[3]].strip() == "" else line)
    return out


def commands(lang, body):
    """[(command, shown output lines)] of a runnable block"""
    out = []
    if lang == "console":
        for line in body:
            if line.startswith("$ "):
                out.append([line[2:], []])
            elif out and out[-1][0].endswith("\\"):
                out[-1][0] += "\n" + line
            elif out:
                out[-1][1].append(line.rstrip())
        return [(c, s) for c, s in out]
    cmd = ""
    for line in body:
        if not cmd and (not line.strip() or line.lstrip().startswith("#")):
            continue
        cmd += ("\n" if cmd else "") + line
        if not line.endswith("\\"):
            out.append((cmd, []))
            cmd = ""
    return out


def shown_matches(shown, printed):
    """the shown lines that no printed line matches"""
    lines = [p.rstrip() for p in printed.splitlines()]
    missing = []
    for s in shown:
        if s.strip() in ("", "..."):
            continue
        if "..." in s:
            rx = re.compile(".*".join(re.escape(part) for part in s.split("...")))
            ok = any(rx.fullmatch(p) for p in lines)
        else:
            ok = s in lines
        if not ok:
            missing.append(s)
    return missing


def main():
    if not os.access(E.EXE, os.X_OK):
        E.skip(f"{E.EXE} not built")
    uv = E.find_uv()
    if not uv:
        E.skip("uv not found (the README's examples run it)")
    text = open(README, encoding="utf-8").read()
    t = E.Tap()
    work = tempfile.mkdtemp(prefix="rr-readme-")
    try:
        venv = E.build_venv(os.path.join(work, "opt-venv"), "rocm72")
        # torch there answers as a ROCm torch does in a container without the GPU devices
        sp = E._site_packages(venv)[0]
        E.write(os.path.join(sp, "torch", "cuda", "__init__.py"),
                "def is_available():\n    return False\n\n\ndef device_count():\n    return 0\n")
        # (torch/__init__.py is RECORD-hashed, so torch.cuda is imported by a .pth file)
        E.write(os.path.join(sp, "zz-readme-torch-cuda.pth"), "import torch.cuda\n")
        bindir = os.path.join(work, "bin")
        os.makedirs(bindir)
        for exe in ("rocm-resolve", "rr-testcase"):
            os.symlink(os.path.join(E.BUILD, "src", "cli", exe), os.path.join(bindir, exe))
        home = os.path.join(work, "home")
        cwd = os.path.join(work, "work")
        os.makedirs(cwd)
        with E.Index() as idx:
            env = E.clean_env(
                PATH=":".join([os.path.join(venv, "bin"), bindir, os.path.dirname(uv), "/usr/bin", "/bin"]),
                VIRTUAL_ENV=venv, HOME=home, XDG_CACHE_HOME=home + "/.cache",
                XDG_STATE_HOME=home + "/.local/state", XDG_DATA_HOME=home + "/.local/share",
                XDG_CONFIG_HOME=home + "/.config", XDG_CONFIG_DIRS=work + "/etc-xdg",
                UV_DEFAULT_INDEX=idx.simple(), PIP_INDEX_URL=idx.simple(),
                UV_CACHE_DIR=home + "/.cache/uv", UV_PYTHON_DOWNLOADS="never", LC_ALL="C.UTF-8")
            ran = 0
            for line, lang, attrs, body in blocks(text):
                paths = [a for a in attrs if "/" in a or "." in a]
                if paths and lang not in RUNNABLE:
                    E.write(os.path.join(cwd, paths[0]), "\n".join(body) + "\n")
                    continue
                if lang not in RUNNABLE or "skip-test" in attrs:
                    continue
                cmds = commands(lang, body)
                t.check(f"README.md:{line}: the {lang} block holds commands", bool(cmds), body)
                script = []
                for i, (c, _) in enumerate(cmds):
                    c = c.replace("/opt/venv", venv)
                    script.append(f"printf '\\n@@rr-begin {i}\\n'\n{{ {c}\n}} 2>&1\n__rc=$?\n"
                                  f"printf '\\n@@rr-end {i} %d\\n' $__rc\n(exit $__rc)\n")
                r = subprocess.run(["bash", "-c", "".join(script)], cwd=cwd, env=env, text=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
                out = r.stdout.replace(venv, "/opt/venv")
                got = {int(m.group(1)): (m.group(2), int(m.group(3))) for m in re.finditer(
                    r"@@rr-begin (\d+)\n(.*?)\n?@@rr-end \1 (\d+)\n", out, re.S)}
                for i, (c, shown) in enumerate(cmds):
                    if c == "echo $?":
                        continue
                    ran += 1
                    want = 0
                    if i + 1 < len(cmds) and cmds[i + 1][0] == "echo $?":
                        want = int(cmds[i + 1][1][0])
                    if c.startswith("rocm-resolve verify") and os.path.exists("/dev/kfd"):
                        print(f"# README.md:{line}: `{c}` not judged: this machine has /dev/kfd, "
                              "the README shows a container without it")
                        continue
                    printed, rc = got.get(i, (None, None))
                    if printed is None:
                        t.check(f"README.md:{line}: `{c}` ran", False, out[-3000:])
                        continue
                    missing = shown_matches(shown, printed)
                    nshown = len([s for s in shown if s.strip() not in ("", "...")])
                    t.check(f"README.md:{line}: `{c}` exits {want}"
                            + (f" and prints the {nshown} lines shown" if nshown else ""),
                            rc == want and not missing,
                            f"exit {rc}\n" + ("not printed:\n  " + "\n  ".join(missing) + "\n" if missing else "")
                            + "printed:\n" + printed[-4000:])
            t.check(f"{ran} README commands run (at least 20)", ran >= 20)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(t.status())


if __name__ == "__main__":
    main()
