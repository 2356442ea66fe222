# under pre-commit (PRE_COMMIT=1, VIRTUAL_ENV dropped by the console script) with no
# venv to check: the error says how to name one in .pre-commit-config.yaml
args: check --no-index tests/cli/inputs/safe.txt
env: PRE_COMMIT=1
env: RR_SYSROOT=@SRC@/tests/cli/inputs
expect-exit: 3
expect-stderr: contains name the environment in .pre-commit-config.yaml: `args: [--venv, /path/to/venv]`
