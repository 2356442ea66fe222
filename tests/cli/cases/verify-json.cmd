# verify --format json: schema 3 (data/verify.schema.json), one line as plan and check,
# venv and the stage reason (why) named as the other documents name them
env: RR_SYSROOT=@SRC@/fixtures/gpu/sysfs/mi300
env: LD_LIBRARY_PATH=@BUILD@/tests/gpu/hip6
env: RR_FAKE_HIP_MODE=ok
env: RR_FAKE_TORCH=ok
args: verify --format json --venv @SRC@/fixtures/gpu/venvs/ok
expect-exit: 0
expect-stdout: contains {"schema":3,"venv":"@SRC@/fixtures/gpu/venvs/ok","exit_code":0,"stages":[{"name":"integrity","verdict":"skip","why":
expect-stderr: <empty>
