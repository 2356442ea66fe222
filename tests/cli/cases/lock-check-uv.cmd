# a raw uv.lock of a project that asks for torch: CUDA torch, PyPI triton and the
# nvidia-* libraries, each named with its lock entry (the raw `uv lock` of issue 15)
args: check --no-index --venv @SRC@/fixtures/venvs/rocm72 tests/cli/inputs/uv-cuda/uv.lock
expect-exit: 1
expect-stdout: <empty>
expect-stderr: lock-check-uv.stderr
