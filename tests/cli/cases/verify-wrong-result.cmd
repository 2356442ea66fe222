# a device that computes one wrong element fails verify with exit 1
env: RR_SYSROOT=@SRC@/fixtures/gpu/sysfs/mi300
env: LD_LIBRARY_PATH=@BUILD@/tests/gpu/hip6
env: RR_FAKE_HIP_MODE=wrong-result
env: RR_FAKE_TORCH=ok
args: verify --venv @SRC@/fixtures/gpu/venvs/ok
expect-exit: 1
expect-stdout: contains kernel: FAIL
expect-stderr: <empty>
