# an --extra the project does not define is a usage error, naming the ones it has
args: --no-index --venv @SRC@/fixtures/venvs/rocm72 --extra nosuch tests/cli/inputs/pyproject.toml
expect-exit: 2
expect-stderr: contains --extra 'nosuch' is not defined in [project.optional-dependencies] (defined: 
