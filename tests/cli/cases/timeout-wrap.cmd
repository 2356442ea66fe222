# --timeout 4294967297 is out of range: exit 2 (it overflowed the milliseconds / wrapped to 1 s)
args: --timeout 4294967297 --no-index --venv @SRC@/fixtures/venvs/rocm72 tests/cli/inputs/safe.txt
expect-exit: 2
expect-stdout: contains rocm-resolve failed, no plan: see its error above
expect-stderr: timeout-wrap.stderr
