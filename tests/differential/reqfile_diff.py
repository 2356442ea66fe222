#!/usr/bin/python3
"""Differential test: librr's requirements-file reader against pip 23.0's own
parser (pip._internal.req.req_file), line for line.

usage: reqfile_diff.py RR_REQFILE_DRIVER

Cases: every file of $RR_SHARED/corpus/requirements (laid out again as
owner/repo/path so -r/-c chains resolve), every fixtures/requirements/*.txt
of $RR_SRCDIR, and the inline snippets below. For each case both sides must
agree on: failure or success; the items in order (file, line, editable,
constraint, requirement text, hashes, per-requirement options; for PEP 508
items the normalised name pip derives); the global-option lines in order.
Run with Debian's /usr/bin/python3 (it has pip 23.0.1).
"""
import contextlib
import glob
import io
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, "/usr/lib/python3/dist-packages")
# Debian's packaging 23.0 (what librr's PEP 508 parser follows), not pip's vendored 21.3
from packaging.requirements import InvalidRequirement as InvalidRequirement23  # noqa: E402
from packaging.requirements import Requirement as Requirement23  # noqa: E402
from pip._internal.exceptions import InstallationError  # noqa: E402
from pip._internal.models.format_control import FormatControl  # noqa: E402
from pip._internal.req.constructors import install_req_from_line  # noqa: E402
from pip._internal.req.req_file import (  # noqa: E402
    RequirementsFileParser,
    get_line_parser,
    handle_requirement_line,
)
from pip._vendor.packaging.utils import canonicalize_name  # noqa: E402

# environment both sides see (${VAR} expansion)
os.environ["RR_DIFF_A"] = "alpha"
os.environ["RR_DIFF_VER"] = "1.2.3"
os.environ["RR_DIFF_EMPTY"] = ""
os.environ["RR_DIFF_TOKEN"] = "s3cr3t"
os.environ.pop("RR_DIFF_UNSET", None)
os.environ["RR_TEST_TORCH_VERSION"] = "2.4.1"  # fixtures/requirements/env.txt
os.environ["RR_TEST_HOST"] = "files.example"

