# a bare `rocm-resolve` shows what it takes (the overview) on stderr, exit 2
args:
expect-exit: 2
expect-stdout: contains rocm-resolve failed, no plan: see its error above
expect-stderr: contains usage: rocm-resolve [plan] [options] INPUT...
