# an ordinary venv (CPU torch, nothing to protect) gives no verdict: exit 3 with a hint, never a silent pass
args: check --no-index --venv @SRC@/fixtures/venvs/cpu demo/requirements.txt
expect-exit: 3
expect-stdout: <empty>
expect-stderr: nothing-protected.stderr