# inline cases: name -> text (written to a scratch directory; "inc/" files are includes)
INLINE = {
    "plain.txt": "torch==2.4.0\nnumpy>=1.26,<2\n",
    "comments.txt": "# top\nfoo==1 # trailing\nbar  #x\n#only\n   # indented\nbaz#notacomment\n",
    "url-fragment.txt": "git+https://github.com/org/repo.git@v1#egg=repo&subdirectory=py\n"
    "https://x.org/pkg-1.0.tar.gz#sha256=abc\n",
    "continuation.txt": "foo\\\n==1.0\nbar \\\n  >=2 \\\n  ; python_version >= '3.8'\n",
    "cont-comment.txt": "foo==1 \\\n# a comment\nbar==2\n",
    "comment-backslash.txt": "# comment \\\nfoo==1\n",
    "comment-eats-next.txt": "foo==1 # note \\\nbar==2\nbaz==3\n",
    "cont-eof.txt": "foo==1 \\",
    "backslash-only.txt": "\\\nfoo\n",
    "leading-backslash.txt": "\\\\foo==1 \\\nbar\n",
    "crlf.txt": "foo==1\r\nbar==2 \\\r\n  ; os_name == 'posix'\r\n# c\r\n",
    "cr-only.txt": "foo==1\rbar==2\r",
    "formfeed.txt": "foo==1\x0cbar==2\x0bbaz==3\n",
    "unicode-breaks.txt": "foo==1\u2028bar==2\x85baz==3\u2029qux\n",
    "unicode-space.txt": "\u00a0foo==1\u3000# c\n bar==2\u2003\n",
    "bom.txt": "\ufefffoo==1\nbar\n",
    "env.txt": "foo==${RR_DIFF_VER}\n--index-url https://u:${RR_DIFF_TOKEN}@x.org/simple\n"
    "bar${RR_DIFF_UNSET}\nbaz==${RR_DIFF_EMPTY}1\n$RR_DIFF_A==1\n${rr_diff_a}x\n",
    "env-twice.txt": "foo-${RR_DIFF_A}-${RR_DIFF_A}==1\n",
    "options-eq.txt": "--index-url=https://a.org/simple\n--extra-index-url=https://b.org/simple\n"
    "--find-links=https://c.org/links\n--trusted-host=c.org\n--pre\n--prefer-binary\n"
    "--require-hashes\n--no-index\n",
    "options-space.txt": "-i https://a.org/simple\n--extra-index-url https://b.org/simple\n"
    "-f https://c.org/links\n--trusted-host c.org\n--no-binary :all:\n--only-binary torch,numpy\n"
    "--use-feature fast-deps\n",
    "options-short-attached.txt": "-ihttps://a.org/simple\n-fhttps://c.org/l\n",
    "options-prefix.txt": "--index https://a.org/simple\n--extra https://b.org/simple\n--trusted x.org\n"
    "--prefer\n--require-h\n--pypi-url https://p.org/simple\n",
    "options-multi.txt": "--extra-index-url a --extra-index-url b --trusted-host t1 --trusted-host t2\n"
    "-f one -f two\n--pre --no-index\n",
    "options-after-pins.txt": "torch==2.4.0\nnumpy\n--extra-index-url=https://download.pytorch.org/whl/rocm6.2\n",
    "options-quoted.txt": "--extra-index-url 'https://a.org/x y'\n--index-url \"https://b.org/\\\"q\"\n",
    "hash.txt": "foo==1.0 --hash=sha256:aaaa --hash sha256:bbbb \\\n    --hash=sha512:cccc\n",
    "hash-bad-algo.txt": "foo==1.0 --hash=md5:aaaa\n",
    "hash-no-colon.txt": "foo==1.0 --hash=aaaa\n",
    "hash-alone.txt": "--hash=sha256:aaaa\nfoo\n",
    "global-option.txt": "foo==1 --global-option=--no-user-cfg --install-option=\"--prefix=/x\"\n",
    "req-with-ignored-opt.txt": "foo==1 --pre\nbar --index-url https://i.org/simple\n",
    "tab-before-option.txt": "foo==1\t--hash=sha256:aaaa\n",
    "double-space.txt": "foo==1  --hash=sha256:aaaa\n",
    "editable.txt": "-e ./pkg\n--editable=../other[dev]\n-e git+https://g.org/r.git#egg=r\n-e. \n",
    "editable-hash-ignored.txt": "-e ./pkg --hash=sha256:aa\n",
    "name-at-url.txt": "torch @ https://x.org/torch-2.4.0-cp312-cp312-linux_x86_64.whl\n"
    "pkg[extra] @ git+https://g.org/pkg.git@main ; python_version >= '3.9'\n",
    "bare-urls.txt": "https://x.org/foo-1.0-py3-none-any.whl\n./local/dir\n../x-1.0-py3-none-any.whl\n.\n"
    "file:///tmp/x-2.0.tar.gz\nfoo-1.0.tar.gz\n",
    "bad-wheel-name.txt": "../x.whl\n",
    "markers.txt": "foo==1; python_version < '3.10'\nbar ; sys_platform == \"linux\" and platform_machine == 'x86_64'\n",
    "extras.txt": "foo[a,b]>=1\nFoo_Bar.baz[X]==2.0.*\n",
    "unknown-option.txt": "foo==1\n--frobnicate\n",
    "ambiguous-option.txt": "--no x\n",
    "flag-with-value.txt": "--pre=yes\n",
    "missing-arg.txt": "--index-url\n",
    "short-missing-arg.txt": "-r\n",
    "unclosed-quote.txt": "--index-url 'https://a.org\n",
    "malformed-req.txt": "foo==1\nbar===\n",
    "malformed-req2.txt": "torch>=2.0,<\n",
    "bad-name.txt": "-foo==1\n",
    "double-dash.txt": "-- foo\nbar==1\n",
    "positional-after-opt.txt": "--pre foo\nbar==1\n",
    "include-main.txt": "-r inc/a.txt\nmain==1\n-c inc/cons.txt\n",
    "inc/a.txt": "a==1\n-r sub/b.txt\n",
    "inc/sub/b.txt": "b==1\n--extra-index-url https://b.org/simple\n",
    "inc/cons.txt": "cons==1\n-e ./x\n",
    "include-two-on-line.txt": "-r inc/a.txt -r inc/cons.txt\n",
    "include-and-option.txt": "-r inc/a.txt --pre\n-c inc/cons.txt -r inc/a.txt\n",
    "include-missing.txt": "foo\n-r does-not-exist.txt\n",
    "include-eq.txt": "--requirement=inc/a.txt\n--constraint inc/cons.txt\n",
    "include-prefix.txt": "--requi inc/a.txt\n",
    "empty.txt": "",
    "blank-lines.txt": "\n\n   \n\t\n",
    "no-final-newline.txt": "foo==1\nbar==2",
    "semicolon-url.txt": "https://x.org/a-1.0.tar.gz; python_version >= '3'\n",
}


