#!/usr/bin/python3
"""Differential test: PEP 508 markers and requirements, rocm-resolve vs packaging.

usage: pep508_diff.py DRIVER [CORPUS_DIR]

Generates markers and requirements (fixed seed), evaluates them under
several environments, and asks both packaging (the reference, 23.0) and the
rr-pep508 driver (protocol in rr-pep508.c). Agreement means: both reject or
both accept; on rejection the same column when packaging reports a syntax
error span on ASCII input; on acceptance the same str() and the same
evaluation result (or both raise). Exits 77 when packaging is missing.

Two deliberate divergences. packaging's str() prints a value holding a double
quote between double quotes, which reads back as something else (pip rejects
`x; os_name == "a"b"`); rocm-resolve prints it between single quotes, and the
reference here is given the same rule (Value.serialize below). And packaging
23.0's Marker() ignores text after the last complete comparison ("os_name == 'nt' garbage"); 23.1 and later reject
it, as rocm-resolve does, so the reference here checks for the end of input.
"""
import os
import random
import re
import subprocess
import sys

try:
    from packaging import _parser
    from packaging._parser import _parse_marker, parse_requirement
    from packaging._tokenizer import DEFAULT_RULES, ParserSyntaxError, Tokenizer
    from packaging.markers import Marker, _normalize_extra_values
    from packaging.requirements import InvalidRequirement, Requirement
except ImportError:
    print("packaging not available; skipping")
    sys.exit(77)

def _serialize_value(self):
    q = "'" if '"' in self.value and "'" not in self.value else '"'
    return q + self.value + q


_parser.Value.serialize = _serialize_value

VARS = ["os_name", "sys_platform", "platform_machine", "platform_python_implementation",
        "platform_release", "platform_system", "platform_version", "python_version",
        "python_full_version", "implementation_name", "implementation_version", "extra"]


def enc(s):
    out = []
    for b in s.encode("utf-8", "surrogatepass"):
        if b < 0x21 or b > 0x7e or b == 0x25:
            out.append("%%%02X" % b)
        else:
            out.append(chr(b))
    return "".join(out) if out else "%-"


def dec(s):
    if s == "%-":
        return ""
    return re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), s).encode(
        "latin-1").decode("utf-8", "surrogatepass")


# ---------------------------------------------------------------- reference

def ref_marker(s, env):
    try:
        t = Tokenizer(s, rules=DEFAULT_RULES)
        parsed = _parse_marker(t)
        t.consume("WS")
        t.expect("END", expected="end of marker")
    except ParserSyntaxError as e:
        return ("P", e.span[1] + 1)
    except Exception:  # literal_eval errors, RecursionError
        return ("P", None)
    m = Marker.__new__(Marker)
    m._markers = _normalize_extra_values(parsed)
    text = str(m)
    try:
        r = "1" if m.evaluate(env) else "0"
    except Exception:
        r = "E"
    return (text, r)


def ref_req(s, extras, env):
    try:
        req = Requirement(s)
    except Exception:
        col = None
        try:
            parse_requirement(s)
        except ParserSyntaxError as e:
            col = e.span[1] + 1
        except Exception:
            pass
        return ("P", col)
    try:
        if req.marker is None:
            a = "1"
        else:
            a = "1" if any(req.marker.evaluate(dict(env, extra=e))
                           for e in (extras or [""])) else "0"
    except Exception:
        a = "E"
    return (str(req), req.name, req.url or "-", a)


# ---------------------------------------------------------------- generators

PY = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13"]
FULL = {"3.8": "3.8.18", "3.9": "3.9.19", "3.10": "3.10.14", "3.11": "3.11.9",
        "3.12": "3.12.3", "3.13": "3.13.0rc1"}
PLAT = [("linux", "posix", "Linux", "5.15.0-generic"), ("darwin", "posix", "Darwin", "22.6.0"),
        ("win32", "nt", "Windows", "10"), ("linux", "posix", "Linux", "6.8.0")]
