# a constraints file none of whose entries had to go is named by the plan as it is, by its
# absolute path: a -c line in a file and a -c on the command line, each once (both were
# dropped from the plan, and uv then ignored the constraint)
args: --no-index --venv @SRC@/fixtures/venvs/rocm72 -c tests/cli/inputs/constrained/cons.txt tests/cli/inputs/constrained/requirements.txt tests/cli/inputs/constrained/more.txt
expect-exit: 0
expect-stdout: constraint-kept.stdout
expect-stderr: <empty>
