# $CONDA_PREFIX is used when no venv is active, before /opt/venv
env: RR_SYSROOT=@SRC@/fixtures/venvs/sysroot-rocm72
env: CONDA_PREFIX=@SRC@/fixtures/venvs/pytorch-rocm64
args: check --no-index tests/cli/inputs/safe.txt
expect-exit: 0
expect-stdout: <empty>
expect-stderr: conda-prefix.stderr
