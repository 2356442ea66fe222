# a project venv bridged to the image's site-packages: the bridge is named for each protected build
env: RR_SYSROOT=@SRC@/fixtures/venvs/sysroot-rocm72
args: inspect --venv @SRC@/fixtures/venvs/bridged
expect-exit: 0
expect-stdout: inspect-bridged.stdout
expect-stderr: <empty>
