# man page example: --no-index --format json pyproject.toml --extra gpu
args: --no-index --installer uv --format json -q --venv @SRC@/fixtures/venvs/rocm72 tests/cli/inputs/pyproject.toml --extra gpu
expect-exit: 0
expect-stdout: man-pyproject-json.stdout
expect-stderr: <empty>
