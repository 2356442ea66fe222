# the overview names every kind of INPUT, lock files included
args: --help
expect-exit: 0
expect-stdout: contains a lock file (uv.lock, pylock.toml), or - for standard
expect-stderr: <empty>
