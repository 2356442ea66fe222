# pytorch.org ROCm 6.4 venv: PyPI triton would overwrite pytorch-triton-rocm
args: --no-index -q --venv @SRC@/fixtures/venvs/pytorch-rocm64 tests/cli/inputs/triton.txt
expect-exit: 0
expect-stdout: rocm64-triton.stdout
expect-stderr: <empty>
