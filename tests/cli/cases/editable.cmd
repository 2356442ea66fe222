# -e PATH, as uv's and pip's: the local project read as a requirements file's -e line
args: --no-index --venv @SRC@/fixtures/venvs/rocm72 -e tests/cli/inputs/editable
expect-exit: 0
expect-stdout: editable.stdout
expect-stderr: editable.stderr
