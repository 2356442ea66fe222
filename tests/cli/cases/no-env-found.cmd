# no --venv, no $VIRTUAL_ENV / $CONDA_PREFIX, no /opt/venv or /opt/conda: exit 3 naming the ways out
env: RR_SYSROOT=@SRC@/fixtures/venvs/nonexistent-sysroot
env: CONDA_PREFIX=
args: check --no-index tests/cli/inputs/safe.txt
expect-exit: 3
expect-stdout: <empty>
expect-stderr: no-env-found.stderr
