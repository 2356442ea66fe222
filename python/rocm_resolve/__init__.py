"""rocm-resolve, packaged as a wheel.

The tool is a C program; this package only carries it.  The binary lives in
``rocm_resolve/bin/rocm-resolve`` inside the installed package (next to the
libraries auditwheel grafted into ``rocm_resolve.libs``), and the
``rocm-resolve`` console script (``rocm_resolve.__main__:main``) replaces the
Python process with it (``rr-testcase``, ``rocm_resolve.__main__:testcase``, does
the same for the scenario runner beside it), so exit status, signals, standard streams and the
environment pass through untouched.
"""

import os

__all__ = ["binary"]


def binary(name="rocm-resolve"):
    """Path of a bundled executable: rocm-resolve, or rr-testcase (the scenario runner
    that replays a ``--write-testcase`` bug report)."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", name)
