#!/usr/bin/env python3
"""check-layers.py - the include graph of src/ follows the layering of HACKING.md.

Every folder of src/ has a layer; a file may include its own folder's headers,
its own folder's private headers ("<folder>/x.h" or "x.h" next to it), and the
public headers (include/rocm-resolve/*.h) of folders on a lower layer. It may
never include a private header of another folder, nor a public header of a
folder on its own layer or above. Each public header is owned by one folder
(OWNER below); a new header or folder must be given its place here, which is
the point: where a module sits is decided once, in review.

Usage: tools/check-layers.py [SRCROOT]   (exit 1 and one line per violation)
"""
import os
import re
import sys

# lowest first; folders on one line share a layer and may not include each other
LAYERS = [
    ["base"],
    ["pep"],
    ["elf"],
    ["input", "venv", "gpu"],
    ["policy"],
    ["resolve"],
    ["index"],
    ["plan"],
    ["flow"],
    ["install", "testcase"],
    ["cli"],
]

# public header -> the folder that owns it
OWNER = {
    "error": "base", "file": "base", "sha256": "base", "strbuf": "base", "strv": "base", "strmap": "base",
    "util": "base", "url": "base", "json": "base", "parallel": "base",
    "marker": "pep", "metadata": "pep", "name": "pep", "requirement": "pep",
    "specifier": "pep", "tags": "pep", "version": "pep", "record": "pep", "modules": "pep",
    "reqfile": "input", "lockfile": "input", "config": "input", "tomledit": "input", "workspace": "input",
    "venv": "venv", "bridge": "venv",
    "verify": "gpu",
    "loadcheck": "elf",
    "policy": "policy", "stack": "policy", "stack-file": "policy", "loadenv": "policy",
    "provider": "resolve", "resolve": "resolve",
    "index": "index", "index-provider": "index",
    "plan": "plan", "resolution": "plan",
    "flow": "flow", "project": "flow",
    "store": "install", "install": "install",
    "testcase": "testcase",
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    src = os.path.join(root, "src")
    layer = {f: i for i, fs in enumerate(LAYERS) for f in fs}
    bad = []
    for folder in sorted(os.listdir(src)):
        path = os.path.join(src, folder)
        if not os.path.isdir(path):
            continue
        if folder not in layer:
            bad.append(f"src/{folder}/: a folder with no layer: give it one in tools/check-layers.py")
            continue
        for name in sorted(os.listdir(path)):
            if not name.endswith((".c", ".cc", ".h")):
                continue
            rel = f"src/{folder}/{name}"
            with open(os.path.join(path, name), encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    inc = m.group(1)
                    where = f"{rel}:{n}: #include \"{inc}\""
                    if inc.startswith("rocm-resolve/"):
                        h = inc[len("rocm-resolve/"):-2]
                        owner = OWNER.get(h)
                        if owner is None:
                            bad.append(f"{where}: header with no owner: add it to OWNER")
                        elif owner != folder and layer.get(owner, 99) >= layer[folder]:
                            bad.append(f"{where}: {owner} is not below {folder}")
                    elif "/" in inc:
                        other = inc.split("/", 1)[0]
                        if other != folder:
                            bad.append(f"{where}: private header of src/{other}/")
                    elif not os.path.exists(os.path.join(path, inc)):
                        bad.append(f"{where}: not a header of src/{folder}/")
    for b in bad:
        print(b)
    if bad:
        print(f"{len(bad)} layering violation(s); see HACKING.md", file=sys.stderr)
        return 1
    print("layers ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
