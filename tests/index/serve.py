#!/usr/bin/python3
"""Fixture package index for rocm-resolve tests (Python stdlib only).

    tests/index/serve.py --world fixtures/index/world.txt [--port N] [--port-file F]

Builds real wheels (zip: METADATA, WHEEL, RECORD, a module) and sdists (tar.gz
with PKG-INFO) in memory from the world description, then serves on 127.0.0.1:
PEP 691 JSON and PEP 503 HTML by Accept negotiation, PEP 658/714 .metadata
files, the Warehouse JSON API (/pypi/<name>/json), ETags with 304 and
Cache-Control. Prints the base URL (http://127.0.0.1:PORT) on stdout once
listening.

Path prefixes change behaviour per request (they stack, outermost first):
  /_fault/latency/<ms>/...    sleep before answering
  /_fault/slow/<ms>/<sub>/... sleep before answering a request whose path (after the
                              prefixes) contains <sub> (one path segment's worth, no '/')
  /_fault/bightml/...         HTML project pages carry a large comment (bigger than JSON)
  /_fault/5xx/<n>/...         the first n requests for this path get 503 (HEADs count for
                              none of these <n>)
  /_fault/always5xx/...       always 503
  /_fault/always500/...       always 500 (an index that fails, as a broken mirror does)
  /_fault/drop/<n>/...        the first n requests: connection closed, no answer
  /_fault/trunc/<n>/...       the first n requests: half the body, then close
  /_fault/stall/<n>/...       the first n requests: half the body, then nothing for 20 s
                              (the connection held open), then close
  /_fault/badjson/...         JSON bodies are malformed
  /_fault/ctype/...           Content-Type: application/octet-stream
  /_fault/nometa/...          .metadata files answer 404
  /_fault/nocache/...         Cache-Control: no-cache on pages
  /_fault/corrupt/...         files and .metadata bodies have one byte changed
  /_fault/noranges/...        files ignore Range (200, whole body, no Accept-Ranges), as
                              some mirrors do; by default files honour one byte range
                              (206 + Content-Range, 416 when unsatisfiable) like PyPI
  /_fault/noheaders/...       no Cache-Control, ETag or Last-Modified anywhere (and no 304),
                              like many company mirrors
  /_fault/hang/...            accept the connection, never answer
  /_fault/emptypages/...      project pages list no files (a broken mirror)
  /_fault/credlinks/...        file links on pages are absolute and carry alice:s3cretpw@
  /_fault/filelinks/...       a hostile index: file links on pages are file:// URLs of a copy
                              of each file (and its .metadata) in a local scratch directory
                              (JSON: absolute; HTML: relative, under <base href="file://<dir>/">)
  /_fault/imposter/<name>/... a hostile index: every project page lists the files of <name>
  /_fault/nohash/...          project pages give no file hashes (with garbage/: a damaged
                              archive is found by reading it, not by its hash)
  /_fault/garbage/...         files (not .metadata) are 64 KiB of text, no archive at all
  /_fault/many/<n>/...        project pages list n extra synthetic releases (1.<i>), whose
                              files do not exist (CPU benchmarks of page handling)
  /_fault/zeros/<mib>/...     project pages list one sdist, <name>-0.1.tar.gz: PKG-INFO
                              (2.2, static) followed by a member of <mib> MiB of zeros
  /_fault/zerosfirst/<mib>/... the same with the zeros before PKG-INFO
  /_fault/noisefirst/<kib>/... the same with <kib> KiB that do not compress before PKG-INFO
                              (instead of the zeros)
  /_fault/pyprojectlast/<kib>/... the same sdist as meson-python writes one: <kib> KiB that do
                              not compress, pyproject.toml with a static [project] (idna>=2,
                              extra "socks": PySocks), 4 MiB more, PKG-INFO 2.1 last
  /_fault/pyprojectdyn/<kib>/... the same with the dependencies dynamic
  /_fault/pyprojectother/<kib>/... the same with a [project] named otherproject
  /_auth/<user>/<pass>/...    HTTP basic auth required, else 401
--auth USER:PASS@PREFIX (repeatable): every path under PREFIX needs that basic auth (the
password is not in the URL, as on a real private index: a plan may name the URL)
A release's "=Elf: <member> [needs=<lib>,...] [runpath=<dirs>] [uses=<symbol>,...]" line puts
into each of its wheels an ELF shared object built with gcc (lazily, when the file is first
listed or asked for): DT_NEEDED each lib (stub libraries with those SONAMEs are linked, not
shipped), that DT_RUNPATH, and an undefined reference to each (mangled) symbol. Without gcc
the wheel is built without it.
Control: /_control/stats -> {"requests": N, "paths": {...}, "heads": N, "html": N, "json": N,
"ranges": N, "starts": N (ranges from byte 0), "range_values": {"bytes=A-B": N, ...}};
/_control/reset; /_control/order?a=<in|out>:<sub>&b=<in|out>:<sub> -> {"order": "before" |
"after" | "missing"}: whether the first arrival (in) or answer (out) of a request whose path
contains the first <sub> came before that of the second (events counted in one sequence).
"""
import argparse
import atexit
import base64
import hashlib
import html
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import urllib.parse
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FIXED_DATE = (2024, 1, 1, 0, 0, 0)
LAST_MODIFIED = "Mon, 01 Jan 2024 00:00:00 GMT"
UPLOAD_TIME = "2024-01-01T00:00:00.000000Z"


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def escape_name(name):
    """wheel/sdist filename form of a name"""
    return re.sub(r"[-_.]+", "_", name).lower()


