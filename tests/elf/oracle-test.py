#!/usr/bin/env python3
"""The load check against the real loader.

Fixture shared objects are built here with gcc from tiny C (and C++) files: stand-ins for
libamdhip64.so.6/.7, libcudart.so.12, torch's libc10.so with and without a symbol, a library
with symbol versions, RPATH and RUNPATH with $ORIGIN, libraries a search passes over or
stops at, and extensions linking each. For every case, elf-probe (the check, on paper) and
dlopen-oracle (glibc's dlopen(RTLD_NOW) in a fresh process, the same LD_LIBRARY_PATH and
preloads; the check is told that process is the interpreter) must agree: loads or not, and
why (the library not found, the symbol or version missing, the file refused). Any
disagreement fails. The cases' expected verdicts are asserted too, so that a fixture that
no longer tests what it says fails as well. CUDA and ROCm-major findings (no loader
equivalent) are asserted from the cases.

Then objects in memory checked as if installed at a path (a wheel's member): the file's
verdict at the file's own path, $ORIGIN the given path's elsewhere. Then the loader's
cache: the check's reading of /etc/ld.so.cache against `ldconfig -p`."""
import os
import shutil
import subprocess
import sys
import tempfile

PROBE = os.environ["RR_ELF_PROBE"]
ORACLE = os.environ["RR_DLOPEN_ORACLE"]


def skip(msg):
    print(f"SKIP: {msg}")
    sys.exit(77)


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    return r.stdout


