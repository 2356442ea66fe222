# --color always colours check's list: the location bold, the requirement red
args: check --color always --no-index --venv @SRC@/fixtures/venvs/rocm72 tests/cli/inputs/triton.txt
expect-exit: 1
expect-stdout: <empty>
expect-stderr: check-colour.stderr
