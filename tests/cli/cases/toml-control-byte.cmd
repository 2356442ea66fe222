# a control character outside any string: TOML permits none but tab, and toml++ compiled
# in reached a path it holds unreachable on some (found by the fuzz targets); refused
# before toml++ reads the file, at file:line:col
args: check --no-index --venv @SRC@/fixtures/venvs/rocm72 tests/cli/inputs/toml-control/pyproject.toml
expect-exit: 2
expect-stdout: <empty>
expect-stderr: toml-control-byte.stderr
