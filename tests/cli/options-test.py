#!/usr/bin/env python3
"""The command table (src/cli/args.c) as a user meets it.

1. Every command's --help and the man page's OPTIONS list the same options for the
   same commands; every $VAR a --help names is in the man page's ENVIRONMENT; the
   README (whose examples docs-readme runs) names no rocm-resolve option --help lacks
   and points to the man page for the rest.
2. Options are matched exactly; an option a command does not take is a usage
   error; help [COMMAND] and COMMAND --help print that command's options only.
3. uv's options mean what they mean in uv: --index (asked before the default),
   --default-index, -r, -c, --python, --color, UV_OFFLINE, UV_PYTHON."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

src = os.environ["RR_SRCDIR"]
exe = os.path.join(os.environ["RR_BUILDDIR"], "src", "cli", "rocm-resolve")
venv = os.path.join(src, "fixtures", "venvs", "rocm72")
sysroot = os.path.join(src, "fixtures", "venvs", "sysroot-rocm72")
safe = os.path.join(src, "tests", "cli", "inputs", "safe.txt")
failures = []
checks = 0


def check(ok, what, detail=""):
    global checks
    checks += 1
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)
        if detail:
            print("     " + str(detail).replace("\n", "\n     "))


def run(args, env=None, cwd=None):
    e = {k: v for k, v in os.environ.items()
         if k not in ("VIRTUAL_ENV", "CONDA_PREFIX", "UV_OFFLINE", "UV_PYTHON", "NO_COLOR",
                      "CLICOLOR_FORCE") and not k.startswith(("UV_INDEX", "UV_DEFAULT",
                                                              "PIP_"))}
    e["RR_SYSROOT"] = sysroot
    e["XDG_CACHE_HOME"] = tmp + "/cache"
    e["XDG_DATA_HOME"] = tmp + "/data"
    e["HOME"] = tmp + "/home"
    e.update(env or {})
    return subprocess.run([exe] + args, capture_output=True, text=True, env=e,
                          cwd=cwd or src, timeout=60)


COMMANDS = ["plan", "check", "inspect", "verify", "install", "restore", "project"]


def help_options(text):
    """option -> spellings from a --help text: lines '  -x, --name ARG' or '      --name'"""
    found = set()
    for line in text.splitlines():
        m = re.match(r"^  (?:-([A-Za-z]), )?\s*--([a-z][a-z-]*)", line)
        if m:
            found.add("--" + m.group(2))
    return found


def man_options():
    """option -> set of commands, from the man page's OPTIONS entries"""
    text = open(os.path.join(src, "man", "rocm-resolve.1")).read()
    sec = text[text.index("\n.SH OPTIONS"):text.index("\n.SH INPUTS")]
    out = {}
    for entry in sec.split("\n.TP\n")[1:]:
        lines = entry.split("\n")
        tag = lines[0].replace("\\-", "-")
        names = re.findall(r"(?<![\w-])--([a-z][a-z-]*)", tag)
        check(len(names) == 1, f"man OPTIONS entry names one long option: {tag!r}")
        m = re.match(r"^\(([a-z, ]+)\)$", lines[1]) if len(lines) > 1 else None
        cmds = set(m.group(1).split(", ")) if m else set(COMMANDS)
        out["--" + names[0]] = cmds
    return out


def readme_options():
    """the long options of the rocm-resolve commands the README shows"""
    text = open(os.path.join(src, "README.md")).read()
    out = set()
    for line in text.splitlines():
        for cmd in re.findall(r"rocm-resolve(?: [a-z]+)?((?: [^|`#;]*)?)", line):
            out |= set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", cmd.split(" -- ")[0]))
    return out


