# an environment problem: exit 3
args: --no-index --venv /nonexistent/venv tests/cli/inputs/safe.txt
expect-exit: 3
expect-stdout: <empty>
expect-stderr: missing-venv.stderr