MACH = ["x86_64", "aarch64", "AMD64", "arm64"]
EXTRAS = ["", "gpu", "Foo_Bar", "test", "opt-einsum", "rocm"]


def environments():
    envs = []
    for i, py in enumerate(PY):
        for j, (sp, osn, system, rel) in enumerate(PLAT):
            mach = MACH[(i + j) % len(MACH)]
            impl = "pypy" if (i + j) % 5 == 4 else "cpython"
            envs.append({
                "os_name": osn, "sys_platform": sp, "platform_machine": mach,
                "platform_python_implementation": "PyPy" if impl == "pypy" else "CPython",
                "platform_release": rel, "platform_system": system,
                "platform_version": "#1 SMP PREEMPT_DYNAMIC", "python_version": py,
                "python_full_version": FULL[py], "implementation_name": impl,
                "implementation_version": FULL[py], "extra": EXTRAS[(i * 4 + j) % len(EXTRAS)],
            })
    return envs


VAR_SPELLINGS = VARS[:-1] + ["os.name", "sys.platform", "platform.machine", "platform.version",
                             "platform.python_implementation", "python_implementation", "extra",
                             "extra", "python_version", "python_version", "python_full_version"]
VALUES = {
    "python_version": ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3", "2.7", "3.*", "3.1*",
                       "3.10.*", "4", "3.12.0", "3.12rc1", "v3.9", "3.9.post1", "abc", "",
                       " 3.9 ", "3.9+local", "1!3.9", "3.13.0rc1"],
    "sys_platform": ["linux", "darwin", "win32", "cygwin", "lin", "Linux", ""],
    "platform_system": ["Linux", "Darwin", "Windows", "linux", "Java"],
    "platform_machine": ["x86_64", "aarch64", "AMD64", "arm64", "x86", "ppc64le", "86"],
    "os_name": ["posix", "nt", "java", "pos"],
    "platform_release": ["5.15.0-generic", "5.15", "6.8.0", "22.6.0", "10", "5.15.0"],
    "implementation_name": ["cpython", "pypy", "py"],
    "extra": ["gpu", "Foo_Bar", "foo-bar", "FOO.BAR", "test", "opt_einsum", "Opt-Einsum", "",
              "rocm", "1.0", "os_name"],
}
OPS = ["==", "!=", "<", "<=", ">", ">=", "~=", "===", "in", "not in"]
WS = ["", " ", "  ", "\t"]


def gen_value(rnd, var):
    key = var.replace(".", "_")
    if key == "python_implementation":
        key = "platform_python_implementation"
    pool = VALUES.get(key)
    if pool is None or rnd.random() < 0.15:
        pool = sum(VALUES.values(), []) + ["CPython", "PyPy", "#1 SMP", "3.12.3", "2!1.0",
                                           "1.0.post1.dev2", "1.0a1", "a'b", 'a"b']
    return rnd.choice(pool)


def quote(rnd, v):
    if "'" in v:
        return '"' + v + '"'
    if '"' in v:
        return "'" + v + "'"
    return rnd.choice(['"', "'"]).join(["", v, ""])


def gen_atom(rnd):
    var = rnd.choice(VAR_SPELLINGS)
    op = rnd.choice(OPS)
    val = quote(rnd, gen_value(rnd, var))
    r = rnd.random()
    if r < 0.12:
        lhs, rhs = val, var  # variable on the right
    elif r < 0.15:
        lhs, rhs = quote(rnd, gen_value(rnd, var)), quote(rnd, rnd.choice(VARS + ["nope"]))
    elif r < 0.17:
        lhs, rhs = var, rnd.choice(VAR_SPELLINGS)
    else:
        lhs, rhs = var, val
    w = lambda: rnd.choice(WS)
    if op in ("in", "not in"):
        return lhs + rnd.choice([" ", "\t", "  "]) + op + rnd.choice([" ", "\t"]) + rhs
    return lhs + w() + op + w() + rhs