class Release:
    def __init__(self, index, name, version):
        self.index, self.name, self.version = index, name, version
        self.pyr = None
        self.wheels = []
        self.sdist = None
        self.sdist_zip = False
        self.reqs = []
        self.extras = []
        self.yanked = None
        self.flags = set()
        self.elves = []  # (member path, =Elf: spec words)


class Index:
    def __init__(self, name, mount, flavour, options):
        self.name, self.mount, self.flavour = name, mount, flavour
        self.options = set(options)
        self.projects = {}  # normalized -> [Release]
        # filename -> (bytes, release, dist-metadata bytes or None)
        self.files = LazyFiles()


class LazyFiles(dict):
    """filename -> (bytes, release, metadata); a value given as a function is built the first
    time it is asked for (a wheel with ELF members: gcc runs only for the tests that list it)"""

    def __init__(self):
        super().__init__()
        self.lock = threading.Lock()

    def __getitem__(self, k):
        v = super().__getitem__(k)
        if callable(v):
            with self.lock:
                v = super().__getitem__(k)
                if callable(v):
                    v = v()
                    super().__setitem__(k, v)
        return v

    def get(self, k, default=None):
        return self[k] if k in self else default


def build_elf(spec):
    """an ELF shared object as an =Elf: line describes it (bytes), None without gcc"""
    gcc = shutil.which("gcc")
    if not gcc:
        return None
    opts = dict(w.split("=", 1) for w in spec)
    needs = [n for n in opts.get("needs", "").split(",") if n]
    uses = [u for u in opts.get("uses", "").split(",") if u]
    tmp = tempfile.mkdtemp(prefix="rr-fixture-elf-")
    try:
        with open(os.path.join(tmp, "stub.c"), "w") as f:
            f.write("int rr_fixture_stub;\n")
        for n in needs:
            subprocess.run([gcc, "-shared", "-fPIC", "-o", n, "stub.c", f"-Wl,-soname,{n}"], cwd=tmp,
                           check=True, capture_output=True)
        src = "".join(f'extern int rr_use{i}(void) __asm__("{u}");\n' for i, u in enumerate(uses))
        src += "int rr_fixture_init(void) { return 0" + "".join(f" + rr_use{i}()" for i in range(len(uses)))
        src += "; }\n"
        with open(os.path.join(tmp, "ext.c"), "w") as f:
            f.write(src)
        cmd = [gcc, "-shared", "-fPIC", "-O1", "-o", "ext.so", "ext.c", "-L.", "-Wl,--no-as-needed"]
        cmd += [f"-l:{n}" for n in needs]
        if "runpath" in opts:
            cmd.append(f"-Wl,--enable-new-dtags,-rpath,{opts['runpath']}")
        subprocess.run(cmd, cwd=tmp, check=True, capture_output=True)
        return open(os.path.join(tmp, "ext.so"), "rb").read()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def parse_world(path):
    indexes = {}
    cur_idx = None
    rel = None
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            m = re.match(r"=(\w+):\s*(.*)$", line)
            if not m:
                sys.exit(f"{path}:{lineno}: expected '=Tag: value'")
            tag, val = m.group(1), m.group(2).strip()
            if tag == "Index":
                parts = val.split()
                indexes[parts[0]] = Index(parts[0], parts[1], parts[2], parts[3:])
            elif tag == "Idx":
                cur_idx = indexes[val]
            elif tag == "Pkg":
                name, version = val.split()
                rel = Release(cur_idx, name, version)
                rel.wheels = ["py3-none-any"]
                cur_idx.projects.setdefault(normalize(name), []).append(rel)
            elif tag == "Pyr":
                rel.pyr = val
            elif tag == "Whl":
                rel.wheels = [] if val == "-" else val.split()
            elif tag == "Src":
                kind, *fmt = val.split()
                rel.sdist = kind
                rel.sdist_zip = "zip" in fmt
            elif tag == "Req":
                rel.reqs.append(val)
            elif tag == "Ext":
                rel.extras.append(val)
            elif tag == "Ynk":
                rel.yanked = val
            elif tag == "Elf":
                member, *spec = val.split()
                rel.elves.append((member, spec))
            elif tag == "Flg":
                rel.flags.update(val.split())
            else:
                sys.exit(f"{path}:{lineno}: unknown tag '={tag}:'")
    return indexes


def metadata_text(rel, version="2.1", dynamic=False):
    lines = [f"Metadata-Version: {version}", f"Name: {rel.name}", f"Version: {rel.version}",
             f"Summary: fixture release of {rel.name} for rocm-resolve tests"]
    if dynamic:
        lines.append("Dynamic: Requires-Dist")
    if rel.pyr:
        lines.append(f"Requires-Python: {rel.pyr}")
    for e in rel.extras:
        lines.append(f"Provides-Extra: {e}")
    for r in rel.reqs:
        lines.append(f"Requires-Dist: {r}")
    return ("\n".join(lines) + "\n\n").encode()


def zinfo(name):
    zi = zipfile.ZipInfo(name, date_time=FIXED_DATE)
    zi.compress_type = zipfile.ZIP_DEFLATED
    zi.external_attr = 0o644 << 16
    return zi


