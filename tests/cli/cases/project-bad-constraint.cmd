# a user constraint that is no requirement: file:line:col inside the string, exit 2
args: project --no-index --venv @SRC@/fixtures/venvs/rocm72 tests/cli/inputs/uv-project-badcons
expect-exit: 2
expect-stdout: <empty>
expect-stderr: project-bad-constraint.stderr