def gen_marker(rnd, depth=0):
    n = rnd.choice([1, 1, 2, 2, 3, 4])
    parts = []
    for i in range(n):
        if depth < 3 and rnd.random() < 0.25:
            parts.append("(" + rnd.choice(WS) + gen_marker(rnd, depth + 1) + rnd.choice(WS) + ")")
        else:
            parts.append(gen_atom(rnd))
        if i + 1 < n:
            parts.append(rnd.choice([" and ", " or ", "  and\t", " or  ", ")and(", " and "]))
    s = "".join(parts)
    if ")and(" in s:
        s = s.replace(")and(", " and ")
    return s


def mutate(rnd, s):
    if not s:
        return s
    i = rnd.randrange(len(s))
    k = rnd.random()
    junk = rnd.choice(list("()'\"=<>!~ ;,[]@.-_\tax1\n") + ["and", "or", "not", "in", "extra"])
    if k < 0.4:
        return s[:i] + s[i + 1:]
    if k < 0.8:
        return s[:i] + junk + s[i:]
    return s[:i] + junk + s[i + 1:]


NAMES = ["torch", "torchvision", "Pytorch_Triton.ROCm", "numpy", "a", "A1", "foo-bar", "x.y",
         "triton-rocm", "nvidia-cudnn-cu12", "-bad", "bad-", "9lives"]
SPECS = [">=2.0", "==2.9.1", "==2.9.1+rocm7.2.0.lw.git7e1940d4", "<3,>=1", ">= 1.0 , < 2",
         "~=3.3", "~=1", "!=1.2.*", "==1.*", "===1.0", "===foo", ">1.0a1", "<=1.0.post1",
         "==1.0.0,==1", ">=1,>=1.0", "===1.0,>=2", "== 1.0", ">=1,", ">=v1.0", "==1.0-dev",
         "<1.0+local", "===", ">=1.0 ,", "=1.0", "==1.0.*.*"]
URLS = ["https://repo.radeon.com/rocm/manylinux/rocm-rel-7.2/torch-2.9.1%2Brocm7.2.0.lw."
        "git7e1940d4-cp312-cp312-linux_x86_64.whl", "file:///tmp/x.whl", "file:/tmp/x.whl",
        "file://localhost/x", "git+https://github.com/a/b.git@main#egg=b", "http://[::1]:8/x",
        "http://[bad]/x", "https:/nohost", "relative/path", "file:///x?", "http://h/a;b",
        "FILE:///x", "http://[v1.x]/", "http://[::ffff:1.2.3.4]/"]


def gen_req(rnd):
    w = lambda: rnd.choice(["", " ", "  ", "\t"])
    s = w() + rnd.choice(NAMES) + w()
    if rnd.random() < 0.35:
        ex = rnd.sample(["gpu", "Opt_Einsum", "test", "a.b", "gpu", "x-y"], rnd.randrange(0, 4))
        s += "[" + w() + ("," + w()).join(ex) + w() + "]" + w()
    r = rnd.random()
    if r < 0.2:
        s += "@" + w() + rnd.choice(URLS)
        if rnd.random() < 0.5:
            s += rnd.choice([" ", "\t", ""]) + ";" + w() + gen_marker(rnd) + w()
        return s
    if r < 0.8:
        sp = rnd.choice(SPECS)
        s += ("(" + w() + sp + w() + ")") if rnd.random() < 0.3 else sp
    if rnd.random() < 0.5:
        s += w() + ";" + w() + gen_marker(rnd) + w()
    return s


# ---------------------------------------------------------------- corpus

