# a first word that is no command and no file: said so, with the commands, not "cannot open"
args: frobnicate --no-index --venv @SRC@/fixtures/venvs/rocm72
expect-exit: 2
expect-stdout: contains rocm-resolve failed, no plan: see its error above
expect-stderr: not-a-command.stderr