def test_in_step():
    overview = run(["--help"])
    check(overview.returncode == 0 and "usage: rocm-resolve" in overview.stdout,
          "--help prints the overview, exit 0", overview.stderr)
    listed = re.findall(r"^  ([a-z]+)  ", overview.stdout, re.M)
    check(listed == COMMANDS + ["help"], f"the overview lists the commands: {listed}")
    binary = {}
    envs = set()
    for c in COMMANDS:
        h = run(["help", c])
        h2 = run([c, "--help"])
        check(h.returncode == 0 and h.stdout == h2.stdout and h.stdout.startswith(
            f"usage: rocm-resolve {'[plan]' if c == 'plan' else c} "),
              f"help {c} and {c} --help print {c}'s help", h.stdout[:200] + h.stderr)
        envs |= set(re.findall(r"\$([A-Z][A-Z_]+)", h.stdout))
        for o in help_options(h.stdout):
            binary.setdefault(o, set()).add(c)
    man = man_options()
    readme = readme_options()
    check(len(binary) >= 35, f"{len(binary)} options found in the help texts")
    check(len(readme) >= 5 and not readme - set(binary),
          f"the README's rocm-resolve commands use options --help lists ({len(readme)})",
          f"not in --help: {sorted(readme - set(binary))}")
    check("man rocm-resolve" in open(os.path.join(src, "README.md")).read(),
          "the README points to the man page for the options")
    for name, where in (("man page", man),):
        missing = sorted(set(binary) - set(where))
        extra = sorted(set(where) - set(binary))
        check(not missing and not extra, f"the {name} lists the options --help lists",
              f"missing {missing}, not in --help {extra}")
        differ = {o: (sorted(binary[o]), sorted(where[o])) for o in binary
                  if o in where and binary[o] != where[o]}
        check(not differ, f"the {name} names the commands each option is for",
              "\n".join(f"{o}: --help {a}, {name} {b}" for o, (a, b) in differ.items()))
    text = open(os.path.join(src, "man", "rocm-resolve.1")).read()
    envsec = text[text.index("\n.SH ENVIRONMENT"):text.index("\n.SH EXIT STATUS")]
    missing = sorted(v for v in envs if not re.search(r"^\.B[R]? .*\b%s\b" % v, envsec, re.M))
    check(not missing, f"every variable --help names is in the man page's ENVIRONMENT "
          f"({len(envs)})", missing)
    check("extra" not in overview.stdout or "after the primary" not in overview.stdout,
          "--help does not say extra indexes are asked after the default")
    plan = run(["help", "plan"]).stdout
    check("asked before the default" in plan and "asked last" in plan,
          "plan --help: --index / --extra-index-url before the default index, which is last")


def test_exact_and_per_command():
    for args, want in ((["--index-ur", "http://x/simple", safe], "did you mean '--index-url'"),
                       (["--extra-index", "http://x/simple", safe],
                        "did you mean '--extra-index-url'"),
                       (["--no-ind", safe], "did you mean '--no-index'"),
                       (["--inde", "http://x/simple", safe], "unknown option '--inde'")):
        p = run(["--no-index", "--venv", venv] + args)
        check(p.returncode == 2 and want in p.stderr and
              "rocm-resolve failed, no plan" in p.stdout,
              f"{args[0]} is no abbreviation: exit 2, {want!r}, the pipe fails",
              f"exit {p.returncode}\n{p.stderr}")
    for args, opt in ((["verify", "--lock"], "--lock"), (["inspect", "--no-index"], "--no-index"),
                      (["restore", "--format", "json"], "--format"),
                      (["check", "--require-gpu", safe], "--require-gpu"),
                      (["install", "--stack", "x.json", safe], "--stack")):
        p = run(args + ["--venv", venv])
        check(p.returncode == 2 and f"{args[0]} takes no option '{opt}'" in p.stderr,
              f"{' '.join(args[:2])}: a usage error naming the option", p.stderr)
    p = run(["help"])
    check(p.returncode == 0 and p.stdout == run(["--help"]).stdout, "help prints the overview")
    p = run(["help", "nosuch"])
    check(p.returncode == 2 and "no command 'nosuch'" in p.stderr, "help nosuch: exit 2",
          p.stderr)
    p = run(["help", "verify"])
    check("--backend" in p.stdout and "--lock" not in p.stdout and "--index" not in p.stdout,
          "help verify lists verify's options only", p.stdout)
    p = run(["check", "--help"])
    check("--write-testcase" in p.stdout and "--lock" not in p.stdout and
          "--require-gpu" not in p.stdout, "check --help lists check's options only")
    p = run(["--no-index", "--venv=" + venv, "--format=json", safe])
    check(p.returncode == 0 and p.stdout.startswith("{"), "--name=value is taken", p.stderr)
    p = run(["--no-index", "--venv", venv, "--lock=yes", safe])
    check(p.returncode == 2 and "'--lock' takes no value" in p.stderr, "--flag=value: exit 2",
          p.stderr)
    p = run(["--no-index", "--venv", venv, safe, "--timeout"])
    check(p.returncode == 2 and "'--timeout' needs a value" in p.stderr,
          "an option missing its value: exit 2", p.stderr)
    p = run(["verify", "--venv", venv, "x.txt"])
    check(p.returncode == 2 and "verify takes no INPUT" in p.stderr, "verify x.txt: exit 2")


def plan_lines(p):
    return [l for l in p.stdout.splitlines() if not l.startswith("#")]


