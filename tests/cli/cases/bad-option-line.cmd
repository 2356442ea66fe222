args: --no-index --venv @SRC@/fixtures/venvs/rocm72 tests/cli/inputs/bad-option.txt
expect-exit: 2
expect-stdout: contains rocm-resolve failed, no plan: see its error above
expect-stderr: bad-option-line.stderr
