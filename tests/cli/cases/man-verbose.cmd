# man page example: rocm-resolve --no-index -v requirements.txt
env: RR_SYSROOT=@SRC@/fixtures/venvs/sysroot-rocm72
args: --no-index -v --venv @SRC@/fixtures/venvs/rocm72 demo/requirements.txt
expect-exit: 0
expect-stdout: demo-plan.stdout
expect-stderr: man-verbose.stderr
