# the runner must report a wrong expectation: this scenario expects a version
# the resolver will not pick (meson runs it with should_fail)
index pypi 0 tags <inline>
#>=Pkg: lib 1.0
#>=Pkg: lib 2.0
require <inline>
#>lib
result solution <inline>
#>install lib 1.0
