#!/usr/bin/python3
"""Differential test of librr's PEP 440/503 code against Python's packaging.

Usage: /usr/bin/python3 pep_diff.py PATH/TO/rr-pep [--verbose] [--dump FILE]

Generates cases (systematic, random from a fixed seed, and every version and
specifier found in the shared corpus at $RR_SHARED/corpus), pipes them through
the rr-pep driver in one process (protocol: see the comment at the top of
rr-pep.c), computes packaging's answer for each and reports every
disagreement. Prints the number of cases per kind and ends with
"N passed, N failed"; exits 1 on any disagreement, 77 (skip) when this Python
lacks packaging.
"""

import os
import random
import re
import subprocess
import sys
import time

try:
    import packaging
    from packaging.specifiers import InvalidSpecifier, Specifier, SpecifierSet
    from packaging.utils import canonicalize_name
    from packaging.version import InvalidVersion, Version
except ImportError:
    print("SKIP: %s has no 'packaging' module (install python3-packaging)" % sys.executable)
    sys.exit(77)

SEED = 20240440
MAX_NUM = 10**12  # keep numbers well inside uint64 (librr answers LIMIT past it)


# ---- protocol --------------------------------------------------------------

def enc(s):
    out = []
    for b in s.encode("utf-8"):
        if b <= 0x20 or b > 0x7E or b == 0x25:
            out.append("%%%02X" % b)
        else:
            out.append(chr(b))
    return "".join(out)


def dec(s):
    return re.sub(rb"%([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]),
                  s.encode("ascii")).decode("utf-8", "surrogateescape")


# ---- packaging's answers ---------------------------------------------------

_vcache = {}


def pversion(s):
    if s not in _vcache:
        try:
            _vcache[s] = Version(s)
        except InvalidVersion:
            _vcache[s] = None
    return _vcache[s]


_scache = {}


def pspecset(s):
    if s not in _scache:
        try:
            _scache[s] = SpecifierSet(s)
        except InvalidSpecifier:
            _scache[s] = None
    return _scache[s]


NAME_RE = re.compile(r"^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$", re.IGNORECASE)


def expect(kind, fields):
    if kind == "V":
        v = pversion(fields[0])
        return "ERR" if v is None else str(v)
    if kind == "C":
        a, b = pversion(fields[0]), pversion(fields[1])
        if a is None or b is None:
            return "ERR"
        return str((a > b) - (a < b))
    if kind == "S":
        ss, v = pspecset(fields[0]), pversion(fields[1])
        if ss is None or v is None:
            return "ERR"
        pre = {"none": None, "true": True, "false": False}[fields[2]]
        try:
            return "1" if ss.contains(v, prereleases=pre) else "0"
        except InvalidVersion:
            # "===<not a version>" makes SpecifierSet.prereleases raise, or not,
            # depending on frozenset order: packaging has no answer to compare
            return None
    if kind == "P":
        try:
            items = [str(Specifier(x.strip())) for x in fields[0].split(",") if x.strip()]
        except InvalidSpecifier:
            return "ERR"
        return ",".join(items)
    if kind == "N":
        n = fields[0]
        return "%s %d" % (canonicalize_name(n), 1 if NAME_RE.fullmatch(n) else 0)
    raise ValueError(kind)


# ---- generators ------------------------------------------------------------

PRE_WORDS = ["a", "b", "c", "rc", "alpha", "beta", "pre", "preview"]
POST_WORDS = ["post", "rev", "r"]
SEPS = ["", ".", "-", "_"]
SPACES = [" ", "\t", "\n", "\u00a0", "\u3000", "\x1c", "\x85", "\u2009", "\x0b"]
OPS = ["==", "!=", "<=", ">=", "<", ">", "~=", "==="]
BAD_OPS = ["=", "=>", "=<", "~", "<>", "!", "====", "~==", "= ="]


def rcase(r, s):
    c = r.random()
    if c < 0.7:
        return s
    if c < 0.85:
        return s.upper()
    return "".join(ch.upper() if r.random() < 0.5 else ch for ch in s)


def rnum(r, big=False):
    c = r.random()
    if c < 0.45:
        return str(r.randint(0, 3))
    if c < 0.7:
        return str(r.randint(0, 20))
    if c < 0.8:
        return "0" * r.randint(1, 2) + str(r.randint(0, 9))
    return str(r.randint(0, MAX_NUM if big else 3000))


