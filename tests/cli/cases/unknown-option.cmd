args: --frobnicate x.txt
expect-exit: 2
expect-stdout: <empty>
expect-stderr: unknown-option.stderr
