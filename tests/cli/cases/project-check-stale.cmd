# --check: what is missing and what is ours but no longer needed, exit 1; the
# user's unmarked entry is neither. Not resolved (--no-index), a constraint the
# resolution put there (rr-old==1.0) cannot be judged and is not called stale; an
# exclusion can (nvidia-cublas-cu12: nothing asks for it)
args: project --check --no-index --venv @SRC@/fixtures/venvs/rocm72 tests/cli/inputs/uv-project-stale/pyproject.toml
expect-exit: 1
expect-stdout: <empty>
expect-stderr: project-check-stale.stderr
