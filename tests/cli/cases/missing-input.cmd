args: --no-index --venv @SRC@/fixtures/venvs/rocm72 tests/cli/inputs/does-not-exist.txt
expect-exit: 2
expect-stdout: <empty>
expect-stderr: missing-input.stderr
