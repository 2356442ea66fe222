# pre-commit: the demo would break the stack
args: check --no-index --venv @SRC@/fixtures/venvs/rocm72 demo/requirements.txt
expect-exit: 1
expect-stdout: <empty>
expect-stderr: demo-check.stderr
