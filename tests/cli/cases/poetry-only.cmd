# a pyproject.toml without [project] has nothing to read: exit 2 at [tool.poetry]
args: --no-index --venv @SRC@/fixtures/venvs/rocm72 fixtures/requirements/pyproject/poetry.toml
expect-exit: 2
expect-stderr: contains poetry.toml:
