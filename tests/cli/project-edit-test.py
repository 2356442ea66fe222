#!/usr/bin/env python3
"""`project --write` as an editor (issue 33 item 4, issue 28 item 6), over the layouts of
fixtures/project-layouts (offline: --no-index, the ROCm 7.2 fixture venv). Each case
fails on caf3dbd (see the comment on each):
  - test_layouts_twice: each layout written with DIR spelled "proj", "." and as an absolute
    path, twice: the second and third writes change nothing, `project --check` passes
    with every spelling, the comments name no path and no line, the user's lines stay;
  - test_array_bytes: the user's entries, comments and commented-out entries inside the
    two arrays stay byte for byte where they are; a later run updates only the tool's
    own entries (marked "rocm-resolve:");
  - test_uv_toml_beside: with a uv.toml beside the pyproject.toml the keys still go into
    the pyproject.toml (the only place uv lock applies them) and the user is told why;
  - test_no_constraints: a stack that requires nothing constrains nothing: --write
    writes the exclusions and no constraint-dependencies (it exited 70, "the edited file
    would not hold the intended 'constraint-dependencies'", found by issue 31's work)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib

from clitest import check, exe, rocm72 as venv, sanitizer_check, src, summary

layouts = os.path.join(src, "fixtures", "project-layouts")
KEYS = ("exclude-dependencies", "constraint-dependencies")


def run(args, cwd):
    p = subprocess.run([exe] + args, cwd=cwd, capture_output=True, timeout=60,
                       stdin=subprocess.DEVNULL)
    sanitizer_check(args, p.stderr)
    return p


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write_project(d, spelled, cwd):
    return run(["project", "--write", "--no-index", "-q", "--venv", venv, spelled], cwd)


def without_keys(doc):
    uv = doc.get("tool", {}).get("uv", {})
    for k in KEYS:
        uv.pop(k, None)
    if "uv" in doc.get("tool", {}) and not uv:
        del doc["tool"]["uv"]
    if "tool" in doc and not doc["tool"]:
        del doc["tool"]
    return doc


def test_layouts_twice(tmp):
    """33.4: caf3dbd wrote "asked for at proj/pyproject.toml:6" into the comment of a
    CUDA-only exclusion: `--write .`, `--write proj` and `--write /abs/path` each changed
    the committed file (the last with the user's directory layout in it), and with dotted
    keys at the top a second write moved the line number (":6" to ":26")"""
    for name in sorted(os.listdir(layouts)):
        if not name.endswith(".toml"):
            continue
        base = os.path.join(tmp, "layouts", name[:-5])
        proj = os.path.join(base, "proj")
        os.makedirs(proj)
        pp = os.path.join(proj, "pyproject.toml")
        shutil.copy(os.path.join(layouts, name), pp)
        orig = read(pp)
        outs = []
        for spelled, cwd in (("proj", base), (".", proj), (proj, "/"), ("proj", base)):
            p = write_project(proj, spelled, cwd)
            outs.append(read(pp))
            check(p.returncode == 0, f"{name}: project --write {spelled}: exit 0",
                  p.stderr.decode(errors="replace"))
        first = outs[0]
        check(all(o == first for o in outs), f"{name}: writes 2-4 (DIR as '.', absolute, "
              "'proj' again) change nothing",
              "\n---\n".join(o.decode(errors="replace") for o in outs))
        text = first.decode("utf-8")
        ours = [ln for ln in text.splitlines() if "# rocm-resolve:" in ln]
        check(ours and not any(re.search(r"pyproject\.toml|:\d+\b|/proj\b|" + re.escape(tmp), ln)
                               for ln in ours),
              f"{name}: the tool's comments name no path and no line", "\n".join(ours))
        for spelled, cwd in (("proj", base), (".", proj), (proj, "/")):
            p = run(["project", "--check", "--no-index", "-q", "--venv", venv, spelled], cwd)
            check(p.returncode == 0, f"{name}: project --check {spelled} passes",
                  p.stderr.decode(errors="replace"))
        # every line of the user's stays, in order (an empty `[]` aside, which opens up)
        new_lines = text.lstrip("\ufeff").splitlines()
        k = 0
        missing = []
        for ln in orig.decode("utf-8").lstrip("\ufeff").splitlines():
            if ln.rstrip().endswith("= []") or ln.startswith('exclude-dependencies = ["pywin32"]'):
                continue
            while k < len(new_lines) and new_lines[k] != ln:
                k += 1
            if k == len(new_lines):
                missing.append(ln)
                k = 0
        check(not missing, f"{name}: the user's lines stay, in order", missing)
        check(first.startswith(b"\xef\xbb\xbf") == orig.startswith(b"\xef\xbb\xbf") and
              (b"\r\n" in first) == (b"\r\n" in orig) and
              first.endswith(b"\n") == orig.endswith(b"\n"),
              f"{name}: BOM, line endings and the last line break as they were")
        before = without_keys(tomllib.loads(orig.decode("utf-8").lstrip("\ufeff")))
        after = tomllib.loads(text.lstrip("\ufeff"))
        uv = after.get("tool", {}).get("uv", {})
        check("torch" in uv.get("exclude-dependencies", []) and
              "nvidia-cublas-cu12" in uv.get("exclude-dependencies", []),
              f"{name}: torch and nvidia-cublas-cu12 excluded", uv)
        check(without_keys(after) == before, f"{name}: tomllib: the rest of the document as it was")


ARRAY_FILE = '''[project]
name = "demo"
version = "0.1.0"
dependencies = ["idna"]

[tool.uv]
exclude-dependencies = ["pywin32"]  # windows only
constraint-dependencies = [
    "requests<3",   # mine: corp policy
    # "urllib3<2",
]
'''


def test_array_bytes(tmp):
    """28.6: caf3dbd rewrote both arrays whole: the commented-out line was deleted, the
    user's entry re-indented and moved below the tool's, and the comment after
    exclude-dependencies = ["pywin32"] ended up after a 15-line array"""
    d = os.path.join(tmp, "array")
    os.makedirs(d)
    pp = os.path.join(d, "pyproject.toml")
    with open(pp, "w") as f:
        f.write(ARRAY_FILE)
    p = write_project(d, ".", d)
    text = read(pp).decode()
    check(p.returncode == 0, "array file: project --write exit 0", p.stderr)
    check('\n    "pywin32"]  # windows only\n' in text,
          "the user's pywin32 keeps its comment and the ']' on its line", text)
    check(re.search(r'constraint-dependencies = \[\n(    "[^"]+",  # rocm-resolve: [^\n]*\n)+'
                    r'    "requests<3",   # mine: corp policy\n    # "urllib3<2",\n\]\n$', text),
          "constraint-dependencies: the tool's entries first, then the user's lines byte for "
          "byte, the commented-out entry kept", text)
    lines = text.splitlines()
    users = [ln for ln in lines if ln.strip().startswith('"') and "rocm-resolve:" not in ln]
    check(users == ['    "pywin32"]  # windows only', '    "requests<3",   # mine: corp policy'],
          "no other entry without the tool's mark", users)
    # a later run: one of the tool's entries stale, one missing, the user's untouched
    stale = text.replace('    "requests<3",',
                         '    "old-pkg==1.0",  # rocm-resolve: held back by a stack long gone\n'
                         '    "requests<3",', 1)
    torch_line = next(ln for ln in lines if ln.startswith('    "torch",'))
    stale = stale.replace(torch_line + "\n", "", 1)
    with open(pp, "w") as f:
        f.write(stale)
    p = write_project(d, ".", d)
    check(p.returncode == 0 and read(pp).decode() == text,
          "a later run updates only the tool's entries (the stale one out, the missing one "
          "back), the user's lines as they were", read(pp).decode())


def test_uv_toml_beside(tmp):
    """28.6: with a uv.toml beside, the keys stay in pyproject.toml (uv lock applies them
    only from there; in uv.toml they have no effect) and the user is told, since uv warns
    they "will be ignored" (caf3dbd said nothing)"""
    d = os.path.join(tmp, "uvtoml")
    os.makedirs(d)
    pp = os.path.join(d, "pyproject.toml")
    with open(pp, "w") as f:
        f.write(ARRAY_FILE)
    with open(os.path.join(d, "uv.toml"), "w") as f:
        f.write('native-tls = true\n')
    p = run(["project", "--write", "--no-index", "--venv", venv, "."], d)
    err = p.stderr.decode(errors="replace")
    doc = tomllib.loads(read(pp).decode())
    check(p.returncode == 0 and "torch" in doc["tool"]["uv"]["exclude-dependencies"],
          "uv.toml beside: the keys are written into pyproject.toml", err)
    check(read(os.path.join(d, "uv.toml")) == b"native-tls = true\n", "uv.toml is not touched")
    check("uv.toml sits beside" in err and "apply these two keys from pyproject.toml only" in err,
          "the user is told where the keys belong and what uv does with them", err)


def test_no_constraints(tmp):
    d = os.path.join(tmp, "noconstraints")
    os.makedirs(d)
    inspect = run(["inspect", "--format", "json", "--venv", venv], d)
    doc = json.loads(inspect.stdout)
    keep = [x for x in doc["distributions"] if x["name"] in ("torch", "triton")]
    for x in keep:
        x["requires_dist"] = []
    doc["distributions"] = keep
    doc["protected"] = [x for x in doc["protected"] if x["name"] in ("torch", "triton")]
    with open(os.path.join(d, "stack.json"), "w") as f:
        json.dump(doc, f)
    with open(os.path.join(d, "pyproject.toml"), "w") as f:
        f.write('[project]\nname = "p"\nversion = "0.1"\ndependencies = ["tqdm", "torch"]\n')
    p = run(["project", "--write", "--no-index", "-q", "--stack", "stack.json", "."], d)
    uv = tomllib.loads(read(os.path.join(d, "pyproject.toml")).decode()).get("tool", {}).get("uv", {})
    check(p.returncode == 0 and "torch" in uv.get("exclude-dependencies", [])
          and "constraint-dependencies" not in uv,
          "a stack requiring nothing: exclusions written, no constraint-dependencies, exit 0",
          p.stderr.decode(errors="replace") + str(uv))
    p = run(["project", "--check", "--no-index", "-q", "--stack", "stack.json", "."], d)
    check(p.returncode == 0, "... and --check passes", p.stderr.decode(errors="replace"))


def main():
    with tempfile.TemporaryDirectory(prefix="rr-project-edit-") as tmp:
        for t in (test_layouts_twice, test_array_bytes, test_uv_toml_beside, test_no_constraints):
            print(f"# {t.__name__}")
            t(tmp)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
