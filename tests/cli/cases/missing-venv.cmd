# an environment problem: exit 3
args: --no-index --venv /nonexistent/venv tests/cli/inputs/safe.txt
expect-exit: 3
expect-stdout: contains rocm-resolve failed, no plan: see its error above
expect-stderr: missing-venv.stderr
