# pre-releases: only when allowed, named by a root requirement, or when
# nothing else matches
env python=3.12.3
index pypi 0 tags <inline>
#>=Pkg: lib 1.0
#>=Pkg: lib 2.0b1
#>=Pkg: only 0.1a1
#>=Pkg: only 0.2a1
#>=Pkg: app 1.0
#>=Req: lib>=2.0b1
require <inline>
#>lib
result solution <inline>
#>install lib 1.0
next

require <inline>
#>lib>=2.0b1
result solution <inline>
#>install lib 2.0b1
next

flags allow-prerelease
require <inline>
#>lib
result solution <inline>
#>install lib 2.0b1
next

# nothing but pre-releases exist
require <inline>
#>only
result solution <inline>
#>install only 0.2a1
next

# a dependency naming a pre-release: nothing else matches, so it is used
require <inline>
#>app
result solution <inline>
#>install app 1.0
#>install lib 2.0b1