def build_wheel(rel, tag):
    dn = escape_name(rel.name)
    info = f"{dn}-{rel.version}.dist-info"
    meta = metadata_text(rel)
    files = {
        f"{dn}/__init__.py": f'__version__ = "{rel.version}"\n'.encode(),
        f"{info}/METADATA": meta,
        f"{info}/WHEEL": (f"Wheel-Version: 1.0\nGenerator: rocm-resolve-fixture\n"
                          f"Root-Is-Purelib: {'true' if tag.endswith('any') else 'false'}\n"
                          f"Tag: {tag}\n\n").encode(),
    }
    for member, spec in rel.elves:
        data = build_elf(spec)
        if data is not None:
            files[member] = data
    if "big" in rel.flags or "many" in rel.flags:
        # many members (a central directory beyond the last 64 KiB) and, for big, after
        # the dist-info, an incompressible member (METADATA beyond it too)
        filler = {f"{dn}/sub/module_with_a_rather_long_name_{i:05d}.py": b"x = 1\n"
                  for i in range(1500)}
        # infofirst: the dist-info before everything else, as pdm-backend writes it
        files = {**files, **filler} if "infofirst" in rel.flags else {**filler, **files}
    record = []
    for n, data in files.items():
        d = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{n},sha256={d},{len(data)}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for n, data in files.items():
            z.writestr(zinfo(n), data)
        if "big" in rel.flags:
            blob = b"".join(hashlib.sha256(i.to_bytes(4, "little")).digest() for i in range(8192))
            zi = zinfo(f"{info}/zz_blob.bin")
            zi.compress_type = zipfile.ZIP_STORED
            z.writestr(zi, blob)
    return f"{dn}-{rel.version}-{tag}.whl", buf.getvalue(), meta


def torch_backend(rel, needs_torch=True):
    """PEP 517 hooks that import torch first (needs_torch), then write a wheel of metadata
    alone"""
    dn = escape_name(rel.name)
    meta = "".join([f"Metadata-Version: 2.1\nName: {rel.name}\nVersion: {rel.version}\n"] +
                   [f"Requires-Dist: {r}\n" for r in rel.reqs])
    head = "import torch  # noqa: F401  the build needs the installed torch\n" if needs_torch else ""
    return head + f'''import os, zipfile
INFO = "{dn}-{rel.version}.dist-info"
META = {meta!r}
WHEEL = "Wheel-Version: 1.0\\nGenerator: rr-fixture\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
def get_requires_for_build_wheel(config_settings=None):
    return []
def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    os.makedirs(os.path.join(metadata_directory, INFO))
    with open(os.path.join(metadata_directory, INFO, "METADATA"), "w") as fh:
        fh.write(META)
    return INFO
def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = "{dn}-{rel.version}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as z:
        z.writestr(INFO + "/METADATA", META)
        z.writestr(INFO + "/WHEEL", WHEEL)
        z.writestr(INFO + "/RECORD", "")
    return name
'''


def build_sdist(rel):
    dn = escape_name(rel.name)
    top = f"{dn}-{rel.version}"
    kind = rel.sdist
    if kind == "static":
        pkginfo = metadata_text(rel, "2.2")
    elif kind == "dynamic":
        pkginfo = metadata_text(rel, "2.2", dynamic=True)
    else:  # legacy: 2.1, requirements only known to setup.py
        lines = [f"Metadata-Version: 2.1", f"Name: {rel.name}", f"Version: {rel.version}"]
        if rel.pyr:
            lines.append(f"Requires-Python: {rel.pyr}")
        pkginfo = ("\n".join(lines) + "\n\n").encode()
    members = {
        f"{top}/PKG-INFO": pkginfo,
        f"{top}/setup.py": f"from setuptools import setup\nsetup(install_requires={rel.reqs!r})\n".encode(),
        f"{top}/pyproject.toml": b'[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n',
    }
    if "inbuild" in rel.flags:
        # an in-tree backend that needs nothing: installers build it in isolation, offline
        members[f"{top}/pyproject.toml"] = (b'[build-system]\nrequires = []\nbuild-backend = "backend"\n'
                                            b'backend-path = ["."]\n')
        members[f"{top}/backend.py"] = torch_backend(rel, needs_torch=False).encode()
    if "buildtorch" in rel.flags:
        # a build that needs the installed torch, as flash-attn's does: an in-tree
        # backend that imports torch and needs nothing else, so built in isolation it
        # fails (no torch there) and with --no-build-isolation it builds against the
        # venv's torch
        members[f"{top}/pyproject.toml"] = (b'[build-system]\nrequires = []\nbuild-backend = "backend"\n'
                                            b'backend-path = ["."]\n')
        members[f"{top}/backend.py"] = torch_backend(rel).encode()
    if rel.sdist_zip:
        # a .zip sdist as setuptools writes one: PKG-INFO first, then the sources (here
        # 256 KiB that do not compress), so PKG-INFO lies outside the file's last 64 KiB
        blob = b"".join(hashlib.sha256(i.to_bytes(4, "little")).digest() for i in range(8192))
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr(zinfo(f"{top}/PKG-INFO"), pkginfo)
            zi = zinfo(f"{top}/data.bin")
            zi.compress_type = zipfile.ZIP_STORED
            z.writestr(zi, blob)
            for n, data in list(members.items())[1:]:
                z.writestr(zinfo(n), data)
        return f"{top}.zip", buf.getvalue(), pkginfo
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as t:
        for n, data in members.items():
            ti = tarfile.TarInfo(n)
            ti.size = len(data)
            ti.mtime = 1704067200
            ti.mode = 0o644
            t.addfile(ti, io.BytesIO(data))
    import gzip
    gz = gzip.compress(raw.getvalue(), mtime=0)
    return f"{top}.tar.gz", gz, pkginfo


