# pip's -r is not an option here: named as '-r' (no stray byte), exit 2
args: --no-index --venv @SRC@/fixtures/venvs/rocm72 -r tests/cli/inputs/safe.txt
expect-exit: 2
expect-stderr: short-option.stderr
expect-stdout: contains rocm-resolve failed, no plan: see its error above
