# option values are checked before --help acts too
args: --format yaml --help
expect-exit: 2
expect-stderr: contains unknown format 'yaml'
