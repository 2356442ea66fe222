#!/usr/bin/env python3
"""check-symbols.py - the built binaries ask nothing of the system that the release
wheel's manylinux tag does not promise.

A manylinux_2_N wheel may need, from the libraries every such system has (glibc,
libstdc++, libgcc_s), only symbol versions up to the tag's policy (auditwheel's
manylinux-policy.json: GLIBC_2.N, GLIBCXX_3.4.x, CXXABI_1.3.x, GCC_x). The tag is
`plat=` in tools/wheel-chroot.sh (the README names the same one). For every versioned
symbol the binaries and the libraries the wheel bundles (every NEEDED library the
policy does not list: Jansson, PCRE2) need, this says whether the tag allows it and
fails, naming the symbol and the source file that needs it, when it does not.

This machine's glibc may be newer than the tag's: a symbol glibc also has at an older
version (pthread_create@GLIBC_2.34 is also pthread_create@GLIBC_2.2.5; stat@GLIBC_2.33
is what older headers call __xstat@GLIBC_2.2.5) is this machine's default, not a need of
the source, and the release build (an older glibc) binds the old one. A need found in no
object of ours comes from the toolchain's start files or its runtime, linked in
(-static-libstdc++): it follows the glibc that toolchain was built for,
and the release build's toolchain is the chroot's (auditwheel --only-plat checks it
there), so it is shown, not failed. What our sources need (their objects name the
symbol) and what the bundled libraries need is failed.

Usage: tools/check-symbols.py SRCROOT BUILDDIR BINARY...
Exit 0: within the policy; 1: a need beyond it (one line each); 77: no readelf.
"""
import json
import os
import re
import shutil
import subprocess
import sys

# auditwheel's manylinux-policy.json, x86_64: the newest version of each library's
# symbol versions a tag allows (non-numeric ones, CXXABI_TM_1 and CXXABI_FLOAT128, are
# allowed by every tag), and the libraries a wheel may link without bundling them
POLICY = {
    "manylinux_2_28": {"GLIBC": "2.28", "GLIBCXX": "3.4.24", "CXXABI": "1.3.11", "GCC": "7.0.0"},
    "manylinux_2_31": {"GLIBC": "2.31", "GLIBCXX": "3.4.28", "CXXABI": "1.3.12", "GCC": "7.0.0"},
    "manylinux_2_34": {"GLIBC": "2.34", "GLIBCXX": "3.4.29", "CXXABI": "1.3.13", "GCC": "7.0.0"},
}
SYSTEM_LIBS = {
    "libatomic.so.1", "libgcc_s.so.1", "libstdc++.so.6", "libm.so.6", "libmvec.so.1",
    "libanl.so.1", "libdl.so.2", "librt.so.1", "libc.so.6", "libnsl.so.1", "libutil.so.1",
    "libpthread.so.0", "libresolv.so.2", "libexpat.so.1", "libz.so.1",
    "ld-linux-x86-64.so.2", "libX11.so.6", "libXext.so.6", "libXrender.so.1", "libICE.so.6",
    "libSM.so.6", "libGL.so.1", "libgobject-2.0.so.0", "libgthread-2.0.so.0",
    "libglib-2.0.so.0",
}
GLIBC_LIBS = ("libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
              "libutil.so.1", "libresolv.so.2", "libanl.so.1", "ld-linux-x86-64.so.2")
# symbols that headers of a glibc older than the tag's do not make a program call at all
HEADERS_OLDER = {
    # glibc 2.33 made the stat family real functions; before, <sys/stat.h> called
    # __xstat, __fxstat, __lxstat, __fxstatat and __xmknod@GLIBC_2.2.5
    **{s: "older <sys/stat.h> calls __xstat and friends (GLIBC_2.2.5)"
       for s in ("stat", "fstat", "lstat", "fstatat", "stat64", "fstat64", "lstat64",
                 "fstatat64", "mknod", "mknodat")},
    # libstdc++'s <ext/atomicity.h> reads it only where <sys/single_threaded.h> exists
    "__libc_single_threaded": "older glibc has no <sys/single_threaded.h>: libstdc++'s "
                              "headers ask __gthread_active_p instead",
}


def vkey(v):
    return tuple(int(x) for x in v.split("."))


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def needs(path):
    """{(symbol, version)} of the undefined, versioned dynamic symbols of an ELF file"""
    out = set()
    for line in run("readelf", "-W", "--dyn-syms", path).splitlines():
        f = line.split()
        if len(f) >= 8 and f[6] == "UND" and "@" in f[7]:
            sym, _, ver = f[7].partition("@")
            out.add((sym, ver.lstrip("@")))
    return out


def defined(path):
    """{symbol: {version}} of what an ELF library defines"""
    out = {}
    for line in run("readelf", "-W", "--dyn-syms", path).splitlines():
        f = line.split()
        if len(f) >= 8 and f[6] != "UND":
            sym, _, ver = f[7].partition("@")
            out.setdefault(sym, set()).add(ver.lstrip("@"))
    return out


def libraries(path):
    """{soname: path} of what the dynamic linker loads for an ELF file"""
    out = {}
    for line in run("ldd", path).splitlines():
        m = re.match(r"\s*(\S+) => (\S+)", line) or re.match(r"\s*(/\S+/(\S+))", line)
        if m and "=>" in line:
            out[m.group(1)] = m.group(2)
        elif m:
            out[m.group(2)] = m.group(1)
    return out


def cxx_needs(path):
    return {(s, v.partition("_")[0]) for s, v in needs(path)
            if v.startswith(("GLIBCXX_", "CXXABI_", "GCC_"))}


