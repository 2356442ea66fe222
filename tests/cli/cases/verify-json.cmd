env: RR_SYSROOT=@SRC@/fixtures/gpu/sysfs/mi300
env: LD_LIBRARY_PATH=@BUILD@/tests/gpu/hip6
env: RR_FAKE_HIP_MODE=ok
env: RR_FAKE_TORCH=ok
args: verify --format json --venv @SRC@/fixtures/gpu/venvs/ok
expect-exit: 0
expect-stdout: contains "schema": 1
expect-stderr: <empty>