def rlocal(r):
    segs = []
    for _ in range(r.randint(1, 4)):
        c = r.random()
        if c < 0.3:
            segs.append(rnum(r))
        elif c < 0.5:
            segs.append(rcase(r, r.choice(["rocm", "cu", "cpu", "lw", "git", "abc", "a", "z"])))
        else:
            alphabet = "abcdefz0123456789"
            segs.append(rcase(r, "".join(r.choice(alphabet) for _ in range(r.randint(1, 8)))))
    out = segs[0]
    for s in segs[1:]:
        out += r.choice([".", ".", "-", "_"]) + s
    return out


def rversion(r, local=True, allow_space=True, release_min=1):
    parts = []
    if allow_space and r.random() < 0.08:
        parts.append(r.choice(SPACES))
    if r.random() < 0.07:
        parts.append(r.choice("vV"))
    if r.random() < 0.15:
        parts.append(r.choice(["0", "1", "2", "01"]) + "!")
    parts.append(".".join(rnum(r, big=r.random() < 0.05)
                          for _ in range(r.randint(release_min, max(release_min, 5)))))
    if r.random() < 0.35:
        parts.append(r.choice(SEPS) + rcase(r, r.choice(PRE_WORDS)) + r.choice(SEPS)
                     + (rnum(r) if r.random() < 0.8 else ""))
    if r.random() < 0.3:
        if r.random() < 0.3:
            parts.append("-" + rnum(r))
        else:
            parts.append(r.choice(SEPS) + rcase(r, r.choice(POST_WORDS)) + r.choice(SEPS)
                         + (rnum(r) if r.random() < 0.8 else ""))
    if r.random() < 0.3:
        parts.append(r.choice(SEPS) + rcase(r, "dev") + r.choice(SEPS)
                     + (rnum(r) if r.random() < 0.8 else ""))
    if local and r.random() < 0.3:
        parts.append("+" + rlocal(r))
    if allow_space and r.random() < 0.08:
        parts.append(r.choice(SPACES))
    return "".join(parts)


MUTATE_CHARS = "0123456789.-_+!*vVaAbcrRpPdDeEoOsStT xy,;)=<>~/\t"


def mutate(r, s):
    s = list(s)
    for _ in range(r.randint(1, 2)):
        c = r.random()
        pos = r.randint(0, len(s))
        if c < 0.4:
            s.insert(pos, r.choice(MUTATE_CHARS))
        elif c < 0.7 and s:
            del s[min(pos, len(s) - 1)]
        elif s:
            s[min(pos, len(s) - 1)] = r.choice(MUTATE_CHARS)
    return "".join(s)


SYSTEMATIC_VERSIONS = [
    "1.0", "1.0.0", "1", "0", "00", "1.01", "v1.0", "V1.0", " 1.0 ", "\t1.0\n", "1.0 ", "1 .0",
    "1!1.0", "0!1.0", "1!", "!1", "1.0a1", "1.0A1", "1.0.a1", "1.0-a1", "1.0_a1", "1.0a.1",
    "1.0a-1", "1.0a_1", "1.0a", "1.0alpha1", "1.0beta2", "1.0c3", "1.0pre4", "1.0preview5",
    "1.0rc6", "1.0RC6", "1.0-rc.6", "1.0.post1", "1.0post1", "1.0-post1", "1.0_post-1",
    "1.0.post", "1.0-1", "1.0-", "1.0--1", "1.0rev2", "1.0r3", "1.0.r", "1.0.dev1", "1.0dev",
    "1.0-dev-1", "1.0.dev", "1.0a1.post2.dev3", "1.0a1-2", "1.0.post1.dev2", "1.0rc1.dev1",
    "1.0+abc", "1.0+ABC.1", "1.0+abc-1_2", "1.0+007", "1.0+a.007b", "1.0+", "1.0+.a",
    "1.0+a.", "1.0+a..b", "1.0+a+b", "2.9.1+rocm7.2.0.lw.git7e1940d4",
    "2.9.1+ROCM7.2.0-LW_git7E1940D4", "3.5.1+rocm7.2.0.gitb5b0b0a8", "2.5.1+rocm6.2", "1.0.",
    ".1.0", "1..0", "1.0a1a2", "1.0.post1.post2", "1.0dev1dev2", "1.0 a1", "a1.0", "",
    " ", "1.0\u00a0", "\u3000v2.0rc1", "1.0\x1c", "1.0\x85", "1.2.3.4.5.6.7.8.9.10",
    "1.0-rc1", "1.0.0-rc.1", "1.0_rev.3", "1.0.RC1", "1.0-r-1", "1!2!3", "1.0*", "1.*",
    "1.0.pre", "1.0-preview-", "1.0a.", "1.0a_", "1.0.post_", "1.0-dev_", "1.0+1-2_3.4",
]