def test_uv_meanings():
    base = ["--no-index", "--venv", venv]
    # --index entries are asked before --extra-index-url ones, whatever the order given (as
    # in uv); the plan writes --index-url first (pip lets it drop the lines before it)
    p = run(base + ["--default-index", "http://d.invalid/simple", "--extra-index-url",
                    "http://b.invalid/simple", "--index", "http://a.invalid/simple", safe])
    lines = plan_lines(p)
    idx = [l for l in lines if "index-url" in l]
    check(idx == ["--index-url http://d.invalid/simple",
                  "--extra-index-url http://a.invalid/simple",
                  "--extra-index-url http://b.invalid/simple"],
          "--index-url first, then --index before --extra-index-url", idx)
    p = run(base + ["-i", "http://one.invalid/simple", "--default-index",
                    "http://two.invalid/simple", safe])
    check("--index-url http://two.invalid/simple" in plan_lines(p) and
          "one.invalid" not in p.stdout, "the last default index given wins")
    # -r FILE is an INPUT: the same plan as the positional file
    a, b = run(base + ["-r", safe]), run(base + [safe])
    check(a.returncode == 0 and a.stdout == b.stdout, "-r FILE plans as FILE does", a.stderr)
    a = run(base + ["--requirement=" + safe])
    check(a.returncode == 0 and a.stdout == b.stdout, "--requirement=FILE too", a.stderr)
    # -c FILE: a constraints file, filtered as a file's own -c line is
    cons = os.path.join(src, "demo", "constraints.txt")
    p = run(base + ["-r", safe, "-c", cons])
    lines = plan_lines(p)
    check(p.returncode == 0 and any(l.startswith("-c ") and "/constraints-" in l for l in lines)
          and "demo/constraints.txt:2: -c torch==2.4.0: " in p.stdout and "demo/constraints.txt" in p.stdout,
          "-c FILE: torch==2.4.0 stripped from a filtered copy the plan refers to",
          p.stdout + p.stderr)
    p = run(base + ["-r", safe, "-c", "/nonexistent/c.txt"])
    check(p.returncode == 2 and "-c '/nonexistent/c.txt': cannot read it" in p.stderr,
          "-c with a missing file: exit 2 naming it", p.stderr)
    # --python: the venv's bin/python (a symlink, not followed) or its directory
    v = os.path.join(tmp, "pyvenv")
    shutil.copytree(venv, v, symlinks=True)
    os.makedirs(os.path.join(v, "bin"))
    os.symlink(sys.executable, os.path.join(v, "bin", "python"))
    want = run(["inspect", "--venv", v]).stdout
    for args, env in ((["--python", os.path.join(v, "bin", "python")], None),
                      (["-p", v], None),
                      ([], {"UV_PYTHON": os.path.join(v, "bin", "python")})):
        p = run(["inspect"] + args, env)
        check(p.returncode == 0 and p.stdout == want and v in p.stdout,
              f"inspect {' '.join(args) or 'with UV_PYTHON'}: the venv the interpreter is in",
              p.stderr)
    p = run(["inspect", "--python", "3.12"])
    check(p.returncode == 2 and "as a path" in p.stderr, "--python 3.12: exit 2, asks for a path",
          p.stderr)
    p = run(["inspect"], {"UV_PYTHON": "3.12", "VIRTUAL_ENV": venv})
    check(p.returncode == 0, "UV_PYTHON=3.12 (a version, for uv) is left alone", p.stderr)
    p = run(["inspect", "--python", v, "--venv", v])
    check(p.returncode == 2 and "--venv and --python" in p.stderr, "--python with --venv: exit 2")
    # --color: always and never decide regardless of NO_COLOR / CLICOLOR_FORCE
    demo = os.path.join(src, "demo", "requirements.txt")
    p = run(base + ["--color", "always", demo], {"NO_COLOR": "1"})
    check("\033[" in p.stderr, "--color always colours stderr (NO_COLOR set)", p.stderr[:200])
    p = run(base + ["--color", "never", demo], {"CLICOLOR_FORCE": "1"})
    check(p.returncode == 0 and "\033[" not in p.stderr and "warning" in p.stderr,
          "--color never: no colour (CLICOLOR_FORCE set)")
    p = run(base + ["--no-color", demo], {"CLICOLOR_FORCE": "1"})
    check("\033[" not in p.stderr, "--no-color: no colour")
    p = run(base + ["--color", "sometimes", demo])
    check(p.returncode == 2 and "auto, always or never" in p.stderr, "--color sometimes: exit 2")
    # UV_OFFLINE: the cache only; an index that is not running is never asked
    args = ["--venv", venv, "--index-url", "http://127.0.0.1:9/simple", safe]
    p = run(args, {"UV_OFFLINE": "1"})
    check(p.returncode == 3 and "offline and not cached" in p.stderr,
          "UV_OFFLINE=1: offline, the cache only", p.stderr)
    p = run(args, {"UV_OFFLINE": "0"})
    check(p.returncode == 3 and "offline and not cached" not in p.stderr,
          "UV_OFFLINE=0: the index is asked", p.stderr)


tmp = tempfile.mkdtemp(prefix="rr-options-")
try:
    os.makedirs(tmp + "/home")
    test_in_step()
    test_exact_and_per_command()
    test_uv_meanings()
finally:
    shutil.rmtree(tmp, ignore_errors=True)
print(f"{checks} checks, {len(failures)} failed")
sys.exit(1 if failures else 0)