def write_tree(root, files):
    for name, text in files.items():
        p = os.path.join(root, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8", newline="") as f:
            f.write(text)


def corpus_tree(root, corpus):
    """owner__repo__a__b.txt -> root/owner/repo/a/b.txt (symlinks), returns the paths"""
    out = []
    for src in sorted(glob.glob(os.path.join(corpus, "*"))):
        parts = os.path.basename(src).split("__")
        dst = os.path.join(root, *parts)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        os.symlink(src, dst)
        out.append(dst)
    return out


def fmt_control(no_binary, only_binary):
    fc = FormatControl(set(), set())
    for v in no_binary:
        FormatControl.handle_mutual_excludes(v, fc.no_binary, fc.only_binary)
    for v in only_binary:
        FormatControl.handle_mutual_excludes(v, fc.only_binary, fc.no_binary)
    return sorted(fc.no_binary), sorted(fc.only_binary)


def norm_optline(index_url, extra, find_links, trusted, features, no_binary, only_binary,
                 pre, prefer_binary, require_hashes, no_index):
    d = {}
    if index_url is not None:
        d["index_url"] = index_url
    for k, v in (("extra", extra), ("find_links", find_links), ("trusted", trusted),
                 ("features", features)):
        if v:
            d[k] = list(v)
    nb, ob = fmt_control(no_binary, only_binary)
    if nb:
        d["no_binary"] = nb
    if ob:
        d["only_binary"] = ob
    for k, v in (("pre", pre), ("prefer_binary", prefer_binary),
                 ("require_hashes", require_hashes), ("no_index", no_index)):
        if v:
            d[k] = True
    return d


def merge_optline(optlines, rec):
    """a file included twice in a row repeats its option lines back to back; our records
    cannot tell those repeats apart, so both sides merge them"""
    if optlines and optlines[-1][:2] == rec[:2]:
        merged = dict(optlines[-1][2])
        for k, v in rec[2].items():
            merged[k] = merged[k] + v if isinstance(v, list) and k in merged else v
        optlines[-1] = (rec[0], rec[1], merged)
    else:
        optlines.append(rec)


def pip_req(text, base):
    """what pip makes of a non-editable line: ("name", key|None) or ("path", None) when it
    only fails because a local path does not exist here, or ("error", message)"""
    cwd = os.getcwd()
    try:
        os.chdir(base)
        ireq = install_req_from_line(text)
        if ireq.link is None or (ireq.req is not None and ireq.req.url):
            # a PEP 508 line: pip 23.0 checks it with its vendored packaging 21.3, which
            # still takes legacy specifiers ("<", ">=1.0+local"); librr follows packaging
            # 23.0, so that is the verdict on validity
            try:
                Requirement23(text)
            except InvalidRequirement23 as e:
                return ("error", f"invalid under packaging 23.0: {e}".splitlines()[0])
        return ("ok", canonicalize_name(ireq.name) if ireq.name else None)
    except InstallationError as e:
        if any(m in str(e) for m in ("does not exist", "looks like a path", "not installable")):
            return ("path", None)
        return ("error", str(e).splitlines()[0])
    finally:
        os.chdir(cwd)


def pip_side(path):
    parser = RequirementsFileParser(None, get_line_parser(None))
    items, optlines = [], []
    fmt_seen = {}
    try:
        for pl in parser.parse(path, False):
            # optparse's shared default list: --use-feature leaks into later lines
            feats = list(pl.opts.features_enabled or [])
            if pl.opts.features_enabled is not None:
                pl.opts.features_enabled.clear()
            if pl.is_requirement:
                pr = handle_requirement_line(pl)
                o = pr.options or {}
                hashes = sorted(f"{a}:{d}" for a, ds in (o.get("hashes") or {}).items() for d in ds)
                opts = sorted([f"--install-option={v}" for v in o.get("install_options") or []]
                              + [f"--global-option={v}" for v in o.get("global_options") or []])
                item = (pl.filename, pl.lineno, pr.is_editable, pr.constraint,
                        pr.requirement.rstrip(" \t"), hashes, opts)
                verdict = None
                if not pr.is_editable:
                    verdict = pip_req(pr.requirement, os.path.dirname(pl.filename) or ".")
                    if verdict[0] == "error":
                        return ("error", f"{pl.filename}:{pl.lineno}: {verdict[1]}"), None
                items.append((item, verdict))
            else:
                op = pl.opts
                # format_control accumulates per parser; no finder, so it is fresh per line
                fc = op.format_control if hasattr(op, "format_control") else None
                d = norm_optline(op.index_url, op.extra_index_urls, op.find_links,
                                 op.trusted_hosts, feats, [], [],
                                 op.pre, op.prefer_binary, op.require_hashes, op.no_index)
                if fc is not None and (fc.no_binary or fc.only_binary):
                    d["no_binary"] = sorted(fc.no_binary)
                    d["only_binary"] = sorted(fc.only_binary)
                    for k in ("no_binary", "only_binary"):
                        if not d[k]:
                            del d[k]
                fmt_seen[(pl.filename, pl.lineno)] = True
                if d:
                    merge_optline(optlines, (pl.filename, pl.lineno, d))
    except (InstallationError, RecursionError, Exception) as e:  # noqa: B014
        return ("error", str(e).splitlines()[0] if str(e) else type(e).__name__), None
    return items, optlines


def unesc(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            out.append({"t": "\t", "n": "\n", "\\": "\\"}.get(s[i + 1], s[i + 1]))
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def our_side(driver, paths):
    """run the driver once over all cases; returns {case: (items, optlines, kinds) or error}"""
    res = subprocess.run([driver] + paths, capture_output=True, text=True)
    cases, cur = {}, None
    for line in res.stdout.splitlines():
        f = [unesc(x) for x in line.split("\t")]
        if f[0] == "case":
            cur = {"items": [], "opts": [], "error": None, "kinds": []}
            cases[f[1]] = cur
        elif f[0] == "error":
            cur["error"] = f[1]
        elif f[0] == "item":
            path, ln, col, flags, kind, text, hashes, opts, key, url = f[1:11]
            cur["items"].append((path, int(ln), "e" in flags, "c" in flags, text,
                                 sorted(hashes.split()) if hashes else [],
                                 sorted(opts.split(" ")) if opts else []))
            cur["kinds"].append((kind, key))
        elif f[0] == "opt":
            cur["opts"].append((f[1], int(f[2]), f[3], f[4] if len(f) > 4 else ""))
    out = {}
    for case, c in cases.items():
        if c["error"] is not None:
            out[case] = ("error", c["error"])
            continue
        runs = []  # consecutive records of one line (a file may be included twice)
        for path, ln, name, value in c["opts"]:
            if not runs or runs[-1][0] != (path, ln):
                runs.append(((path, ln), []))
            runs[-1][1].append((name, value))
        optlines = []
        for k, g in runs:
            vals = lambda n: [v for nm, v in g if nm == n]  # noqa: E731
            idx = vals("--index-url")
            d = norm_optline(idx[-1] if idx else None, vals("--extra-index-url"),
                             vals("--find-links"), vals("--trusted-host"), vals("--use-feature"),
                             vals("--no-binary"), vals("--only-binary"),
                             bool(vals("--pre")), bool(vals("--prefer-binary")),
                             bool(vals("--require-hashes")), bool(vals("--no-index")))
            if d:
                merge_optline(optlines, (k[0], k[1], d))
        out[case] = (c["items"], optlines, c["kinds"])
    return out


def main():
    driver = sys.argv[1]
    srcdir = os.environ.get("RR_SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
    shared = os.environ.get("RR_SHARED", os.path.join(srcdir, "..", "shared"))
    corpus = os.path.join(shared, "corpus", "requirements")
    # a git worktree sits deeper than the main checkout: look further up for shared/
    d = os.path.abspath(srcdir)
    while not os.path.isdir(corpus) and os.path.dirname(d) != d:
        d = os.path.dirname(d)
        corpus = os.path.join(d, "shared", "corpus", "requirements")
    counts = {"corpus": 0, "fixtures": 0, "inline": 0}
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        cases = []
        if os.path.isdir(corpus):
            for p in corpus_tree(os.path.join(tmp, "corpus"), corpus):
                cases.append(("corpus", p))
        else:
            print(f"note: {corpus} absent, corpus cases skipped")
        fixdir = os.path.join(srcdir, "fixtures", "requirements")
        for p in sorted(glob.glob(os.path.join(fixdir, "**", "*.txt"), recursive=True)):
            cases.append(("fixtures", p))
        write_tree(os.path.join(tmp, "inline"), INLINE)
        for name in INLINE:
            if not name.startswith("inc/"):
                cases.append(("inline", os.path.join(tmp, "inline", name)))
        ours = our_side(driver, [p for _, p in cases])
        for kind, p in cases:
            counts[kind] += 1
            with contextlib.redirect_stderr(io.StringIO()):
                pip_items, pip_opts = pip_side(p)
            verdicts = None
            if pip_opts is not None:
                verdicts = [v for _, v in pip_items]
                pip_items = [i for i, _ in pip_items]
            mine = ours.get(p)
            problems = []
            if mine is None:
                problems.append("driver printed no case")
            elif pip_opts is None or mine[0] == "error":
                if pip_opts is None and mine[0] != "error":
                    problems.append(f"pip fails ({pip_items[1]}), we succeed")
                elif pip_opts is not None:
                    problems.append(f"we fail ({mine[1]}), pip succeeds")
            else:
                items, optlines, kinds = mine
                if items != pip_items:
                    for i in range(max(len(items), len(pip_items))):
                        a = items[i] if i < len(items) else None
                        b = pip_items[i] if i < len(pip_items) else None
                        if a != b:
                            problems.append(f"item {i}: ours {a!r} pip {b!r}")
                            break
                if optlines != pip_opts:
                    problems.append(f"option lines: ours {optlines!r} pip {pip_opts!r}")
                # pip's name (when it knows one without fetching) must be ours
                for it, (k, key), v in zip(items, kinds, verdicts):
                    if v is None:
                        continue
                    if v[0] == "path" and k != "url":
                        problems.append(f"{it[4]!r}: pip sees a local path, we a {k}")
                    if v[0] == "ok" and v[1] is not None and v[1] != (key or None):
                        problems.append(f"name of {it[4]!r}: ours {key!r} pip {v[1]!r}")
                    if v[0] == "ok" and v[1] is None and k == "req":
                        problems.append(f"{it[4]!r}: pip finds no name, we parse PEP 508")
            rel = os.path.relpath(p, tmp) if p.startswith(tmp) else os.path.relpath(p, srcdir)
            if problems:
                failed += 1
                print(f"FAIL {rel}")
                for pr in problems:
                    print(f"    {pr}")
            else:
                passed += 1
                status = "error" if pip_opts is None else f"{len(pip_items)} items"
                print(f"ok   {rel} ({status})")
    print(f"cases: {counts['corpus']} corpus, {counts['fixtures']} fixtures, "
          f"{counts['inline']} inline")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
