# the bundled demo: every ROCm build kept, every trap stripped or pinned
env: RR_SYSROOT=@SRC@/fixtures/venvs/sysroot-rocm72
args: --no-index --venv @SRC@/fixtures/venvs/rocm72 demo/requirements.txt
expect-exit: 0
expect-stdout: demo-plan.stdout
expect-stderr: demo-plan.stderr
