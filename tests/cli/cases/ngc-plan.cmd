# an NGC-style environment: NVIDIA's stack is the protected stack, never "the ROCm stack"
env: RR_SYSROOT=@SRC@/fixtures/venvs/sysroot-ngc
args: --no-index --venv @SRC@/fixtures/venvs/sysroot-ngc/usr tests/cli/inputs/safe.txt
expect-exit: 0
expect-stdout: ngc-plan.stdout
