# --format json and a usage error (the bad option before --format too): stdout holds one
# error object (data/error.schema.json) with the exit status and the message, nothing else
args: --no-such-option --format json tests/cli/inputs/safe.txt
expect-exit: 2
expect-stdout: json-error-usage.stdout
expect-stderr: contains unknown option '--no-such-option'
