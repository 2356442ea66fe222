# credentials in index URLs never reach stderr or the plan's comments
args: --no-index --venv @SRC@/fixtures/venvs/rocm72 tests/cli/inputs/credentials.txt
expect-exit: 0
expect-stdout: redacted.stdout
expect-stderr: redacted.stderr