class Fixtures:
    def __init__(self, root):
        self.root = root
        self.n = 0

    def path(self, rel):
        return os.path.join(self.root, rel)

    def lib(self, rel, src, flags=(), cxx=False, soname=None):
        """build <root>/<rel> from src (a shared object)"""
        out = self.path(rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        self.n += 1
        srcfile = os.path.join(self.root, "src", f"s{self.n}.{'cc' if cxx else 'c'}")
        os.makedirs(os.path.dirname(srcfile), exist_ok=True)
        with open(srcfile, "w") as f:
            f.write(src)
        cmd = ["g++" if cxx else "gcc", "-shared", "-fPIC", "-O1", "-o", out, srcfile]
        if soname:
            cmd.append(f"-Wl,-soname,{soname}")
        run(cmd + list(flags))
        return out

    def text(self, rel, content):
        out = self.path(rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "w") as f:
            f.write(content)
        return out


def runpath(*dirs, new=True):
    return [("-Wl,--enable-new-dtags" if new else "-Wl,--disable-new-dtags"),
            "-Wl,-rpath," + ":".join(dirs)]


def build(fx):
    L = fx.path
    fx.lib("lib7/libamdhip64.so.7", "int hipInit(unsigned f) { return (int)f; }\n",
           soname="libamdhip64.so.7")
    fx.lib("lib6/libamdhip64.so.6", "int hipInit(unsigned f) { return (int)f; }\n",
           soname="libamdhip64.so.6")
    fx.lib("cuda/libcudart.so.12", "int cudaMalloc(void **p, unsigned long n) { *p = 0; return (int)n; }\n",
           soname="libcudart.so.12")
    fx.lib("torch_ok/libc10.so", "namespace c10 { int foo(int x) { return x + 1; } int bar() { return 2; } }\n",
           cxx=True, soname="libc10.so")
    fx.lib("torch_old/libc10.so", "namespace c10 { int bar() { return 2; } }\n", cxx=True, soname="libc10.so")
    vs2 = fx.text("src/v2.map", "VERS_1 { global: ver_a; local: *; };\nVERS_2 { global: ver_b; } VERS_1;\n")
    vs1 = fx.text("src/v1.map", "VERS_1 { global: ver_a; local: *; };\n")
    fx.lib("vers/libver.so.1", "int ver_a(void) { return 1; }\nint ver_b(void) { return 2; }\n",
           flags=[f"-Wl,--version-script={vs2}"], soname="libver.so.1")
    fx.lib("vers_old/libver.so.1", "int ver_a(void) { return 1; }\n", flags=[f"-Wl,--version-script={vs1}"],
           soname="libver.so.1")
    fx.lib("leafdir/libleaf.so", "int leaf_fn(void) { return 3; }\n", soname="libleaf.so")
    fx.lib("mid/libmid.so", "int leaf_fn(void);\nint mid_fn(void) { return leaf_fn(); }\n",
           flags=["-L" + L("leafdir"), "-lleaf"], soname="libmid.so")
    fx.lib("precA/libprec.so", "int prec_sym(void) { return 1; }\nint prec_other(void) { return 0; }\n",
           soname="libprec.so")
    fx.lib("precB/libprec.so", "int prec_other(void) { return 0; }\n", soname="libprec.so")
    fx.lib("goodlib/libbad.so", "int bad_fn(void) { return 0; }\n", soname="libbad.so")
    fx.text("badlib/libbad.so", "this is not an ELF file, only words that a loader cannot map\n" * 4)
    fx.lib("goodshort/libshort.so", "int short_fn(void) { return 0; }\n", soname="libshort.so")
    fx.text("shortlib/libshort.so", "tiny\n")
    skip_so = fx.lib("goodskip/libskip.so", "int skip_fn(void) { return 0; }\n", soname="libskip.so")
    os.makedirs(L("other"), exist_ok=True)
    data = bytearray(open(skip_so, "rb").read())
    data[4] = 1  # EI_CLASS: ELFCLASS32, a file of another class the search passes over
    open(L("other/libskip.so"), "wb").write(bytes(data))
    fx.lib("prov/libprovider.so", "int provided_sym(void) { return 5; }\n", soname="libprovider.so")
    fx.lib("prov/libneedsym.so", "int provided_sym(void);\nint use_it(void) { return provided_sym(); }\n",
           soname="libneedsym.so")
    fx.lib("glob/libglobal.so", "int gsym(void) { return 7; }\n", soname="libglobal.so")

    ext = "ext/"
    call_hip = "int hipInit(unsigned);\nint ext(void) { return hipInit(0); }\n"
    fx.lib(ext + "ext_hip7.so", call_hip, ["-L" + L("lib7"), "-l:libamdhip64.so.7"] + runpath("$ORIGIN/../lib7"))
    fx.lib(ext + "ext_brace.so", call_hip, ["-L" + L("lib7"), "-l:libamdhip64.so.7"] + runpath("${ORIGIN}/../lib7"))
    fx.lib(ext + "ext_hip6_missing.so", call_hip,
           ["-L" + L("lib6"), "-l:libamdhip64.so.6"] + runpath("$ORIGIN/../lib7"))
    fx.lib(ext + "ext_hip6.so", call_hip, ["-L" + L("lib6"), "-l:libamdhip64.so.6"] + runpath("$ORIGIN/../lib6"))
    call_cuda = "int cudaMalloc(void **, unsigned long);\nint ext(void) { void *p; return cudaMalloc(&p, 4); }\n"
    fx.lib(ext + "ext_cuda.so", call_cuda, ["-L" + L("cuda"), "-l:libcudart.so.12"] + runpath("$ORIGIN/../cuda"))
    fx.lib(ext + "ext_cuda_missing.so", call_cuda, ["-L" + L("cuda"), "-l:libcudart.so.12"])
    call_c10 = "namespace c10 { int foo(int); }\nextern \"C\" int ext(void) { return c10::foo(1); }\n"
    fx.lib(ext + "ext_torch.so", call_c10, ["-L" + L("torch_ok"), "-lc10"] + runpath("$ORIGIN/../torch_ok"),
           cxx=True)
    fx.lib(ext + "ext_torch_old.so", call_c10, ["-L" + L("torch_ok"), "-lc10"] + runpath("$ORIGIN/../torch_old"),
           cxx=True)
    fx.lib(ext + "ext_torch_bare.so", call_c10, ["-L" + L("torch_ok"), "-lc10"], cxx=True)
    call_ver = "int ver_b(void);\nint ext(void) { return ver_b(); }\n"
    fx.lib(ext + "ext_ver2.so", call_ver, ["-L" + L("vers"), "-l:libver.so.1"] + runpath("$ORIGIN/../vers_old"))
    fx.lib(ext + "ext_ver2_ok.so", call_ver, ["-L" + L("vers"), "-l:libver.so.1"] + runpath("$ORIGIN/../vers"))
    call_mid = "int mid_fn(void);\nint ext(void) { return mid_fn(); }\n"
    mid_link = ["-L" + L("mid"), "-lmid", "-Wl,-rpath-link," + L("leafdir")]
    fx.lib(ext + "ext_rpath.so", call_mid, mid_link + runpath("$ORIGIN/../mid", "$ORIGIN/../leafdir", new=False))
    fx.lib(ext + "ext_runpath.so", call_mid, mid_link + runpath("$ORIGIN/../mid", "$ORIGIN/../leafdir"))
    call_prec = "int prec_sym(void);\nint ext(void) { return prec_sym(); }\n"
    fx.lib(ext + "ext_prec_rpath.so", call_prec, ["-L" + L("precA"), "-lprec"] + runpath("$ORIGIN/../precA", new=False))
    fx.lib(ext + "ext_prec_runpath.so", call_prec, ["-L" + L("precA"), "-lprec"] + runpath("$ORIGIN/../precA"))
    fx.lib(ext + "ext_bad.so", "int bad_fn(void);\nint ext(void) { return bad_fn(); }\n",
           ["-L" + L("goodlib"), "-lbad"] + runpath("$ORIGIN/../badlib", "$ORIGIN/../goodlib"))
    fx.lib(ext + "ext_short.so", "int short_fn(void);\nint ext(void) { return short_fn(); }\n",
           ["-L" + L("goodshort"), "-lshort"] + runpath("$ORIGIN/../shortlib"))
    call_skip = "int skip_fn(void);\nint ext(void) { return skip_fn(); }\n"
    fx.lib(ext + "ext_skip.so", call_skip, ["-L" + L("goodskip"), "-lskip"] + runpath("$ORIGIN/../other", "$ORIGIN/../goodskip"))
    fx.lib(ext + "ext_skip_only.so", call_skip, ["-L" + L("goodskip"), "-lskip"] + runpath("$ORIGIN/../other"))
    fx.lib(ext + "ext_weak.so", "extern int missing_fn(void) __attribute__((weak));\n"
           "int ext(void) { return missing_fn ? missing_fn() : 0; }\n")
    fx.lib(ext + "ext_undef.so", "int nowhere_fn(void);\nint ext(void) { return nowhere_fn(); }\n")
    call_use = "int use_it(void);\nint ext(void) { return use_it(); }\n"
    fx.lib(ext + "ext_under.so", call_use,
           ["-L" + L("prov"), "-Wl,--no-as-needed", "-lneedsym", "-lprovider"] + runpath("$ORIGIN/../prov"))
    fx.lib(ext + "ext_under_bad.so", call_use, ["-L" + L("prov"), "-lneedsym"] + runpath("$ORIGIN/../prov"))
    fx.lib(ext + "ext_gsym.so", "int gsym(void);\nint ext(void) { return gsym(); }\n")
    fx.lib(ext + "ext_nodeflib.so", "int zlibVersion(void);\nint ext(void) { return zlibVersion() != 0; }\n",
           ["-lz", "-Wl,-z,nodefaultlib"])
    fx.lib(ext + "ext_nodeflib_ok.so", "int zlibVersion(void);\nint ext(void) { return zlibVersion() != 0; }\n",
           ["-lz"])
    os.makedirs(L("deep/a"), exist_ok=True)
    os.symlink("../../ext/ext_hip7.so", L("deep/a/ext_link.so"))
    os.symlink("ext", L("extlink"))


# name, file, LD_LIBRARY_PATH (relative dirs), preloads [(file, global)], expected verdict
# ("loads", "fails" or None: only agreement asked), the kinds the check must report
CASES = [
    ("hip7", "ext/ext_hip7.so", [], [], "loads", set()),
    ("origin in braces", "ext/ext_brace.so", [], [], "loads", set()),
    ("hip6 not found", "ext/ext_hip6_missing.so", [], [], "fails", {"not-found", "rocm-major"}),
    ("hip6 found", "ext/ext_hip6.so", [], [], "loads", {"rocm-major"}),
    ("cudart found", "ext/ext_cuda.so", [], [], "loads", {"cuda"}),
    ("cudart not found (the cache has .13)", "ext/ext_cuda_missing.so", [], [], "fails", {"not-found", "cuda"}),
    ("libc10 with the symbol", "ext/ext_torch.so", [], [], "loads", set()),
    ("libc10 without the symbol", "ext/ext_torch_old.so", [], [], "fails", {"symbols"}),
    ("libc10 by name, nowhere", "ext/ext_torch_bare.so", [], [], "fails", {"not-found"}),
    ("libc10 by LD_LIBRARY_PATH", "ext/ext_torch_bare.so", ["torch_ok"], [], "loads", set()),
    ("old libc10 by LD_LIBRARY_PATH", "ext/ext_torch_bare.so", ["torch_old"], [], "fails", {"symbols"}),
    ("libc10 loaded before (import torch)", "ext/ext_torch_bare.so", [], [("torch_ok/libc10.so", False)],
     "loads", set()),
    ("old libc10 loaded before", "ext/ext_torch_bare.so", [], [("torch_old/libc10.so", False)], "fails",
     {"symbols"}),
    ("version needed, not defined", "ext/ext_ver2.so", [], [], "fails", {"version"}),
    ("version needed, defined", "ext/ext_ver2_ok.so", [], [], "loads", set()),
    ("RPATH reaches the dependency's dependency", "ext/ext_rpath.so", [], [], "loads", set()),
    ("RUNPATH does not", "ext/ext_runpath.so", [], [], "fails", {"not-found"}),
    ("RPATH before LD_LIBRARY_PATH", "ext/ext_prec_rpath.so", ["precB"], [], "loads", set()),
    ("LD_LIBRARY_PATH before RUNPATH", "ext/ext_prec_runpath.so", ["precB"], [], "fails", {"symbols"}),
    ("RUNPATH alone", "ext/ext_prec_runpath.so", [], [], "loads", set()),
    ("a text file on the search path stops it", "ext/ext_bad.so", [], [], "fails", {"bad-file"}),
    ("a file too short", "ext/ext_short.so", [], [], "fails", {"bad-file"}),
    ("another class is passed over", "ext/ext_skip.so", [], [], "loads", set()),
    ("only another class", "ext/ext_skip_only.so", [], [], "fails", {"not-found"}),
    ("a weak undefined symbol", "ext/ext_weak.so", [], [], "loads", set()),
    ("a strong undefined symbol", "ext/ext_undef.so", [], [], "fails", {"symbols"}),
    ("underlinked, the root loads the provider", "ext/ext_under.so", [], [], "loads", set()),
    ("underlinked, nothing provides", "ext/ext_under_bad.so", [], [], "fails", {"symbols"}),
    ("a symbol from an RTLD_GLOBAL preload", "ext/ext_gsym.so", [], [("glob/libglobal.so", True)], "loads",
     set()),
    ("a symbol from an RTLD_LOCAL preload", "ext/ext_gsym.so", [], [("glob/libglobal.so", False)], "fails",
     {"symbols"}),
    ("DF_1_NODEFLIB: no cache, no system directories", "ext/ext_nodeflib.so", [], [], "fails", {"not-found"}),
    ("the same without it", "ext/ext_nodeflib_ok.so", [], [], "loads", set()),
    ("$ORIGIN of a symlinked file", "deep/a/ext_link.so", [], [], None, set()),
    ("$ORIGIN through a symlinked directory", "extlink/ext_hip7.so", [], [], None, set()),
]

STOPS = {"not-found", "bad-file", "version", "symbols"}


def demangle(sym):
    r = subprocess.run(["c++filt", sym], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else sym


def oracle_kind(msg):
    """what dlerror() said, as the check's kinds: (kind, the name it is about)"""
    if "undefined symbol: " in msg:
        sym = msg.split("undefined symbol: ", 1)[1].split(",")[0].strip()
        return "symbols", demangle(sym)
    if "version `" in msg and "' not found" in msg:
        return "version", msg.split("version `", 1)[1].split("'", 1)[0]
    if "invalid ELF header" in msg or "file too short" in msg:
        return "bad-file", os.path.basename(msg.split(":", 1)[0])
    if "cannot open shared object file" in msg or "wrong ELF class" in msg:
        return "not-found", os.path.basename(msg.split(":", 1)[0])
    return "other", msg


def parse_probe(out):
    files, problems = [], []
    for line in out.splitlines():
        parts = line.split("\t")
        if parts[0] == "file":
            files.append((parts[1], parts[2]))
        elif parts[0] == "problem":
            problems.append(dict(kind=parts[1], library=parts[2], version=parts[3], symbol=parts[4],
                                 via=parts[5], text=parts[6]))
    return files, problems


def check_case(fx, case, bad):
    name, rel, ldpath, preloads, want, kinds = case
    path = fx.path(rel)
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    ld = ":".join(fx.path(d) for d in ldpath)
    if ld:
        env["LD_LIBRARY_PATH"] = ld
    else:
        env.pop("LD_LIBRARY_PATH", None)
    pre_args = []
    for p, glob in preloads:
        pre_args += ["--preload-global" if glob else "--preload", fx.path(p)]
    oracle = subprocess.run([ORACLE] + pre_args + [path], capture_output=True, text=True, env=env)
    if oracle.returncode != 0:
        raise RuntimeError(f"{name}: the oracle could not run: {oracle.stdout}{oracle.stderr}")
    said = oracle.stdout.strip()
    probe_args = [PROBE, "--interpreter", ORACLE, "--rocm-major", "7", "--ld-library-path", ld] + pre_args + [path]
    files, problems = parse_probe(run(probe_args, env=dict(os.environ, LD_LIBRARY_PATH="")))
    verdict = files[0][1] if files else "?"
    loads = said == "ok"
    line = f"{name}: dlopen {'loads' if loads else said}; the check: {verdict}"
    for p in problems:
        line += f"\n    {p['kind']}: {p['text']}"
    print(line)
    if (verdict == "loads") != loads:
        bad.append(f"{name}: dlopen and the check disagree ({said!r} vs {verdict})")
    if want is not None and verdict != want:
        bad.append(f"{name}: expected {want}, the check says {verdict}")
    if want is not None and loads != (want == "loads"):
        bad.append(f"{name}: the fixture is not what the case says: dlopen {said!r}")
    got = {p["kind"] for p in problems}
    if not kinds <= got:
        bad.append(f"{name}: expected problems {sorted(kinds)}, got {sorted(got)}")
    if loads and got & STOPS:
        bad.append(f"{name}: loads, yet the check says it stops: {sorted(got & STOPS)}")
    if not loads:
        kind, what = oracle_kind(said.split("\t", 1)[-1])
        mine = [p for p in problems if p["kind"] == kind]
        if not mine:
            bad.append(f"{name}: dlopen failed with {kind} ({said!r}); the check has none")
        elif kind == "symbols" and what not in {p["symbol"] for p in mine}:
            bad.append(f"{name}: dlopen misses {what!r}; the check names {[p['symbol'] for p in mine]}")
        elif kind == "version" and what not in {p["version"] for p in mine}:
            bad.append(f"{name}: dlopen misses version {what!r}; the check names {[p['version'] for p in mine]}")
        elif kind in ("not-found", "bad-file") and what not in {os.path.basename(p["library"]) for p in mine}:
            bad.append(f"{name}: dlopen names {what!r}; the check {[p['library'] for p in mine]}")


def check_images(fx, bad):
    """the check on bytes in memory (a wheel's member) as if installed at a path: the file's
    verdict where the path is the file's, and $ORIGIN the path's, not the file's"""
    cases = [("ext/ext_torch_old.so", "ext/ext_torch_old.so", "fails"),
             ("ext/ext_hip7.so", "ext/ext_hip7.so", "loads"),
             ("ext/ext_hip7.so", "ext/not_yet_installed.so", "loads"),
             ("ext/ext_hip7.so", "deep/a/elsewhere.so", "fails"),
             ("badlib/libbad.so", "ext/text.so", None)]
    for src_rel, at_rel, want in cases:
        out = run([PROBE, "--interpreter", ORACLE, "--image", f"{fx.path(src_rel)}={fx.path(at_rel)}"])
        files, problems = parse_probe(out)
        got = files[0][1] if files else "(no verdict: not checked)"
        print(f"image of {src_rel} at {at_rel}: {got}")
        if want is None and files:
            bad.append(f"image of {src_rel}: a text file is not checked, yet the check says {got}")
        elif want is not None and got != want:
            bad.append(f"image of {src_rel} at {at_rel}: expected {want}, got {got}")


def check_cache(bad):
    ldconfig = shutil.which("ldconfig") or "/sbin/ldconfig"
    if not os.path.exists("/etc/ld.so.cache") or not os.access(ldconfig, os.X_OK):
        print("no /etc/ld.so.cache or ldconfig: the cache comparison is left out")
        return
    mine = {}
    for line in run([PROBE, "--dump-cache", "/etc/ld.so.cache"]).splitlines():
        k, v = line.split("\t")
        mine[k] = v
    want = {}
    arch = {"x86_64": "libc6,x86-64", "aarch64": "libc6,AArch64"}.get(os.uname().machine)
    if not arch:
        print("no known ldconfig flag word for this machine: the cache comparison is left out")
        return
    for line in run([ldconfig, "-p"]).splitlines()[1:]:
        line = line.strip()
        if " => " not in line:
            continue
        left, path = line.split(" => ", 1)
        name, _, flags = left.partition(" (")
        flags = flags.rstrip(")")
        if flags == arch or flags == "libc6":
            want.setdefault(name, path)
    if mine != want:
        extra = sorted(set(mine.items()) - set(want.items()))[:5]
        lack = sorted(set(want.items()) - set(mine.items()))[:5]
        bad.append(f"/etc/ld.so.cache read otherwise than ldconfig -p shows it: extra {extra}, lacking {lack}")
    else:
        print(f"/etc/ld.so.cache: {len(mine)} names, as ldconfig -p shows them")


def main():
    if not shutil.which("gcc") or not shutil.which("g++"):
        skip("no gcc/g++ to build the fixture shared objects")
    bad = []
    with tempfile.TemporaryDirectory(prefix="rr-elf-") as root:
        fx = Fixtures(root)
        build(fx)
        for case in CASES:
            check_case(fx, case, bad)
        check_images(fx, bad)
    check_cache(bad)
    if bad:
        print("\nFAILED:\n  " + "\n  ".join(bad))
        return 1
    print(f"{len(CASES)} cases: the check and dlopen agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
