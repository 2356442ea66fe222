"""``rocm-resolve`` console script and ``python -m rocm_resolve``: exec the binary."""

import os
import sys

from rocm_resolve import binary


def main():
    exe = binary()
    try:
        # argv[0] stays "rocm-resolve": the tool names itself in its messages
        os.execv(exe, ["rocm-resolve"] + sys.argv[1:])
    except OSError as e:
        sys.stderr.write("rocm-resolve: error: cannot run the bundled binary %s: %s\n"
                         "rocm-resolve: hint: reinstall the wheel "
                         "(pip install --force-reinstall rocm-resolve)\n" % (exe, e.strerror))
        return 3


if __name__ == "__main__":
    sys.exit(main())
