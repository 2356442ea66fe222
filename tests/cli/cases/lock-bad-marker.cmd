# a malformed lock is bad input: file:line:col at the offending token, exit 2
args: check --no-index --venv @SRC@/fixtures/venvs/rocm72 tests/cli/inputs/uv-bad/uv.lock
expect-exit: 2
expect-stdout: <empty>
expect-stderr: lock-bad-marker.stderr