def corpus_requirements(root):
    out = []
    if not root or not os.path.isdir(root):
        return out
    for sub in ("requirements", "freeze"):
        d = os.path.join(root, sub)
        if not os.path.isdir(d):
            continue
        for fn in sorted(os.listdir(d)):
            with open(os.path.join(d, fn), encoding="utf-8", errors="replace") as f:
                for line in f:
                    line = line.split(" #")[0].strip()
                    if not line or line.startswith(("#", "-")) or "://" in line and "@" not in line:
                        continue
                    out.append(line)
    d = os.path.join(root, "pyproject")
    if os.path.isdir(d):
        import tomllib
        for fn in sorted(os.listdir(d)):
            try:
                with open(os.path.join(d, fn), "rb") as f:
                    data = tomllib.load(f)
            except Exception:
                continue
            proj = data.get("project", {})
            lists = [proj.get("dependencies", [])]
            lists += list(proj.get("optional-dependencies", {}).values())
            lists += list(data.get("dependency-groups", {}).values())
            for lst in lists:
                for item in lst:
                    if isinstance(item, str):
                        out.append(item)
    return out


FIXED_MARKERS = [
    'python_version >= "3.9" and extra == "gpu"', "a or b and c",
    'os_name == "nt" or python_version > "3.8" and extra == "Foo_Bar"',
    'extra == "Foo_Bar"', '"foo-bar" == extra', 'extra == extra',
    'python_version > "3.9"', 'python_version < "3.10"', 'platform_release >= "5.15"',
    'platform_release == "5.15.0-generic"', 'python_version ~= "abc"',
    'python_version === "3.12"', '"3.8" < "python_version"', '"a" == "b"',
    'x and ((os_name == "nt" or os_name == "posix"))',
    'os_name == "nt" and ((os_name == "nt" or os_name == "posix"))',
    '(python_version > "3")', '((python_version > "3"))', 'python_version > "3" garbage',
    'python_version>"1" and extra == os_name', '"a"=="b"or"c"=="d"',
    'os_name not  in "posix"', 'os_name not"in"', 'os_name notin "x"', 'sys.platform in "linux2"',
    "python_version == '3.1\\x32'", "python_version == 'a\\'", 'os_name == "unterminated',
    "", " ", "(", ")", "os_name ==", 'os_name === "posix"', 'extra == "1.0"',
    'platform_machine in "x86_64 aarch64"', 'python_full_version >= "3.12.0rc1"',
    'python_version >= "3.12" or python_version < "3"', 'os_name == "posix"\n',
]

FIXED_REQS = [
    "torch @ https://repo.radeon.com/rocm/manylinux/rocm-rel-7.2/torch-2.9.1%2Brocm7.2.0.lw."
    "git7e1940d4-cp312-cp312-linux_x86_64.whl",
    "torch @ https://x/y.whl; python_version > '3'", "torch @ https://x/y.whl ; python_version > '3'",
    "filelock", "typing-extensions>=4.10.0", 'setuptools; python_version >= "3.12"',
    'sympy==1.13.1; python_version >= "3.9"', 'opt-einsum>=3.3; extra == "opt-einsum"',
    'optree>=0.13.0; extra == "optree"',
    'triton==3.0.0; platform_system == "Linux" and platform_machine == "x86_64" and python_version < "3.13"',
    'pytorch-triton-rocm==3.5.1; platform_system == "Linux" and platform_machine == "x86_64"',
    'triton (==3.0.0) ; platform_system == "Linux"', 'cuda-bindings<14,>=13.0.3; platform_system == "Linux" and python_version < "3.15"',
    "foo[]", "foo[ ]", "foo[a,]", "foo[a b]", "foo bar", "foo (>=1", "foo==", "foo\n",
    "foo>=1.0\n", "foo @", "foo@http://x", "name[extra] @ file:///tmp/x.whl ; extra == 'x'",
    "foo===1.0,>=2", "foo===a,b", "foo>=1,", "foo ( )", "foo; ", "foo;", "foo ;os_name=='nt' x",
]


