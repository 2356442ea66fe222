# --format json and a malformed line: the error object carries file, line, column and
# the offending text; no fail-closed line, no partial document
args: --no-index --format json --venv @SRC@/fixtures/venvs/rocm72 tests/cli/inputs/bad-requirement.txt
expect-exit: 2
expect-stdout: json-error-parse.stdout
expect-stderr: bad-requirement.stderr
