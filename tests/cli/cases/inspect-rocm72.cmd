env: RR_SYSROOT=@SRC@/fixtures/venvs/sysroot-rocm72
args: inspect --venv @SRC@/fixtures/venvs/rocm72
expect-exit: 0
expect-stdout: inspect-rocm72.stdout
expect-stderr: <empty>
