# --format json and an index nobody answers on: exit 3, the error object says network
args: plan --format json --no-cache --venv @SRC@/fixtures/venvs/rocm72 --index-url http://127.0.0.1:9/json-error/simple tests/cli/inputs/safe.txt
env: RR_SYSROOT=@SRC@/fixtures/venvs/sysroot-rocm72
env: NO_PROXY=127.0.0.1
expect-exit: 3
expect-stdout: contains {"schema":1,"error":{"exit_code":3,"kind":"network","message":"http://127.0.0.1:9/json-error/simple/numpy/: 
