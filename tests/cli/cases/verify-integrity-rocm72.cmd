# every file of the protected stack matches its RECORD
env: RR_SYSROOT=@SRC@/fixtures/venvs/sysroot-rocm72
args: verify --venv @SRC@/fixtures/venvs/rocm72
expect-exit: 3
expect-stdout: contains integrity: PASS 33 files of 5 protected distributions match their RECORD
expect-stderr: <empty>