CHAIN = [
    "1.0.dev456", "1.0a1", "1.0a2.dev456", "1.0a12.dev456", "1.0a12", "1.0b1.dev456",
    "1.0b2", "1.0b2.post345.dev456", "1.0b2.post345", "1.0rc1.dev456", "1.0rc1", "1.0",
    "1.0+abc.5", "1.0+abc.7", "1.0+5", "1.0.post456.dev34", "1.0.post456", "1.0.15", "1.1.dev1",
    "1!0.1", "1.0+abc", "1.0+abc.1", "1.0+1", "1.0+1.abc", "1.0+a.1", "1.0+a.b", "2.9.1",
    "2.9.1+rocm6.4", "2.9.1+rocm7.2.0.lw.git7e1940d4", "2.9.1+rocm7.2.0", "2.9.1+rocm7.10",
    "2.9.1+cu128", "2.9.1+cpu", "2.9.1.post1", "2.9.1a0", "2.9.1rc1", "2.9.1.dev0", "2.9.1.0",
    "2.9.10", "0!2.9.1", "1.0.0", "1.0.0.0+abc", "1.0+0", "1.0+00", "1.0+a0", "1.0+0a",
]


def derive_versions(v):
    """versions near v (a Version): the interesting neighbours for specifiers"""
    base = ".".join(str(x) for x in v.release)
    ep = "%d!" % v.epoch if v.epoch else ""
    rel = list(v.release)
    out = {str(v), ep + base, ep + base + ".0", ep + base + "a1", ep + base + ".dev0",
           ep + base + "rc1.dev1", ep + base + ".post1", ep + base + ".post1.dev1",
           ep + base + "+local.1", ep + base + "+rocm7.2.0.lw.git7e1940d4",
           ep + base + ".post1+x", ep + base + "a1+x", base, "1!" + base}
    if v.pre:
        out.add(ep + base + "%s%d" % (v.pre[0], v.pre[1] + 1))
    bumped = rel[:-1] + [rel[-1] + 1]
    out.add(ep + ".".join(map(str, bumped)))
    out.add(ep + ".".join(map(str, bumped)) + "a1")
    if rel[-1] > 0:
        out.add(ep + ".".join(map(str, rel[:-1] + [rel[-1] - 1])))
    if len(rel) > 1:
        out.add(ep + ".".join(map(str, rel[:-1])))
        up = rel[:-2] + [rel[-2] + 1]
        out.add(ep + ".".join(map(str, up)))
        out.add(ep + ".".join(map(str, up)) + ".0")
    out.add(ep + base + ".1")
    return sorted(out)


def rspec(r):
    op = r.choice(OPS) if r.random() < 0.95 else r.choice(BAD_OPS)
    sp = r.choice(["", "", "", " ", "  ", "\t", "\u00a0"])
    if op == "===":
        if r.random() < 0.6:
            ver = rversion(r, allow_space=False)
        else:
            ver = "".join(r.choice("abcXYZ019.-+!*;)( ") for _ in range(r.randint(0, 8)))
    else:
        ver = rversion(r, local=op in ("==", "!=") or r.random() < 0.1, allow_space=False,
                       release_min=2 if op == "~=" and r.random() < 0.8 else 1)
        if op in ("==", "!=") and r.random() < 0.3 or r.random() < 0.03:
            # wildcard: usually on a plain release
            if r.random() < 0.8:
                ver = (r.choice(["", "1!"]) if r.random() < 0.2 else "") + ".".join(
                    rnum(r) for _ in range(r.randint(1, 4)))
            ver += ".*"
    s = op + sp + ver
    if r.random() < 0.05:
        s = mutate(r, s)
    if r.random() < 0.1:
        s = r.choice(SPACES) + s + r.choice(SPACES)
    return s


def rspecset(r):
    n = r.choice([0, 1, 1, 1, 2, 2, 3])
    items = [rspec(r) for _ in range(n)]
    if r.random() < 0.05:
        items.insert(r.randint(0, len(items)), r.choice(["", " "]))
    return r.choice([",", ", ", " ,"]).join(items)


SPEC_RE = re.compile(
    r"((?:~=|===|==|!=|<=|>=|<|>)\s*[A-Za-z0-9.*+!_-]+"
    r"(?:\s*,\s*(?:~=|===|==|!=|<=|>=|<|>)\s*[A-Za-z0-9.*+!_-]+)*)")
