#!/usr/bin/env python3
"""The plan of the bundled demo reads as the held-back line does (issue 18 item 8): one
short cause per comment, no parentheses inside parentheses, no ".;" joins, nothing said
about a line "below" or "above", every comment at most 120 characters (the source root
written as @SRC@); check lists its lines in file order, as the plan's stripped list does."""
import os
import re
import subprocess
import sys

src = os.environ["RR_SRCDIR"]
exe = os.path.join(os.environ["RR_BUILDDIR"], "src", "cli", "rocm-resolve")
venv = os.path.join(src, "fixtures", "venvs", "rocm72")
env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX", "NO_COLOR")}
env.update({"RR_SYSROOT": os.path.join(src, "fixtures", "venvs", "sysroot-rocm72"),
            "NO_COLOR": "1", "XDG_DATA_HOME": os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                           "rr-plan-comments-data")})
failures = []


def check(ok, what, detail=""):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)
        if detail:
            print("     " + str(detail).replace("\n", "\n     "))


def depth(s):
    d = most = 0
    for ch in s:
        d += ch == "("
        d -= ch == ")"
        most = max(most, d)
    return most


def run(cmd):
    return subprocess.run([exe, cmd, "--no-index", "--venv", venv, "demo/requirements.txt"],
                          capture_output=True, text=True, env=env, cwd=src, timeout=60)


plan = run("plan")
check(plan.returncode == 0, "the demo plan exits 0", plan.stderr)
comments = []
for line in plan.stdout.replace(src, "@SRC@").splitlines():
    i = line.find("#")
    if i >= 0 and not line.startswith("-c "):
        comments.append(line[i:])
check(len(comments) > 15, f"the demo plan has comments ({len(comments)})")
for c in comments:
    problems = [w for w, bad in (("over 120 characters", len(c) > 120),
                                 ("parentheses inside parentheses", depth(c) > 1),
                                 ("a '.;' join", ".;" in c),
                                 ("'below' or 'above'", re.search(r"\b(below|above)\b", c)))
                if bad]
    check(not problems, f"comment {c[:60]!r}...: {', '.join(problems) or 'short, one cause'}", c)

# file order: check's lines and the plan's stripped list go by (input, line)
order = ["demo/requirements.txt", "demo/more-requirements.txt", "demo/constraints.txt"]


def positions(lines):
    out = []
    for l in lines:
        m = re.match(r"(?:#   )?(demo/[a-z-]+\.txt):(\d+): ", l)
        if m:
            out.append((order.index(m.group(1)), int(m.group(2))))
    return out


chk = run("check")
found = positions(chk.stderr.splitlines())
check(chk.returncode == 1 and len(found) >= 9 and found == sorted(found),
      f"check lists its {len(found)} lines in file order (the index option first)", chk.stderr)
stripped = positions(l for l in plan.stdout.splitlines() if l.startswith("#   "))
check(len(stripped) >= 8 and stripped == sorted(stripped),
      f"the plan's stripped list is in file order ({len(stripped)} lines)", plan.stdout)

print(f"{len(comments) + 3 - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
