#!/usr/bin/python3
"""HTTPS trust as uv and pip take it (issue 9 item 6): a fixture index over TLS with a
certificate from a private CA (made here with openssl). Without the CA the index is
refused (exit 3, naming the certificate problem); --cert FILE, $SSL_CERT_FILE and
$SSL_CERT_DIR (a c_rehash'd directory) each make it trusted; an unreadable --cert is a
usage error (exit 2), and so is a FIFO there or in $SSL_CERT_FILE (issue 19: it was waited on
for ever, past --timeout)."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2elib as E  # noqa: E402


def main():
    if not os.access(E.EXE, os.X_OK):
        E.skip(f"{E.EXE} not built")
    if not shutil.which("openssl"):
        E.skip("openssl not found")
    work = tempfile.mkdtemp(prefix="rr-tls-")
    tap = E.Tap()
    check = tap.check

    def ssl(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=work)

    proc = None
    try:
        ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
            "-days", "2", "-subj", "/CN=rocm-resolve test CA")
        ssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "srv.key", "-out", "srv.csr",
            "-subj", "/CN=127.0.0.1")
        with open(os.path.join(work, "ext.cnf"), "w") as f:
            f.write("subjectAltName=IP:127.0.0.1\n")
        ssl("x509", "-req", "-in", "srv.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "srv.pem", "-days", "2", "-extfile", "ext.cnf")
        cadir = os.path.join(work, "cadir")
        os.makedirs(cadir)
        shutil.copy(os.path.join(work, "ca.pem"), cadir)
        subprocess.run(["openssl", "rehash", cadir], check=True, capture_output=True)
        proc = subprocess.Popen([E.PY, os.path.join(E.SRC, "tests", "index", "serve.py"), "--world",
                                 os.path.join(E.SRC, "fixtures", "index", "world.txt"), "--tls",
                                 os.path.join(work, "srv.pem"), os.path.join(work, "srv.key")],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        url = proc.stdout.readline().strip()
        check("the fixture index serves HTTPS", url.startswith("https://127.0.0.1:"), url)
        req = os.path.join(work, "r.txt")
        with open(req, "w") as f:
            f.write("rr-parent\n")
        venv = os.path.join(E.SRC, "fixtures", "venvs", "rocm72")

        def run(extra=(), timeout=120, **env):
            # no pip configuration file: a machine's /etc/pip.conf `cert =` beats
            # $SSL_CERT_FILE, as it does for pip
            e = E.clean_env(PIP_CONFIG_FILE=os.devnull, **env)
            for k in ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
                if k not in env:
                    e.pop(k, None)
            return E.rr(["--venv", venv, "--no-cache", "-i", url + "/simple/", *extra, req], env=e,
                        timeout=timeout)

        r = run()
        check("an untrusted certificate is refused: exit 3, naming the certificate",
              r.returncode == 3 and "certificate" in r.stderr.lower(), r.stderr)
        r = run(["--cert", os.path.join(work, "ca.pem")])
        check("--cert FILE trusts the private CA", r.returncode == 0 and "rr-held==1.0" in r.stdout, r.stderr)
        r = run(SSL_CERT_FILE=os.path.join(work, "ca.pem"))
        check("$SSL_CERT_FILE trusts it", r.returncode == 0 and "rr-held==1.0" in r.stdout, r.stderr)
        r = run(SSL_CERT_DIR=cadir)
        check("$SSL_CERT_DIR (hashed directory) trusts it", r.returncode == 0 and "rr-held==1.0" in r.stdout,
              r.stderr)
        r = run(["--cert", os.path.join(work, "missing.pem")])
        check("an unreadable --cert is a usage error (exit 2)", r.returncode == 2 and "--cert" in r.stderr,
              r.stderr)
        # issue 19 item 6: a FIFO with no writer as the bundle; before, TLS blocked opening it,
        # past --timeout, for ever
        fifo = os.path.join(work, "fifo.pem")
        os.mkfifo(fifo)
        for what, extra, env in (("--cert", ["--cert", fifo], {}),
                                 ("$SSL_CERT_FILE", [], {"SSL_CERT_FILE": fifo})):
            try:
                r = run(["--timeout", "5", *extra], timeout=30, **env)
                ok, detail = r.returncode == 2 and "it is a FIFO" in r.stderr, r.stderr
            except subprocess.TimeoutExpired:
                ok, detail = False, "still running 30 s later (--timeout 5)"
            check(f"a FIFO as {what} is refused at once (exit 2, naming it), not waited on", ok,
                  detail)
        # the system trust store (Debian's: a bundle file and the same certificates in a
        # hashed directory) is read from its directory first, and from the file when the
        # directory does not verify the server (a CA added to the file by hand); under
        # RR_SYSROOT (the store's paths, for tests)
        ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "other.key", "-out",
            "other.pem", "-days", "2", "-subj", "/CN=rocm-resolve other CA")
        for name, in_file, in_dir in (("dir", "other.pem", "ca.pem"), ("file", "ca.pem", "other.pem")):
            root = os.path.join(work, "root-" + name)
            certs = os.path.join(root, "etc", "ssl", "certs")
            os.makedirs(certs)
            shutil.copy(os.path.join(work, in_dir), os.path.join(certs, "anchor.pem"))
            subprocess.run(["openssl", "rehash", certs], check=True, capture_output=True)
            shutil.copy(os.path.join(work, in_file), os.path.join(certs, "ca-certificates.crt"))
            r = run(RR_SYSROOT=root)
            check(f"the system store: the CA only in its {name} is trusted (exit 0)",
                  r.returncode == 0 and "rr-held==1.0" in r.stdout, r.stderr)
            # naming the system bundle is the system store too
            r = run(RR_SYSROOT=root, SSL_CERT_FILE=os.path.join(certs, "ca-certificates.crt"))
            check(f"... and with $SSL_CERT_FILE naming its bundle", r.returncode == 0, r.stderr)
            # ... by another path (a link, as /etc/ssl/cert.pem is on many systems)
            link = os.path.join(work, "cert-" + name + ".pem")
            os.symlink(os.path.join(certs, "ca-certificates.crt"), link)
            r = run(RR_SYSROOT=root, SSL_CERT_FILE=link)
            check(f"... and with $SSL_CERT_FILE naming its bundle through a link", r.returncode == 0,
                  r.stderr)
    finally:
        if proc:
            proc.terminate()
            proc.wait()
        shutil.rmtree(work, ignore_errors=True)
    return tap.status()


if __name__ == "__main__":
    sys.exit(main())