VERSION_TOKEN_RE = re.compile(r"(?<![A-Za-z0-9])v?[0-9][A-Za-z0-9.+!_-]*")
NAME_LINE_RE = re.compile(r"^\s*\"?([A-Za-z0-9][A-Za-z0-9._-]*)", re.M)


def corpus_items(root):
    specsets, versions, names = set(), set(), set()
    if not os.path.isdir(root):
        return specsets, versions, names
    for sub in ("requirements", "freeze", "pyproject"):
        d = os.path.join(root, sub)
        if not os.path.isdir(d):
            continue
        for fn in sorted(os.listdir(d)):
            with open(os.path.join(d, fn), encoding="utf-8", errors="replace") as f:
                text = f.read()
            for m in SPEC_RE.finditer(text):
                specsets.add(m.group(1))
                for sm in re.finditer(r"(?:~=|===|==|!=|<=|>=|<|>)\s*([A-Za-z0-9.*+!_-]+)",
                                      m.group(1)):
                    versions.add(sm.group(1).rstrip("*").rstrip("."))
                    specsets.add(sm.group(0))
            for m in VERSION_TOKEN_RE.finditer(text):
                versions.add(m.group(0).rstrip(".-_"))
            for m in NAME_LINE_RE.finditer(text):
                names.add(m.group(1))
    return specsets, versions, names


