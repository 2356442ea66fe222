# '-' reads the requirements from standard input
args: --no-index -q --venv @SRC@/fixtures/venvs/rocm72 -
stdin: tests/cli/inputs/safe.txt
expect-exit: 0
expect-stdout: stdin.stdout
expect-stderr: <empty>
