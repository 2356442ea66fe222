# a malformed line: file:line:col, the offending text, exit 2, nothing on stdout
args: --no-index --venv @SRC@/fixtures/venvs/rocm72 tests/cli/inputs/bad-requirement.txt
expect-exit: 2
expect-stdout: contains rocm-resolve failed, no plan: see its error above
expect-stderr: bad-requirement.stderr
