#!/usr/bin/env python3
"""Embed files into C: embed.py OUT.c OUT.h SYMBOL=FILE...

Each SYMBOL becomes `const unsigned char SYMBOL[]` (NUL-terminated) and
`const size_t SYMBOL_len` (without the NUL)."""
import sys

out_c, out_h, *pairs = sys.argv[1:]
with open(out_c, "w") as c, open(out_h, "w") as h:
    h.write("#pragma once\n#include <stddef.h>\n")
    c.write("#include <stddef.h>\n")
    for pair in pairs:
        sym, path = pair.split("=", 1)
        data = open(path, "rb").read()
        h.write(f"extern const unsigned char {sym}[];\nextern const size_t {sym}_len;\n")
        c.write(f"const unsigned char {sym}[] = {{\n")
        for i in range(0, len(data), 16):
            c.write("".join(f"{b},"for b in data[i:i + 16]) + "\n")
        c.write(f"0}};\nconst size_t {sym}_len = {len(data)};\n")
