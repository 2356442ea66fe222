args: --help
expect-exit: 0
expect-stdout: contains usage: rocm-resolve
expect-stderr: <empty>
