# --check: what is missing and what is ours but no longer needed, exit 1; the
# user's unmarked entry is neither
args: project --check --no-index --venv @SRC@/fixtures/venvs/rocm72 tests/cli/inputs/uv-project-stale/pyproject.toml
expect-exit: 1
expect-stdout: <empty>
expect-stderr: project-check-stale.stderr
