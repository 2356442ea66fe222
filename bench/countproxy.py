"""A counting HTTP CONNECT proxy for bench/real.py (not a test, never used by tests).

Every tool under benchmark is pointed at it through https_proxy/HTTPS_PROXY, so the
bytes each one pulls from the index are measured the same way for all of them: the
bytes the server sends through the tunnel (TLS records: payload plus a few per cent of
TLS and HTTP framing). It cannot see inside TLS, so it counts tunnels (connections),
not requests. Threads, one per tunnel; counters are read and reset by the caller
between runs."""
import fcntl
import os
import socket
import socketserver
import threading


class Counters:
    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        with self.lock:
            self.down = 0  # server -> client
            self.up = 0  # client -> server
            self.tunnels = 0
            self.refused = 0

    def add(self, down=0, up=0):
        with self.lock:
            self.down += down
            self.up += up

    def snapshot(self):
        with self.lock:
            return {"down": self.down, "up": self.up, "tunnels": self.tunnels, "refused": self.refused}


class _Handler(socketserver.BaseRequestHandler):
    def handle(self):
        c = self.server.counters
        cli = self.request
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = cli.recv(4096)
            if not chunk:
                return
            head += chunk
            if len(head) > 65536:
                return
        line = head.split(b"\r\n", 1)[0].decode("latin-1").split()
        if len(line) < 2 or line[0] != "CONNECT":
            with c.lock:
                c.refused += 1
            cli.sendall(b"HTTP/1.1 501 Not Implemented\r\nContent-Length: 0\r\n\r\n")
            return
        host, _, port = line[1].rpartition(":")
        try:
            srv = socket.create_connection((host.strip("[]"), int(port)), timeout=30)
        except (OSError, ValueError):
            with c.lock:
                c.refused += 1
            cli.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            return
        with c.lock:
            c.tunnels += 1
        srv.settimeout(None)
        srv.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        cli.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        cli.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        rest = head.split(b"\r\n\r\n", 1)[1]
        if rest:
            srv.sendall(rest)
            c.add(up=len(rest))
        t = threading.Thread(target=_pump, args=(srv, cli, c, True), daemon=True)
        t.start()
        try:
            _pump(cli, srv, c, False)
            t.join()
        finally:
            srv.close()


F_SETPIPE_SZ = 1031  # fcntl.h (Linux)


def _pump(src, dst, c, down):
    """copy src to dst through a pipe with splice(2): no bytes pass through Python, so
    the proxy keeps up with the index (a recv/sendall loop capped near 50 MB/s here)"""
    r, w = os.pipe()
    try:
        fcntl.fcntl(w, F_SETPIPE_SZ, 1 << 20)
    except OSError:
        pass
    try:
        while True:
            n = os.splice(src.fileno(), w, 1 << 20)
            if n == 0:
                break
            c.add(down=n) if down else c.add(up=n)
            left = n
            while left:
                left -= os.splice(r, dst.fileno(), left)
    except OSError:
        pass
    finally:
        os.close(r)
        os.close(w)
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


class CountingProxy:
    """with CountingProxy() as p: p.url, p.counters.reset(), p.counters.snapshot()"""

    def __init__(self):
        self.counters = Counters()
        self.server = _Server(("127.0.0.1", 0), _Handler)
        self.server.counters = self.counters
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
