#!/usr/bin/env python3
"""--write-testcase DIR: where it writes, and that a bug report holds no secret.

Issue 19 item 5: it writes only into a new or empty directory, or one it wrote itself
(its manifest lists what it wrote), never through a symlink and never over a file it did
not write. Each case fails on the old writer, which made DIR with mkdir() (EEXIST was
fine) and replaced whatever was there by name.

Issue 14 item 6: a literal secret from the environment (UV_INDEX_URL) or in a copied
requirements file is redacted in every file of DIR, with a note on how to supply
credentials; a ${VAR} reference is kept. And the report still replays (rr-testcase)."""
import os
import shutil
import subprocess
import sys
import tempfile

src = os.environ["RR_SRCDIR"]
build = os.environ["RR_BUILDDIR"]
exe = os.path.join(build, "src", "cli", "rocm-resolve")
runner = os.path.join(build, "src", "cli", "rr-testcase")
venv = os.path.join(src, "fixtures", "venvs", "rocm72")
fails = []
n = 0


def check(name, ok, detail=""):
    global n
    n += 1
    print(f"{'ok' if ok else 'not ok'} {n} - {name}")
    if not ok:
        fails.append(name)
        print("    " + str(detail)[:3000].replace("\n", "\n    "))


def env(**extra):
    e = {k: v for k, v in os.environ.items()
         if not k.startswith(("UV_", "PIP_")) and k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
    e.update(extra)
    return e


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def read(path):
    with open(path) as f:
        return f.read()


def rr(args, cwd, **extra):
    return subprocess.run([exe, "--no-index", "--venv", venv] + args, cwd=cwd, env=env(**extra),
                          capture_output=True, text=True, timeout=60)


def all_text(d):
    out = ""
    for root, _, files in os.walk(d):
        for f in files:
            out += read(os.path.join(root, f))
    return out


def main():
    tmp = tempfile.mkdtemp(prefix="rr-testcase-")
    try:
        w = os.path.join(tmp, "proj")
        write(os.path.join(w, "requirements.txt"), "requests\n-r base.txt\n")
        write(os.path.join(w, "base.txt"), "numpy<3\n")

        # a new directory, then the same one again: fine, and it replays
        r = rr(["--write-testcase", "rep", "requirements.txt"], w)
        check("a new directory is written", r.returncode == 0 and
              os.path.isfile(os.path.join(w, "rep", "case.t")), r.stderr)
        r = rr(["--write-testcase", "rep", "requirements.txt"], w)
        check("a directory it wrote itself is written again", r.returncode == 0, r.stderr)
        p = subprocess.run([runner, os.path.join(w, "rep", "case.t")], capture_output=True,
                           text=True, timeout=60)
        check("the report replays", p.returncode == 0 and "1 passed" in p.stdout, p.stdout)

        # a stripped CUDA wheel URL is cut where the input's path leaves room on the line;
        # the replay reads the copy under a directory of another length, so the cut moves
        write(os.path.join(w, "cuda.txt"), "torch @ https://download.pytorch.org/whl/cu121/"
              "torch-2.4.0%2Bcu121-cp312-cp312-linux_x86_64.whl\nnumpy\n")
        r = rr(["--write-testcase", "rep-cut", "cuda.txt"], w)
        case = os.path.join(w, "rep-cut", "case.t")
        check("a report with a cut requirement is written",
              r.returncode == 0 and " [...]" in read(case), r.stderr)
        p = subprocess.run([runner, case], capture_output=True, text=True, timeout=60)
        check("... and replays where the cut falls elsewhere",
              p.returncode == 0 and "1 passed" in p.stdout, p.stdout)

        # a directory holding someone else's file: refused, the file untouched
        d = os.path.join(w, "theirs")
        write(os.path.join(d, "base.txt"), "MINE\n")
        r = rr(["--write-testcase", d, "requirements.txt"], w)
        check("a directory with a file it did not write is refused (exit 2, names it)",
              r.returncode == 2 and "base.txt" in r.stderr and "did not write" in r.stderr,
              r.stderr)
        check("... and that file is untouched", read(os.path.join(d, "base.txt")) == "MINE\n")
        check("... and nothing is added", sorted(os.listdir(d)) == ["base.txt"], os.listdir(d))
        check("... and stdout holds no plan", "requests" not in r.stdout, r.stdout)

        # an existing stack.json (issue 19's third example)
        d = os.path.join(w, "stack-there")
        write(os.path.join(d, "stack.json"), "{}\n")
        r = rr(["--write-testcase", d, "requirements.txt"], w)
        check("a directory holding a stack.json it did not write is refused",
              r.returncode == 2 and read(os.path.join(d, "stack.json")) == "{}\n", r.stderr)

        # DIR itself a symlink to a directory: refused, nothing written through it
        target = os.path.join(tmp, "elsewhere")
        os.makedirs(target)
        os.symlink(target, os.path.join(w, "link"))
        r = rr(["--write-testcase", "link", "requirements.txt"], w)
        check("a symlinked DIR is refused", r.returncode == 2 and "symbolic link" in r.stderr,
              r.stderr)
        check("... nothing written where it points", os.listdir(target) == [], os.listdir(target))

        # a directory it wrote, where one of its files became a symlink since
        d = os.path.join(w, "rep")
        victim = os.path.join(tmp, "victim")
        write(victim, "precious\n")
        os.unlink(os.path.join(d, "base.txt"))
        os.symlink(victim, os.path.join(d, "base.txt"))
        r = rr(["--write-testcase", d, "requirements.txt"], w)
        check("a symlink in place of a file it wrote is refused",
              r.returncode == 2 and "symbolic link" in r.stderr, r.stderr)
        check("... and its target is untouched", read(victim) == "precious\n")

        # a forged manifest naming a path outside: never followed
        d = os.path.join(w, "forged")
        write(os.path.join(d, ".rocm-resolve-testcase"), "../victim2\n/etc/passwd\n..\n")
        write(os.path.join(tmp, "proj", "victim2"), "keep\n")
        r = rr(["--write-testcase", d, "requirements.txt"], w)
        check("a manifest naming paths outside DIR removes nothing outside",
              r.returncode == 0 and read(os.path.join(w, "victim2")) == "keep\n", r.stderr)

        # a second input with the same base name gets another name, never the first's
        write(os.path.join(w, "sub", "requirements.txt"), "idna\n")
        d = os.path.join(w, "two")
        r = rr(["--write-testcase", d, "requirements.txt", "sub/requirements.txt"], w)
        names = sorted(os.listdir(d)) if os.path.isdir(d) else []
        check("two inputs with one base name are both kept",
              r.returncode == 0 and "requirements.txt" in names and
              any(x.endswith("-requirements.txt") for x in names) and
              "idna" in all_text(d) and "requests" in all_text(d), names)

        # secrets: from the environment, and literal in an input; ${VAR} kept
        write(os.path.join(w, "cred.txt"),
              "--extra-index-url https://bob:hunter2pw@files.example/simple\n"
              "--extra-index-url https://__token__:${RR_TC_TOKEN}@vars.example/simple\n"
              "pkg @ https://carol:s3cretpw@files.example/pkg-1.0-py3-none-any.whl\nrequests\n")
        d = os.path.join(w, "secret")
        r = rr(["--write-testcase", d, "cred.txt"], w,
               UV_INDEX_URL="https://alice:0penSesame@idx.example/simple", RR_TC_TOKEN="tok3nvalue")
        text = all_text(d) if os.path.isdir(d) else ""
        check("--write-testcase with credentials exits 0", r.returncode == 0, r.stderr)
        for secret in ("0penSesame", "hunter2pw", "s3cretpw", "tok3nvalue"):
            check(f"the report holds no '{secret}'", secret not in text and secret not in r.stderr,
                  [l for l in text.splitlines() if secret in l])
        check("a ${VAR} reference is kept as written",
              "https://__token__:${RR_TC_TOKEN}@vars.example/simple" in text, text)
        check("the redacted URLs say so, with how to supply credentials",
              "https://***@idx.example/simple" in text and "https://***@files.example/simple" in text
              and "~/.netrc" in read(os.path.join(d, "case.t")), text)
        p = subprocess.run([runner, os.path.join(d, "case.t")], capture_output=True, text=True,
                           timeout=60, env=env())
        check("the redacted report replays", p.returncode == 0 and "1 passed" in p.stdout, p.stdout)

        # the pip constraint in force is a fact the report's stack.json carries: a URL's
        # password in it (a line, or PIP_CONSTRAINT naming a URL) stays out of the report
        write(os.path.join(w, "pc.txt"),
              "numpy==2.2.6\nmypkg @ https://carl:c0nstrPW@files.example/m-1.0-py3-none-any.whl\n")
        d = os.path.join(w, "constraint")
        r = rr(["--write-testcase", d, "requirements.txt"], w,
               PIP_CONSTRAINT=os.path.join(w, "pc.txt") + " https://dan:envPW@c.example/c.txt")
        text = all_text(d) if os.path.isdir(d) else ""
        check("--write-testcase under a pip constraint exits 0", r.returncode == 0, r.stderr)
        for secret in ("c0nstrPW", "envPW"):
            check(f"the report holds no pip constraint's '{secret}'",
                  secret not in text and secret not in r.stderr,
                  [l for l in (text + r.stderr).splitlines() if secret in l])
        check("the constraint line is in the report, its password redacted",
              "carl:****@files.example" in read(os.path.join(d, "stack.json")), text)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{n - len(fails)} passed, {len(fails)} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