def generate(shared):
    r = random.Random(SEED)
    cases = []  # (kind, fields, origin)
    corpus_specs, corpus_versions, corpus_names = corpus_items(os.path.join(shared, "corpus"))

    # V: systematic, corpus, random, mutated
    vers = list(SYSTEMATIC_VERSIONS) + CHAIN + sorted(corpus_versions)
    for _ in range(6000):
        vers.append(rversion(r))
    for _ in range(2000):
        vers.append(mutate(r, rversion(r)))
    for v in vers:
        cases.append(("V", [v]))

    # C: the whole chain pairwise, corpus versions against neighbours, random pairs
    valid = [v for v in vers if pversion(v) is not None]
    for a in CHAIN:
        for b in CHAIN:
            cases.append(("C", [a, b]))
    for _ in range(6000):
        a = r.choice(valid)
        b = r.choice(valid) if r.random() < 0.5 else r.choice(derive_versions(pversion(a)))
        cases.append(("C", [a, b]))

    # P: specifier parsing
    specs = sorted(corpus_specs)
    for _ in range(5000):
        specs.append(rspecset(r))
    systematic_specs = [
        "", ",", " , ", ">=1.0", ">= 1.0", " >=1.0 ", ">=1.0+local", "<1.0+local",
        "==1.0+local", "!=1.0+local", "~=1.0+local", "~=1", "~=1.0", "~=1!1.0", "~=1.*",
        "==1.*", "==1.0.*", "!=1.0.*", ">=1.0.*", "==1.0a1.*", "==1.0.post1.*", "==1.0+a.*",
        "===1.0", "===foo", "=== foo", "===foo bar", "===a;b", "===a)b", "===", "==", ">=",
        "==v1.0", "==V1.0", "== 1.0 ", "=1.0", "1.0", "> 1.0", "<>1.0", ">=1.0,<2.0",
        ">=1.0,,<2.0", ">=1.0;<2.0", ">=1.0 <2.0", "==1.0 .*", "==1.0. *", "==1.*.*",
        "==2.9.1+rocm7.2.0.lw.git7e1940d4", "==2.9.1+ROCM6.4", ">=2.0.0+rocm5.4.2",
        "~=1.0.0rc1", "~=1.0RC1", "~=1.0.c1", "~=1.0.RC1", "~=1.0.r1", "~=2.2.post3",
        "~=1.4.5a4", "~=1.4.5c4", "~=1.4.5c4.r1", "~=1.0.c.1", "~=1.0.r.1", "~=1.0-1",
        "~=1!2.0", "~=v1.0", "~=1.0.dev1", "~=1.0.DEV1", "~=0.9.post1", "==1!2.*", "==0.*",
        "==\u00a01.0", "\u3000>=1.0\u3000", ">=1.0\x1c", "==1.0\u2009",
    ]
    specs = systematic_specs + specs
    for s in specs:
        cases.append(("P", [s]))

    # S: every parseable set against versions near its own versions, all pre modes
    neighbours_cache = {}

    def neighbours(v):
        if v not in neighbours_cache:
            neighbours_cache[v] = derive_versions(v)
        return neighbours_cache[v]

    fixed = ["1.0", "1.0a1", "1.0.dev0", "1.0.post1", "1.0+local", "2.9.1",
             "2.9.1+rocm7.2.0.lw.git7e1940d4", "1!1.0", "0.9", "10.0"]
    for s in specs:
        ss = pspecset(s)
        if ss is None:
            cases.append(("S", [s, "1.0", r.choice(["none", "true", "false"])]))
            continue
        cands = set(fixed[:3]) | {r.choice(fixed)}
        for sp in ss:
            sv = pversion(sp.version[:-2] if sp.version.endswith(".*") else sp.version)
            if sv is not None:
                nb = neighbours(sv)
                cands.update(r.sample(nb, min(len(nb), 8)))
        for v in sorted(cands):
            for pre in ("none", "true", "false"):
                cases.append(("S", [s, v, pre]))

    # the ROCm facts the tool relies on, spelled out
    for s, v in [("==2.9.1", "2.9.1+rocm6.4"), ("==2.9.1+cu128", "2.9.1+rocm6.4"),
                 ("==2.9.1+rocm6.4", "2.9.1+rocm6.4"), (">2.9.1", "2.9.1+rocm6.4"),
                 ("<=2.9.1", "2.9.1+rocm7.2.0.lw.git7e1940d4"), ("<2.9.1", "2.9.1rc1"),
                 ("<2.9.1rc2", "2.9.1rc1"), (">2.9.1", "2.9.1.post1"),
                 (">2.9.1.post0", "2.9.1.post1"), ("==0.*", "1!1.0"), ("==1!2.0.*", "1!2.0"),
                 ("==1!2.*", "1!2a1"), ("==1.0.*", "1.0.0a1"), ("", "1.0a1"), ("", "1.0"),
                 ("===foo", "1.0"), ("===1.0+K", "1.0+k"), ("===1.0+\u212a", "1.0+k")]:
        for pre in ("none", "true", "false"):
            cases.append(("S", [s, v, pre]))

    # N: names
    names = sorted(corpus_names) + ["Pytorch_Triton.ROCm", "A", "a-", "-a", "a..b", "a._-b",
                                     "", "torch", "Torch", "_", "a b", "a\tb", "1", "A1.B2"]
    for _ in range(1000):
        names.append("".join(r.choice("aAzZ09.-_ ") for _ in range(r.randint(0, 10))))
    for n in names:
        cases.append(("N", [n]))
    return cases, (len(corpus_specs), len(corpus_versions), len(corpus_names))


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    driver = sys.argv[1]
    verbose = "--verbose" in sys.argv
    shared = os.environ.get("RR_SHARED") or "/work/shared"
    t0 = time.monotonic()
    cases, corpus_counts = generate(shared)
    t1 = time.monotonic()
    payload = "".join("%s %s\n" % (k, " ".join(enc(f) for f in fields)) for k, fields in cases)
    proc = subprocess.run([driver], input=payload.encode("ascii"), stdout=subprocess.PIPE,
                          check=False)
    t2 = time.monotonic()
    if proc.returncode != 0:
        print("driver exited with %d" % proc.returncode)
        return 1
    answers = proc.stdout.decode("ascii").split("\n")[:-1]
    if len(answers) != len(cases):
        print("driver answered %d lines for %d cases" % (len(answers), len(cases)))
        return 1
    per_kind, passed, failed, skipped = {}, 0, 0, 0
    shape = {}  # kind -> {"ERR": n, "ok": n} (S and C: by answer)
    for (kind, fields), got in zip(cases, answers):
        want = expect(kind, fields)
        per_kind[kind] = per_kind.get(kind, 0) + 1
        label = want if kind in "SC" or want in ("ERR", None) else "ok"
        shape.setdefault(kind, {}).setdefault(str(label), 0)
        shape[kind][str(label)] += 1
        if want is None:
            skipped += 1
            continue
        if dec(got) == want:
            passed += 1
        else:
            failed += 1
            if failed <= 50 or verbose:
                print("FAIL %s %r: librr %r, packaging %r" % (kind, fields, dec(got), want))
    t3 = time.monotonic()
    print("packaging %s; corpus: %d specifier sets, %d version tokens, %d names"
          % (packaging.__version__, *corpus_counts))
    for k in sorted(per_kind):
        print("  %s: %d cases (%s)" % (k, per_kind[k], ", ".join(
            "%s: %d" % kv for kv in sorted(shape[k].items()))))
    print("generate %.2fs, driver %.3fs, compare %.2fs; %d skipped (packaging raises)"
          % (t1 - t0, t2 - t1, t3 - t2, skipped))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
