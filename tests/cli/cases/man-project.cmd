# man page example: rocm-resolve project (printed; offline, so only the stack's own
# requirements are constraints); the recipe's hand-made names stay the user's (not
# listed twice), the user's constraint is kept, a CUDA-only request excluded
args: project --no-index --venv @SRC@/fixtures/venvs/rocm72 tests/cli/inputs/uv-project
expect-exit: 0
expect-stdout: man-project.stdout
expect-stderr: man-project.stderr
