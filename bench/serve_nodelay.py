#!/usr/bin/python3
"""tests/index/serve.py with TCP_NODELAY on every accepted connection.

http.server writes a response's headers and body in two send() calls; on a
kept-alive connection Nagle's algorithm then holds the body until the client's
delayed ACK (up to 40 ms on Linux), so every request after the first on a
connection costs ~40 ms that no real index charges. The benchmark measures
round trips with an explicit latency (/_fault/latency/20/), not this artifact.
Same arguments and output as serve.py."""
import importlib.util
import os
import socket
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "serve", os.path.join(os.path.dirname(here), "tests", "index", "serve.py"))
serve = importlib.util.module_from_spec(spec)
spec.loader.exec_module(serve)
_make_handler = serve.make_handler


def make_handler(state):
    base = _make_handler(state)

    class H(base):
        def setup(self):
            super().setup()
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    return H


serve.make_handler = make_handler
if __name__ == "__main__":
    sys.argv[0] = "serve.py"
    serve.main()
