# a directory that holds no environment (like --venv /tmp) is an environment problem with a hint, not "python unknown"
args: check --no-index --venv @SRC@/tests/cli/inputs tests/cli/inputs/safe.txt
expect-exit: 3
expect-stdout: <empty>
expect-stderr: venv-not-env.stderr
