args: --frobnicate x.txt
expect-exit: 2
expect-stdout: contains rocm-resolve failed, no plan: see its error above
expect-stderr: unknown-option.stderr
