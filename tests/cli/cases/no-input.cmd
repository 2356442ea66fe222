args: --no-index --venv @SRC@/fixtures/venvs/rocm72
expect-exit: 2
expect-stdout: <empty>
expect-stderr: no-input.stderr
