# a CPU torch: said as a fact, not as Python's "hip None, cuda None"
args: inspect --venv @SRC@/fixtures/venvs/cpu
expect-exit: 0
expect-stdout: contains torch:          2.9.1+cpu (built for neither HIP nor CUDA)
