# --format pylock implies --lock; with --no-index (no resolution to lock) a usage error
args: --format pylock --no-index --venv @SRC@/fixtures/venvs/rocm72 tests/cli/inputs/safe.txt
expect-exit: 2
expect-stdout: <empty>
expect-stderr: pylock-needs-lock.stderr
