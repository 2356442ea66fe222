# a table header toml++ asserts on ('[' then neither a key character nor a quote): a
# parse error with file:line:col, exit 2, never an abort (it was exit 134 once toml++
# was compiled in with its asserts)
args: check --no-index --venv @SRC@/fixtures/venvs/rocm72 tests/cli/inputs/bad-table-header/pyproject.toml
expect-exit: 2
expect-stdout: <empty>
expect-stderr: bad-table-header.stderr