def main():
    driver = sys.argv[1]
    corpus = sys.argv[2] if len(sys.argv) > 2 else None
    # worktrees have no ../shared; fall back to the machine's copy
    for cand in (corpus, "/work/shared/corpus"):
        if cand and os.path.isdir(cand):
            corpus = cand
            break
    rnd = random.Random(508)
    envs = environments()
    # queries: (kind, line, expected)
    queries = []
    counts = {}

    def add(kind, line, expected):
        queries.append((kind, line, expected))
        counts[kind] = counts.get(kind, 0) + 1

    def env_line(env):
        return "E " + " ".join(enc(env[v]) for v in VARS)

    markers = list(FIXED_MARKERS)
    for _ in range(2500):
        markers.append(gen_marker(rnd))
    for _ in range(1500):
        markers.append(mutate(rnd, gen_marker(rnd)))
    reqs = list(FIXED_REQS)
    for _ in range(2500):
        reqs.append(gen_req(rnd))
    for _ in range(1000):
        reqs.append(mutate(rnd, gen_req(rnd)))
    corpus_reqs = corpus_requirements(corpus)

    for ei, env in enumerate(envs):
        queries.append(("env", env_line(env), "OK"))
        # every marker under a few environments each, all fixed ones under all
        for mi, m in enumerate(markers):
            if mi < len(FIXED_MARKERS) or mi % len(envs) in (ei, (ei + 7) % len(envs)):
                add("marker", "M " + enc(m), ref_marker(m, env))
        for ri, r in enumerate(reqs):
            if ri < len(FIXED_REQS) or ri % len(envs) == ei:
                ex = rnd.choice([[], ["gpu"], ["Opt_Einsum", "test"], ["foo-bar"]])
                add("requirement", "R %s %s" % (enc(r), ",".join(ex) or "-"), ref_req(r, ex, env))
        if ei % 6 == 0:
            for r in corpus_reqs:
                add("corpus-requirement", "R %s -" % enc(r), ref_req(r, [], env))
    # str() round trips: reparse what packaging printed
    env = envs[0]
    queries.append(("env", env_line(env), "OK"))
    for m in markers[:3000]:
        ref = ref_marker(m, env)
        if ref[0] != "P":
            add("marker-roundtrip", "M " + enc(ref[0]), ref_marker(ref[0], env))
    for r in reqs + corpus_reqs:
        ref = ref_req(r, [], env)
        if ref[0] != "P":
            add("requirement-roundtrip", "R %s -" % enc(ref[0]), ref_req(ref[0], [], env))

    payload = "".join(q[1] + "\n" for q in queries)
    proc = subprocess.run([driver], input=payload.encode(), stdout=subprocess.PIPE, check=True)
    answers = proc.stdout.decode().split("\n")
    passed = failed = 0
    shown = 0
    for i, (kind, line, exp) in enumerate(queries):
        got = answers[i] if i < len(answers) else "<missing>"
        ok = compare(kind, exp, got, line)
        if kind == "env":
            continue
        if ok:
            passed += 1
        else:
            failed += 1
            if shown < 40:
                shown += 1
                print("FAIL %s: %r\n  packaging: %r\n  rr:        %r" % (kind, dec(line[2:]), exp, got))
    for k in sorted(counts):
        print("%-22s %6d cases" % (k, counts[k]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def compare(kind, exp, got, line):
    if kind == "env":
        return got == "OK"
    f = got.split(" ")
    if exp[0] == "P":
        if f[0] != "P":
            return False
        src = dec(line.split(" ")[1]) if len(line.split(" ")) > 1 else ""
        if exp[1] is not None and src.isascii():
            return int(f[1]) == exp[1]
        return True
    if f[0] == "P":
        return False
    if kind.startswith("marker"):
        return len(f) == 2 and dec(f[0]) == exp[0] and f[1] == exp[1]
    return (len(f) == 4 and dec(f[0]) == exp[0] and dec(f[1]) == exp[1] and dec(f[2]) == exp[2]
            and f[3] == exp[3])


if __name__ == "__main__":
    sys.exit(main())
