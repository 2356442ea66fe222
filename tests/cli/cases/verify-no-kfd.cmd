# no /dev/kfd in the container: nothing to check on, exit 3, with the docker flags to add
env: RR_SYSROOT=@SRC@/fixtures/venvs/sysroot-rocm72
args: verify --venv @SRC@/fixtures/venvs/rocm72
expect-exit: 3
expect-stdout: contains --device=/dev/kfd --device=/dev/dri
expect-stderr: <empty>
