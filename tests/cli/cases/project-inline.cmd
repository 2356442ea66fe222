# [tool.uv] as an inline table is not edited: exit 2 at its place, the file untouched
args: project --write --no-index --venv @SRC@/fixtures/venvs/rocm72 tests/cli/inputs/uv-project-inline
expect-exit: 2
expect-stdout: <empty>
expect-stderr: project-inline.stderr
