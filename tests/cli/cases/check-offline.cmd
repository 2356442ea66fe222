# --offline with nothing in the cache: check judges the lines alone, with a warning, as
# with no network at all (the pre-commit hook on a fresh clone); exit 0 for a safe file
args: check --offline --venv @SRC@/fixtures/venvs/rocm72 --index-url http://127.0.0.1:9/offline-check/simple tests/cli/inputs/safe.txt
env: RR_SYSROOT=@SRC@/fixtures/venvs/sysroot-rocm72
expect-exit: 0
expect-stderr: contains offline: --offline or $UV_OFFLINE, and the cache does not hold everything
