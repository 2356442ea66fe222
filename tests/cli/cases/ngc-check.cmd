# check on an NGC-style environment names the protected stack as it is
env: RR_SYSROOT=@SRC@/fixtures/venvs/sysroot-ngc
args: check --no-index --venv @SRC@/fixtures/venvs/sysroot-ngc/usr tests/cli/inputs/safe.txt
expect-exit: 0
expect-stdout: <empty>
expect-stderr: ngc-check.stderr
