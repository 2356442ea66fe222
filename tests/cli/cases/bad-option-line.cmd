args: --no-index --venv @SRC@/fixtures/venvs/rocm72 tests/cli/inputs/bad-option.txt
expect-exit: 2
expect-stdout: <empty>
expect-stderr: bad-option-line.stderr
