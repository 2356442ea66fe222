# option values are checked before --version acts: `--color nevr -V` is an error
args: --color nevr -V
expect-exit: 2
expect-stderr: contains --color takes auto, always or never, not 'nevr'
