# a word that is no file but nearly a command is a typo, not an input
args: chek --no-index --venv @SRC@/fixtures/venvs/rocm72 tests/cli/inputs/safe.txt
expect-exit: 2
expect-stderr: typo-command.stderr
expect-stdout: contains rocm-resolve failed, no plan: see its error above
