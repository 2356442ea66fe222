# an unknown short option is named as it was given ('-Z', no stray byte), exit 2
args: --no-index --venv @SRC@/fixtures/venvs/rocm72 -Z tests/cli/inputs/safe.txt
expect-exit: 2
expect-stderr: short-option.stderr
expect-stdout: contains rocm-resolve failed, no plan: see its error above
