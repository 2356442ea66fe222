# -e PATH that names nothing: an error naming it, no plan
args: --no-index --venv @SRC@/fixtures/venvs/rocm72 -e tests/cli/inputs/no-such-project
expect-exit: 2
expect-stdout: contains rocm-resolve failed, no plan: see its error above
expect-stderr: editable-missing.stderr
