# older rocm/pytorch images: no /opt/venv; the env in /opt/conda/envs that holds torch is found,
# its python version read from conda-meta (python-dateutil-*.json is not the interpreter)
env: RR_SYSROOT=@SRC@/fixtures/venvs/sysroot-conda
env: CONDA_PREFIX=
args: inspect
expect-exit: 0
expect-stdout: conda-discovery.stdout
expect-stderr: <empty>
