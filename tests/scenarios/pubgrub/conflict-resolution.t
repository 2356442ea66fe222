# performing conflict resolution
index pypi 0 tags <inline>
#>=Pkg: foo 1.0.0
#>=Pkg: foo 2.0.0
#>=Req: bar>=1.0.0,<2.0.0
#>=Pkg: bar 1.0.0
#>=Req: foo>=1.0.0,<2.0.0
require <inline>
#>foo>=1.0.0
result solution <inline>
#>install foo 1.0.0
