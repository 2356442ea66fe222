#!/usr/bin/python3
"""The [tool.uv] editor (src/input/tomledit.c) judged by Python's tomllib.

    tomledit_diff.py RR_TOMLEDIT [CORPUS_DIR]

For tricky hand-written documents (comments, inline tables, dotted keys, quoted
keys, multi-line strings, arrays of tables, no [tool.uv], no trailing line break),
each also with CRLF line endings, and for every pyproject.toml of the shared corpus:
  - the result parses with tomllib;
  - tool.uv.exclude-dependencies and constraint-dependencies hold exactly the values set;
  - everything else parses exactly as before (the tables the edit created aside);
  - every line of the original that is not part of an old value of those keys is
    still there, in order and byte for byte (nothing else rewritten).
Documents whose tool.uv is an inline table must be refused (exit 2, 'inline table')."""
import os
import subprocess
import sys
import tempfile
import tomllib

EXCLUDE = ["torch", "pytorch-triton-rocm"]
CONSTRAINT = ["demo-kernels==0.4.0", "numpy<2"]
KEYS = ("exclude-dependencies", "constraint-dependencies")

CASES = {
    "absent": '[project]\nname = "p"\ndependencies = ["torch>=2.3"]\n',
    "empty": "",
    "comments-only": "# a comment\n\n# another\n",
    "no-trailing-newline": '[project]\nname = "p"',
    "table-with-keys": '[tool.uv]  # uv\n  index-strategy = "first-index"  # keep\n\n# ruff\n[tool.ruff]\nx = 1\n',
    "replace": '[tool.uv]\nexclude-dependencies = [ # old\n  "torch", # mine\n  \'x]y\',\n] # end\nconstraint-dependencies = []\n',
    "quoted-keys": '[tool."uv"]\n"exclude-dependencies" = ["a"]\n\'constraint-dependencies\' = [\n]\n',
    "dotted-root": 'tool.uv.native-tls = true\n[project]\nname = "p"\n',
    "dotted-tool": '[tool]\nuv.native-tls = true\nblack.line-length = 9\n',
    "dotted-key-itself": 'tool.uv.constraint-dependencies = [\n  "a",\n]\n[project]\nname = "p"\n',
    "subtables-only": '[project]\nname = "p"\n\n[tool.uv.sources]\ntorch = { index = "rocm" }\n\n[[tool.uv.index]]\nname = "rocm"\nurl = "https://x/simple"\nexplicit = true\n',
    "array-tables-before": '[[tool.uv.index]]\nurl = "https://a"\n[[tool.uv.index]]\nurl = "https://b"\n[tool.uv]\ndev-dependencies = ["pytest"]\n',
    "multiline-strings": '[project]\ndescription = """\n[tool.uv]\nexclude-dependencies = ["x"]\n"""\nreadme = \'\'\'a # not a comment\'\'\'\nlit = \'\'\'\n[[x]]\n\'\'\'\n',
    "escapes": '[project]\nname = "p\\"]#"\nq = "a\\u00e9\\\\"\n[tool.uv]\nconstraint-dependencies = ["x\\u00e9", \'lit\\\\\']\n',
    "dates-numbers": '[tool.other]\nwhen = 1979-05-27 07:32:00Z\nn = 1_000\nf = -inf\n[tool.uv]\nnative-tls = true # c\n',
    "indent-tabs": '[tool.uv]\n\tnative-tls = true\n\t# note\n[x]\ny = 2\n',
    "uv-last-no-newline": '[project]\nname = "p"\n[tool.uv]\nnative-tls = true',
    "nested-inline": '[project]\nauthors = [{ name = "A ]", email = "a@x" }, {name="b"}]\nurls = { home = "https://x#y" }\n',
    "unicode": '[project]\nname = "p"\ndescription = "héllo wörld ✓"\n# 日本語\n',
    "blank-lines-end": '[project]\nname = "p"\n\n\n',
}
INLINE = {
    "inline-uv": '[tool]\nuv = { native-tls = true }\n',
    "inline-tool": 'tool = { uv = { native-tls = true } }\n',
}


