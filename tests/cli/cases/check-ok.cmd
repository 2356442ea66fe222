args: check --no-index --venv @SRC@/fixtures/venvs/rocm72 tests/cli/inputs/safe.txt
expect-exit: 0
expect-stdout: <empty>
expect-stderr: check-ok.stderr