def build(indexes):
    for idx in indexes.values():
        for rels in idx.projects.values():
            for rel in rels:
                rel.files = []
                for tag in rel.wheels:
                    fn = f"{escape_name(rel.name)}-{rel.version}-{tag}.whl"
                    def entry(rel=rel, tag=tag):
                        _, data, meta = build_wheel(rel, tag)
                        return (data, rel, meta)
                    # gcc builds the ELF members when the file is first listed or asked for
                    idx.files[fn] = entry if rel.elves else entry()
                    rel.files.append(fn)
                if rel.sdist:
                    fn, data, meta = build_sdist(rel)
                    idx.files[fn] = (data, rel, None)
                    rel.files.append(fn)


def sha(b):
    return hashlib.sha256(b).hexdigest()


def has_meta(idx, rel, fn):
    return (fn.endswith(".whl") and "nometa" not in idx.options and "nometa" not in rel.flags)


def file_href(idx, fn):
    q = urllib.parse.quote(fn)
    if idx.flavour == "pytorch":
        return idx.mount + q  # root-relative, '+' as %2B
    return "../../files/" + q  # relative to /<mount>/<project>/


def local_copy(state, idx, fn):
    """the path of a copy of file fn in the server's scratch directory (made on first use)"""
    with state.lock:
        if state.scratch is None:
            state.scratch = tempfile.mkdtemp(prefix="rr-fixture-local-")
            atexit.register(shutil.rmtree, state.scratch, True)
        path = os.path.join(state.scratch, fn)
        if not os.path.exists(path):
            data, _, meta = idx.files[fn]
            with open(path, "wb") as f:
                f.write(data)
            if meta:  # what a client that follows the link reads first (PEP 658)
                with open(path + ".metadata", "wb") as f:
                    f.write(meta)
    return path


def page_entries(idx, key, rels, faults=(), params=None, prefix="", host="", state=None):
    """the files a project page lists: (filename, href, sha256 or None, size, requires-python,
    yanked reason or None, metadata sha256 or None)"""
    params = params or {}
    if "emptypages" in faults:
        return []
    if "zeros" in faults:
        fn = f"{escape_name(key)}-0.1.tar.gz"
        return [(fn, file_href(idx, fn), None, None, None, None, None)]
    out = []
    for rel in rels:
        for fn in rel.files:
            data, _, meta = idx.files[fn]
            href = file_href(idx, fn)
            if "credlinks" in faults and idx.mount.endswith("simple/"):
                base_dir = idx.mount[: -len("simple/")]
                href = (f"http://{params['credlinks']}@{host}{prefix}{base_dir}files/"
                        + urllib.parse.quote(fn))
            if "filelinks" in faults:
                href = "file://" + urllib.parse.quote(local_copy(state, idx, fn))
            out.append((fn, href, None if "nohash" in faults else sha(data), len(data), rel.pyr,
                        rel.yanked,
                        sha(meta) if has_meta(idx, rel, fn) else None))
    for i in range(params.get("many", 0)):
        fn = f"{escape_name(key)}-1.{i}-py3-none-any.whl"
        out.append((fn, file_href(idx, fn), "0" * 64, 1000, None, None, None))
    return out


def project_json(idx, key, rels, entries):
    files = []
    for fn, href, digest, size, pyr, yanked, meta_sha in entries:
        f = {"filename": fn, "url": href, "hashes": {"sha256": digest} if digest else {},
             "requires-python": pyr, "size": size, "upload-time": UPLOAD_TIME,
             "yanked": False if yanked is None else (yanked or True)}
        if size is None:
            del f["size"]
        if meta_sha:
            f["core-metadata"] = {"sha256": meta_sha}
            f["data-dist-info-metadata"] = {"sha256": meta_sha}
        else:
            f["core-metadata"] = False
            f["data-dist-info-metadata"] = False
        files.append(f)
    doc = {"meta": {"api-version": "1.1", "_last-serial": 1}, "name": key,
           "versions": sorted({r.version for r in rels}), "files": files}
    return json.dumps(doc, indent=1).encode()


def project_html(idx, key, rels, entries, base=None):
    """base: a <base href> the links are written relative to"""
    out = ["<!DOCTYPE html>", "<html>", "  <head>",
           '    <meta name="pypi:repository-version" content="1.1">',
           f"    <title>Links for {html.escape(key)}</title>"]
    if base:
        out.append(f'    <base href="{html.escape(base)}">')
    out += ["  </head>", "  <body>", f"    <h1>Links for {html.escape(key)}</h1>"]
    for fn, href, digest, size, pyr, yanked, meta_sha in entries:
        if base and href.startswith(base):
            href = href[len(base):]
        attrs = [f'href="{html.escape(href)}' + (f'#sha256={digest}"' if digest else '"')]
        if pyr and idx.flavour == "pypi":
            attrs.append(f'data-requires-python="{html.escape(pyr)}"')
        if yanked is not None:
            attrs.append(f'data-yanked="{html.escape(yanked)}"')
        if meta_sha:
            attrs.append(f'data-dist-info-metadata="sha256={meta_sha}"')
            attrs.append(f'data-core-metadata="sha256={meta_sha}"')
        out.append(f"    <a {' '.join(attrs)}>{html.escape(fn)}</a><br/>")
    out += ["  </body>", "</html>", "<!--SERIAL 1-->"]
    return ("\n".join(out) + "\n").encode()


