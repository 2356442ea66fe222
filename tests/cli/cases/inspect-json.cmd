args: inspect --format json --venv @SRC@/fixtures/venvs/pytorch-rocm64
expect-exit: 0
expect-stdout: inspect-json.stdout
expect-stderr: <empty>
