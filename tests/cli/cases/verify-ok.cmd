# verify through the HIP test double (dlopen'd from the loader path) and a fake torch
env: RR_SYSROOT=@SRC@/fixtures/gpu/sysfs/mi300
env: LD_LIBRARY_PATH=@BUILD@/tests/gpu/hip6
env: RR_FAKE_HIP_MODE=ok
env: RR_FAKE_TORCH=ok
args: verify --venv @SRC@/fixtures/gpu/venvs/ok
expect-exit: 0
expect-stdout: contains kernel: PASS the check kernel ran exactly on 1 of 1 visible device
expect-stderr: <empty>