def noise_sdist(name, kib, pyproject=None):
    """a .tar.gz: <top>/noise.bin of kib KiB that do not compress, then <top>/PKG-INFO
    (2.2, static): PKG-INFO lies about kib KiB into the compressed file. pyproject:
    meson-python's order instead (the pyproject.toml after the noise, 4 MiB more noise,
    then PKG-INFO 2.1), its dependencies static ("pyprojectlast") or dynamic"""
    import gzip
    top = name[: -len(".tar.gz")]
    pname = top.rsplit('-', 1)[0]
    pkginfo = (f"Metadata-Version: 2.2\nName: {pname}\nVersion: 0.1\n"
               "Requires-Dist: idna\n\n").encode()
    noise = b"".join(hashlib.sha256(i.to_bytes(4, "little")).digest() for i in range(kib * 32))
    members = [(f"{top}/noise.bin", noise), (f"{top}/PKG-INFO", pkginfo)]
    if pyproject:
        dyn = 'dynamic = ["version", "dependencies"]' if pyproject == "pyprojectdyn" else \
            'dynamic = ["version"]\ndependencies = ["idna>=2"]'
        tname = "otherproject" if pyproject == "pyprojectother" else pname
        toml = (f'[build-system]\nrequires = ["meson-python"]\nbuild-backend = "mesonpy"\n\n'
                f'[project]\nname = "{tname}"\n'
                f'requires-python = ">=3.8"\n{dyn}\n\n'
                '[project.optional-dependencies]\n'
                'Socks = [\'PySocks>=1.5 ; python_version >= "3"\']\n').encode()
        more = b"".join(hashlib.sha256(b"m" + i.to_bytes(4, "little")).digest()
                        for i in range(4 * 32 * 1024))
        members = [(f"{top}/noise.bin", noise), (f"{top}/pyproject.toml", toml),
                   (f"{top}/zz-more.bin", more),
                   (f"{top}/PKG-INFO", f"Metadata-Version: 2.1\nName: {pname}\nVersion: 0.1\n"
                    "Requires-Python: >=3.8\n\n".encode())]
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as t:
        for n, data in members:
            ti = tarfile.TarInfo(n)
            ti.size, ti.mtime, ti.mode = len(data), 1704067200, 0o644
            t.addfile(ti, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), mtime=0)


def zeros_sdist(name, mib, first=False):
    """a .tar.gz: <top>/PKG-INFO (2.2, static), then <top>/zeros.bin of mib MiB of zeros
    (first: the zeros before PKG-INFO)"""
    top = name[: -len(".tar.gz")]
    pkginfo = (f"Metadata-Version: 2.2\nName: {top.rsplit('-', 1)[0]}\nVersion: 0.1\n"
               "Requires-Dist: idna\n\n").encode()

    def header(n, size):
        ti = tarfile.TarInfo(n)
        ti.size, ti.mtime, ti.mode = size, 1704067200, 0o644
        return ti.tobuf(format=tarfile.GNU_FORMAT)

    # raw deflate, fully flushed after each piece: every 1 MiB of zeros then compresses to
    # the same bytes, so a GiB-sized member costs one compression, not a thousand
    import struct
    import zlib
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    info = header(f"{top}/PKG-INFO", len(pkginfo)) + pkginfo + b"\0" * (-len(pkginfo) % 512)
    head = header(f"{top}/zeros.bin", mib << 20)
    if not first:
        head = info + head
    parts = [z.compress(head) + z.flush(zlib.Z_FULL_FLUSH)]
    chunk = b"\0" * (1 << 20)
    one = z.compress(chunk) + z.flush(zlib.Z_FULL_FLUSH)
    two = z.compress(chunk) + z.flush(zlib.Z_FULL_FLUSH)
    assert one == two
    tail = (info if first else b"") + b"\0" * 1024
    crc = zlib.crc32(head)
    for _ in range(mib):
        crc = zlib.crc32(chunk, crc)
    crc = zlib.crc32(tail, crc)
    parts.append(one * mib)
    parts.append(z.compress(tail) + z.flush())
    total = len(head) + (mib << 20) + len(tail)
    return (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff" + b"".join(parts)
            + struct.pack("<II", crc, total & 0xFFFFFFFF))


def root_html(idx):
    out = ["<!DOCTYPE html>", "<html><body>"]
    for key in sorted(idx.projects):
        out.append(f'<a href="{key}/">{key}</a>')
    out.append("</body></html>")
    return ("\n".join(out) + "\n").encode()


def root_json(idx):
    return json.dumps({"meta": {"api-version": "1.1", "_last-serial": 1},
                       "projects": [{"name": k, "_last-serial": 1} for k in sorted(idx.projects)]}).encode()


def jsonapi(idx, key, rels, base):
    rel_latest = rels[-1]
    releases = {}
    for rel in rels:
        lst = releases.setdefault(rel.version, [])
        for fn in rel.files:
            data, _, _ = idx.files[fn]
            lst.append({"filename": fn, "url": base + "files/" + urllib.parse.quote(fn),
                        "digests": {"sha256": sha(data), "md5": hashlib.md5(data).hexdigest()},
                        "packagetype": "bdist_wheel" if fn.endswith(".whl") else "sdist",
                        "requires_python": rel.pyr, "size": len(data),
                        "upload_time": UPLOAD_TIME[:19], "yanked": rel.yanked is not None,
                        "yanked_reason": rel.yanked or None})
    info = {"name": rel_latest.name, "version": rel_latest.version,
            "requires_dist": rel_latest.reqs or None, "requires_python": rel_latest.pyr,
            "summary": f"fixture release of {rel_latest.name}", "yanked": False, "yanked_reason": None}
    return json.dumps({"info": info, "last_serial": 1, "releases": releases,
                       "urls": releases.get(rel_latest.version, []), "vulnerabilities": []}).encode()


