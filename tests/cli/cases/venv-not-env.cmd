# a directory that holds no environment is an environment problem with a hint, not "python unknown"
args: check --no-index --venv /tmp tests/cli/inputs/safe.txt
expect-exit: 3
expect-stdout: <empty>
expect-stderr: venv-not-env.stderr
