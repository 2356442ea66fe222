env: RR_SYSROOT=@SRC@/fixtures/venvs/sysroot-rocm72
args: --no-index --installer uv --format json -q --venv @SRC@/fixtures/venvs/rocm72 demo/requirements.txt
expect-exit: 0
expect-stdout: demo-json.stdout
expect-stderr: <empty>