ACCEPT_OFFERS = ["application/vnd.pypi.simple.v1+json", "application/vnd.pypi.simple.v1+html", "text/html"]


def negotiate(accept):
    if not accept:
        return "text/html"
    best, bestq = None, 0.0
    for part in accept.split(","):
        bits = [b.strip() for b in part.split(";")]
        mt, q = bits[0].lower(), 1.0
        for b in bits[1:]:
            if b.startswith("q="):
                try:
                    q = float(b[2:])
                except ValueError:
                    q = 0.0
        if mt == "application/vnd.pypi.simple.latest+json":
            mt = "application/vnd.pypi.simple.v1+json"
        if mt == "application/vnd.pypi.simple.latest+html":
            mt = "application/vnd.pypi.simple.v1+html"
        cands = ACCEPT_OFFERS if mt in ("*/*",) else [mt] if mt in ACCEPT_OFFERS else []
        for c in cands:
            if q > bestq:
                best, bestq = c, q
    return best


def corrupt(body, faults):
    if "corrupt" not in faults or not body:
        return body
    b = bytearray(body)
    b[len(b) // 2] ^= 0x20
    return bytes(b)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


class State:
    def __init__(self, indexes):
        self.indexes = indexes
        self.lock = threading.Lock()
        self.counts = {}
        self.requests = 0
        self.ranges = 0  # range requests answered 206/416
        self.starts = 0  # those of them that begin at byte 0
        self.range_values = {}  # their Range headers, as sent
        self.bytes = 0  # body bytes sent with 200/206
        self.blobs = {}  # synthetic files by name
        self.scratch = None  # local copies of files (/_fault/filelinks/)
        self.auth = []  # (user, password, path prefix): --auth
        self.events = []  # ("in" | "out", path) in the order they happened
        self.heads = 0
        self.served = {"html": 0, "json": 0}  # project pages by format


def make_handler(state):
    class H(BaseHTTPRequestHandler):
        # headers and body go out in separate writes: without this, Nagle's
        # algorithm holds the body ~40 ms on a kept-alive connection
        disable_nagle_algorithm = True
        protocol_version = "HTTP/1.1"
        server_version = "rr-fixture/1"

        def log_message(self, fmt, *args):
            pass

        def send(self, status, body=b"", ctype="text/plain", headers=(), faults=(), ranges=False):
            if "ctype" in faults:
                ctype = "application/octet-stream"
            etag = '"' + sha(body)[:32] + '"'
            if "noheaders" in getattr(self, "faults", ()):
                faults = set(faults) | {"noheaders"}  # every answer, 404s included
            if "noheaders" in faults:
                headers = [(k, v) for k, v in headers if k.lower() != "cache-control"]
            if ranges and "noranges" not in faults and status == 200:
                headers = list(headers) + [("Accept-Ranges", "bytes")]
                rng = self.headers.get("Range")
                m = re.match(r"bytes=(\d*)-(\d*)$", rng.strip()) if rng else None
                if m and (m.group(1) or m.group(2)):
                    total = len(body)
                    if m.group(1):
                        a = int(m.group(1))
                        b = int(m.group(2)) if m.group(2) else total - 1
                    else:
                        a, b = max(0, total - int(m.group(2))), total - 1
                    b = min(b, total - 1)
                    with state.lock:
                        state.ranges += 1
                        state.starts += m.group(1) == "0"
                        v = rng.strip()
                        state.range_values[v] = state.range_values.get(v, 0) + 1
                    if a > b or a >= total:
                        return self.send(416, b"", headers=[("Content-Range", f"bytes */{total}")])
                    status = 206
                    headers = headers + [("Content-Range", f"bytes {a}-{b}/{total}")]
                    body = body[a:b + 1]
            if status in (200, 206):
                with state.lock:
                    state.bytes += len(body) if self.command != "HEAD" else 0
            if "noheaders" in faults:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                for k, v in headers:
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)
                return
            if status == 200 and self.headers.get("If-None-Match") == etag:
                self.send_response(304)
                self.send_header("ETag", etag)
                for k, v in headers:
                    self.send_header(k, v)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            if status in (200, 206):
                self.send_header("ETag", etag)
                self.send_header("Last-Modified", LAST_MODIFIED)
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command == "HEAD":
                return
            if "stall" in faults:
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                time.sleep(20)
                self.close_connection = True
                return
            if "trunc" in faults:
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return
            self.wfile.write(body)

        def do_HEAD(self):
            with state.lock:
                state.heads += 1
            self.do_GET()

        def do_GET(self):
            path = urllib.parse.urlsplit(self.path).path
            if path.startswith("/_control/"):
                return self.control(path)
            with state.lock:
                state.events.append(("in", path))
            try:
                self.answer(path)
            finally:
                with state.lock:
                    state.events.append(("out", path))

        def answer(self, path):
            with state.lock:
                state.requests += 1
                n_seen = state.counts.get(path, 0)
                # a HEAD (a client measuring a page) does not use up a path's faults
                if self.command != "HEAD":
                    state.counts[path] = n_seen + 1
            faults = set()
            self.params = {}
            rest = path
            while True:
                m = re.match(r"/_fault/slow/(\d+)/([^/]+)(/.*)$", rest)
                if m:
                    self.params.setdefault("slow", []).append((int(m.group(1)), m.group(2)))
                    rest = m.group(3)
                    continue
                m = re.match(r"/_fault/(latency|5xx|drop|trunc|stall|many|zeros|zerosfirst|noisefirst|pyprojectlast|pyprojectdyn|pyprojectother)/(\d+)(/.*)$", rest)
                if m:
                    kind, n, rest = m.group(1), int(m.group(2)), m.group(3)
                    if kind == "latency":
                        time.sleep(n / 1000.0)
                    elif kind in ("many", "zeros", "zerosfirst", "noisefirst", "pyprojectlast",
                                  "pyprojectdyn", "pyprojectother"):
                        if kind in ("pyprojectlast", "pyprojectdyn", "pyprojectother"):
                            self.params["pyproject"] = kind
                            kind = "noisefirst"
                        if kind == "noisefirst":
                            faults.add("zeros")
                            self.params["noise"] = True
                            kind = "zeros"
                        if kind == "zerosfirst":
                            faults.add("zeros")
                            self.params["first"] = True
                            kind = "zeros"
                        faults.add(kind)
                        self.params[kind] = n
                    elif n_seen < n:
                        faults.add(kind)
                    continue
                m = re.match(r"/_fault/(always5xx|always500|badjson|ctype|nometa|nocache|corrupt|noranges|noheaders|hang|emptypages|filelinks|nohash|garbage|bightml)(/.*)$", rest)
                if m:
                    faults.add(m.group(1))
                    rest = m.group(2)
                    continue
                m = re.match(r"/_fault/imposter/([^/]+)(/.*)$", rest)
                if m:
                    faults.add("imposter")
                    self.params["imposter"] = normalize(m.group(1))
                    rest = m.group(2)
                    continue
                m = re.match(r"/_fault/credlinks(/.*)$", rest)
                if m:
                    faults.add("credlinks")
                    self.params["credlinks"] = "alice:s3cretpw"
                    rest = m.group(1)
                    continue
                for user, pw, prefix in state.auth:
                    if rest.startswith(prefix):
                        want = "Basic " + base64.b64encode(f"{user}:{pw}".encode()).decode()
                        if self.headers.get("Authorization") != want:
                            return self.send(401, b"unauthorized\n", headers=[
                                ("WWW-Authenticate", 'Basic realm="fixture"')])
                m = re.match(r"/_auth/([^/]+)/([^/]+)(/.*)$", rest)
                if m:
                    user, pw, rest = m.group(1), m.group(2), m.group(3)
                    want = "Basic " + base64.b64encode(f"{user}:{pw}".encode()).decode()
                    if self.headers.get("Authorization") != want:
                        return self.send(401, b"unauthorized\n", headers=[
                            ("WWW-Authenticate", 'Basic realm="fixture"')])
                    continue
                break
            for ms, sub in self.params.get("slow", []):
                if sub in rest:
                    time.sleep(ms / 1000.0)
            if "hang" in faults:
                time.sleep(3600)
                return
            self.prefix = path[: len(path) - len(rest)]
            self.faults = faults
            if "drop" in faults:
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return
            if "5xx" in faults or "always5xx" in faults:
                return self.send(503, b"service unavailable\n")
            if "always500" in faults:
                return self.send(500, b"internal server error\n")
            self.route(rest, faults)

        def control(self, path):
            if path == "/_control/reset":
                with state.lock:
                    state.counts.clear()
                    state.requests = 0
                    state.ranges = 0
                    state.starts = 0
                    state.range_values.clear()
                    state.bytes = 0
                    state.events.clear()
                    state.heads = 0
                    state.served = {"html": 0, "json": 0}
            if path == "/_control/order":
                q = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
                want = [tuple(q.get(k, [":"])[0].split(":", 1)) for k in ("a", "b")]
                with state.lock:
                    at = [next((i for i, (ev, p) in enumerate(state.events) if ev == kind and sub in p), None)
                          for kind, sub in want]
                order = "missing" if None in at else "before" if at[0] < at[1] else "after"
                return self.send(200, json.dumps({"order": order}).encode(), "application/json")
            with state.lock:
                body = json.dumps({"requests": state.requests, "paths": state.counts,
                                   "ranges": state.ranges, "starts": state.starts,
                                   "range_values": state.range_values,
                                   "bytes": state.bytes, "heads": state.heads,
                                   "html": state.served["html"], "json": state.served["json"]}).encode()
            self.send(200, body, "application/json")

        def route(self, path, faults):
            page_cc = [("Cache-Control", "no-cache" if "nocache" in faults else "max-age=600"),
                       ("Vary", "Accept"), ("X-PyPI-Last-Serial", "1")]
            file_cc = [("Cache-Control", "max-age=365000000, immutable")]
            for idx in state.indexes.values():
                base_dir = idx.mount[: -len("simple/")] if idx.mount.endswith("simple/") else None
                # JSON API beside a pypi-flavour /simple/
                if idx.flavour == "pypi" and base_dir and path.startswith(base_dir + "pypi/"):
                    m = re.match(r"pypi/([^/]+)/json$", path[len(base_dir):])
                    if not m:
                        continue
                    key = normalize(m.group(1))
                    if key not in idx.projects:
                        return self.send(404, b"not found\n", headers=[("Cache-Control", "max-age=900")])
                    return self.send(200, jsonapi(idx, key, idx.projects[key], base_dir),
                                     "application/json", [("Cache-Control", "max-age=900")], faults)
                # files of a pypi-flavour index live in <base>/files/
                if idx.flavour == "pypi" and base_dir and path.startswith(base_dir + "files/"):
                    return self.serve_file(idx, urllib.parse.unquote(path[len(base_dir) + 6:]), faults, file_cc)
                if not path.startswith(idx.mount):
                    continue
                sub = path[len(idx.mount):]
                if sub == "":
                    if idx.flavour == "pypi" and negotiate(self.headers.get("Accept")) == ACCEPT_OFFERS[0]:
                        return self.send(200, root_json(idx), ACCEPT_OFFERS[0], page_cc, faults)
                    return self.send(200, root_html(idx), "text/html", page_cc, faults)
                if idx.flavour == "pytorch" and "/" not in sub:
                    return self.serve_file(idx, urllib.parse.unquote(sub), faults, file_cc)
                m = re.match(r"([^/]+)/?$", sub)
                if not m:
                    return self.send(404, b"not found\n")
                name = m.group(1)
                key = normalize(name)
                if name != key or not sub.endswith("/"):
                    loc = self.path[: len(self.path) - len(sub)] + key + "/"
                    return self.send(301, b"", headers=[("Location", loc)])
                rels = idx.projects.get(key)
                if "imposter" in faults:
                    rels = idx.projects.get(self.params["imposter"])
                if "zeros" in faults:
                    rels = rels or []
                elif not rels or all("nosimple" in r.flags for r in rels):
                    return self.send(404, b"not found\n", headers=[("Cache-Control", "max-age=600")])
                ents = page_entries(idx, key, rels, faults, self.params, self.prefix,
                                    self.headers.get("Host", ""), state)
                base = None
                if "filelinks" in faults and state.scratch:
                    base = "file://" + urllib.parse.quote(state.scratch) + "/"
                if idx.flavour == "pytorch":
                    return self.send(200, project_html(idx, key, rels, ents, base), "text/html",
                                     page_cc, faults)
                mt = negotiate(self.headers.get("Accept"))
                if mt is None:
                    return self.send(406, b"not acceptable\n")
                if "many" in faults:
                    # generated once: benchmarks time the client, not this server
                    k = (path, mt, self.params["many"])
                    with state.lock:
                        body = state.blobs.get(k)
                    if body is None:
                        body = (project_json if mt == ACCEPT_OFFERS[0] else project_html)(
                            idx, key, rels, ents)
                        with state.lock:
                            state.blobs[k] = body
                    return self.send(200, body, mt, page_cc, faults)
                if mt == ACCEPT_OFFERS[0]:
                    body = project_json(idx, key, rels, ents)
                    if "badjson" in faults:
                        body = body[: len(body) // 3]
                    if self.command != "HEAD":
                        with state.lock:
                            state.served["json"] += 1
                    return self.send(200, body, mt, page_cc, faults)
                body = project_html(idx, key, rels, ents, base)
                if "bightml" in faults:
                    body += b"<!-- " + b"x" * (2 * len(body) + 4096) + b" -->\n"
                if self.command != "HEAD":
                    with state.lock:
                        state.served["html"] += 1
                return self.send(200, body, mt, page_cc, faults)
            self.send(404, b"not found\n")

        def serve_file(self, idx, fn, faults, cc):
            if fn.endswith(".metadata"):
                ent = idx.files.get(fn[: -len(".metadata")])
                if (not ent or not has_meta(idx, ent[1], fn[: -len(".metadata")])
                        or "nometa" in faults or "lostmeta" in ent[1].flags):
                    return self.send(404, b"not found\n")
                return self.send(200, corrupt(ent[2], faults), "application/octet-stream", cc, faults)
            if "zeros" in faults and fn.endswith("-0.1.tar.gz"):
                k = (fn, self.params["zeros"], self.params.get("first", False),
                     self.params.get("noise", False), self.params.get("pyproject"))
                with state.lock:
                    blob = state.blobs.get(k)
                if blob is None and self.params.get("noise"):
                    blob = noise_sdist(fn, self.params["zeros"], self.params.get("pyproject"))
                elif blob is None:
                    blob = zeros_sdist(fn, self.params["zeros"], self.params.get("first", False))
                    with state.lock:
                        state.blobs[k] = blob
                return self.send(200, blob, "application/x-tar", cc, faults, ranges=True)
            ent = idx.files.get(fn)
            if not ent:
                return self.send(404, b"not found\n")
            ctype = "application/zip" if fn.endswith((".whl", ".zip")) else "application/x-tar"
            body = b"no archive here\n" * 4096 if "garbage" in faults else corrupt(ent[0], faults)
            return self.send(200, body, ctype, cc, faults, ranges=True)

    return H


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--world", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--auth", action="append", default=[], metavar="USER:PASS@PREFIX",
                    help="paths under PREFIX need this basic auth (repeatable)")
    ap.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"),
                    help="serve HTTPS with this certificate chain and key (PEM)")
    a = ap.parse_args()
    indexes = parse_world(a.world)
    build(indexes)
    state = State(indexes)
    for spec in a.auth:
        userpass, prefix = spec.rsplit("@", 1)
        user, pw = userpass.split(":", 1)
        state.auth.append((user, pw, prefix))
    srv = Server(("127.0.0.1", a.port), make_handler(state))
    scheme = "http"
    if a.tls:
        import ssl
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(a.tls[0], a.tls[1])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
        scheme = "https"
    url = f"{scheme}://127.0.0.1:{srv.server_address[1]}"
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as fh:
            fh.write(f"{srv.server_address[1]}\n")
        os.replace(a.port_file + ".tmp", a.port_file)
    print(url, flush=True)
    # a SIGTERM ends the run through SystemExit, so that atexit removes the scratch directory
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
