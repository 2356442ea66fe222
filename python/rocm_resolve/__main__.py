"""``rocm-resolve`` console script and ``python -m rocm_resolve``: exec the binary;
``rr-testcase`` console script: exec the scenario runner."""

import os
import sys

from rocm_resolve import binary


def _environ():
    """The environment for the binary: this process's, less one thing.

    A pre-commit hook with ``language: python`` runs with the hook's own
    virtualenv activated (pre-commit sets VIRTUAL_ENV to it and PRE_COMMIT=1).
    That venv holds nothing but rocm-resolve and is never the one to check: left
    in place, it would be checked ("0 protected") instead of the container's.
    Dropping it lets the binary fall back as documented (--venv, else
    $VIRTUAL_ENV, else /opt/venv).  Any other VIRTUAL_ENV is kept, including this
    package's own venv outside pre-commit (pip install into /opt/venv itself).
    """
    env = os.environ
    venv = env.get("VIRTUAL_ENV")
    if env.get("PRE_COMMIT") == "1" and venv and \
            os.path.realpath(venv) == os.path.realpath(sys.prefix):
        env = dict(env)
        del env["VIRTUAL_ENV"]
    return env


def _exec(name):
    exe = binary(name)
    try:
        # argv[0] stays the command's name: the tool names itself in its messages
        os.execve(exe, [name] + sys.argv[1:], _environ())
    except OSError as e:
        sys.stderr.write("%s: error: cannot run the bundled binary %s: %s\n"
                         "%s: hint: reinstall the wheel "
                         "(pip install --force-reinstall rocm-resolve)\n"
                         % (name, exe, e.strerror, name))
        return 3


def main():
    return _exec("rocm-resolve")


def testcase():
    """``rr-testcase``: replay a ``--write-testcase`` bug report offline."""
    return _exec("rr-testcase")


if __name__ == "__main__":
    sys.exit(main())