def strip(d, created):
    uv = d.get("tool", {}).get("uv")
    if isinstance(uv, dict):
        for k in KEYS:
            uv.pop(k, None)
        if "uv" in created and not uv:
            del d["tool"]["uv"]
    if "tool" in created and not d.get("tool", True):
        del d["tool"]
    return d


def old_value_lines(text):
    """line numbers (0-based) of the old values of the keys, which the edit replaces:
    from the key's line through the line that closes its array"""
    out, inside = set(), False
    for i, line in enumerate(text.splitlines(keepends=True)):
        s = line.strip()
        starts = any(s.startswith(p) for k in KEYS
                     for p in (k, f'"{k}"', f"'{k}'", f"tool.uv.{k}", f"uv.{k}"))
        if starts:
            out.add(i)
            value = s.split("=", 1)[1].split("#", 1)[0].strip()
            inside = value.startswith("[") and not value.endswith("]")
        elif inside:
            out.add(i)
            inside = not s.startswith("]")
    return out


def check(name, text, exe, fails):
    with tempfile.NamedTemporaryFile("wb", suffix=".toml", delete=False) as fh:
        fh.write(text.encode())
        path = fh.name
    try:
        r = subprocess.run([exe, path], capture_output=True)
    finally:
        os.unlink(path)
    if name.split("+")[0] in INLINE:
        if r.returncode != 2 or b"inline table" not in r.stderr:
            fails.append(f"{name}: expected a refusal, got {r.returncode} {r.stderr!r}")
        return
    if r.returncode != 0:
        fails.append(f"{name}: exit {r.returncode}: {r.stderr.decode(errors='replace')}")
        return
    out = r.stdout.decode()
    try:
        before = tomllib.loads(text)
        after = tomllib.loads(out)
    except tomllib.TOMLDecodeError as e:
        fails.append(f"{name}: tomllib refuses the result: {e}\n{out}")
        return
    uv = after.get("tool", {}).get("uv", {})
    if uv.get(KEYS[0]) != EXCLUDE or uv.get(KEYS[1]) != CONSTRAINT:
        fails.append(f"{name}: wrong values {uv}")
    created = set()
    if "tool" not in before:
        created |= {"tool", "uv"}
    elif "uv" not in before["tool"]:
        created.add("uv")
    if strip(before, set()) != strip(after, created):
        fails.append(f"{name}: the rest changed:\n{before}\n{after}")
    # every original line outside the old values is still there, in order
    skip = old_value_lines(text)
    orig = [l for i, l in enumerate(text.splitlines(keepends=True)) if i not in skip]
    res = out.splitlines(keepends=True)
    j = 0
    for line in orig:
        while j < len(res) and res[j] != line and not (line == res[j].rstrip("\r\n") and not line.endswith("\n")):
            j += 1
        if j == len(res):
            fails.append(f"{name}: original line {line!r} lost or rewritten:\n{out}")
            return
        j += 1
    if "\r\n" in text and "\n" in out.replace("\r\n", ""):
        fails.append(f"{name}: a bare LF in a CRLF document:\n{out!r}")


def main():
    exe = sys.argv[1]
    corpus = sys.argv[2] if len(sys.argv) > 2 else None
    fails, n = [], 0
    for name, text in list(CASES.items()) + list(INLINE.items()):
        check(name, text, exe, fails)
        check(name + "+crlf", text.replace("\n", "\r\n"), exe, fails)
        n += 2
    pp = os.path.join(corpus, "pyproject") if corpus else None
    if pp and os.path.isdir(pp):
        for f in sorted(os.listdir(pp)):
            text = open(os.path.join(pp, f), encoding="utf-8", newline="").read()
            check("corpus/" + f, text, exe, fails)
            n += 1
    else:
        print("note: no shared corpus; hand-written documents only")
    for f in fails:
        print("FAIL", f)
    print(f"{n - len(fails)} passed, {len(fails)} failed")
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
