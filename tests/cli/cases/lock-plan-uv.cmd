# the same lock turned into a plan: the stack pinned, CUDA packages stripped
args: plan --no-index --venv @SRC@/fixtures/venvs/rocm72 tests/cli/inputs/uv-cuda/uv.lock
expect-exit: 0
expect-stdout: lock-plan-uv.stdout
expect-stderr: lock-plan-uv.stderr