def demangle(names):
    if not names or not shutil.which("c++filt"):
        return {n: n for n in names}
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True,
                         text=True).stdout.splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else {n: n for n in names}


def main():
    if len(sys.argv) < 4:
        print(__doc__.split("Usage: ")[1].splitlines()[0], file=sys.stderr)
        return 2
    src, build, bins = sys.argv[1], sys.argv[2], sys.argv[3:]
    if not shutil.which("readelf"):
        print("# readelf (binutils) not found")
        return 77
    with open(os.path.join(src, "tools", "wheel-chroot.sh"), encoding="utf-8") as f:
        m = re.search(r"^plat=(manylinux_\d+_\d+)_x86_64\b", f.read(), re.M)
    tag = m.group(1)
    if tag not in POLICY:
        print(f"tools/wheel-chroot.sh: plat={tag}_x86_64, and this test knows no policy for "
              f"it: add it to POLICY from auditwheel's manylinux-policy.json")
        return 1
    policy = POLICY[tag]

    # which of our sources name each undefined symbol (meson's compile database)
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        db = json.load(f)
    objs = {}
    for e in db:
        out = os.path.normpath(os.path.join(e["directory"], e["output"]))
        rel = os.path.relpath(os.path.normpath(os.path.join(e["directory"], e["file"])), src)
        if os.path.exists(out) and not rel.startswith(("tests", "..")):
            objs[out] = rel
    users = {}
    if objs:
        for line in run("nm", "-u", "-A", *sorted(objs)).splitlines():
            obj, _, rest = line.partition(": ")
            sym = rest.split()[-1] if rest.split() else ""
            if obj in objs:
                users.setdefault(sym, set()).add(objs[obj])

    problems, notes = [], []
    glibc_defs = {}

    def older_glibc_has(sym, libs):
        for name in GLIBC_LIBS:
            path = libs.get(name) or os.path.join(os.path.dirname(libs.get("libc.so.6", "/")), name)
            if path not in glibc_defs:
                glibc_defs[path] = defined(path) if os.path.exists(path) else {}
            for v in glibc_defs[path].get(sym, ()):
                if v.startswith("GLIBC_") and re.fullmatch(r"[\d.]+", v[6:]) and \
                        vkey(v[6:]) <= vkey(policy["GLIBC"]):
                    return v
        return None

    def judge(what, path, libs, who, ours):
        """who(symbol) -> (sources, from_toolchain); ours: built from our sources here"""
        seen = {}
        for sym, ver in sorted(needs(path)):
            fam, _, num = ver.partition("_")
            if fam not in policy or not re.fullmatch(r"[\d.]+", num):
                continue
            seen[fam] = max(seen.get(fam, "0"), num, key=vkey)
            if vkey(num) <= vkey(policy[fam]):
                continue
            srcs, toolchain = who(sym)
            if fam == "GLIBC":
                old = older_glibc_has(sym, libs)
                if old:
                    continue  # this machine's default version; older glibc binds old
                if sym in HEADERS_OLDER and ours and srcs:
                    continue
                if toolchain:
                    notes.append(f"{what}: {sym}@{ver} comes from no object of ours (the "
                                 f"toolchain's start files or runtime, linked in: it follows "
                                 f"the glibc that toolchain was built for)")
                    continue
            problems.append((what, sym, ver, fam, srcs))
        return seen

    for b in bins:
        path = os.path.join(build, b)
        libs = libraries(path)
        seen = judge(b, path, libs,
                     lambda s: (sorted(users.get(s, ())), not users.get(s)), True)
        for soname in ("libstdc++.so.6",):
            if soname in libs:
                problems.append((b, soname, None, None, sorted(
                    {s for sym, fam in cxx_needs(path) for s in users.get(sym, ())})))
        print(f"# {b}: newest needs " +
              ", ".join(f"{k}_{v}" for k, v in sorted(seen.items())) +
              f"; {tag} allows " + ", ".join(f"{k}_{v}" for k, v in sorted(policy.items())))
        for soname, lpath in sorted(libs.items()):
            if soname in SYSTEM_LIBS or soname.startswith("linux-vdso"):
                continue
            # the sources that make us link it: those naming a symbol it defines
            mine = defined(lpath)
            srcs = sorted({s for sym in mine for s in users.get(sym, ())})
            what = f"{soname} (bundled into the wheel, from {lpath}; used by " + \
                (", ".join(srcs) if srcs else "the binary") + ")"
            seen = judge(what, lpath, libraries(lpath), lambda s, srcs=srcs: (srcs, False), False)
            print(f"# {soname} (bundled): newest needs " +
                  ", ".join(f"{k}_{v}" for k, v in sorted(seen.items())))

    for n in notes:
        print(f"# note: {n}")
    names = demangle(sorted({p[1] for p in problems}))
    for what, sym, ver, fam, srcs in problems:
        if ver is None:
            print(f"{what}: links the shared C++ runtime {sym}: the GLIBCXX_/CXXABI_/GCC_ "
                  f"versions it needs depend on the compiler that builds it, and the "
                  f"release build's is not this one; link it in (-Dstatic_cxx_runtime=true, "
                  f"meson.build). Its users: " + (", ".join(srcs) or "the start files"))
            continue
        shown = names.get(sym, sym)
        shown = sym if shown == sym else f"{sym} ({shown})"
        print(f"{what}: needs {shown}@{ver}, newer than {tag}_x86_64 allows "
              f"({fam}_{policy[fam]} at most): needed by " +
              (", ".join(srcs) if srcs else "the toolchain's runtime"))
    if problems:
        print(f"{len(problems)} needs beyond {tag}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
