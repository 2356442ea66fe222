# a CPU-only torch is not a ROCm build: nothing to protect as ROCm
args: --no-index -q --venv @SRC@/fixtures/venvs/cpu demo/requirements.txt
expect-exit: 0
expect-stdout: cpu-venv.stdout
expect-stderr: <empty>
