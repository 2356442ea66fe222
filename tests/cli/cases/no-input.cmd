args: --no-index --venv @SRC@/fixtures/venvs/rocm72
expect-exit: 2
expect-stdout: contains rocm-resolve failed, no plan: see its error above
expect-stderr: no-input.stderr
